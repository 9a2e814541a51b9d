#!/usr/bin/env bats
# Real bitbake runs the layer's tasks (make check-bitbake-build; not in make
# check, it takes minutes): cuda-xcc-sysroot's tasks up to its staging, then
# the example recipe's do_cuda_xcc_setup, do_configure, do_compile and
# do_install on the staged sysroot, with cuda-xcc-native built from this
# checkout, under poky scarthgap's bitbake and oe-core's classes.
#
# Offline, from what this machine has (tests/fixtures/yocto-offline, a layer
# of the test's own):
# - the toolchain: Debian's aarch64-linux-gnu gcc 12 under the MACHINE's
#   names (TCMODE = "debian-cross"), its libc and runtime libraries as the
#   target's staging tree;
# - oe-core's native tools and cuda-xcc-native's libraries: the build
#   machine's own (ASSUME_PROVIDED), Debian's pseudo as the fakeroot;
# - the CUDA packages: Debian trixie's CUDA 12.4 (scripts/fetch-debian-cuda.sh
#   --release trixie), through SRC_URI as a user would give them.
# Everything of oe-core's own recipes is masked: building gcc-cross and the
# native tools from source needs their downloads, which this machine cannot
# reach. bitbake refuses to run as root: it runs as uid 1000 of a user
# namespace. XCC_BITBAKE_BUILD_OUT=DIR keeps the build directory (a rerun
# then reruns only what changed).
load lib/common
load lib/e2e

