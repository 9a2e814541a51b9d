# What the shared CUDA sysroot (recipes-devtools/cuda-xcc-sysroot) and the
# recipes that compile against it (classes/cuda-xcc.bbclass) must agree on:
# the CUDA release, the target and the GPUs, set once for the build (the
# MACHINE or local.conf), and where the sysroot lies in a recipe sysroot.

CUDA_XCC ?= "cuda-xcc"
CUDA_XCC_TARGET ??= "jetson"
# CUDA 12.6 (JetPack 6) takes gcc up to 13, scarthgap's; 11.8 stops at gcc 11.
# meta-tegra's machines set CUDA_VERSION ("12.6", "13.0"): the build's then.
CUDA_XCC_CUDA_VERSION ??= "${@d.getVar('CUDA_VERSION') or '12.6'}"
CUDA_ARCHITECTURES ??= ""
CUDA_XCC_ARCH ??= "${CUDA_ARCHITECTURES}"

# The whole sysroot (host side and target side: nvcc finds its target
# directory beside itself) in the recipe sysroot of every recipe that
# depends on cuda-xcc-sysroot. Nothing under it reaches a package.
CUDA_XCC_SYSROOT_PATH ?= "${prefix}/local/cuda-xcc"

python () {
    # A layer must not break a build that does not use it: without a CUDA
    # version or GPUs (poky's own MACHINEs set no CUDA_ARCHITECTURES) the
    # recipe is skipped, and bitbake gives the reason only when it is asked
    # for, as for any incompatible recipe.
    for var in ("CUDA_XCC_CUDA_VERSION", "CUDA_XCC_ARCH"):
        if not d.getVar(var):
            raise bb.parse.SkipRecipe("%s is not set: cuda-xcc needs the CUDA version and "
                                      "the GPUs (CUDA_XCC_ARCH defaults to the MACHINE's "
                                      "CUDA_ARCHITECTURES, e.g. \"87\" for Orin)" % var)
}

# The arguments that name the GPUs: "87", "sm_87,8.7" and "87 72" all work.
def cuda_xcc_arch_args(d):
    caps = d.getVar("CUDA_XCC_ARCH").replace(",", " ").split()
    return " ".join("-arch %s" % c for c in caps)

# cuda_xcc_target_dir SYSROOT: its one target directory (aarch64-linux,
# sbsa-linux), as cuda-xcc's opener of a sysroot reads it; against this
# recipe's own staging tree, which staging wrote into the sysroot's record.
cuda_xcc_target_dir() {
    ${CUDA_XCC} toolchain query --sysroot "$1" --target-fs "${STAGING_DIR_TARGET}" \
        --get target_dir
}
