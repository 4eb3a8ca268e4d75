# CUDA is optional: AUTO enables it when nvcc is found. Host and plugins share
# one cudart (the shared runtime), so device pointers and streams cross the
# plugin boundary safely.
set(ORCD_HAVE_CUDA OFF)
if(NOT ORCD_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # One architecture keeps CI lean (H100 = 90); packages pass a list.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 cannot ask nvcc for C++20; device code is written to C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    find_package(CUDAToolkit REQUIRED)
    set(ORCD_HAVE_CUDA ON)
  elseif(ORCD_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ORCD_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  endif()
endif()
