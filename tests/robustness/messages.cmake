# Issue 52 (hardening, fourth pass): messages that said the wrong thing (N15: ab's exit line
# when interrupted, samples no run measures, a NUL byte of a tuned tile, a folder as an input
# file), a test that fails on 8528c35. tests/robustness/messages_cli.py says what each tries.
foreach(case n15)
  add_test(NAME cli.messages_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/messages_cli.py $<TARGET_FILE:rooftop>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/messages-robustness ${case})
  set_tests_properties(cli.messages_${case} PROPERTIES LABELS "unit;cli" ENVIRONMENT "OMP_NUM_THREADS=1")
endforeach()
