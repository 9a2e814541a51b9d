# Build CUDA code for the MACHINE with cuda-xcc.
#
#   inherit cmake cuda-xcc
#   CUDA_XCC_CUDA_VERSION = "11.8"
#   SRC_URI += "https://.../nvidia-cuda-toolkit_..._amd64.deb;unpack=0;name=tk \
#               https://.../libcudart11.0_..._arm64.deb;unpack=0;name=rt ..."
#   SRC_URI[tk.sha256sum] = "..."
#   CUDA_XCC_FROM = "${WORKDIR}/nvidia-cuda-toolkit_..._amd64.deb ..."
#
# The GPUs are the MACHINE's: CUDA_XCC_ARCH defaults to CUDA_ARCHITECTURES,
# which meta-tegra's machine configurations set ("87" for Orin).
#
# The CUDA packages or archives come through SRC_URI, so the fetcher does the
# downloading (DL_DIR, mirrors, checksums, BB_NO_NETWORK) and they are inputs
# of the task hash; cuda-xcc then verifies and unpacks them into a sysroot
# linked against the image's own staging tree (--target-fs), so programs need
# no newer glibc than the image has. A redistrib manifest works too: fetch it
# and every archive it names, each with subdir= set to the directory of its
# relative_path.
#
# cmake recipes get nvcc, the MACHINE's full compiler command (tune flags and
# --sysroot) as nvcc's host compiler, the build's own ar and the architectures
# validated by cuda-xcc, through an initial CMake cache written by the
# sysroot task. Others call ${CUDA_XCC_DRIVER} as their CUDA compiler.
#
# meta-tegra's interface, where the names mean the same: CXX_FOR_CUDA is
# nvcc's host compiler command (default: the MACHINE's CXX; set it to a
# compiler the CUDA release accepts when the MACHINE's is too new),
# CUDA_NVCC_FLAGS is made of CUDA_NVCC_ARCH_FLAGS, CUDA_NVCC_COMPAT_FLAGS and
# CUDA_NVCC_EXTRA_FLAGS, and CUDAFLAGS, CUDAHOSTCXX and CUDACXX are exported
# (CMake takes CUDAFLAGS as the initial CMAKE_CUDA_FLAGS). What a build
# cannot do without (-target-dir, -arbin, the host compiler's tune flags and
# --sysroot) is not in CMAKE_CUDA_FLAGS, which a recipe's own
# -DCMAKE_CUDA_FLAGS replaces, but in the CUDA compiler itself: CUDACXX and
# CMAKE_CUDA_COMPILER are ${CUDA_XCC_NVCC}, a script that runs the
# sysroot's nvcc with them.
#
# The CUDA runtime libraries the programs link (CUDA_XCC_RUNTIME_LIBS) are
# packaged as ${PN}-cuda-runtime (LICENSE Proprietary), which ${PN} depends
# on at run time, with NVIDIA's license text from the archives; set
# CUDA_XCC_RUNTIME_LICENSE_MD5 to checksum it (LIC_FILES_CHKSUM).

DEPENDS:append = " cuda-xcc-native"

CUDA_XCC ?= "cuda-xcc"
CUDA_XCC_TARGET ?= "jetson"
CUDA_XCC_CUDA_VERSION ??= ""
CUDA_ARCHITECTURES ??= ""
CUDA_XCC_ARCH ??= "${CUDA_ARCHITECTURES}"
CUDA_XCC_FROM ??= ""
CUDA_XCC_COMPONENTS ??= ""
CUDA_XCC_SYSROOT ?= "${WORKDIR}/cuda-xcc-sysroot"
CUDA_XCC_CMAKE_CACHE ?= "${WORKDIR}/cuda-xcc-cache.cmake"
CUDA_XCC_RUNTIME_LIBS ??= "libcudart.so.*"

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

# nvcc with what every compilation needs; written by the sysroot task.
CUDA_XCC_NVCC ?= "${WORKDIR}/cuda-xcc-bin/nvcc"

