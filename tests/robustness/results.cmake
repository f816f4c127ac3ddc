# Issue 52 (hardening, fourth pass): results files the stores and the gate must not take at
# their word (N8: an injected slowdown; N17: a date in the future), rewritten with another
# mode (N13), or read in time quadratic in a point's samples (N14), each case a test that
# fails on 9605003. tests/robustness/results_cli.py says what each tries.
foreach(case n8 n13 n14 n17)
  add_test(NAME cli.results_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/results_cli.py $<TARGET_FILE:rooftop>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/results-robustness ${case})
  set_tests_properties(cli.results_${case} PROPERTIES LABELS "unit;cli" ENVIRONMENT "OMP_NUM_THREADS=1")
endforeach()
# 20,000 samples a point: under a second now, 55 s in compare alone before.
set_tests_properties(cli.results_n14 PROPERTIES TIMEOUT 20)
