# LibTorch from PyTorch's own wheel (PyPI's `torch`), as scripts/setup.sh installs it into the
# project's virtual environment (.venv), pinned in scripts/torch-requirement.txt.
#
# Why not find_package(Torch): the wheel's TorchConfig.cmake calls enable_language(CUDA) and
# find_package(CUDAToolkit REQUIRED) when LibTorch was built with CUDA, so a machine with only the
# NVIDIA driver (or no GPU at all) cannot configure against it. Nothing we compile is CUDA code:
# the wheel's shared libraries carry the kernels and find their CUDA runtime through their own
# RUNPATH (nvidia/*/lib beside torch/ in site-packages). So we import the libraries directly,
# which needs neither nvcc nor a CUDA home, and is the same code path with or without a GPU.
#
# Inputs (cache variables):
#   FOURIERLAB_TORCH_DIR     the `torch` package folder (…/site-packages/torch); found from
#                            FOURIERLAB_PYTHON when empty. A GPU machine with its own PyTorch
#                            points this at that installation.
#   FOURIERLAB_PYTHON        the interpreter whose `torch` is used; default: .venv/bin/python.
# Outputs:
#   fourierlab::torch        imported interface target: headers, libtorch, libtorch_cpu, libc10
#                            and, when the wheel has them, libtorch_cuda and libc10_cuda (linked
#                            even though nothing references them, so the CUDA backend registers).
#   Torch_VERSION            e.g. 2.15.0 (from torch/version.py, without the +cu132 suffix)
#   FOURIERLAB_TORCH_CUDA    the CUDA version the wheel was built with, empty for a CPU wheel

set(FOURIERLAB_PYTHON "${PROJECT_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
    "Python interpreter whose torch package provides LibTorch")
set(FOURIERLAB_TORCH_DIR "" CACHE PATH "The torch package folder (site-packages/torch)")

if(NOT FOURIERLAB_TORCH_DIR)
  if(NOT EXISTS "${FOURIERLAB_PYTHON}")
    message(FATAL_ERROR
      "LibTorch: no Python at ${FOURIERLAB_PYTHON}. Run scripts/setup.sh (it installs the pinned "
      "torch wheel into .venv), or pass -DFOURIERLAB_TORCH_DIR=/path/to/site-packages/torch.")
  endif()
  # find_spec locates the package without importing it (no CUDA initialisation, no GPU needed).
  execute_process(
    COMMAND "${FOURIERLAB_PYTHON}" -c
            "import importlib.util as u; s = u.find_spec('torch'); print(s.submodule_search_locations[0] if s else '')"
    OUTPUT_VARIABLE _fl_torch_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _fl_rc)
  if(NOT _fl_rc EQUAL 0 OR NOT _fl_torch_dir)
    message(FATAL_ERROR "LibTorch: ${FOURIERLAB_PYTHON} has no torch package; run scripts/setup.sh.")
  endif()
  set(FOURIERLAB_TORCH_DIR "${_fl_torch_dir}" CACHE PATH
      "The torch package folder (site-packages/torch)" FORCE)
endif()

set(_fl_lib "${FOURIERLAB_TORCH_DIR}/lib")
foreach(_fl_required include/torch/csrc/api/include/torch/torch.h lib/libtorch.so
        lib/libtorch_cpu.so lib/libc10.so version.py)
  if(NOT EXISTS "${FOURIERLAB_TORCH_DIR}/${_fl_required}")
    message(FATAL_ERROR "LibTorch: ${FOURIERLAB_TORCH_DIR} lacks ${_fl_required}; is it a torch wheel?")
  endif()
endforeach()

file(STRINGS "${FOURIERLAB_TORCH_DIR}/version.py" _fl_version_line REGEX "^__version__")
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" Torch_VERSION "${_fl_version_line}")
file(STRINGS "${FOURIERLAB_TORCH_DIR}/version.py" _fl_cuda_line REGEX "^cuda")
string(REGEX MATCH "[0-9]+\\.[0-9]+" FOURIERLAB_TORCH_CUDA "${_fl_cuda_line}")

add_library(fourierlab::torch INTERFACE IMPORTED GLOBAL)
# SYSTEM: LibTorch's headers are not ours to warn about.
target_include_directories(fourierlab::torch SYSTEM INTERFACE
  "${FOURIERLAB_TORCH_DIR}/include"
  "${FOURIERLAB_TORCH_DIR}/include/torch/csrc/api/include")
