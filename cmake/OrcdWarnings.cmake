# Warnings are errors for everything the project compiles.
add_library(orcd_warnings INTERFACE)
target_compile_options(orcd_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)

# Host-side sanitizers (cmake -DORCD_SANITIZE=address,undefined; scripts/sanitize-test.sh).
# Every finding is fatal (-fno-sanitize-recover): UBSan would otherwise print
# and carry on, and the test that hit it would still pass.
set(ORCD_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list for host code")
if(ORCD_SANITIZE)
  target_compile_options(orcd_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${ORCD_SANITIZE} -fno-sanitize-recover=all
    -fno-omit-frame-pointer>)
  target_link_options(orcd_warnings INTERFACE -fsanitize=${ORCD_SANITIZE})
endif()

# libFuzzer targets (tests/fuzz; scripts/fuzz-smoke.sh): every project source
# gets libFuzzer's coverage instrumentation, the fuzz targets link its main.
# Clang only (GCC has no libFuzzer).
option(ORCD_FUZZ "Build the libFuzzer targets in tests/fuzz (Clang only)" OFF)
if(ORCD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ORCD_FUZZ needs Clang (CMAKE_CXX_COMPILER=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  target_compile_options(orcd_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=fuzzer-no-link>)
endif()
