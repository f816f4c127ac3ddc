# Issue 35 (hardening, third pass): the store group's cases, each a test that fails on 0312b28.
# tests/robustness/store_cli.py says what each case tries.
foreach(case d1_update_all_or_nothing d12_no_link_in_store d11_store_filesystem_errors d9_invalid_tuned_tile
        d10_tuning_of_another_device)
  string(REGEX MATCH "^d[0-9]+" id "${case}")
  add_test(NAME cli.store_${case}
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/robustness/store_cli.py $<TARGET_FILE:rooftop>
            ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/store-robustness ${id})
  set_tests_properties(cli.store_${case} PROPERTIES LABELS "unit;cli")
endforeach()
