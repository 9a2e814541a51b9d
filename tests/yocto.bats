#!/usr/bin/env bats
# The Yocto layer (wrappers/yocto) under real bitbake: poky scarthgap with
# meta-oe, unpacked outside the checkout by scripts/setup.sh from the
# project's third-party snapshots into $XCC_THIRDPARTY (default
# /var/cache/cuda-xcc/thirdparty). bitbake refuses to run as root, so the
# tests run it as uid 1000 of a user namespace of their own. Offline, bitbake
# parses, evaluates and plans; the tasks themselves need oe-core's native
# tools, which it would download.
load lib/common
load lib/toolchain

thirdparty() { echo "${XCC_THIRDPARTY:-/var/cache/cuda-xcc/thirdparty}"; }

setup_file() {
	local poky meta_oe top
	poky=$(ls -d "$(thirdparty)"/poky-scarthgap-*/poky 2>/dev/null | head -n1)
	meta_oe=$(ls -d "$(thirdparty)"/meta-openembedded-scarthgap-*/meta-openembedded/meta-oe 2>/dev/null | head -n1)
	export YOCTO_POKY=$poky
	if [ -z "$poky" ] || [ -z "$meta_oe" ]; then return 0; fi
	# Keep the build directory, and with it bitbake's parse cache, between
	# runs: one per checkout, since the cache holds the layer's path anyway
	# and two checkouts' suites running at once would share its files.
	top=${XCC_YOCTO_BUILD:-/var/cache/cuda-xcc/yocto-builds/$(echo "$XCC_SRCDIR" | sha256sum | cut -c1-12)}
	export YOCTO_TOP=$top
	mkdir -p "$top/conf"
	cat > "$top/conf/bblayers.conf" <<-EOS
	POKY_BBLAYERS_CONF_VERSION = "2"
	BBPATH = "\${TOPDIR}"
	BBFILES ?= ""
	BBLAYERS = "$poky/meta $poky/meta-poky $meta_oe $XCC_SRCDIR/wrappers/yocto $top/test-layer"
	EOS
	# A test that needs other settings for the example writes them into this
	# layer's append: bitbake then parses that recipe again, not all of them
	# as after a change to local.conf.
	mkdir -p "$top/test-layer/conf"
	cat > "$top/test-layer/conf/layer.conf" <<-'EOS'
	BBPATH .= ":${LAYERDIR}"
	BBFILES += "${LAYERDIR}/*.bb ${LAYERDIR}/*.bbappend"
	BBFILE_COLLECTIONS += "cuda-xcc-test"
	BBFILE_PATTERN_cuda-xcc-test = "^${LAYERDIR}/"
	LAYERSERIES_COMPAT_cuda-xcc-test = "scarthgap"
	EOS
	rm -f "$top/test-layer/"*.bbappend
	# A second application of the one shared sysroot: the example's sources
	# under another name, with cuBLAS.
	cat > "$top/test-layer/cuda-xcc-second_1.0.bb" <<-EOS
	SUMMARY = "A second CUDA program on the shared sysroot"
	LICENSE = "CLOSED"
	FILESEXTRAPATHS:prepend := "$XCC_SRCDIR/wrappers/yocto/recipes-examples/cuda-xcc-hello/files:"
	SRC_URI = "file://CMakeLists.txt file://hello.cu"
	S = "\${WORKDIR}"
	CUDA_XCC_RDEPENDS:append = " libcublas"
	inherit cmake cuda-xcc
	EOS
	cat > "$top/conf/local.conf" <<-'EOS'
	MACHINE = "qemuarm64"
	DISTRO = "poky"
	CONF_VERSION = "2"
	BB_NO_NETWORK = "1"
	# meta-tegra's machines set this; the class takes the GPUs from it.
	CUDA_ARCHITECTURES = "90"
	# the build's target: the shared sysroot's and its applications'
	CUDA_XCC_TARGET = "sbsa"
	# Of meta-oe and oe-core only the recipes of the example's task graph
	# (bitbake -g cuda-xcc-hello: 78 of their 940): parsing them all took
	# minutes of CI's 30, and says nothing about this layer. meta-poky's
	# appends to masked recipes then dangle, which is harmless here.
	BBMASK = "meta-oe/recipes-(?!devtools/cjson/)"
	BBMASK += "/meta/recipes-(?!connectivity/openssl/|core/(expat|gettext|glibc|ncurses|readline|util-linux|zlib)/|devtools/(autoconf|autoconf-archive|automake|binutils|bison|ccache|cmake|dwarfsrcfiles|e2fsprogs|elfutils|file|flex|gcc|gnu-config|libedit|libtool|lua|m4|make|meson|ninja|patch|perl|perl-cross|pkgconfig|pseudo|python|quilt|rpm|rsync|unifdef)/|extended/(bzip2|gperf|libarchive|libidn|libnsl|libtirpc|lzip|texinfo-dummy-native|xz|zstd)/|gnome/gtk-doc/|kernel/linux-libc-headers/|support/(attr|curl|gdbm|gmp|gnutls|libcap|libcap-ng|libffi|libgcrypt|libgpg-error|libmicrohttpd|libmpc|libpcre|libunistring|mpfr|nettle|popt|re2c|sqlite)/)"
	BB_DANGLINGAPPENDS_WARNONLY = "1"
	# What only the toolchain's own test suites (do_check, never run here)
	# need, and the mask leaves out.
	ASSUME_PROVIDED += "dejagnu-native expect-native qemu-native"
	# The simulated task environment (sim_* below): the recipes' work
	# directories, which the tests fill with stand-ins for what the build
	# would have staged there, and CUDA 12.6 archives as the fetcher would
	# have unpacked them into the sysroot recipe's.
	WORKDIR:pn-cuda-xcc-sysroot = "${TOPDIR}/simulated/cuda-xcc-sysroot"
	WORKDIR:pn-cuda-xcc-hello = "${TOPDIR}/simulated/cuda-xcc-hello"
	WORKDIR:pn-cuda-xcc-second = "${TOPDIR}/simulated/cuda-xcc-second"
	CUDA_XCC_FROM:pn-cuda-xcc-sysroot = "${WORKDIR}/redistrib_12.6.3.json"
	CUDA_XCC_COMPONENTS:pn-cuda-xcc-sysroot = "libcublas"
	EOS
}

