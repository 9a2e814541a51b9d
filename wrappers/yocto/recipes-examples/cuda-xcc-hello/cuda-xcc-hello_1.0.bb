SUMMARY = "A CUDA program cross-built for the MACHINE's GPU through cuda-xcc"
DESCRIPTION = "The smallest cmake recipe that inherits cuda-xcc: a kernel and \
a launch that reports the CUDA runtime's answer. It builds against the shared \
CUDA sysroot of cuda-xcc-sysroot (give that recipe the CUDA packages: see its \
recipe) and depends at run time on its cuda-cudart package."
LICENSE = "CLOSED"

SRC_URI = "file://CMakeLists.txt file://hello.cu"
# The fetcher's directory: UNPACKDIR from styhead (5.1) on, where file://
# sources land (whinlatter, wrynose, blacksail); scarthgap has none and
# unpacks into WORKDIR. Only scarthgap's parse is tested here.
S = "${@d.getVar('UNPACKDIR') or d.getVar('WORKDIR')}"

inherit cmake cuda-xcc
