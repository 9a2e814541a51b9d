SUMMARY = "Cross-compile CUDA code for Jetson boards and Arm servers"
DESCRIPTION = "cuda-xcc builds split host/target CUDA sysroots from NVIDIA's \
redist archives, .deb packages or wheels, patches ELF files for the target \
and drives nvcc with the right cross compiler and validated -gencode flags."
HOMEPAGE = "https://example.invalid/cuda-xcc"
LICENSE = "CLOSED"

# Point SRC_URI at a release tarball (make dist) or a git checkout.
SRC_URI = "file://cuda-xcc-${PV}.tar.gz"
S = "${WORKDIR}/cuda-xcc-${PV}"

DEPENDS = "elfutils libarchive cjson curl openssl"

inherit autotools pkgconfig

# Only the build machine runs cuda-xcc: recipes that compile CUDA code use
# cuda-xcc-native through classes/cuda-xcc.bbclass.
BBCLASSEXTEND = "native nativesdk"
