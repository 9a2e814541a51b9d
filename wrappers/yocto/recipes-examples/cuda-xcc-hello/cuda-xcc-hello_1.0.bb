SUMMARY = "A CUDA program cross-built for the MACHINE's GPU through cuda-xcc"
DESCRIPTION = "The smallest cmake recipe that inherits cuda-xcc: a kernel and \
a launch that reports the CUDA runtime's answer. Set CUDA_XCC_FROM and add the \
CUDA packages to SRC_URI (see classes/cuda-xcc.bbclass)."
LICENSE = "CLOSED"

SRC_URI = "file://CMakeLists.txt file://hello.cu"
S = "${WORKDIR}"

# CUDA 12.6 (JetPack 6) takes gcc up to 13, scarthgap's; 11.8 stops at gcc 11.
CUDA_XCC_CUDA_VERSION ?= "12.6"

inherit cmake cuda-xcc
