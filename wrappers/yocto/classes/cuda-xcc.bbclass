# Build CUDA code for the MACHINE with cuda-xcc.
#
#   inherit cuda-xcc
#   CUDA_XCC_CUDA_VERSION = "12.6"
#   CUDA_XCC_ARCH = "sm_87"            # the board: Orin 8.7, Xavier 7.2, Thor 11.0
#   CUDA_XCC_FROM = "${WORKDIR}/redistrib_12.6.3.json"   # or .deb / .whl files
#
# The sysroot is created once per recipe in ${CUDA_XCC_SYSROOT} from verified
# archives (cuda-xcc refuses any sha256 or size mismatch), compiled and linked
# against the image's own root filesystem (--target-fs), so the programs need
# no newer glibc than the image has. cmake recipes get the toolchain settings;
# others call ${CUDA_XCC} as their CUDA compiler.

DEPENDS:append = " cuda-xcc-native"

CUDA_XCC ?= "cuda-xcc"
CUDA_XCC_TARGET ?= "jetson"
CUDA_XCC_CUDA_VERSION ??= ""
CUDA_XCC_ARCH ??= ""
CUDA_XCC_FROM ??= ""
CUDA_XCC_COMPONENTS ??= ""
CUDA_XCC_SYSROOT ?= "${WORKDIR}/cuda-xcc-sysroot"

export CUDA_XCC_SYSROOT

python () {
    for var in ("CUDA_XCC_CUDA_VERSION", "CUDA_XCC_ARCH"):
        if not d.getVar(var):
            bb.fatal("%s must be set by recipes that inherit cuda-xcc" % var)
}

do_cuda_xcc_sysroot() {
    set -- --target ${CUDA_XCC_TARGET} --cuda ${CUDA_XCC_CUDA_VERSION} \
        -arch ${CUDA_XCC_ARCH} --dest ${CUDA_XCC_SYSROOT} --progress never \
        --target-fs ${STAGING_DIR_TARGET}
    for src in ${CUDA_XCC_FROM}; do
        set -- "$@" --from "$src"
    done
    if [ -n "${CUDA_XCC_COMPONENTS}" ]; then
        set -- "$@" --components "${CUDA_XCC_COMPONENTS}"
    fi
    ${CUDA_XCC} sysroot create "$@"
}
do_cuda_xcc_sysroot[depends] += "cuda-xcc-native:do_populate_sysroot"
do_cuda_xcc_sysroot[network] = "1"
addtask cuda_xcc_sysroot after do_prepare_recipe_sysroot before do_configure

# For cmake.bbclass recipes: nvcc from the sysroot, the MACHINE's cross g++ as
# host compiler, and the architectures validated by cuda-xcc.
EXTRA_OECMAKE:append = " \
    -DCMAKE_CUDA_COMPILER=${CUDA_XCC_SYSROOT}/bin/nvcc \
    -DCMAKE_CUDA_HOST_COMPILER=${CXX_FOR_CUDA} \
    -DCUDAToolkit_ROOT=${CUDA_XCC_SYSROOT} \
    -DCMAKE_CUDA_ARCHITECTURES=${@d.getVar('CUDA_XCC_ARCH').replace('sm_', '')}-real \
"
CXX_FOR_CUDA ?= "${TARGET_PREFIX}g++"
