# Issue 52 (hardening, fourth pass): ci/nightly.sh's exit codes (N11: a missing binary, a bad
# tier, an unwritable step summary, a refused history, HOME unset), a test that fails on
# 8528c35. tests/robustness/nightly_cli.py says what each case tries; a stand-in rooftop
# plays the measuring commands, so nothing is timed.
foreach(case n11)
  add_test(NAME cli.nightly_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/nightly_cli.py $<TARGET_FILE:rooftop>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/nightly-robustness ${case})
  set_tests_properties(cli.nightly_${case} PROPERTIES LABELS "unit;cli")
endforeach()
