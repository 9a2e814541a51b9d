# Build CUDA code for the MACHINE with cuda-xcc.
#
#   inherit cmake cuda-xcc          (or: inherit meson cuda-xcc)
#
# The CUDA sysroot is the build's one cuda-xcc-sysroot (its recipe says how
# to give it the CUDA packages or archives), which every such recipe depends
# on and finds in its recipe sysroot: it is made once, and comes from sstate
# after that. The CUDA release (CUDA_XCC_CUDA_VERSION, default 12.6), the
# target (CUDA_XCC_TARGET, default jetson) and the GPUs (CUDA_XCC_ARCH,
# default the MACHINE's CUDA_ARCHITECTURES, which meta-tegra's machine
# configurations set: "87" for Orin) are the build's (classes/
# cuda-xcc-base.bbclass), not a recipe's.
#
# cmake recipes get nvcc, the MACHINE's full compiler command (tune flags and
# --sysroot) as nvcc's host compiler, the build's own ar and the architectures
# validated by cuda-xcc, through an initial CMake cache written by the
# setup task. meson recipes get a cross file for CUDA (meson-cuda.cross, as
# meta-tegra names it). Others call ${CUDA_XCC_DRIVER} as their CUDA
# compiler.
#
# meta-tegra's interface, where the names mean the same: CXX_FOR_CUDA is
# nvcc's host compiler command (default: the MACHINE's CXX; set it to a
# compiler the CUDA release accepts when the MACHINE's is too new),
# CUDA_NVCC_FLAGS is made of CUDA_NVCC_ARCH_FLAGS, CUDA_NVCC_COMPAT_FLAGS and
# CUDA_NVCC_EXTRA_FLAGS, CUDAFLAGS, CUDAHOSTCXX and CUDACXX are exported
# (CMake takes CUDAFLAGS as the initial CMAKE_CUDA_FLAGS), and
# OECMAKE_CUDA_COMPILER_LAUNCHER is ccache where the ccache class is
# inherited. What a build cannot do without (-target-dir, -arbin, the host
# compiler's tune flags and --sysroot) is not in CMAKE_CUDA_FLAGS, which a
# recipe's own -DCMAKE_CUDA_FLAGS replaces, but in the CUDA compiler itself:
# CUDACXX and CMAKE_CUDA_COMPILER are ${CUDA_XCC_NVCC}, a script that runs
# the sysroot's nvcc with them.
#
# The CUDA runtime libraries are cuda-xcc-sysroot's packages (cuda-cudart,
# libcublas...): ${PN} depends at run time on CUDA_XCC_RDEPENDS (default
# cuda-cudart), and on those of the libraries it links (shlibs).

inherit cuda-xcc-base

DEPENDS:append = " cuda-xcc-native cuda-xcc-sysroot"

CUDA_XCC_SYSROOT ?= "${STAGING_DIR_HOST}${CUDA_XCC_SYSROOT_PATH}"
CUDA_XCC_CMAKE_CACHE ?= "${WORKDIR}/cuda-xcc-cache.cmake"
CUDA_XCC_MESON_CROSS ?= "${WORKDIR}/meson-cuda.cross"
CUDA_XCC_RDEPENDS ??= "cuda-cudart"
RDEPENDS:${PN}:append = " ${CUDA_XCC_RDEPENDS}"

# The package's GPU code is the MACHINE's, not the tune's: meta-tegra's SoC
# package arch where the MACHINE has one (SOC_FAMILY_PKGARCH, "tegra234"),
# else MACHINE_ARCH, so two machines of one tune with other GPUs never
# publish the same package.
CUDA_XCC_PACKAGE_ARCH ??= "${@d.getVar('SOC_FAMILY_PKGARCH') or d.getVar('MACHINE_ARCH')}"
PACKAGE_ARCH = "${CUDA_XCC_PACKAGE_ARCH}"

# nvcc's host compiler command, as meta-tegra's cuda-gcc class names it:
# the MACHINE's own by default.
CXX_FOR_CUDA ??= "${CXX}"

