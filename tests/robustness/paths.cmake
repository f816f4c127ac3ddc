# Issue 52 (hardening, fourth pass): paths that name the wrong thing (N7, N9, N10), each case a
# test that fails on 8888ff0. tests/robustness/paths_cli.py says what each tries.
foreach(case n7 n9 n10)
  add_test(NAME cli.paths_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/paths_cli.py $<TARGET_FILE:rooftop>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/paths-robustness ${case})
  set_tests_properties(cli.paths_${case} PROPERTIES LABELS "unit;cli" ENVIRONMENT "OMP_NUM_THREADS=1")
endforeach()