# example_append LINE: a setting for the example recipe alone, until the test
# ends, however it ends; sysroot_append LINE: the same for cuda-xcc-sysroot.
example_append() {
	echo "$1" > "$YOCTO_TOP/test-layer/cuda-xcc-hello_%.bbappend"
}
sysroot_append() {
	echo "$1" > "$YOCTO_TOP/test-layer/cuda-xcc-sysroot.bbappend"
}
teardown() {
	if [ -n "${YOCTO_TOP:-}" ]; then
		rm -f "$YOCTO_TOP/test-layer/"*.bbappend "$YOCTO_TOP/test-layer/tegra-style-"*.bb
	fi
}

# bitbake ARGS... as uid 1000, output in $output.
bb() {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	need unshare
	need chrpath "bitbake's sanity check"
	run unshare --user --map-user=1000 --map-group=1000 \
		env LC_ALL=en_US.UTF-8 LANG=en_US.UTF-8 PATH="$YOCTO_POKY/bitbake/bin:$PATH" \
		bash -c 'cd "$1" && shift && bitbake "$@"' bb "$YOCTO_TOP" "$@"
}

@test "yocto: bitbake parses the layer with poky and meta-oe" {
	bb -p
	assert_status 0
	assert_output_contains " 0 errors."
}

@test "yocto: a MACHINE without CUDA_ARCHITECTURES: the layer's CUDA recipes are skipped, with the reason when asked for" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	# poky's qemuarm64 sets none: the parse of the whole build goes on
	example_append 'CUDA_ARCHITECTURES = ""'
	sysroot_append 'CUDA_ARCHITECTURES = ""'
	bb -p
	assert_status 0
	assert_output_contains " 0 errors."
	bb -e cuda-xcc-hello
	assert_status 1
	assert_output_contains "was skipped: CUDA_XCC_ARCH is not set: cuda-xcc needs the CUDA version and the GPUs (CUDA_XCC_ARCH defaults to the MACHINE's CUDA_ARCHITECTURES"
	bb -e cuda-xcc-sysroot
	assert_status 1
	assert_output_contains "was skipped: CUDA_XCC_ARCH is not set"
}

@test "yocto: the build's defaults pass cuda-xcc's checks with scarthgap's gcc and an Orin MACHINE" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	cuda=$(sed -n "s/^CUDA_XCC_CUDA_VERSION ??= \"\\\${@d.getVar('CUDA_VERSION') or '\\(.*\\)'}\"\$/\\1/p" "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc-base.bbclass")
	target=$(sed -n 's/^CUDA_XCC_TARGET ??= "\(.*\)"$/\1/p' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc-base.bbclass")
	[ "$cuda" = 12.6 ]
	[ "$target" = jetson ]
	gcc=$(sed -n 's/^GCCVERSION ?= "\([0-9]*\)\..*"$/\1/p' "$YOCTO_POKY/meta/conf/distro/include/tcmode-default.inc")
	[ "$gcc" = 13 ]
	# meta-tegra's Orin machines set CUDA_ARCHITECTURES = "87"
	run xcc flags --target "$target" --cuda "$cuda" -arch 87
	assert_status 0
	# the MACHINE's compiler as the driver checks it: aarch64, scarthgap's gcc
	s=$(scratch)
	printf '#!/bin/sh\ncase "$1" in -dumpmachine) echo aarch64-poky-linux ;; -dumpversion) echo %s.2.0 ;; esac\n' "$gcc" > "$s/aarch64-poky-linux-g++"
	chmod +x "$s/aarch64-poky-linux-g++"
	echo '__global__ void k(void) {}' > "$s/k.cu"
	run xcc --target "$target" --cuda "$cuda" -arch 87 -ccbin "$s/aarch64-poky-linux-g++" -### -c "$s/k.cu"
	assert_status 0
}

@test "yocto: the class takes the MACHINE's GPUs, the full cross compiler and the shared sysroot" {
	bb -e cuda-xcc-hello
	assert_status 0
	grep -qx 'CUDA_XCC_ARCH="90"' <<<"$output"
	grep -q '^DEPENDS=".* cuda-xcc-native cuda-xcc-sysroot[ "]' <<<"$output"
	grep -q '^EXTRA_OECMAKE=".*-C .*/cuda-xcc-cache.cmake"' <<<"$output"
	grep -qx 'RDEPENDS:cuda-xcc-hello=" cuda-cudart"' <<<"$output"
	# the sysroot is the one staged into the recipe sysroot, not one of its own
	grep -qx "export CUDA_XCC_SYSROOT=\"$YOCTO_TOP/simulated/cuda-xcc-hello/recipe-sysroot/usr/local/cuda-xcc\"" <<<"$output"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/driver.env"
	# nvcc's host compiler is the MACHINE's, with its tune flags and sysroot.
	grep '^CUDA_XCC_DRIVER=' <<<"$output" > "$BATS_TEST_TMPDIR/driver"
	grep -q -- ' --target-fs [^ ]*/cuda-xcc-hello/recipe-sysroot ' "$BATS_TEST_TMPDIR/driver"
	grep -q -- ' -ccbin=aarch64-poky-linux-g++ -Xcompiler=-mcpu=cortex-a57' "$BATS_TEST_TMPDIR/driver"
	# and the class's prefix maps, each through its own -Xcompiler
	grep -q -- ',--sysroot=[^ ]*/cuda-xcc-hello/recipe-sysroot -Xcompiler=-f[a-z]*-prefix-map=.* -arbin=aarch64-poky-linux-gcc-ar"$' "$BATS_TEST_TMPDIR/driver"
	sed -n '/^do_cuda_xcc_setup() {/,/^}/p' <<<"$output" > "$BATS_TEST_TMPDIR/task.sh"
	run grep 'sysroot create' "$BATS_TEST_TMPDIR/task.sh"
	assert_status 1
	grep -q 'cuda-xcc flags --target sbsa --cuda 12.6' "$BATS_TEST_TMPDIR/task.sh"
	# no runtime package of its own
	run grep '^PACKAGES=".*cuda-runtime' "$BATS_TEST_TMPDIR/driver.env"
	assert_status 1
}