# Its compiler word (past a ccache launcher) and its target flags (tune,
# --sysroot), handed to nvcc with -Xcompiler.
def cuda_xcc_split_cxx(d):
    words = (d.getVar("CXX_FOR_CUDA") or "").split()
    if words and os.path.basename(words[0]) == "ccache":
        words = words[1:]
    return words or [""]

CUDA_XCC_HOST_CXX ?= "${@cuda_xcc_split_cxx(d)[0]}"
CUDA_XCC_HOST_CXX_FLAGS ?= "${@' '.join(cuda_xcc_split_cxx(d)[1:])}"
CUDA_XCC_XCOMPILER = "${@','.join(d.getVar('CUDA_XCC_HOST_CXX_FLAGS').split())}"

# The class's prefix maps (oe-core's DEBUG_PREFIX_MAP: ${S}, ${B} and the
# recipe sysroots, where this CUDA sysroot lies), for nvcc's host compiler in
# every pass that preprocesses or compiles: without them __FILE__ (CUB's,
# Thrust's) and -g's DWARF name TMPDIR, which the buildpaths QA check
# rejects. Each word through its own -Xcompiler, as meta-tegra forwards it.
# -fcanon-prefix-map is left out: CUDA releases that stop before gcc 13
# take an older CXX_FOR_CUDA, which refuses it.
CUDA_XCC_PREFIX_MAP ?= "${@' '.join(w for w in (d.getVar('DEBUG_PREFIX_MAP') or '').split() if w != '-fcanon-prefix-map')}"
CUDA_XCC_PREFIX_MAP_ARGS = "${@' '.join('-Xcompiler=' + w for w in d.getVar('CUDA_XCC_PREFIX_MAP').split())}"

# nvcc with what every compilation needs; written by the setup task.
CUDA_XCC_NVCC ?= "${WORKDIR}/cuda-xcc-bin/nvcc"

# The driver, for recipes that are not cmake or meson ones. nvcc's options
# are spelled -name=VALUE, one word each, as ccache and sccache parse them
# (sccache takes a separate value for a second input file).
CUDA_XCC_DRIVER = "${CUDA_XCC} --sysroot ${CUDA_XCC_SYSROOT} --target-fs ${STAGING_DIR_TARGET} \
    -ccbin=${CUDA_XCC_HOST_CXX} ${CUDA_XCC_XCOMPILER_ARG} ${CUDA_XCC_PREFIX_MAP_ARGS} -arbin=${AR}"

# ccache (or sccache) in front of nvcc, as meta-tegra sets it: the ccache
# class's CCACHE. ccache's own compiler check (oe-core's
# CCACHE_COMPILERCHECK runs "%compiler% -dumpspecs", which nvcc does not
# know) gives way to the sysroot's fingerprint for the CUDA compiler only.
OECMAKE_CUDA_COMPILER_LAUNCHER ?= "${@(d.getVar('CCACHE') or '').strip()}"

# meta-tegra's flag parts: machines and recipes append to them. The
# architectures reach CMake as CMAKE_CUDA_ARCHITECTURES (validated by
# cuda-xcc); CUDA_NVCC_ARCH_FLAGS is for recipes that call nvcc themselves.
# For one GPU as meta-tegra's machines set it ("--gpu-architecture=compute_87
# --gpu-code=sm_87" for Orin), for several one -gencode each: SASS only, as
# for every Jetson build. Makefile recipes (cuda-samples' SMS) read it.
def cuda_xcc_nvcc_arch_flags(d):
    caps = [c.lower().replace("sm_", "").replace(".", "")
            for c in (d.getVar("CUDA_XCC_ARCH") or "").replace(",", " ").split()]
    if len(caps) == 1:
        return "--gpu-architecture=compute_%s --gpu-code=sm_%s" % (caps[0], caps[0])
    return " ".join("-gencode=arch=compute_%s,code=sm_%s" % (c, c) for c in caps)
