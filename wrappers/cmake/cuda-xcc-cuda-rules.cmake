# Read by CMake after its own NVIDIA-CUDA rules (the toolchain file names it
# as CMAKE_USER_MAKE_RULES_OVERRIDE_CUDA), so what is set here wins.
#
# CMake spells nvcc's system includes "-isystem=DIR". ccache's base_dir
# rewriting turns an absolute path under base_dir into a relative one only
# where the path is an option's value of its own or follows "-isystem"
# directly, so with "=" every sysroot path enters the hash and two runners
# with their sysroots at different paths share nothing. nvcc reads
# "-isystem DIR" alike.
set(CMAKE_INCLUDE_SYSTEM_FLAG_CUDA "-isystem ")

# CMake's Makefile generators hand nvcc 11 and later its include directories
# in a response file ("--options-file includes_CUDA.rsp"), whose name sccache
# takes for a second input file: every CUDA compile "Non-cacheable: multiple
# input files". On the command line they are what ccache and sccache read.
set(CMAKE_CUDA_USE_RESPONSE_FILE_FOR_INCLUDES 0)