set(_fl_libs "${_fl_lib}/libtorch.so" "${_fl_lib}/libtorch_cpu.so" "${_fl_lib}/libc10.so")
if(EXISTS "${_fl_lib}/libtorch_cuda.so")
  # Nothing of ours calls into these, and the linker's --as-needed would drop them; loaded, they
  # register the CUDA backend (torch::cuda::is_available() is false without them).
  list(APPEND _fl_libs "-Wl,--no-as-needed" "${_fl_lib}/libtorch_cuda.so" "${_fl_lib}/libc10_cuda.so"
       "-Wl,--as-needed")
endif()
target_link_libraries(fourierlab::torch INTERFACE ${_fl_libs})
# The executables find LibTorch (and, through its own RUNPATH, the CUDA libraries) where the
# wheel lies, in the build tree and when run from it.
set(CMAKE_BUILD_RPATH "${_fl_lib}")

# The CUDA runtime's headers and library, which the CUDA wheel's nvidia-cuda-runtime dependency
# ships beside torch (no CUDA toolkit needed): what CUDA graphs need (core/engine/captured_step).
set(FOURIERLAB_CUDART "")
set(FOURIERLAB_CUDA_CRT_INCLUDE "" CACHE PATH
    "A folder holding the CUDA runtime's crt/ headers, where neither the Python environment nor a toolkit has them (scripts/gpu/build_lab.sh)")
if(EXISTS "${_fl_lib}/libtorch_cuda.so")
  file(GLOB _fl_cuda_runtime_headers
       "${FOURIERLAB_TORCH_DIR}/../nvidia/*/include/cuda_runtime_api.h"
       "${FOURIERLAB_TORCH_DIR}/../nvidia/cuda_runtime/include/cuda_runtime_api.h")
  # The runtime's headers include its C headers (crt/), which come in their own wheel
  # (nvidia-cuda-crt, scripts/torch-requirement.txt) or with a CUDA toolkit: compile what
  # captured_step.cpp includes to know.
  include(CheckCXXSourceCompiles)
  set(_fl_why "no CUDA runtime headers and libcudart beside LibTorch")
  foreach(_fl_header IN LISTS _fl_cuda_runtime_headers)
    get_filename_component(_fl_include "${_fl_header}" DIRECTORY)
    file(GLOB _fl_cudart "${_fl_include}/../lib/libcudart.so.[0-9]*")
    if(NOT _fl_cudart)
      continue()
    endif()
    set(CMAKE_REQUIRED_INCLUDES "${_fl_include}" ${FOURIERLAB_CUDA_CRT_INCLUDE}
        "${FOURIERLAB_TORCH_DIR}/include" "${FOURIERLAB_TORCH_DIR}/include/torch/csrc/api/include")
    set(CMAKE_REQUIRED_QUIET ON)
    unset(FOURIERLAB_CUDA_GRAPH_HEADERS_COMPILE CACHE)  # checked afresh: a wheel may have come
    check_cxx_source_compiles("
      #include <ATen/cuda/CUDAGraph.h>
      #include <c10/cuda/CUDAGuard.h>
      int main() { return cudaStreamCaptureModeThreadLocal; }" FOURIERLAB_CUDA_GRAPH_HEADERS_COMPILE)
    unset(CMAKE_REQUIRED_INCLUDES)
    if(NOT FOURIERLAB_CUDA_GRAPH_HEADERS_COMPILE)
      set(_fl_why "the CUDA runtime headers in ${_fl_include} do not compile (no crt/ headers: install nvidia-cuda-crt, as scripts/setup.sh does)")
      continue()
    endif()
    list(GET _fl_cudart 0 FOURIERLAB_CUDART)
    set(FOURIERLAB_CUDA_RUNTIME_INCLUDE "${_fl_include}" ${FOURIERLAB_CUDA_CRT_INCLUDE})
    get_filename_component(_fl_cudart_dir "${FOURIERLAB_CUDART}" DIRECTORY)
    list(APPEND CMAKE_BUILD_RPATH "${_fl_cudart_dir}")
    break()
  endforeach()
  if(FOURIERLAB_CUDART)
    message(STATUS "CUDA graphs: on (the CUDA runtime headers in ${FOURIERLAB_CUDA_RUNTIME_INCLUDE})")
  else()
    message(STATUS "CUDA graphs: off (${_fl_why}): CUDA steps run eagerly")
  endif()
endif()

if(FOURIERLAB_TORCH_CUDA)
  message(STATUS "LibTorch ${Torch_VERSION} (CUDA ${FOURIERLAB_TORCH_CUDA}) from ${FOURIERLAB_TORCH_DIR}")
else()
  message(STATUS "LibTorch ${Torch_VERSION} (CPU only) from ${FOURIERLAB_TORCH_DIR}")
endif()