CUDA_NVCC_ARCH_FLAGS ??= "${@cuda_xcc_nvcc_arch_flags(d)}"
CUDA_NVCC_COMPAT_FLAGS ??= ""
CUDA_NVCC_EXTRA_FLAGS ??= ""
# cmake and meson recipes get the GPUs as CMAKE_CUDA_ARCHITECTURES and in the
# cross file, validated: the arch flags again in CUDAFLAGS would add a second
# set. Others (Makefiles) get them in CUDA_NVCC_FLAGS, as meta-tegra's do.
def cuda_xcc_flags_arch(d):
    if bb.data.inherits_class("cmake", d) or bb.data.inherits_class("meson", d):
        return ""
    return d.getVar("CUDA_NVCC_ARCH_FLAGS") or ""
CUDA_NVCC_FLAGS ?= "${@cuda_xcc_flags_arch(d)} ${CUDA_NVCC_COMPAT_FLAGS} ${CUDA_NVCC_EXTRA_FLAGS}"
export CUDAHOSTCXX = "${CUDA_XCC_HOST_CXX}"
# (nvcc refuses an empty -Xcompiler=: a CXX_FOR_CUDA without flags has none)
CUDA_XCC_XCOMPILER_ARG = "${@'-Xcompiler=' + d.getVar('CUDA_XCC_XCOMPILER') if d.getVar('CUDA_XCC_XCOMPILER') else ''}"
export CUDAFLAGS = "${CUDA_NVCC_FLAGS} ${CUDA_XCC_XCOMPILER_ARG}"
export CUDACXX = "${CUDA_XCC_NVCC}"

export CUDA_XCC_SYSROOT

python () {
    for var in ("CUDA_XCC_HOST_CXX_FLAGS", "CUDA_XCC_PREFIX_MAP"):
        for flag in d.getVar(var).split():
            if "," in flag:
                bb.fatal("%s holds %s: nvcc splits -Xcompiler values at commas" % (var, flag))
}