@test "yocto: cuda-xcc-sysroot makes the build's sysroot once, stages it whole and packages the runtime per component" {
	bb -e cuda-xcc-sysroot
	assert_status 0
	sed -n '/^do_compile() {/,/^}/p' <<<"$output" > "$BATS_TEST_TMPDIR/compile.sh"
	grep -q 'cuda-xcc sysroot create' "$BATS_TEST_TMPDIR/compile.sh"
	grep -q -- '--target sbsa --cuda 12.6' "$BATS_TEST_TMPDIR/compile.sh"
	grep -q -- '-arch 90 --dest .*/simulated/cuda-xcc-sysroot/build/sysroot ' "$BATS_TEST_TMPDIR/compile.sh"
	# the runtime's license text is in the sysroot
	grep -q "^_task_deps=.*'do_populate_lic': \['do_patch', 'do_compile'\]" <<<"$output"
	grep -q -- '--target-fs .*/simulated/cuda-xcc-sysroot/recipe-sysroot' "$BATS_TEST_TMPDIR/compile.sh"
	grep -q '^DEPENDS=".* cuda-xcc-native"' <<<"$output"
	grep -qx 'PACKAGE_ARCH="qemuarm64"' <<<"$output"
	grep -q '^SYSROOT_DIRS=".* /usr/local/cuda-xcc"' <<<"$output"
	grep -q '^SSTATE_SCAN_FILES=".* sysroot.json"' <<<"$output"
	grep -qx 'PACKAGES="cuda-cudart cuda-nvtx libcublas cuda-xcc-sysroot"' <<<"$output"
	grep -q '^PROVIDES=".*cuda-cudart cuda-nvtx libcublas' <<<"$output"
	grep -qx 'FILES:cuda-cudart="/usr/lib/libcudart\*.so.\*"' <<<"$output"
	grep -qx 'FILES:libcublas="/usr/lib/libcublas.so.\* /usr/lib/libcublasLt.so.\* /usr/lib/libnvblas.so.\*"' <<<"$output"
	grep -qx 'FILES:cuda-nvtx="/usr/lib/libnvToolsExt.so.\*"' <<<"$output"
	grep -qx 'RDEPENDS:libcublas=" cuda-xcc-sysroot"' <<<"$output"
}

@test "yocto: two application recipes use one sysroot: one cuda-xcc-sysroot in the task graph, before their setup" {
	bb -g cuda-xcc-hello cuda-xcc-second
	assert_status 0
	dot=$YOCTO_TOP/task-depends.dot
	for app in cuda-xcc-hello cuda-xcc-second; do
		grep -q "\"$app.do_prepare_recipe_sysroot\" -> \"cuda-xcc-sysroot.do_populate_sysroot\"" "$dot"
		grep -q "\"$app.do_cuda_xcc_setup\" -> \"$app.do_prepare_recipe_sysroot\"" "$dot"
		grep -q "\"$app.do_configure\" -> \"$app.do_cuda_xcc_setup\"" "$dot"
	done
	grep -q '"cuda-xcc-sysroot.do_prepare_recipe_sysroot" -> "cuda-xcc-native.do_populate_sysroot"' "$dot"
	grep -q '"cuda-xcc-sysroot.do_configure" -> "cuda-xcc-sysroot.do_prepare_recipe_sysroot"' "$dot"
	run grep -c 'do_cuda_xcc_sysroot' "$dot"
	assert_output_equals 0
}

@test "yocto: a URL or an undefined variable in CUDA_XCC_FROM is refused at parse time with the way out" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	sysroot_append 'CUDA_XCC_FROM:pn-cuda-xcc-sysroot = "https://example.invalid/x.deb ${UNPACKDIR}/y.deb"'
	bb -e cuda-xcc-sysroot
	assert_status 1
	assert_output_contains "CUDA_XCC_FROM names https://example.invalid/x.deb: fetch it through SRC_URI"
	# scarthgap has no UNPACKDIR: the name would reach the task unexpanded
	assert_output_contains 'CUDA_XCC_FROM names ${UNPACKDIR}/y.deb, whose variable this release does not define: the fetcher unpacks into ${WORKDIR}'
}

@test "yocto: the runtime packages are Proprietary, the license text checksummed in the sysroot" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	sysroot_append 'CUDA_XCC_RUNTIME_LICENSE_MD5 = "0123456789abcdef0123456789abcdef"'
	bb -e cuda-xcc-sysroot
	assert_status 0
	grep -qx 'LICENSE="Proprietary"' <<<"$output"
	grep -qx "LIC_FILES_CHKSUM=\"file://$YOCTO_TOP/simulated/cuda-xcc-sysroot/build/sysroot/licenses/cuda_cudart/LICENSE;md5=0123456789abcdef0123456789abcdef\"" <<<"$output"
	# an application's own license is its own
	bb -e cuda-xcc-hello
	assert_status 0
	grep -qx 'LICENSE="CLOSED"' <<<"$output"
	run grep '^LIC_FILES_CHKSUM=".*cuda' <<<"$output"
	assert_status 1
}

# --- the recipes' tasks, run in a simulated task environment ----------------
# Offline, bitbake cannot run the layer's tasks: cuda-xcc-native, the cross
# compiler and oe-core's native tools would have to be built from downloaded
# sources first. These tests run the tasks' real code instead: the script
# bitbake would write as run.do_TASK (tests/lib/bitbake_task.py takes the
# task's expanded functions and the exported variables from `bitbake -e
# RECIPE`, where local.conf moved WORKDIR to $YOCTO_TOP/simulated), with only
# the missing tools and directories stood in for:
# - the cuda-xcc under test where STAGING_BINDIR_NATIVE says;
# - aarch64-poky-linux-g++ and -gcc-ar in STAGING_BINDIR_TOOLCHAIN: Debian's
#   aarch64 gcc 12 under the MACHINE's names, logging how they were called;
# - STAGING_DIR_TARGET (recipe-sysroot): Debian's arm64 libc and headers in
#   the image's usr/lib and usr/include;
# - CUDA 12.6 redistrib archives (tests/fixtures/make-redist.sh) in
#   cuda-xcc-sysroot's WORKDIR, where the fetcher would have put them
#   (CUDA_XCC_FROM in local.conf);
# - the staging of cuda-xcc-sysroot into an application's recipe sysroot
#   (do_populate_sysroot, then do_prepare_recipe_sysroot): its SYSROOT_DIRS
#   copied from its D, with sysroot.json's staging path rewritten as sstate's
#   FIXMESTAGINGDIRTARGET does (SSTATE_SCAN_FILES).

