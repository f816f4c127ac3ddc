# Issue 52 (hardening, fourth pass): inference inputs taken other than as given (N6: a serve
# load's options missing from its point's name; N12: lenient parsing; N16: a checkpoint's
# config.json run with random weights), each case a test that fails on 8528c35.
# tests/robustness/inputs_cli.py says what each tries. One thread: OpenMP spinning on a
# loaded 2-core machine took 10 s a run.
foreach(case n6 n12 n16)
  add_test(NAME cli.inputs_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/inputs_cli.py $<TARGET_FILE:rooftop>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/inputs-robustness ${case})
  set_tests_properties(cli.inputs_${case} PROPERTIES LABELS "unit;cli" ENVIRONMENT "OMP_NUM_THREADS=1")
endforeach()
