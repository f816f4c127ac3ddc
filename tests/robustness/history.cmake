# Issue 35 (hardening, third pass): the history group's cases, each a test that fails on 0312b28.

# D6, D7: another application's SQLite file refused and left as it was; an older rooftop's
# history taken; a locked history said to be locked.
add_test(NAME cli.history_foreign_and_locked_db
  COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/history_db.py $<TARGET_FILE:rooftop>
          ${PROJECT_SOURCE_DIR}/docs/results/cpu-quick-gemm.json ${CMAKE_CURRENT_BINARY_DIR}/history-db)
set_tests_properties(cli.history_foreign_and_locked_db PROPERTIES LABELS "unit;cli" ENVIRONMENT ROOFTOP_HOME=${ROOFTOP_TEST_HOME})

# D8: NaN and infinity refused by every floating-point option (one shared validator).
set(_h35_results ${PROJECT_SOURCE_DIR}/docs/results/cpu-quick-gemm.json)
rooftop_cli_test(history_check_tau_nan 2 "--tau: 'nan' is not a finite number" history check --tau nan)
rooftop_cli_test(history_check_significance_nan 2 "--significance: 'nan' is not a finite number"
  history check --significance nan)
rooftop_cli_test(gate_tau_nan 2 "--tau: 'nan' is not a finite number" gate ${_h35_results} --tau nan)
rooftop_cli_test(gate_alpha_nan 2 "--alpha: 'nan' is not a finite number" gate ${_h35_results} --alpha nan)
rooftop_cli_test(compare_tau_inf 2 "--tau: 'inf' is not a finite number" compare ${_h35_results} ${_h35_results} --tau inf)
rooftop_cli_test(ab_alpha_nan 2 "--alpha: 'nan' is not a finite number" ab --a x --b y --alpha nan -- --suite gemm)
rooftop_cli_test(ab_tau_nan 2 "--tau: 'nan' is not a finite number" ab --a x --b y --tau nan -- --suite gemm)
rooftop_cli_test(tune_min_time_nan 2 "--min-time: 'nan' is not a finite number" tune --suite attention --min-time nan)
rooftop_cli_test(calibrate_slowdown_nan 2 "--slowdowns: 'nan' is not a finite number"
  gate-calibrate --aa ${_h35_results} ${_h35_results} --slowdowns 0.05,nan)
rooftop_cli_test(calibrate_injected_nan 2 "--injected 'nan=.*FRACTION a finite number"
  gate-calibrate --aa ${_h35_results} ${_h35_results} --injected nan=${_h35_results})

# D19: "no run" in words, a NUL byte escaped in a message, no tier named for a --shape run.
add_test(NAME cli.history_messages
  COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/history_messages.py $<TARGET_FILE:rooftop>
          ${PROJECT_SOURCE_DIR}/docs/results/cpu-quick-gemm.json ${CMAKE_CURRENT_BINARY_DIR}/history-messages)
set_tests_properties(cli.history_messages PROPERTIES LABELS "unit;cli" ENVIRONMENT ROOFTOP_HOME=${ROOFTOP_TEST_HOME})