# sim_var NAME: NAME's value in the current recipe's bitbake -e output.
sim_var() { sed -n "s/^\(export \)\{0,1\}$1=\"\(.*\)\"\$/\2/p" "$SIM_ENV"; }

# sim_use RECIPE: the recipe sim_var and sim_task work on.
sim_use() {
	SIM_ENV=$BATS_TEST_TMPDIR/$1.env
	W=$(sim_var WORKDIR)
}

# sim_prepare RECIPE: bitbake -e RECIPE, then the stand-ins where its
# variables point, in an empty WORKDIR.
sim_prepare() {
	local native toolchain fs cc
	need aarch64-linux-gnu-g++-12 "the MACHINE's compiler stand-in"
	need aarch64-linux-gnu-gcc-ar-12 "the MACHINE's ar stand-in"
	need xz "the fixture archives"
	bb -e "$1"
	assert_status 0
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/$1.env"
	sim_use "$1"
	[ "$W" = "$YOCTO_TOP/simulated/$1" ]
	rm -rf "$W"
	mkdir -p "$W"
	fs=$(sim_var STAGING_DIR_TARGET)
	[ "$fs" = "$W/recipe-sysroot" ]
	mkdir -p "$fs/usr"
	cp -a /usr/aarch64-linux-gnu/lib "$fs/usr/lib"
	cp -a /usr/aarch64-linux-gnu/include "$fs/usr/include"
	native=$(sim_var STAGING_BINDIR_NATIVE)
	toolchain=$(sim_var STAGING_BINDIR_TOOLCHAIN)
	mkdir -p "$native" "$toolchain"
	cp "$CUDA_XCC" "$native/cuda-xcc"
	# a dynamic build's commands run in cuda-xcc-full, installed in libexec
	if [ -x "$(dirname "$CUDA_XCC")/cuda-xcc-full" ]; then
		mkdir -p "$native/../libexec/cuda-xcc"
		cp "$(dirname "$CUDA_XCC")/cuda-xcc-full" "$native/../libexec/cuda-xcc/"
	fi
	for cc in g++ gcc-ar; do
		printf '#!/bin/sh\necho "%s $*" >> "%s"\nexec %s "$@"\n' "aarch64-poky-linux-$cc" \
			"$W/toolchain.log" "$(command -v "aarch64-linux-gnu-$cc-12")" \
			> "$toolchain/aarch64-poky-linux-$cc"
		chmod +x "$toolchain/aarch64-poky-linux-$cc"
	done
}

# sim_task TASK [DIR]: run TASK as bitbake would (set -e, its exported
# variables only, in DIR), output in $output.
sim_task() {
	local script=$W/temp/run.$1
	mkdir -p "$W/temp"
	{
		echo '#!/bin/sh'
		echo 'set -e'
		python3 "$XCC_SRCDIR/tests/lib/bitbake_task.py" "$SIM_ENV" "$1"
		if [ -n "${2:-}" ]; then echo "cd '$2'"; fi
		echo "$1"
	} > "$script"
	run env -i /bin/sh "$script"
}

# sim_sysroot: cuda-xcc-sysroot's do_compile and do_install, as a build runs
# them once for all its applications.
sim_sysroot() {
	sim_prepare cuda-xcc-sysroot
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$W" --cuda 12.6.3 >/dev/null
	# do_compile[dirs] = "${B}", do_install[cleandirs] = "${D}" (base.bbclass)
	mkdir -p "$(sim_var B)" "$(sim_var D)"
	sim_task do_compile "$(sim_var B)"
	assert_status 0
	sim_task do_install "$(sim_var B)"
	assert_status 0
}

# sim_app RECIPE: an application's work directory, with cuda-xcc-sysroot's
# staged output in its recipe sysroot.
sim_app() {
	local d from to dir
	sim_use cuda-xcc-sysroot
	d=$(sim_var D)
	from=$(sim_var STAGING_DIR_TARGET)
	sim_prepare "$1"
	to=$(sim_var STAGING_DIR_TARGET)
	for dir in $(sim_use cuda-xcc-sysroot; sim_var SYSROOT_DIRS); do
		[ -d "$d$dir" ] || continue
		mkdir -p "$to$dir"
		cp -a "$d$dir/." "$to$dir/"
	done
	sim_use "$1"
	sed -i "s:$from:$to:g" "$to$(sim_var CUDA_XCC_SYSROOT_PATH)/sysroot.json"
}

# sim_split PKGD: each file of the package tree PKGD and the package do_package splits it
# into (FILES in PACKAGES order), "PATH PACKAGE" one a line.
sim_split() {
	python3 - "$SIM_ENV" "$1" <<-'EOS'
	import fnmatch, os, re, sys
	env = dict(re.findall(r'^(?:export )?([A-Za-z0-9_:.+-]+)="(.*)"$', open(sys.argv[1]).read(), re.M))
	for root, dirs, files in sorted(os.walk(sys.argv[2])):
	    for f in sorted(files):
	        path = os.path.join(root, f)[len(sys.argv[2]):]
	        print(path, next(p for p in env["PACKAGES"].split()
	                         if any(fnmatch.fnmatch(path, g) or path.startswith(g + "/")
	                                for g in env["FILES:" + p].split())))
	EOS
}

