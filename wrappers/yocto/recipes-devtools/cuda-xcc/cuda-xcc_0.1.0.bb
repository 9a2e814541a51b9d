SUMMARY = "Cross-compile CUDA code for Jetson boards and Arm servers"
DESCRIPTION = "cuda-xcc builds split host/target CUDA sysroots from NVIDIA's \
redist archives, .deb packages or wheels, patches ELF files for the target \
and drives nvcc with the right cross compiler and validated -gencode flags."
HOMEPAGE = "https://example.invalid/cuda-xcc"
# cuda-xcc's own license is an open decision of the project: its sources
# carry no license file yet, so none is claimed here ("CLOSED" keeps OE from
# asking for a LIC_FILES_CHKSUM of a file that does not exist). The CUDA
# libraries it unpacks carry NVIDIA's own terms, which the recipes that ship
# them declare (classes/cuda-xcc.bbclass: Proprietary).
LICENSE = "CLOSED"

# By default the source tree this layer ships in (wrappers/yocto of a cuda-xcc
# checkout), built out of tree; a release tarball instead:
#   CUDA_XCC_SRC_URI = "file://cuda-xcc-${PV}.tar.gz"   (or an https:// URL)
#   SRC_URI[sha256sum] = "..."                          (with an URL)
CUDA_XCC_SRC_URI ??= ""
CUDA_XCC_SOURCE_TREE ??= "${@os.path.normpath(os.path.join(d.getVar('CUDA_XCC_LAYERDIR'), '..', '..'))}"
SRC_URI = "${CUDA_XCC_SRC_URI}"
S = "${@'${WORKDIR}/cuda-xcc-${PV}' if d.getVar('CUDA_XCC_SRC_URI') else '${CUDA_XCC_SOURCE_TREE}'}"
inherit ${@'' if d.getVar('CUDA_XCC_SRC_URI') else 'externalsrc'}
EXTERNALSRC = "${@'' if d.getVar('CUDA_XCC_SRC_URI') else d.getVar('CUDA_XCC_SOURCE_TREE')}"
EXTERNALSRC_BUILD = "${WORKDIR}/build"

DEPENDS = "elfutils libarchive cjson curl nettle"

inherit autotools pkgconfig

# Only the build machine runs cuda-xcc: recipes that compile CUDA code use
# cuda-xcc-native through classes/cuda-xcc.bbclass.
BBCLASSEXTEND = "native nativesdk"
