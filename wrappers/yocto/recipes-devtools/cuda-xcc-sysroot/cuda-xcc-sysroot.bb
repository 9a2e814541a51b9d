SUMMARY = "The MACHINE's CUDA sysroot, made once by cuda-xcc for every recipe that inherits cuda-xcc"
DESCRIPTION = "cuda-xcc's split host/target CUDA sysroot for the build's CUDA \
release, target and GPUs, made from the CUDA packages or archives in SRC_URI \
against the image's own C library. Recipes that inherit cuda-xcc depend on it \
and find it in their recipe sysroot; the CUDA runtime libraries are packaged \
one package per CUDA component (cuda-cudart, libcublas...) for the programs \
that use them."
# NVIDIA's libraries under NVIDIA's terms. Their text is in the CUDA
# archives, so it is checksummed in the sysroot (do_populate_lic runs after
# do_compile): give its md5, which changes with the CUDA release and the
# sources (OE's error names the one it found). TensorRT and L4T's multimedia
# libraries add the open licenses of what they hold (cuda_xcc_license below).
LICENSE = "${@cuda_xcc_license(d)}"
CUDA_XCC_RUNTIME_LICENSE_FILE ??= "licenses/cuda_cudart/LICENSE"
CUDA_XCC_RUNTIME_LICENSE_MD5 ??= ""
LIC_FILES_CHKSUM = "file://${CUDA_XCC_SYSROOT_BUILD}/${CUDA_XCC_RUNTIME_LICENSE_FILE};md5=${CUDA_XCC_RUNTIME_LICENSE_MD5}"

# The CUDA packages or archives, through the fetcher (DL_DIR, mirrors,
# checksums, BB_NO_NETWORK), named again in CUDA_XCC_FROM, e.g. in
# local.conf or a bbappend:
#   SRC_URI:append:pn-cuda-xcc-sysroot = " https://.../cuda_cudart-...-archive.tar.xz;unpack=0;name=rt ..."
#   CUDA_XCC_FROM:pn-cuda-xcc-sysroot = "${WORKDIR}/cuda_cudart-...-archive.tar.xz ..."
# A redistrib manifest works too: fetch it and every archive it names, each
# with subdir= set to the directory of its relative_path.
SRC_URI = ""
CUDA_XCC_FROM ??= ""
# Components beyond the toolkit's own (sysroot create --components), e.g.
# "libcublas libcufft": one for the whole build, as there is one sysroot.
CUDA_XCC_COMPONENTS ??= ""

# The fetcher's directory: UNPACKDIR from styhead (5.1) on, where file://
# sources land (whinlatter, wrynose, blacksail); scarthgap has none and
# unpacks into WORKDIR. Only scarthgap's parse is tested here.
S = "${@d.getVar('UNPACKDIR') or d.getVar('WORKDIR')}"
B = "${WORKDIR}/build"
CUDA_XCC_SYSROOT_BUILD = "${B}/sysroot"

inherit cuda-xcc-base

DEPENDS = "cuda-xcc-native"
# The GPUs are the MACHINE's.
PACKAGE_ARCH = "${MACHINE_ARCH}"

do_configure[noexec] = "1"

# The target side links against this recipe's own staging tree (the image's
# C library); the path recorded in sysroot.json becomes each consumer's
# recipe sysroot on staging (SSTATE_SCAN_FILES below).
do_compile() {
    set -- --target ${CUDA_XCC_TARGET} --cuda ${CUDA_XCC_CUDA_VERSION} \
        ${@cuda_xcc_arch_args(d)} --dest ${CUDA_XCC_SYSROOT_BUILD} --progress never \
        --target-fs ${STAGING_DIR_TARGET}
    for src in ${CUDA_XCC_FROM}; do
        set -- "$@" --from "$src"
    done
    if [ -n "${CUDA_XCC_COMPONENTS}" ]; then
        set -- "$@" --components "$(echo ${CUDA_XCC_COMPONENTS} | tr ' ' ',')"
    fi
    ${CUDA_XCC} sysroot create "$@"
}
do_compile[vardeps] += "CUDA_XCC_TARGET CUDA_XCC_CUDA_VERSION CUDA_XCC_ARCH CUDA_XCC_FROM \
    CUDA_XCC_COMPONENTS"
# (bitbake's shell parser misses a function called in a command substitution)
do_install[vardeps] += "cuda_xcc_target_dir"
# the license text is in the sysroot
addtask populate_lic after do_compile