# The driver, for recipes that are not cmake ones. nvcc's options are
# spelled -name=VALUE, one word each, as ccache and sccache parse them
# (sccache takes a separate value for a second input file).
CUDA_XCC_DRIVER = "${CUDA_XCC} --sysroot ${CUDA_XCC_SYSROOT} -ccbin=${CUDA_XCC_HOST_CXX} \
    ${CUDA_XCC_XCOMPILER_ARG} -arbin=${AR}"

# meta-tegra's flag parts: machines and recipes append to them. The
# architectures reach CMake as CMAKE_CUDA_ARCHITECTURES (validated by
# cuda-xcc); CUDA_NVCC_ARCH_FLAGS is for recipes that call nvcc themselves.
CUDA_NVCC_ARCH_FLAGS ??= ""
CUDA_NVCC_COMPAT_FLAGS ??= ""
CUDA_NVCC_EXTRA_FLAGS ??= ""
CUDA_NVCC_FLAGS ?= "${CUDA_NVCC_ARCH_FLAGS} ${CUDA_NVCC_COMPAT_FLAGS} ${CUDA_NVCC_EXTRA_FLAGS}"
export CUDAHOSTCXX = "${CUDA_XCC_HOST_CXX}"
# (nvcc refuses an empty -Xcompiler=: a CXX_FOR_CUDA without flags has none)
CUDA_XCC_XCOMPILER_ARG = "${@'-Xcompiler=' + d.getVar('CUDA_XCC_XCOMPILER') if d.getVar('CUDA_XCC_XCOMPILER') else ''}"
export CUDAFLAGS = "${CUDA_NVCC_FLAGS} ${CUDA_XCC_XCOMPILER_ARG}"
export CUDACXX = "${CUDA_XCC_NVCC}"

export CUDA_XCC_SYSROOT

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
    # Every wrong entry at once: a user fixes them in one go.
    wrong = []
    for src in (d.getVar("CUDA_XCC_FROM") or "").split():
        if "://" in src:
            wrong.append("CUDA_XCC_FROM names %s: fetch it through SRC_URI (with its sha256sum "
                         "and unpack=0) and name the fetched file here, ${WORKDIR}/<file>" % src)
        elif "${" in src:
            # scarthgap has no UNPACKDIR (styhead's): it would stay as it
            # is written and the file would not be found at task time.
            wrong.append("CUDA_XCC_FROM names %s, whose variable this release does not define: "
                         "the fetcher unpacks into ${WORKDIR}" % src)
    if wrong:
        bb.fatal("\n".join(wrong))
    for flag in d.getVar("CUDA_XCC_HOST_CXX_FLAGS").split():
        if "," in flag:
            bb.fatal("CUDA_XCC_HOST_CXX_FLAGS holds %s: nvcc splits -Xcompiler values at "
                     "commas" % flag)
}

# The arguments that name the GPUs: "87", "sm_87,8.7" and "87 72" all work.
def cuda_xcc_arch_args(d):
    caps = d.getVar("CUDA_XCC_ARCH").replace(",", " ").split()
    return " ".join("-arch %s" % c for c in caps)

# The sysroot's one target directory (aarch64-linux, sbsa-linux), from its
# sysroot.json.
cuda_xcc_target_dir() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["target_dir"])' \
        ${CUDA_XCC_SYSROOT}/sysroot.json
}

# cuda_xcc_cmake_set NAME TYPE VALUE DOC: a set() of the initial cache with
# VALUE as a CMake bracket argument, which CMake reads as it is (no \, $ or
# ; is special there): the fence is one '=' more than any "]=...]" the
# value holds, counting a "]=..." at its end, which the closing "]" would
# complete. Paths are STRING entries: CMake turns a PATH or FILEPATH
# entry's '\' into '/'.
cuda_xcc_cmake_set() {
    fence=
    while case "$3]" in *"]$fence]"*) true ;; *) false ;; esac; do
        fence="$fence="
    done
    printf 'set(%s [%s[%s]%s] CACHE %s "%s")\n' "$1" "$fence" "$3" "$fence" "$2" "$4"
}

