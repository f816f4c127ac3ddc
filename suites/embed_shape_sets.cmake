# rooftop_embed_shape_sets(TARGET OUTPUT_CPP): compiles every suites/<family>/shapes/<tier>.txt
# (and every suites/<family>/models/<name>.json) into TARGET. At build time, and again whenever one of the files changes,
# write_shape_sets.cmake writes OUTPUT_CPP (relative paths are under the current binary
# directory), which defines rooftop::embedded_shape_set(family, tier) (suites/shape_data.hpp).
# Call it from suites/CMakeLists.txt: the files are globbed under the current source directory.
set(ROOFTOP_WRITE_SHAPE_SETS ${CMAKE_CURRENT_LIST_DIR}/write_shape_sets.cmake)

function(rooftop_embed_shape_sets target output_cpp)
  if(NOT IS_ABSOLUTE "${output_cpp}")
    set(output_cpp ${CMAKE_CURRENT_BINARY_DIR}/${output_cpp})
  endif()
  # CONFIGURE_DEPENDS: a shape-set file added or removed re-runs the configure step.
  file(GLOB shape_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*/shapes/*.txt
                                         ${CMAKE_CURRENT_SOURCE_DIR}/*/models/*.json)
  set(relative)
  foreach(file IN LISTS shape_files)
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR} ${file})
    list(APPEND relative ${rel})
  endforeach()
  # A list's ';' does not survive a command line on every generator: pass the names joined by '|'.
  string(REPLACE ";" "|" joined "${relative}")
  add_custom_command(
    OUTPUT ${output_cpp}
    COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_CURRENT_SOURCE_DIR} "-DFILES=${joined}" -DOUTPUT=${output_cpp}
            -P ${ROOFTOP_WRITE_SHAPE_SETS}
    DEPENDS ${shape_files} ${ROOFTOP_WRITE_SHAPE_SETS}
    COMMENT "Embedding the suites' shape sets"
    VERBATIM)
  target_sources(${target} PRIVATE ${output_cpp})
endfunction()
