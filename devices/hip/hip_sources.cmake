# rooftop_add_hip_sources(TARGET SOURCE...): the GPU sources (.cu, shared with the CUDA build)
# compiled by hipcc as HIP for ROOFTOP_HIP_ARCHITECTURES, their objects added to TARGET.
# CMake 3.25's HIP language cannot find Debian 12's ROCm CMake files, hence custom commands.
# The objects are also kept in the target property ROOFTOP_HIP_OBJECTS, for libraries that
# are made of TARGET's objects ($<TARGET_OBJECTS> lists only the ones CMake compiled).
function(rooftop_add_hip_sources target)
  # -Wno-unused-result: as for the C++ sources (CMakeLists.txt, rooftop_warnings).
  set(flags -std=c++20 -fPIC -O3 -DNDEBUG -Wall -Wextra -Wno-unused-result -DROOFTOP_HIP -DROOFTOP_HAVE_HIP
            -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/api)
  if(ROOFTOP_WARNINGS_AS_ERRORS)
    list(APPEND flags -Werror)
  endif()
  foreach(arch IN LISTS ROOFTOP_HIP_ARCHITECTURES)
    list(APPEND flags --offload-arch=${arch})
  endforeach()
  foreach(source IN LISTS ARGN)
    get_filename_component(path ${source} ABSOLUTE)
    file(RELATIVE_PATH name ${PROJECT_SOURCE_DIR} ${path})
    set(object ${PROJECT_BINARY_DIR}/hip-objects/${name}.o)
    add_custom_command(OUTPUT ${object}
      COMMAND ${ROOFTOP_HIPCC} ${flags} -x hip -c ${path} -o ${object} -MD -MF ${object}.d
      DEPENDS ${path} DEPFILE ${object}.d
      COMMENT "Building HIP object hip-objects/${name}.o" VERBATIM)
    target_sources(${target} PRIVATE ${object})
    set_property(TARGET ${target} APPEND PROPERTY ROOFTOP_HIP_OBJECTS ${object})
  endforeach()
endfunction()