@test "yocto: cuda-xcc-sysroot's tasks run for real: the sysroot on the image's libc, staged whole, its libraries and NVIDIA's terms for the packages" {
	sim_sysroot
	sr=$(sim_var CUDA_XCC_SYSROOT_BUILD)
	fs=$(sim_var STAGING_DIR_TARGET)
	d=$(sim_var D)
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["target"], m["cuda"], m["target_dir"], m["target_fs"])' "$sr/sysroot.json"
	assert_output_equals "sbsa 12.6.3 sbsa-linux $fs"
	[ -f "$sr/targets/sbsa-linux/lib/libcudart.so.12.0.1" ]
	[ -f "$sr/targets/sbsa-linux/lib/libcublas.so.12.1" ]
	# the whole tree for the recipe sysroots, linked, not copied
	staged=$d$(sim_var CUDA_XCC_SYSROOT_PATH)
	[ "$staged" = "$d/usr/local/cuda-xcc" ]
	[ "$(stat -c %i "$staged/bin/nvcc")" = "$(stat -c %i "$sr/bin/nvcc")" ]
	cmp "$sr/sysroot.json" "$staged/sysroot.json"
	# the shared libraries for the packages, and only those
	run ls "$d/usr/lib"
	assert_output_equals "$(printf '%s\n' libcublas.so.12 libcublas.so.12.1 libcudart.so.12 libcudart.so.12.0.1 libnvToolsExt.so.1)"
	[ "$(readlink "$d/usr/lib/libcudart.so.12")" = libcudart.so.12.0.1 ]
	cmp "$sr/targets/sbsa-linux/lib/libcudart.so.12.0.1" "$d/usr/lib/libcudart.so.12.0.1"
	lic=$d/usr/share/licenses/cuda-xcc-sysroot
	cmp "$sr/licenses/cuda_cudart/LICENSE" "$lic/cuda_cudart-LICENSE"
	cmp "$sr/licenses/libcublas/LICENSE" "$lic/libcublas-LICENSE"
	# not the x86_64 tools' terms: nvcc never reaches the image
	[ -f "$sr/licenses/cuda_nvcc-host/LICENSE" ]
	[ ! -e "$lic/cuda_nvcc-host-LICENSE" ]
	# each library goes to its component's package, as do_package splits
	# them (FILES in PACKAGES order); the sysroot tree to none
	pkgd=$(sim_var PKGD)
	rm -rf "$pkgd"
	cp -a "$d" "$pkgd"
	sim_task cuda_xcc_sysroot_unpackaged
	assert_status 0
	[ ! -e "$pkgd/usr/local" ]
	run sim_split "$pkgd"
	assert_status 0
	assert_output_contains "/usr/lib/libcudart.so.12.0.1 cuda-cudart"
	assert_output_contains "/usr/lib/libcublas.so.12.1 libcublas"
	assert_output_contains "/usr/lib/libnvToolsExt.so.1 cuda-nvtx"
	assert_output_contains "/usr/share/licenses/cuda-xcc-sysroot/cuda_cudart-LICENSE cuda-xcc-sysroot"
	# the cuda_compat component (compat/, as its archive holds it) goes where
	# the board's own cuda-compat package puts it, in the package cuda-compat
	[ ! -e "$d/usr/local/cuda-12.6" ]
	mkdir -p "$sr/targets/sbsa-linux/compat"
	cp "$sr/targets/sbsa-linux/lib/libcudart.so.12.0.1" "$sr/targets/sbsa-linux/compat/libcuda.so.1.1"
	ln -s libcuda.so.1.1 "$sr/targets/sbsa-linux/compat/libcuda.so.1"
	rm -rf "$d"
	mkdir -p "$d"
	sim_task do_install "$(sim_var B)"
	assert_status 0
	[ "$(readlink "$d/usr/local/cuda-12.6/compat/libcuda.so.1")" = libcuda.so.1.1 ]
	cmp "$sr/targets/sbsa-linux/compat/libcuda.so.1.1" "$d/usr/local/cuda-12.6/compat/libcuda.so.1.1"
	rm -rf "$sr/targets/sbsa-linux/compat"
	sysroot_append 'CUDA_XCC_COMPONENTS:append:pn-cuda-xcc-sysroot = " cuda_compat cuda_compat_orin"'
	bb -e cuda-xcc-sysroot
	assert_status 0
	echo "$output" | grep -qxF 'FILES:cuda-compat="/usr/local/cuda-12.6/compat"'
	# Orin's own compat libraries (JetPack 6.2 with CUDA 13.2), where NVIDIA's
	# cuda-compat-orin-X-Y puts them
	echo "$output" | grep -qxF 'FILES:cuda-compat-orin="/usr/local/cuda-12.6/compat_orin"'
	sed -n '/^do_install() {/,/^}/p' <<<"$output" | grep -qF 'cp -P "$compat"_orin/* '
}

@test "yocto: the runtime packages ship TensorRT, cuDNN, VPI and L4T's multimedia libraries, each under its license" {
	local f
	sim_sysroot
	sr=$(sim_var CUDA_XCC_SYSROOT_BUILD)
	l=$sr/targets/sbsa-linux/lib
	# the products' files where a sysroot made with them holds them (tests/aptrepo.bats makes
	# such sysroots from NVIDIA-shaped repositories): aarch64 libraries with their links
	for f in libnvinfer.so.10.3.0 libnvonnxparser.so.10.3.0 libcudnn.so.9.3.0 libnvvpi.so.3.2.4; do
		cp "$l/libcudart.so.12.0.1" "$l/$f"
		ln -s "$f" "$l/${f%.*.*}"
	done
	mkdir "$l/priv" "$l/nvidia"
	cp "$l/libcudart.so.12.0.1" "$l/priv/libfixture_vpi_priv.so"
	cp "$l/libcudart.so.12.0.1" "$l/nvidia/libnvbufsurface.so.1.0.0"
	ln -s libnvbufsurface.so.1.0.0 "$l/nvidia/libnvbufsurface.so.1"
	ln -s libnvbufsurface.so.1.0.0 "$l/nvidia/libnvbufsurface.so"
	sysroot_append 'CUDA_XCC_COMPONENTS:append:pn-cuda-xcc-sysroot = " tensorrt cudnn vpi l4t_multimedia"'
	bb -e cuda-xcc-sysroot
	assert_status 0
	printf '%s\n' "$output" > "$SIM_ENV"
	grep -qx 'PACKAGES="cuda-cudart cuda-nvtx libcublas tensorrt cudnn vpi l4t-multimedia cuda-xcc-sysroot"' "$SIM_ENV"
	d=$(sim_var D)
	rm -rf "$d"
	mkdir -p "$d"
	sim_task do_install "$(sim_var B)"
	assert_status 0
	[ "$(readlink "$d/usr/lib/libnvinfer.so.10")" = libnvinfer.so.10.3.0 ]
	[ -f "$d/usr/lib/priv/libfixture_vpi_priv.so" ]
	[ "$(readlink "$d/usr/lib/nvidia/libnvbufsurface.so.1")" = libnvbufsurface.so.1.0.0 ]
	[ "$(cat "$d/etc/ld.so.conf.d/cuda-xcc-l4t-multimedia.conf")" = /usr/lib/nvidia ]
	pkgd=$(sim_var PKGD)
	rm -rf "$pkgd"
	cp -a "$d" "$pkgd"
	sim_task cuda_xcc_sysroot_unpackaged
	assert_status 0
	run sim_split "$pkgd"
	assert_status 0
	assert_output_contains "/usr/lib/libnvinfer.so.10.3.0 tensorrt"
	assert_output_contains "/usr/lib/libnvonnxparser.so.10.3.0 tensorrt"
	assert_output_contains "/usr/lib/libcudnn.so.9.3.0 cudnn"
	assert_output_contains "/usr/lib/libnvvpi.so.3.2.4 vpi"
	assert_output_contains "/usr/lib/priv/libfixture_vpi_priv.so vpi"
	assert_output_contains "/usr/lib/nvidia/libnvbufsurface.so.1.0.0 l4t-multimedia"
	assert_output_contains "/usr/lib/nvidia/libnvbufsurface.so l4t-multimedia"
	assert_output_contains "/etc/ld.so.conf.d/cuda-xcc-l4t-multimedia.conf l4t-multimedia"
	assert_output_contains "/usr/lib/libcudart.so.12.0.1 cuda-cudart"
	# each package's license is sysroots/components.json's, and the recipe's holds them all
	run python3 - "$SIM_ENV" "$XCC_SRCDIR/sysroots/components.json" <<-'EOS'
	import json, re, sys
	env = dict(re.findall(r'^(?:export )?([A-Za-z0-9_:.+-]+)="(.*)"$', open(sys.argv[1]).read(), re.M))
	table = json.load(open(sys.argv[2]))["licenses"]
	for c, e in sorted(table.items()):
	    got = env["LICENSE:" + c.replace("_", "-")]
	    print(c, "ok" if got == e["license"] else "differs: %r, not %r" % (got, e["license"]))
	print("LICENSE", env["LICENSE"])
	print("cuda-cudart", env["LICENSE:cuda-cudart"])
	EOS
	assert_status 0
	assert_output_equals "$(printf '%s\n' "cudnn ok" "l4t_multimedia ok" "tensorrt ok" "vpi ok" \
		"LICENSE Proprietary & Apache-2.0 & MIT & BSD-3-Clause" "cuda-cudart Proprietary")"
	grep -q '^INSANE_SKIP:l4t-multimedia=".*dev-so' "$SIM_ENV"
}

