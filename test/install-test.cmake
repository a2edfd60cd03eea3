# Installs into a scratch prefix and runs what was installed.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
set(driver ${PREFIX}/${BINDIR}/libtorch-tidy)
set(plugin ${PREFIX}/${LIBDIR}/libtorch-tidy/LibTorchTidyModule.so)
foreach(f ${driver} ${plugin})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CLANG_TIDY} --load=${plugin} --checks=-*,torch-* --list-checks
  OUTPUT_VARIABLE plugin_out RESULT_VARIABLE rc)
execute_process(COMMAND ${driver} --checks=-*,torch-* --list-checks
  OUTPUT_VARIABLE driver_out RESULT_VARIABLE rc2)
if(rc OR rc2 OR NOT plugin_out MATCHES "torch-zero-grad" OR NOT driver_out MATCHES "torch-zero-grad")
  message(FATAL_ERROR "installed hosts do not list torch-zero-grad:\n${plugin_out}\n${driver_out}")
endif()
message(STATUS "installed ${driver} and ${plugin}")
