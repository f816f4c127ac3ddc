# Issue 35 (hardening, third pass): the outputs group's cases, each a test that fails on 0312b28.
# tests/robustness/outputs_cli.py CASE: one test a defect cause.
foreach(case unwritable same_file fifo stale_temp ab_broken_build interrupt everyday)
  add_test(NAME cli.outputs_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/outputs_cli.py ${case} $<TARGET_FILE:rooftop>
            ${CMAKE_CURRENT_BINARY_DIR}/outputs-${case} ${PROJECT_SOURCE_DIR}/docs/results/cpu-quick-gemm.json)
  set_tests_properties(cli.outputs_${case} PROPERTIES LABELS "unit;cli" TIMEOUT 300)
endforeach()