do_cuda_xcc_setup() {
    sr=${CUDA_XCC_SYSROOT}
    if [ ! -f "$sr/sysroot.json" ]; then
        bbfatal "no CUDA sysroot in $sr: cuda-xcc-sysroot (a DEPENDS of this recipe) stages it there"
    fi
    # The shared sysroot must be the one this recipe is built for, and the
    # MACHINE's compiler one this CUDA release accepts: the driver checks
    # both the way it checks its own choice.
    echo '__global__ void cuda_xcc_probe(void) {}' > ${WORKDIR}/cuda-xcc-probe.cu
    ${CUDA_XCC_DRIVER} --target ${CUDA_XCC_TARGET} --cuda ${CUDA_XCC_CUDA_VERSION} \
        ${@cuda_xcc_arch_args(d)} -### -c ${WORKDIR}/cuda-xcc-probe.cu >/dev/null

    gencode=$(${CUDA_XCC} flags --target ${CUDA_XCC_TARGET} --cuda ${CUDA_XCC_CUDA_VERSION} \
        ${@cuda_xcc_arch_args(d)} --format nvcc)
    target_dir=$(cuda_xcc_target_dir "$sr")
    fingerprint=$(${CUDA_XCC} sysroot info "$sr" --fingerprint)
    # The flags no compilation can do without, out of the reach of a
    # recipe's -DCMAKE_CUDA_FLAGS; one word per option as the compiler
    # caches parse them, quoted for sh by cuda-xcc.
    mkdir -p "$(dirname "${CUDA_XCC_NVCC}")"
    set -- "$sr/bin/nvcc" "-target-dir=$target_dir" "-arbin=${AR}"
    if [ -n "${CUDA_XCC_XCOMPILER_ARG}" ]; then
        set -- "$@" "${CUDA_XCC_XCOMPILER_ARG}"
    fi
    set -- "$@" ${CUDA_XCC_PREFIX_MAP_ARGS}
    words=$(${CUDA_XCC} toolchain quote --sh "$@")
    printf '#!/bin/sh\nexec %s "$@"\n' "$words" > "${CUDA_XCC_NVCC}.tmp"
    chmod +x "${CUDA_XCC_NVCC}.tmp"
    mv "${CUDA_XCC_NVCC}.tmp" "${CUDA_XCC_NVCC}"

    # ccache knows nvcc by its size and mtime only (not cicc, ptxas or the
    # headers beside it); the sysroot's fingerprint names all of them.
    set -- ${OECMAKE_CUDA_COMPILER_LAUNCHER}
    if [ $# -gt 0 ] && [ "$(basename "$1")" = ccache ]; then
        set -- env "CCACHE_COMPILERCHECK=string:cuda-xcc-sysroot-$fingerprint" "$@"
    fi
    launcher=$(IFS=';'; echo "$*")

    # The initial cache, written by cuda-xcc, which quotes every value for
    # CMake and adds the toolkit's own entries: CUDAToolkit_ROOT, the
    # validated CMAKE_CUDA_ARCHITECTURES, and for projects that use the old
    # FindCUDA module CUDA_TOOLKIT_ROOT_DIR and CUDA_TOOLKIT_TARGET_DIR (it
    # would look for the target directory by the processor's name,
    # aarch64-linux, on an sbsa sysroot too). CUDA_NVCC_EXECUTABLE,
    # CUDA_HOST_COMPILER and CUDA_NVCC_FLAGS are FindCUDA's too.
    cache_launcher=
    [ -z "$launcher" ] || cache_launcher="CMAKE_CUDA_COMPILER_LAUNCHER=$launcher"
    ${CUDA_XCC} toolchain query --sysroot "$sr" --target-fs "${STAGING_DIR_TARGET}" \
        ${@cuda_xcc_arch_args(d)} --cmake-cache \
        --cache "CMAKE_CUDA_COMPILER=${CUDA_XCC_NVCC}" \
        --cache "CMAKE_CUDA_HOST_COMPILER=${CUDA_XCC_HOST_CXX}" \
        ${cache_launcher:+--cache} ${cache_launcher:+"$cache_launcher"} \
        --cache "CUDA_NVCC_EXECUTABLE=${CUDA_XCC_NVCC}" \
        --cache "CUDA_HOST_COMPILER=${CUDA_XCC_HOST_CXX}" \
        --cache "CUDA_NVCC_FLAGS=${@';'.join(d.getVar('CUDA_NVCC_FLAGS').split())}" \
        --output ${CUDA_XCC_CMAKE_CACHE}

    # Meson: the CUDA compiler only (oe-core's meson.cross, read first,
    # keeps C and C++), with the validated -gencode flags and the host
    # compiler for compiles and links; each array quoted by cuda-xcc.
    cuda=$(${CUDA_XCC} toolchain quote --meson "$@" "${CUDA_XCC_NVCC}")
    args=$(${CUDA_XCC} toolchain quote --meson "-ccbin=${CUDA_XCC_HOST_CXX}" $gencode ${CUDA_NVCC_FLAGS})
    link_args=$(${CUDA_XCC} toolchain quote --meson "-ccbin=${CUDA_XCC_HOST_CXX}" $gencode)
    printf '[binaries]\ncuda = %s\n[built-in options]\ncuda_args = %s\ncuda_link_args = %s\n' \
        "$cuda" "$args" "$link_args" > ${CUDA_XCC_MESON_CROSS}
}
# bitbake's shell parser can miss a function called inside a command
# substitution: named here, cuda_xcc_target_dir is in the task's script.
do_cuda_xcc_setup[vardeps] += "cuda_xcc_target_dir"
do_cuda_xcc_setup[vardeps] += "CUDA_XCC_TARGET CUDA_XCC_CUDA_VERSION CUDA_XCC_ARCH \
    CUDA_XCC_HOST_CXX CUDA_XCC_HOST_CXX_FLAGS CUDA_XCC_NVCC CUDA_NVCC_FLAGS AR \
    OECMAKE_CUDA_COMPILER_LAUNCHER CUDA_XCC_PREFIX_MAP_ARGS"
addtask cuda_xcc_setup after do_prepare_recipe_sysroot before do_configure

EXTRA_OECMAKE:append = " -C ${CUDA_XCC_CMAKE_CACHE}"
# oe-core's toolchain file confines find_library() to its roots: without the
# CUDA sysroot among them FindCUDAToolkit finds no cudart.
OECMAKE_EXTRA_ROOT_PATH:append = " ${CUDA_XCC_SYSROOT}"
MESON_CROSS_FILE:append:class-target = " --cross-file ${CUDA_XCC_MESON_CROSS}"