@test "yocto: two applications set up against the one staged sysroot: nvcc script, validated CMake cache, Meson cross file" {
	sim_sysroot
	for app in cuda-xcc-hello cuda-xcc-second; do
		sim_app "$app"
		fs=$(sim_var STAGING_DIR_TARGET)
		sr=$(sim_var CUDA_XCC_SYSROOT)
		[ "$sr" = "$fs/usr/local/cuda-xcc" ]
		cache=$(sim_var CUDA_XCC_CMAKE_CACHE)
		nvcc=$(sim_var CUDA_XCC_NVCC)
		sim_task do_cuda_xcc_setup
		assert_status 0
		# the MACHINE's compiler went through the driver's checks (machine, version)
		grep -qx 'aarch64-poky-linux-g++ -dumpmachine' "$W/toolchain.log"
		grep -qx 'aarch64-poky-linux-g++ -dumpversion' "$W/toolchain.log"
		grep -qxF 'set(CMAKE_CUDA_ARCHITECTURES [[90]] CACHE STRING "validated by cuda-xcc")' "$cache"
		grep -qxF "set(CMAKE_CUDA_COMPILER [[$nvcc]] CACHE STRING \"cuda-xcc\")" "$cache"
		grep -qxF 'set(CMAKE_CUDA_HOST_COMPILER [[aarch64-poky-linux-g++]] CACHE STRING "cuda-xcc")' "$cache"
		grep -qxF "set(CUDAToolkit_ROOT [[$sr]] CACHE STRING \"cuda-xcc\")" "$cache"
		# FindCUDA would look for targets/aarch64-linux
		grep -qxF "set(CUDA_TOOLKIT_TARGET_DIR [[$sr/targets/sbsa-linux]] CACHE STRING \"cuda-xcc\")" "$cache"
		grep -qxF 'set(CUDA_HOST_COMPILER [[aarch64-poky-linux-g++]] CACHE STRING "cuda-xcc")' "$cache"
		# no ccache class, no launcher
		run grep CMAKE_CUDA_COMPILER_LAUNCHER "$cache"
		assert_status 1
		# the flags every compilation needs are the compiler's, not CMAKE_CUDA_FLAGS'
		run grep CMAKE_CUDA_FLAGS "$cache"
		assert_status 1
		# the script's words, as sh reads them
		nvcc_words "$nvcc" > "$BATS_TEST_TMPDIR/words"
		sed -n 1,3p "$BATS_TEST_TMPDIR/words" | cmp - <(printf '%s\n' "$sr/bin/nvcc" \
			-target-dir=sbsa-linux -arbin=aarch64-poky-linux-gcc-ar)
		sed -n 4p "$BATS_TEST_TMPDIR/words" | grep -qx -- "-Xcompiler=-mcpu=cortex-a57+crc,.*,--sysroot=$fs"
		sed -n 5p "$BATS_TEST_TMPDIR/words" | grep -qx -- '-Xcompiler=-f.*'
		# the class's prefix maps reach nvcc's host compiler (buildpaths QA), each
		# through its own -Xcompiler; not gcc 13's -fcanon-prefix-map
		grep -qxF -- "-Xcompiler=-fmacro-prefix-map=$(sim_var STAGING_DIR_HOST)=" "$BATS_TEST_TMPDIR/words"
		grep -qxF -- "-Xcompiler=-fdebug-prefix-map=$(sim_var S)=$(sim_var TARGET_DBGSRC_DIR)" "$BATS_TEST_TMPDIR/words"
		run grep -F -- -fcanon-prefix-map "$nvcc"
		assert_status 1
		cross=$(sim_var CUDA_XCC_MESON_CROSS)
		grep -qxF "cuda = ['$nvcc']" "$cross"
		grep -qxF "cuda_args = ['-ccbin=aarch64-poky-linux-g++', '-gencode=arch=compute_90,code=sm_90', '-gencode=arch=compute_90,code=compute_90']" "$cross"
	done
}

