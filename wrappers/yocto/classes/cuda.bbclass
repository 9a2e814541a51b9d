# meta-tegra's class name, for its recipes ("inherit cuda") in a build that
# takes CUDA from this layer: the cuda-xcc class under meta-tegra's names
# (CUDA_VERSION, CUDA_NVCC_ARCH_FLAGS, CUDA_NVCC_FLAGS, CUDAFLAGS,
# CUDAHOSTCXX, CUDA_PATH). With meta-tegra in the build its own cuda.bbclass
# comes first on BBPATH and this one is not read.
#
# What a meta-tegra recipe may still need changed, said once here: its
# DEPENDS on cuda-libraries or cuda-*-native is none of this layer's (the
# sysroot recipe provides cuda-cudart, libcublas, ... by component, not
# those); drop them, or name the components in CUDA_XCC_COMPONENTS.

inherit cuda-xcc

# Makefile recipes (meta-tegra's cuda-samples) take the toolkit's root and
# nvcc from these.
export CUDA_PATH = "${CUDA_XCC_SYSROOT}"
export CUDA_TOOLKIT_ROOT = "${CUDA_XCC_SYSROOT}"
export CUDA_NVCC_EXECUTABLE = "${CUDA_XCC_NVCC}"

python () {
    # meta-tegra's own CUDA recipes, which this layer's sysroot replaces: a
    # recipe naming them is skipped with the one change to make, and the
    # rest of the build parses on.
    theirs = ("cuda-libraries", "cuda-compiler-native", "cuda-cudart-native",
              "tegra-cmake-overrides")
    named = [x for x in (d.getVar("DEPENDS") or "").split() if x in theirs]
    if named:
        raise bb.parse.SkipRecipe("DEPENDS names meta-tegra's %s, which the cuda-xcc layer "
                                  "replaces with cuda-xcc-sysroot (added by the class): "
                                  "drop %s from DEPENDS" % (" ".join(named),
                                  "it" if len(named) == 1 else "them"))
}
