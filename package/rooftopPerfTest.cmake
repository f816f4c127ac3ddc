# rooftop_add_perf_test(NAME <test> TARGET <program> BASELINES <dir>
#                       [SUITE <benchmark>] [BACKEND cpu|cuda] [TIER smoke|quick|full]
#                       [OUT <dir>] [LABELS <label>...])
#
# A CTest test, labelled perf, that runs `<program> perf-test`: the suite's tier is run and
# gated against this device's baseline in BASELINES. It passes, fails on a regression or a
# failed check, and is SKIPPED (exit 3) where BASELINES has no baseline for this device or
# the backend's device is not here; the log says how to make the baseline. SUITE defaults to
# NAME, BACKEND to cpu, TIER to quick, OUT to <build>/perf-test/<test>; a relative BASELINES
# is taken from the calling CMakeLists.txt's folder.
function(rooftop_add_perf_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET;BASELINES;SUITE;BACKEND;TIER;OUT" "LABELS")
  foreach(required NAME TARGET BASELINES)
    if(NOT arg_${required})
      message(FATAL_ERROR "rooftop_add_perf_test: ${required} is required (NAME <test> TARGET <program> BASELINES <dir>)")
    endif()
  endforeach()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rooftop_add_perf_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SUITE)
    set(arg_SUITE ${arg_NAME})
  endif()
  if(NOT arg_BACKEND)
    set(arg_BACKEND cpu)
  endif()
  if(NOT arg_TIER)
    set(arg_TIER quick)
  endif()
  if(NOT arg_OUT)
    set(arg_OUT ${CMAKE_CURRENT_BINARY_DIR}/perf-test/${arg_NAME})
  endif()
  get_filename_component(arg_BASELINES "${arg_BASELINES}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  add_test(NAME ${arg_NAME}
    COMMAND ${arg_TARGET} perf-test --suite ${arg_SUITE} --backend ${arg_BACKEND} --tier ${arg_TIER}
            --baselines ${arg_BASELINES} --out ${arg_OUT})
  # Serial: a perf test timed beside another measures both.
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "perf;${arg_LABELS}" SKIP_RETURN_CODE 3 RUN_SERIAL TRUE)
  if(NOT arg_LABELS)
    set_tests_properties(${arg_NAME} PROPERTIES LABELS perf)
  endif()
endfunction()