@test "yocto: MESON_CROSS_FILE gets the class's CUDA cross file, whose strings Meson reads back" {
	need meson
	need ninja
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	# (an appended value: after oe-core's meson.cross in a meson recipe,
	# whose meson-native the mask leaves out)
	bb -e cuda-xcc-second
	assert_status 0
	grep -qx "MESON_CROSS_FILE=\" --cross-file $YOCTO_TOP/simulated/cuda-xcc-second/meson-cuda.cross\"" <<<"$output"
	# the file's strings as Meson reads them, quoted by cuda-xcc as the class
	# has it quote them: a backslash and a quote as themselves
	d=$(scratch)
	grep -qF 'cuda=$(${CUDA_XCC} toolchain quote --meson "$@" "${CUDA_XCC_NVCC}")' \
		"$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass"
	mkdir -p "$d/p"
	printf "project('p')\nmessage('words=' + ' | '.join(meson.get_external_property('words')))\n" > "$d/p/meson.build"
	words=$(xcc toolchain quote --meson '-ccbin=a\b' '-x\\y' "$d/sp ace/nvcc" 'a"b' "it's")
	printf '[binaries]\ncuda = %s\n[properties]\nwords = %s\n' "$words" "$words" > "$d/cuda.cross"
	printf "[host_machine]\nsystem = 'linux'\ncpu_family = 'aarch64'\ncpu = 'aarch64'\nendian = 'little'\n" > "$d/base.cross"
	run meson setup --cross-file "$d/base.cross" --cross-file "$d/cuda.cross" "$d/b" "$d/p"
	assert_status 0
	assert_output_contains "words=-ccbin=a\\b | -x\\\\y | $d/sp ace/nvcc | a\"b | it's"
	# and a word it cannot carry stops the task's command
	run xcc toolchain quote --meson ok "$(printf 'line\nbreak')"
	assert_status 2
	assert_output_contains "cannot be written as a Meson string"
}

@test "yocto: with the ccache class, nvcc runs under ccache with the sysroot's fingerprint as its compiler check" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	sim_sysroot
	example_append 'inherit ccache'
	sim_app cuda-xcc-hello
	grep -qx 'OECMAKE_CUDA_COMPILER_LAUNCHER="ccache"' "$SIM_ENV"
	sr=$(sim_var CUDA_XCC_SYSROOT)
	nvcc=$(sim_var CUDA_XCC_NVCC)
	sim_task do_cuda_xcc_setup
	assert_status 0
	fp=$(xcc sysroot info "$sr" --fingerprint)
	[ -n "$fp" ]
	grep -qxF "set(CMAKE_CUDA_COMPILER_LAUNCHER [[env;CCACHE_COMPILERCHECK=string:cuda-xcc-sysroot-$fp;ccache]] CACHE STRING \"cuda-xcc\")" "$(sim_var CUDA_XCC_CMAKE_CACHE)"
	grep -qxF "cuda = ['env', 'CCACHE_COMPILERCHECK=string:cuda-xcc-sysroot-$fp', 'ccache', '$nvcc']" "$(sim_var CUDA_XCC_MESON_CROSS)"
}

@test "yocto: an application built for another target than the shared sysroot is stopped by its setup task" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	sim_sysroot
	example_append 'CUDA_XCC_TARGET = "jetson"'
	sim_app cuda-xcc-hello
	sim_task do_cuda_xcc_setup
	assert_status 2
	assert_output_contains "sbsa"
	[ ! -e "$(sim_var CUDA_XCC_CMAKE_CACHE)" ]
}

@test "yocto: a GPU the CUDA release does not support stops cuda-xcc-sysroot's do_compile with cuda-xcc's message" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	sysroot_append 'CUDA_ARCHITECTURES = "35"'
	sim_prepare cuda-xcc-sysroot
	grep -qx 'CUDA_XCC_ARCH="35"' "$SIM_ENV"
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$W" --cuda 12.6.3 >/dev/null
	mkdir -p "$(sim_var B)"
	sim_task do_compile "$(sim_var B)"
	assert_status 2
	assert_output_contains "sm_35 (Kepler) was removed in CUDA 12.0, last supported by 11.8"
	[ ! -e "$(sim_var CUDA_XCC_SYSROOT_BUILD)" ]
}

@test "yocto: the class's CMake cache is cuda-xcc's, whose entries carry any value as it is" {
	local d i
	need cmake
	d=$(scratch)
	# no quoting of the class's own: cuda-xcc writes the file
	run grep -c 'cmake_set\|\[=*\[' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass"
	assert_output_equals 0
	grep -q 'toolchain query --sysroot "$sr" .*\\$' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass"
	grep -q -- '--cmake-cache \\$' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass"
	# the class's values as it hands them over: --cache NAME=VALUE
	one_file_sysroot "$d/sr" sbsa 12.4.1 aarch64-linux-gnu-g++-12 9.0
	values=('a"b\c$d${e};f' 'x]]y]=]z]==]w' 'ends]' 'ends]=' "it's #h ü" 'back\')
	set --
	for i in "${!values[@]}"; do
		set -- "$@" --cache "V$i=${values[$i]}"
	done
	run xcc toolchain query --sysroot "$d/sr" --cmake-cache "$@" --output "$d/cache.cmake"
	assert_status 0
	mkdir "$d/proj"
	cat > "$d/proj/CMakeLists.txt" <<-'EOS'
	cmake_minimum_required(VERSION 3.16)
	project(cache NONE)
	foreach(i RANGE 5)
		file(WRITE "${CMAKE_BINARY_DIR}/v${i}.txt" "${V${i}}")
	endforeach()
	file(WRITE "${CMAKE_BINARY_DIR}/tdir.txt" "${CUDA_TOOLKIT_TARGET_DIR}")
	EOS
	run cmake -C "$d/cache.cmake" -S "$d/proj" -B "$d/b"
	assert_status 0
	for i in "${!values[@]}"; do
		cmp "$d/b/v$i.txt" <(printf '%s' "${values[$i]}")
	done
	cmp "$d/b/tdir.txt" <(printf '%s' "$d/sr/targets/sbsa-linux")
	# and the nvcc script's words, quoted for sh by cuda-xcc as the class has it
	grep -qF 'words=$(${CUDA_XCC} toolchain quote --sh "$@")' \
		"$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass"
	for i in "${!values[@]}"; do
		eval "set -- $(xcc toolchain quote --sh "${values[$i]}" -x)"
		[ "$#" -eq 2 ]
		[ "$1" = "${values[$i]}" ]
	done
}

@test "yocto: a recipe written to meta-tegra's names: its flags reach do_configure, and its -DCMAKE_CUDA_FLAGS drops none of the class's" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	printf '%s\n' 'CUDA_NVCC_EXTRA_FLAGS:append = " --expt-relaxed-constexpr"' \
		'CUDA_NVCC_COMPAT_FLAGS = "--default-stream per-thread"' \
		'CXX_FOR_CUDA = "${CCACHE}${HOST_PREFIX}g++ ${HOST_CC_ARCH}${TOOLCHAIN_OPTIONS}"' \
		'EXTRA_OECMAKE:append = " -DCMAKE_CUDA_FLAGS=-O3"' > "$YOCTO_TOP/test-layer/cuda-xcc-hello_%.bbappend"
	sim_sysroot
	sim_app cuda-xcc-hello
	nvcc=$(sim_var CUDA_XCC_NVCC)
	sr=$(sim_var CUDA_XCC_SYSROOT)
	fs=$(sim_var STAGING_DIR_TARGET)
	python3 "$XCC_SRCDIR/tests/lib/bitbake_task.py" "$SIM_ENV" do_configure > "$BATS_TEST_TMPDIR/configure.sh"
	grep -qx "export CUDACXX=\"$nvcc\"" "$BATS_TEST_TMPDIR/configure.sh"
	grep -qx 'export CUDAHOSTCXX="aarch64-poky-linux-g++"' "$BATS_TEST_TMPDIR/configure.sh"
	grep -q '^export CUDAFLAGS=" *--default-stream per-thread *--expt-relaxed-constexpr -Xcompiler=-mcpu=cortex-a57+crc,.*,--sysroot='"$fs"'"$' "$BATS_TEST_TMPDIR/configure.sh"
	sim_task do_cuda_xcc_setup
	assert_status 0
	# what CMake's compiler runs, with the recipe's own CMAKE_CUDA_FLAGS
	printf '#!/bin/sh\necho "nvcc $*"\n' > "$sr/bin/nvcc"
	run "$nvcc" -O3 -c hello.cu
	assert_status 0
	[[ "$output" =~ ^nvcc\ -target-dir=sbsa-linux\ -arbin=aarch64-poky-linux-gcc-ar\ -Xcompiler=-mcpu=cortex-a57\+crc,[^\ ]*,--sysroot=$fs(\ -Xcompiler=-f[a-z]*-prefix-map=[^\ ]*)+\ -O3\ -c\ hello.cu$ ]]
}