# cuda_xcc_sh_quote WORD: WORD as one sh word, in single quotes.
cuda_xcc_sh_quote() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

do_cuda_xcc_sysroot() {
    set -- --target ${CUDA_XCC_TARGET} --cuda ${CUDA_XCC_CUDA_VERSION} \
        ${@cuda_xcc_arch_args(d)} --dest ${CUDA_XCC_SYSROOT} --progress never \
        --target-fs ${STAGING_DIR_TARGET}
    for src in ${CUDA_XCC_FROM}; do
        set -- "$@" --from "$src"
    done
    if [ -n "${CUDA_XCC_COMPONENTS}" ]; then
        set -- "$@" --components "${CUDA_XCC_COMPONENTS}"
    fi
    ${CUDA_XCC} sysroot create "$@"

    # The MACHINE's compiler must be one this CUDA release accepts: the
    # driver checks it the way it checks its own choice.
    echo '__global__ void cuda_xcc_probe(void) {}' > ${WORKDIR}/cuda-xcc-probe.cu
    ${CUDA_XCC_DRIVER} ${@cuda_xcc_arch_args(d)} -### -c ${WORKDIR}/cuda-xcc-probe.cu >/dev/null

    archs=$(${CUDA_XCC} flags --target ${CUDA_XCC_TARGET} --cuda ${CUDA_XCC_CUDA_VERSION} \
        ${@cuda_xcc_arch_args(d)} --format cmake)
    target_dir=$(cuda_xcc_target_dir)
    # The flags no compilation can do without, out of the reach of a
    # recipe's -DCMAKE_CUDA_FLAGS; each word quoted for sh, one word per
    # option as the compiler caches parse them.
    mkdir -p "$(dirname "${CUDA_XCC_NVCC}")"
    {
        echo '#!/bin/sh'
        printf 'exec %s %s %s' "$(cuda_xcc_sh_quote "$CUDA_XCC_SYSROOT/bin/nvcc")" \
            "$(cuda_xcc_sh_quote "-target-dir=$target_dir")" "$(cuda_xcc_sh_quote "-arbin=${AR}")"
        if [ -n "${CUDA_XCC_XCOMPILER_ARG}" ]; then
            printf ' %s' "$(cuda_xcc_sh_quote "${CUDA_XCC_XCOMPILER_ARG}")"
        fi
        printf ' "$@"\n'
    } > "${CUDA_XCC_NVCC}.tmp"
    chmod +x "${CUDA_XCC_NVCC}.tmp"
    mv "${CUDA_XCC_NVCC}.tmp" "${CUDA_XCC_NVCC}"
    # CUDA_TOOLKIT_ROOT_DIR, CUDA_NVCC_EXECUTABLE and CUDA_NVCC_FLAGS are
    # for projects that use the old FindCUDA module.
    {
        cuda_xcc_cmake_set CMAKE_CUDA_COMPILER STRING "${CUDA_XCC_NVCC}" cuda-xcc
        cuda_xcc_cmake_set CMAKE_CUDA_HOST_COMPILER STRING "${CUDA_XCC_HOST_CXX}" cuda-xcc
        cuda_xcc_cmake_set CMAKE_CUDA_ARCHITECTURES STRING "$archs" "validated by cuda-xcc"
        cuda_xcc_cmake_set CUDAToolkit_ROOT STRING "$CUDA_XCC_SYSROOT" cuda-xcc
        cuda_xcc_cmake_set CUDA_TOOLKIT_ROOT_DIR STRING "$CUDA_XCC_SYSROOT" cuda-xcc
        cuda_xcc_cmake_set CUDA_NVCC_EXECUTABLE STRING "${CUDA_XCC_NVCC}" cuda-xcc
        cuda_xcc_cmake_set CUDA_NVCC_FLAGS STRING "${@';'.join(d.getVar('CUDA_NVCC_FLAGS').split())}" cuda-xcc
    } > ${CUDA_XCC_CMAKE_CACHE}
}
do_cuda_xcc_sysroot[depends] += "cuda-xcc-native:do_populate_sysroot"
# bitbake's shell parser misses a function called inside a command
# substitution that is an argument of another command: without this the
# task's script has no cuda_xcc_sh_quote, and the nvcc script it writes runs
# its arguments as the command.
do_cuda_xcc_sysroot[vardeps] += "cuda_xcc_sh_quote cuda_xcc_target_dir cuda_xcc_cmake_set"
do_cuda_xcc_sysroot[vardeps] += "CUDA_XCC_TARGET CUDA_XCC_CUDA_VERSION CUDA_XCC_ARCH \
    CUDA_XCC_FROM CUDA_XCC_COMPONENTS CUDA_XCC_HOST_CXX CUDA_XCC_HOST_CXX_FLAGS CUDA_XCC_NVCC \
    CUDA_NVCC_FLAGS AR"