# The tree as it is (hard links: nothing below changes a file in place), and
# its shared libraries again in libdir, for the packages.
do_install() {
    install -d $(dirname ${D}${CUDA_XCC_SYSROOT_PATH}) ${D}${libdir} ${D}${datadir}/licenses/${PN}
    cp -al ${CUDA_XCC_SYSROOT_BUILD} ${D}${CUDA_XCC_SYSROOT_PATH}
    lib=${CUDA_XCC_SYSROOT_BUILD}/targets/$(cuda_xcc_target_dir ${CUDA_XCC_SYSROOT_BUILD})/lib
    for f in $lib/lib*.so.*; do
        [ -e "$f" ] || continue
        cp -P "$f" ${D}${libdir}/
    done
    # VPI's priv/ beside libnvvpi, as in its own directory; L4T's multimedia
    # libraries in libdir/nvidia, as the board has them, for the loader
    # through ld.so.conf.d (glibc's ld.so.conf includes it)
    if [ -d $lib/priv ]; then
        install -d ${D}${libdir}/priv
        cp -P $lib/priv/* ${D}${libdir}/priv/
    fi
    if [ -d $lib/nvidia ]; then
        install -d ${D}${libdir}/nvidia ${D}${sysconfdir}/ld.so.conf.d
        cp -P $lib/nvidia/*.so* ${D}${libdir}/nvidia/
        echo ${libdir}/nvidia > ${D}${sysconfdir}/ld.so.conf.d/cuda-xcc-l4t-multimedia.conf
    fi
    compat=$(dirname $lib)/compat
    if [ -d "$compat" ]; then
        install -d ${D}${CUDA_XCC_COMPAT_DIR}
        cp -P "$compat"/* ${D}${CUDA_XCC_COMPAT_DIR}/
    fi
    if [ -d "$compat"_orin ]; then
        install -d ${D}${CUDA_XCC_COMPAT_ORIN_DIR}
        cp -P "$compat"_orin/* ${D}${CUDA_XCC_COMPAT_ORIN_DIR}/
    fi
    # The target side's terms only: licenses/<component>-host/ are those
    # of the x86_64 tools (nvcc), which never reach the image.
    for f in ${CUDA_XCC_SYSROOT_BUILD}/licenses/*/*; do
        [ -f "$f" ] || continue
        c=$(basename $(dirname "$f"))
        case $c in *-host) continue ;; esac
        install -m 0644 "$f" ${D}${datadir}/licenses/${PN}/$c-$(basename "$f")
    done
}

# The sysroot reaches the recipe sysroots, not the image: its host side is
# x86_64 code. sysroot.json records the staging tree it was made against,
# which staging rewrites to each consumer's (FIXMESTAGINGDIRTARGET).
SYSROOT_DIRS += "${CUDA_XCC_SYSROOT_PATH}"
SSTATE_SCAN_FILES += "sysroot.json"
PACKAGE_PREPROCESS_FUNCS += "cuda_xcc_sysroot_unpackaged"
cuda_xcc_sysroot_unpackaged() {
    rm -rf ${PKGD}${CUDA_XCC_SYSROOT_PATH}
    rmdir -p --ignore-fail-on-non-empty $(dirname ${PKGD}${CUDA_XCC_SYSROOT_PATH})
}
# NVIDIA's binaries as they come: sysroot.files holds their digests
# (cuda-xcc sysroot verify), and strip would not know the x86_64 tools.
INHIBIT_SYSROOT_STRIP = "1"
INHIBIT_PACKAGE_STRIP = "1"
INHIBIT_PACKAGE_DEBUG_SPLIT = "1"