@test "yocto: LAYERSERIES_COMPAT names scarthgap and meta-tegra's JetPack 7 series; the layer parses with every poky snapshot here" {
	grep -qx 'LAYERSERIES_COMPAT_cuda-xcc = "scarthgap whinlatter wrynose blacksail"' "$XCC_SRCDIR/wrappers/yocto/conf/layer.conf"
	# bitbake parses it with each poky snapshot this machine has. Only
	# scarthgap's is in the project's snapshots: whinlatter, wrynose and
	# blacksail were not available to test (their parse is untested here).
	local have=0 p series
	for p in "$(thirdparty)"/poky-*/poky; do
		[ -f "$p/meta/conf/layer.conf" ] || continue
		series=$(sed -n 's/^LAYERSERIES_CORENAMES = "\(.*\)"$/\1/p' "$p/meta/conf/layer.conf")
		grep -q "LAYERSERIES_COMPAT_cuda-xcc = .*\b$series\b" "$XCC_SRCDIR/wrappers/yocto/conf/layer.conf"
		have=$((have + 1))
	done
	[ "$have" -ge 1 ] || skip "no poky snapshot in $(thirdparty)"
	bb -p
	assert_status 0
	assert_output_contains " 0 errors."
	[[ "$output" != *"LAYERSERIES_COMPAT"* ]]
}

@test "yocto: a recipe written for meta-tegra (inherit cuda) parses, with the MACHINE's arch flags, meta-tegra's CUDA_VERSION and a SoC package arch" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	cat > "$YOCTO_TOP/test-layer/tegra-style-app_1.0.bb" <<-'EOS'
	SUMMARY = "A CUDA program written as for meta-tegra"
	LICENSE = "CLOSED"
	SRC_URI = ""
	inherit cuda
	do_compile() {
	    oe_runmake NVCC="${CUDA_NVCC_EXECUTABLE}" NVCCFLAGS="${CUDA_NVCC_ARCH_FLAGS}"
	}
	EOS
	# an Orin MACHINE of meta-tegra: CUDA_ARCHITECTURES, CUDA_VERSION, SOC_FAMILY_PKGARCH
	echo 'CUDA_ARCHITECTURES = "87"' > "$YOCTO_TOP/test-layer/tegra-style-app_%.bbappend"
	bb -e tegra-style-app
	assert_status 0
	grep -qx 'CUDA_NVCC_ARCH_FLAGS="--gpu-architecture=compute_87 --gpu-code=sm_87"' <<<"$output"
	# a Makefile recipe gets them in CUDA_NVCC_FLAGS too (cmake ones as CMAKE_CUDA_ARCHITECTURES)
	grep -q '^CUDA_NVCC_FLAGS="--gpu-architecture=compute_87 --gpu-code=sm_87 ' <<<"$output"
	grep -qx 'PACKAGE_ARCH="qemuarm64"' <<<"$output"
	grep -q '^export CUDA_PATH=".*/recipe-sysroot/usr/local/cuda-xcc"' <<<"$output"
	printf 'CUDA_ARCHITECTURES = "87 72"\nCUDA_VERSION = "12.2"\nSOC_FAMILY_PKGARCH = "tegra234"\n' > "$YOCTO_TOP/test-layer/tegra-style-app_%.bbappend"
	bb -e tegra-style-app
	assert_status 0
	grep -qx 'CUDA_NVCC_ARCH_FLAGS="-gencode=arch=compute_87,code=sm_87 -gencode=arch=compute_72,code=sm_72"' <<<"$output"
	grep -qx 'CUDA_XCC_CUDA_VERSION="12.2"' <<<"$output"
	grep -qx 'PACKAGE_ARCH="tegra234"' <<<"$output"
	# meta-tegra's own CUDA recipes in DEPENDS: skipped, told the one change.
	echo 'DEPENDS += "cuda-libraries"' > "$YOCTO_TOP/test-layer/tegra-style-app_%.bbappend"
	bb tegra-style-app -n
	assert_status 1
	assert_output_contains "DEPENDS names meta-tegra's cuda-libraries, which the cuda-xcc layer replaces with cuda-xcc-sysroot (added by the class): drop it from DEPENDS"
}
