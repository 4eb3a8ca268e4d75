# Warnings are errors for everything the project compiles.
add_library(orcd_warnings INTERFACE)
target_compile_options(orcd_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra -Wpedantic -Werror -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)

# Host-side sanitizers for debugging (cmake -DORCD_SANITIZE=address,undefined).
set(ORCD_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list for host code")
if(ORCD_SANITIZE)
  target_compile_options(orcd_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${ORCD_SANITIZE} -fno-omit-frame-pointer>)
  target_link_options(orcd_warnings INTERFACE -fsanitize=${ORCD_SANITIZE})
endif()
