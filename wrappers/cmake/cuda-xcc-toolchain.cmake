# CMake toolchain file for cross-compiling CUDA code with a cuda-xcc sysroot.
#
#   cmake -S . -B build \
#         -DCMAKE_TOOLCHAIN_FILE=/path/to/cuda-xcc-toolchain.cmake \
#         -DCUDA_XCC_SYSROOT=/path/to/sysroot \
#         -DCUDA_XCC_ARCH=sm_87              # optional; else the sysroot's capabilities
#
# Optional: CUDA_XCC_TARGET_FS (the device's root filesystem: glibc, libstdc++),
# CUDA_XCC_EXECUTABLE (the cuda-xcc binary; else found on PATH).
#
# nvcc itself is the CUDA compiler (CMake parses its -v output and reads the
# INCLUDES/LIBRARIES of the sysroot's nvcc.profile); cuda-xcc validates the
# architectures at configure time, so a bad GPU/CUDA/target combination fails
# here with cuda-xcc's message instead of deep inside nvcc.
cmake_minimum_required(VERSION 3.19)

# Toolchain files are read again by try_compile projects: pass the settings on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
	CUDA_XCC_SYSROOT CUDA_XCC_ARCH CUDA_XCC_TARGET_FS CUDA_XCC_EXECUTABLE)

if(NOT CUDA_XCC_SYSROOT AND DEFINED ENV{CUDA_XCC_SYSROOT})
	set(CUDA_XCC_SYSROOT "$ENV{CUDA_XCC_SYSROOT}")
endif()
if(NOT CUDA_XCC_SYSROOT)
	message(FATAL_ERROR "cuda-xcc: set CUDA_XCC_SYSROOT to a sysroot made by "
		"'cuda-xcc sysroot create' (-DCUDA_XCC_SYSROOT=DIR or the environment)")
endif()
if(NOT EXISTS "${CUDA_XCC_SYSROOT}/sysroot.json")
	message(FATAL_ERROR "cuda-xcc: ${CUDA_XCC_SYSROOT} is not a cuda-xcc sysroot "
		"(no sysroot.json); create one with 'cuda-xcc sysroot create'")
endif()

file(READ "${CUDA_XCC_SYSROOT}/sysroot.json" _xcc_meta)
string(JSON _xcc_target GET "${_xcc_meta}" target)
string(JSON _xcc_cuda GET "${_xcc_meta}" cuda)
string(JSON _xcc_target_dir GET "${_xcc_meta}" target_dir)
string(JSON _xcc_hostcc ERROR_VARIABLE _xcc_err GET "${_xcc_meta}" host_compiler)
if(_xcc_err OR NOT _xcc_hostcc)
	message(FATAL_ERROR "cuda-xcc: ${CUDA_XCC_SYSROOT}/sysroot.json names no host compiler")
endif()
# aarch64-linux-gnu-g++-11 -> aarch64-linux-gnu and -11
string(REGEX REPLACE "-g\\+\\+(-[0-9]+)?$" "" _xcc_triple "${_xcc_hostcc}")
string(REGEX MATCH "-[0-9]+$" _xcc_gcc_suffix "${_xcc_hostcc}")

if(NOT CUDA_XCC_EXECUTABLE)
	find_program(CUDA_XCC_EXECUTABLE cuda-xcc REQUIRED)
endif()

set(CMAKE_SYSTEM_NAME Linux)
string(REGEX REPLACE "-.*" "" CMAKE_SYSTEM_PROCESSOR "${_xcc_triple}")

find_program(_xcc_cxx "${_xcc_hostcc}" REQUIRED)
find_program(_xcc_cc "${_xcc_triple}-gcc${_xcc_gcc_suffix}" REQUIRED)
set(CMAKE_C_COMPILER "${_xcc_cc}")
set(CMAKE_CXX_COMPILER "${_xcc_cxx}")
set(CMAKE_CUDA_COMPILER "${CUDA_XCC_SYSROOT}/bin/nvcc")
set(CMAKE_CUDA_HOST_COMPILER "${_xcc_cxx}")
set(CMAKE_CUDA_FLAGS_INIT "-target-dir ${_xcc_target_dir}")
set(CUDAToolkit_ROOT "${CUDA_XCC_SYSROOT}")
# FindCUDAToolkit before CMake 3.27 only knows targets/aarch64-linux for
# aarch64 and would miss an sbsa-linux sysroot; name the target dir for it.
set(CUDAToolkit_TARGET_DIR "${CUDA_XCC_SYSROOT}/targets/${_xcc_target_dir}")

# The architectures, validated for this target and CUDA version.
if(NOT CMAKE_CUDA_ARCHITECTURES)
	set(_xcc_arch_args)
	if(CUDA_XCC_ARCH)
		set(_xcc_arch_args -arch "${CUDA_XCC_ARCH}")
	else()
		string(JSON _xcc_ncaps LENGTH "${_xcc_meta}" capabilities)
		if(_xcc_ncaps GREATER 0)
			math(EXPR _xcc_last "${_xcc_ncaps} - 1")
			foreach(_i RANGE ${_xcc_last})
				string(JSON _xcc_cap GET "${_xcc_meta}" capabilities ${_i})
				list(APPEND _xcc_arch_args -arch "${_xcc_cap}")
			endforeach()
		endif()
	endif()
	execute_process(
		COMMAND "${CUDA_XCC_EXECUTABLE}" flags --target "${_xcc_target}" --cuda "${_xcc_cuda}"
			${_xcc_arch_args} --format cmake
		OUTPUT_VARIABLE _xcc_archs ERROR_VARIABLE _xcc_arch_err
		RESULT_VARIABLE _xcc_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
	if(NOT _xcc_rc EQUAL 0)
		message(FATAL_ERROR "${_xcc_arch_err}")
	endif()
	set(CMAKE_CUDA_ARCHITECTURES "${_xcc_archs}" CACHE STRING "validated by cuda-xcc")
endif()

# Look for the target's headers and libraries only inside the sysroot (and
# the device's root filesystem); programs come from the build machine.
set(CMAKE_FIND_ROOT_PATH "${CUDA_XCC_SYSROOT}/targets/${_xcc_target_dir}" "${CUDA_XCC_SYSROOT}")
if(CUDA_XCC_TARGET_FS)
	list(APPEND CMAKE_FIND_ROOT_PATH "${CUDA_XCC_TARGET_FS}")
	set(CMAKE_SYSROOT "${CUDA_XCC_TARGET_FS}")
	string(APPEND CMAKE_CUDA_FLAGS_INIT " -Xcompiler=--sysroot=${CUDA_XCC_TARGET_FS}")
elseif(EXISTS "/usr/${_xcc_triple}/lib")
	# Debian's cross toolchains keep the target's C library (librt, libdl...) here.
	list(APPEND CMAKE_FIND_ROOT_PATH "/usr/${_xcc_triple}")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