# One runtime package per CUDA component with libraries, named as
# meta-tegra's recipes are (cuda_cudart -> cuda-cudart, libcublas), which
# this recipe also PROVIDES, so that a recipe's DEPENDS on them finds the
# shared sysroot. The libraries' own NEEDED entries give the programs that
# link them their RDEPENDS (shlibs); the rest of libdir and the license
# texts go to ${PN}.
CUDA_XCC_BASE_COMPONENTS ??= "cuda_cudart cuda_nvtx"
# each component's libraries, where they are not lib<name>*.so.*
CUDA_XCC_COMPONENT_LIBS[cuda_nvtx] = "libnvToolsExt.so.*"
CUDA_XCC_COMPONENT_LIBS[libcublas] = "libcublas.so.* libcublasLt.so.* libnvblas.so.*"
CUDA_XCC_COMPONENT_LIBS[libnvjitlink] = "libnvJitLink.so.*"
CUDA_XCC_COMPONENT_LIBS[cuda_opencl] = "libOpenCL.so.*"
CUDA_XCC_COMPONENT_LIBS[cuda_cupti] = "libcupti.so.* libnvperf_host.so* libnvperf_target.so* libpcsamplingutil.so*"
# NVIDIA's products beyond CUDA (sysroots/components.json's libraries)
CUDA_XCC_COMPONENT_LIBS[tensorrt] = "libnvinfer*.so.* libnvonnxparser*.so.* libnvparsers*.so.*"
CUDA_XCC_COMPONENT_LIBS[cudnn] = "libcudnn*.so.*"
# The cuda_compat component (a JetPack that ships an older CUDA than this
# one runs it only with NVIDIA's cuda-compat on the board): its libraries
# where the board's own cuda-compat package puts them, not in libdir.
CUDA_XCC_COMPAT_DIR ??= "/usr/local/cuda-${@'.'.join(d.getVar('CUDA_XCC_CUDA_VERSION').split('.')[:2])}/compat"
# cuda_compat_orin (JetPack 6.2's Orin with CUDA 13.2: cuda-xcc's note says
# when a board needs it) where NVIDIA's cuda-compat-orin-X-Y puts it.
CUDA_XCC_COMPAT_ORIN_DIR ??= "${CUDA_XCC_COMPAT_DIR}_orin"
# each component's files, where they are not libraries in libdir
CUDA_XCC_COMPONENT_FILES[cuda_compat] = "${CUDA_XCC_COMPAT_DIR}"
CUDA_XCC_COMPONENT_FILES[cuda_compat_orin] = "${CUDA_XCC_COMPAT_ORIN_DIR}"
CUDA_XCC_COMPONENT_FILES[vpi] = "${libdir}/libnvvpi.so.* ${libdir}/priv"
CUDA_XCC_COMPONENT_FILES[l4t_multimedia] = "${libdir}/nvidia ${sysconfdir}/ld.so.conf.d/cuda-xcc-l4t-multimedia.conf"
# each component's license, where it is not Proprietary alone (sysroots/components.json's
# licenses, which tests/yocto.bats compares with these)
CUDA_XCC_COMPONENT_LICENSE[tensorrt] = "Proprietary & Apache-2.0"
CUDA_XCC_COMPONENT_LICENSE[cudnn] = "Proprietary"
CUDA_XCC_COMPONENT_LICENSE[vpi] = "Proprietary"
CUDA_XCC_COMPONENT_LICENSE[l4t_multimedia] = "Proprietary & MIT & BSD-3-Clause"
# L4T's libraries are unversioned (libnvmedia.so): no development links
CUDA_XCC_COMPONENT_INSANE_SKIP[l4t_multimedia] = "dev-so"

def cuda_xcc_components(d):
    words = (d.getVar("CUDA_XCC_BASE_COMPONENTS") + " " +
             d.getVar("CUDA_XCC_COMPONENTS").replace(",", " ")).split()
    return [c for i, c in enumerate(words) if c not in words[:i]]

def cuda_xcc_license(d):
    lics = ["Proprietary"]
    for c in cuda_xcc_components(d):
        for l in (d.getVarFlag("CUDA_XCC_COMPONENT_LICENSE", c) or "").split("&"):
            if l.strip() and l.strip() not in lics:
                lics.append(l.strip())
    return " & ".join(lics)

def cuda_xcc_runtime_packages(d):
    return " ".join(c.replace("_", "-").lower() for c in cuda_xcc_components(d))

CUDA_XCC_RUNTIME_PACKAGES = "${@cuda_xcc_runtime_packages(d)}"
PROVIDES += "${CUDA_XCC_RUNTIME_PACKAGES}"
PACKAGES = "${CUDA_XCC_RUNTIME_PACKAGES} ${PN}"
FILES:${PN} = "${libdir}/lib*.so.* ${datadir}/licenses/${PN}"
ALLOW_EMPTY:${PN} = "1"

python () {
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
    libdir = d.getVar("libdir")
    for c in cuda_xcc_components(d):
        pkg = c.replace("_", "-").lower()
        stem = c[len("cuda_"):] if c.startswith("cuda_") else c[len("lib"):] if c.startswith("lib") else c
        libs = d.getVarFlag("CUDA_XCC_COMPONENT_LIBS", c) or "lib%s*.so.*" % stem
        files = d.getVarFlag("CUDA_XCC_COMPONENT_FILES", c)
        d.setVar("FILES:" + pkg, files or " ".join("%s/%s" % (libdir, l) for l in libs.split()))
        d.setVar("SUMMARY:" + pkg, "CUDA runtime libraries of %s, from the cuda-xcc sysroot" % c)
        d.appendVar("RDEPENDS:" + pkg, " ${PN}")
        d.setVar("LICENSE:" + pkg, d.getVarFlag("CUDA_XCC_COMPONENT_LICENSE", c) or "Proprietary")
        # prebuilt: NVIDIA links them as it does
        d.appendVar("INSANE_SKIP:" + pkg, " already-stripped ldflags " +
                    (d.getVarFlag("CUDA_XCC_COMPONENT_INSANE_SKIP", c) or ""))
}
