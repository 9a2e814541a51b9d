SUMMARY = "A CUDA program cross-built for the MACHINE's GPU through cuda-xcc"
DESCRIPTION = "The smallest cmake recipe that inherits cuda-xcc: a kernel and \
a launch that reports the CUDA runtime's answer. It builds against the shared \
CUDA sysroot of cuda-xcc-sysroot (give that recipe the CUDA packages: see its \
recipe) and depends at run time on its cuda-cudart package."
LICENSE = "CLOSED"

SRC_URI = "file://CMakeLists.txt file://hello.cu"
S = "${WORKDIR}"

inherit cmake cuda-xcc