addtask cuda_xcc_sysroot after do_prepare_recipe_sysroot do_unpack before do_configure do_populate_lic

EXTRA_OECMAKE:append = " -C ${CUDA_XCC_CMAKE_CACHE}"
# oe-core's toolchain file confines find_library() to its roots: without the
# CUDA sysroot among them FindCUDAToolkit finds no cudart.
OECMAKE_EXTRA_ROOT_PATH:append = " ${CUDA_XCC_SYSROOT}"

PACKAGES =+ "${PN}-cuda-runtime"
FILES:${PN}-cuda-runtime = "${libdir}/libcudart.so.* ${libdir}/libcu*.so.* ${libdir}/libnv*.so.* \
    ${datadir}/licenses/${PN}-cuda-runtime"
# NVIDIA's libraries under NVIDIA's terms, whose text travels with them
# (see do_install); the recipe's LICENSE must name Proprietary too.
LICENSE:${PN}-cuda-runtime = "Proprietary"
# The text is in the CUDA archives (fetched with unpack=0), so it is
# checksummed in the sysroot, which do_populate_lic then waits for. The
# md5 changes with the CUDA release and its sources: the recipe gives it,
# as for any LIC_FILES_CHKSUM entry. (OE checks no LIC_FILES_CHKSUM of a
# recipe whose LICENSE is "CLOSED".)
CUDA_XCC_RUNTIME_LICENSE_FILE ??= "licenses/cuda_cudart/LICENSE"
CUDA_XCC_RUNTIME_LICENSE_MD5 ??= ""
LIC_FILES_CHKSUM:append = "${@' file://${CUDA_XCC_SYSROOT}/${CUDA_XCC_RUNTIME_LICENSE_FILE};md5=${CUDA_XCC_RUNTIME_LICENSE_MD5}' if d.getVar('CUDA_XCC_RUNTIME_LICENSE_MD5') else ''}"
RDEPENDS:${PN}:append = " ${PN}-cuda-runtime"
INSANE_SKIP:${PN}-cuda-runtime += "already-stripped ldflags"

do_install:append() {
    lib=${CUDA_XCC_SYSROOT}/targets/$(cuda_xcc_target_dir)/lib
    install -d ${D}${libdir} ${D}${datadir}/licenses/${PN}-cuda-runtime
    for pattern in ${CUDA_XCC_RUNTIME_LIBS}; do
        for f in $lib/$pattern; do
            [ -e "$f" ] || bbfatal "CUDA_XCC_RUNTIME_LIBS: no $pattern in $lib"
            cp -P "$f" ${D}${libdir}/
        done
    done
    # The target side's terms only: licenses/<component>-host/ are those
    # of the x86_64 tools (nvcc), which never reach the image.
    for f in ${CUDA_XCC_SYSROOT}/licenses/*/*; do
        [ -f "$f" ] || continue
        c=$(basename $(dirname "$f"))
        case $c in *-host) continue ;; esac
        install -m 0644 "$f" ${D}${datadir}/licenses/${PN}-cuda-runtime/$c-$(basename "$f")
    done
}
