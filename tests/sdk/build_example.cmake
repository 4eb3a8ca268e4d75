# Script mode: install the SDK, then configure and build the example against it.
file(REMOVE_RECURSE ${PREFIX} ${EXAMPLE_BUILD})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component sdk --prefix ${PREFIX}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "SDK install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${EXAMPLE_SRC} -B ${EXAMPLE_BUILD}
                        -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the example against the installed SDK failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${EXAMPLE_BUILD} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the example failed: ${rc}")
endif()