thirdparty() { echo "${XCC_THIRDPARTY:-/var/cache/cuda-xcc/thirdparty}"; }
trixie_cache() { echo "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; }
trixie_debs() {
	local c
	c=$(trixie_cache)
	ls "$c"/nvidia-cuda-toolkit_12.4.*_amd64.deb "$c"/nvidia-cuda-dev_12.4.*_arm64.deb \
		"$c"/libcudart12_12.4.*_arm64.deb 2>/dev/null
}

# Why the build cannot run here, or nothing.
bitbake_missing() {
	local tool
	[ -n "$POKY" ] || { echo "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"; return; }
	for tool in unshare pseudo cmake ninja aarch64-linux-gnu-g++ qemu-aarch64 chrpath autoreconf; do
		command -v "$tool" >/dev/null || { echo "$tool is not installed"; return; }
	done
	[ -e /usr/lib/x86_64-linux-gnu/pseudo/libpseudo.so ] || { echo "libpseudo is not installed"; return; }
	[ "$(trixie_debs | wc -l)" -eq 3 ] ||
		echo "the CUDA 12.4 .debs are not in $(trixie_cache) (run scripts/fetch-debian-cuda.sh --release trixie)"
}

setup_file() {
	export BB_STATE=$BATS_FILE_TMPDIR/state
	export BB_TOP=${XCC_BITBAKE_BUILD_OUT:-$BATS_FILE_TMPDIR/build}
	POKY=$(ls -d "$(thirdparty)"/poky-scarthgap-*/poky 2>/dev/null | head -n1)
	local meta_oe why src debs d from=
	meta_oe=$(ls -d "$(thirdparty)"/meta-openembedded-scarthgap-*/meta-openembedded/meta-oe 2>/dev/null | head -n1)
	why=$(bitbake_missing)
	if [ -n "$why" ]; then
		echo "skip $why" >"$BB_STATE"
		return 0
	fi
	# cuda-xcc-native builds from a copy of the checkout: externalsrc would
	# run autoreconf in the tree itself and leave its links there.
	src=$BB_TOP/cuda-xcc-src
	rm -rf "$src"
	mkdir -p "$src" "$BB_TOP/conf"
	(cd "$XCC_SRCDIR" && { git ls-files -z --cached --others --exclude-standard 2>/dev/null || find . -path ./build -prune -o -type f -print0; } |
		tar --null -T - -cf -) | tar -xf - -C "$src"
	# Debian's pseudo where oe-core looks for pseudo-native's.
	mkdir -p "$BB_TOP/pseudo/usr/bin" "$BB_TOP/pseudo/usr/lib/pseudo/lib"
	for t in pseudo pseudodb pseudolog; do ln -sfn "/usr/bin/$t" "$BB_TOP/pseudo/usr/bin/$t"; done
	ln -sfn /usr/lib/x86_64-linux-gnu/pseudo/libpseudo.so "$BB_TOP/pseudo/usr/lib/pseudo/lib/libpseudo.so"
	debs=$(trixie_debs)
	for d in $debs; do from="$from \${WORKDIR}/${d##*/}"; done
	cat >"$BB_TOP/conf/bblayers.conf" <<-EOS
	POKY_BBLAYERS_CONF_VERSION = "2"
	BBPATH = "\${TOPDIR}"
	BBFILES ?= ""
	BBLAYERS = "$POKY/meta $meta_oe $src/wrappers/yocto $src/tests/fixtures/yocto-offline"
	EOS
	cat >"$BB_TOP/conf/local.conf" <<-EOS
	MACHINE = "qemuarm64"
	DISTRO = ""
	CONF_VERSION = "2"
	BB_NO_NETWORK = "1"
	TCMODE = "debian-cross"
	BBMASK = "/meta/recipes- /meta-oe/recipes-"
	ASSUME_PROVIDED += "cmake-native ninja-native quilt-native patch-native patch-replacement-native \\
	    pseudo-native virtual/fakeroot-native pkgconfig-native autoconf-native automake-native \\
	    libtool-native libtool-cross gnu-config-native m4-native gettext-native texinfo-dummy-native \\
	    elfutils-native libarchive-native cjson-native curl-native nettle-native xz-native \\
	    zstd-native zlib-native bzip2-native rpm-native dwarfsrcfiles-native opkg-utils-native"
	HOSTTOOLS += "cmake ninja pkg-config autoconf autoreconf autoheader autom4te automake aclocal libtoolize m4"
	PSEUDO_SYSROOT = "$BB_TOP/pseudo"
	# Debian 12's gcc 12 has no -fcanon-prefix-map (gcc 13).
	DEBUG_PREFIX_MAP:remove = "-fcanon-prefix-map"
	EXTERNALSRC_SYMLINKS = ""
	CUDA_ARCHITECTURES = "90"
	CUDA_XCC_TARGET = "sbsa"
	CUDA_XCC_CUDA_VERSION = "12.4"
	FILESEXTRAPATHS:prepend:pn-cuda-xcc-sysroot := "$(trixie_cache):"
	SRC_URI:append:pn-cuda-xcc-sysroot = "$(for d in $debs; do printf ' file://%s;unpack=0' "${d##*/}"; done)"
	CUDA_XCC_FROM:pn-cuda-xcc-sysroot = "${from# }"
	EOS
	SECONDS=0
	if unshare --user --map-user=1000 --map-group=1000 \
		env LC_ALL=en_US.UTF-8 LANG=en_US.UTF-8 PATH="$POKY/bitbake/bin:$PATH" \
		bash -c 'cd "$1" && nice -n 10 bitbake -c install cuda-xcc-hello' bb "$BB_TOP" \
		>"$BB_TOP/bitbake.log" 2>&1; then
		echo "ok $SECONDS" >"$BB_STATE"
	else
		echo "fail bitbake -c install cuda-xcc-hello (log: $BB_TOP/bitbake.log): $(grep -v '^NOTE' "$BB_TOP/bitbake.log" | tail -25)" >"$BB_STATE"
	fi
	echo "# bitbake -c install cuda-xcc-hello took $SECONDS s" >&3
}

need_build() {
	e2e_state_take "$BB_STATE"
	W=$BB_TOP/tmp-glibc/work/cortexa57-oe-linux/cuda-xcc-hello/1.0
	P=$W/image/usr/bin/cuda-xcc-hello
	# the shared sysroot's recipe: the MACHINE's GPUs, the MACHINE's arch
	WS=$BB_TOP/tmp-glibc/work/qemuarm64-oe-linux/cuda-xcc-sysroot/1.0
	SR=$W/recipe-sysroot/usr/local/cuda-xcc
}

@test "bitbake build: the example's tasks ran, do_cuda_xcc_setup to do_install, on the sysroot cuda-xcc-sysroot staged, with cuda-xcc-native from this checkout" {
	need_build
	for task in do_cuda_xcc_setup do_configure do_compile do_install; do
		ls "$W"/temp/log.$task.* >/dev/null
	done
	for task in do_compile do_install do_populate_sysroot; do
		ls "$WS"/temp/log.$task.* >/dev/null
	done
	# the example made no sysroot of its own
	[ ! -e "$W/cuda-xcc-sysroot" ]
	# cuda-xcc-native, staged into the example's native sysroot by bitbake
	run "$W/recipe-sysroot-native/usr/bin/cuda-xcc" --version
	assert_status 0
	assert_output_contains "cuda-xcc"
	grep -q "compiling from external source tree $BB_TOP/cuda-xcc-src" "$BB_TOP/bitbake.log"
	# staged through sstate, its device root rewritten to the example's recipe
	# sysroot (SSTATE_SCAN_FILES)
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["target"], m["cuda"], m["target_fs"])' "$SR/sysroot.json"
	assert_status 0
	assert_output_equals "sbsa 12.4 $W/recipe-sysroot"
	run "$W/recipe-sysroot-native/usr/bin/cuda-xcc" sysroot verify "$SR"
	assert_status 0
}

@test "bitbake build: the program is aarch64 with sm_90 SASS and starts on cuda-xcc-sysroot's CUDA runtime" {
	need_build
	run file -b "$P"
	assert_status 0
	assert_output_contains "ARM aarch64"
	run "$CUDA_XCC" fatbin "$P"
	assert_status 0
	[[ "$output" =~ sass\ +sm_90 ]]
	# the runtime is cuda-xcc-sysroot's (its package cuda-cudart), not the example's
	[ ! -e "$W/image/usr/lib/libcudart.so.12" ]
	[ -L "$WS/image/usr/lib/libcudart.so.12" ]
	# Without a GPU driver the CUDA runtime answers 35: the program was
	# linked, found its libcudart where cuda-xcc-sysroot installs it and
	# reached it.
	run qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH="$WS/image/usr/lib" "$P"
	assert_status 1
	assert_output_contains "cuda-xcc-hello: 0 err=35 (cudaErrorInsufficientDriver)"
}

@test "bitbake build: nvcc's script carries the flags every compile needs, quoted for sh" {
	need_build
	run nvcc_words "$W/cuda-xcc-bin/nvcc"
	assert_status 0
	[ "${lines[0]}" = "$SR/bin/nvcc" ]
	[ "${lines[1]}" = -target-dir=sbsa-linux ]
	[ "${lines[2]}" = -arbin=aarch64-oe-linux-gcc-ar ]
	# CMAKE_CUDA_ARCHITECTURES as cuda-xcc validated it
	grep -qF -- '--generate-code=arch=compute_90,code=[compute_90,sm_90]' "$W/build/build.ninja"
}
