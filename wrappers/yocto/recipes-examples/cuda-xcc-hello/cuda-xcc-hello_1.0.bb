SUMMARY = "A CUDA program cross-built for the MACHINE's GPU through cuda-xcc"
DESCRIPTION = "The smallest cmake recipe that inherits cuda-xcc: a kernel and \
a launch that reports the CUDA runtime's answer. Set CUDA_XCC_FROM and add the \
CUDA packages to SRC_URI (see classes/cuda-xcc.bbclass)."
LICENSE = "CLOSED"

SRC_URI = "file://CMakeLists.txt file://hello.cu"
S = "${WORKDIR}"

CUDA_XCC_CUDA_VERSION ?= "11.8"

inherit cmake cuda-xcc
