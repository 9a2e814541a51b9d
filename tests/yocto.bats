#!/usr/bin/env bats
# The Yocto layer (wrappers/yocto) under real bitbake: poky scarthgap with
# meta-oe, unpacked outside the checkout by scripts/setup.sh from the
# project's third-party snapshots into $XCC_THIRDPARTY (default
# /var/cache/cuda-xcc/thirdparty). bitbake refuses to run as root, so the
# tests run it as uid 1000 of a user namespace of their own. Offline, bitbake
# parses, evaluates and plans; the tasks themselves need oe-core's native
# tools, which it would download.
load lib/common

thirdparty() { echo "${XCC_THIRDPARTY:-/var/cache/cuda-xcc/thirdparty}"; }

setup_file() {
	local poky meta_oe top
	poky=$(ls -d "$(thirdparty)"/poky-scarthgap-*/poky 2>/dev/null | head -n1)
	meta_oe=$(ls -d "$(thirdparty)"/meta-openembedded-scarthgap-*/meta-openembedded/meta-oe 2>/dev/null | head -n1)
	export YOCTO_POKY=$poky
	if [ -z "$poky" ] || [ -z "$meta_oe" ]; then return 0; fi
	# Parsing all of oe-core takes minutes: keep the build directory, and
	# with it bitbake's parse cache, between runs.
	top=${XCC_YOCTO_BUILD:-/var/cache/cuda-xcc/yocto-build-test}
	export YOCTO_TOP=$top
	mkdir -p "$top/conf"
	cat > "$top/conf/bblayers.conf" <<-EOS
	POKY_BBLAYERS_CONF_VERSION = "2"
	BBPATH = "\${TOPDIR}"
	BBFILES ?= ""
	BBLAYERS = "$poky/meta $poky/meta-poky $meta_oe $XCC_SRCDIR/wrappers/yocto"
	EOS
	cat > "$top/conf/local.conf" <<-'EOS'
	MACHINE = "qemuarm64"
	DISTRO = "poky"
	CONF_VERSION = "2"
	BB_NO_NETWORK = "1"
	# meta-tegra's machines set this; the class takes the GPUs from it.
	CUDA_ARCHITECTURES = "90"
	CUDA_XCC_TARGET:pn-cuda-xcc-hello = "sbsa"
	# Of meta-oe only what cuda-xcc-native needs: parsing stays short.
	BBMASK = "meta-oe/recipes-(?!devtools/cjson)"
	EOS
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

@test "yocto: the class takes the MACHINE's GPUs and the full cross compiler" {
	bb -e cuda-xcc-hello
	assert_status 0
	grep -qx 'CUDA_XCC_ARCH="90"' <<<"$output"
	grep -q '^DEPENDS=".* cuda-xcc-native' <<<"$output"
	grep -q '^EXTRA_OECMAKE=".*-C .*/cuda-xcc-cache.cmake"' <<<"$output"
	grep -qx 'RDEPENDS:cuda-xcc-hello=" cuda-xcc-hello-cuda-runtime"' <<<"$output"
	# nvcc's host compiler is the MACHINE's, with its tune flags and sysroot.
	grep -q '^CUDA_XCC_DRIVER=.*-ccbin aarch64-poky-linux-g++ .*-Xcompiler=-mcpu=cortex-a57.*--sysroot=.*recipe-sysroot -arbin aarch64-poky-linux-gcc-ar"' <<<"$output"
	sed -n '/^do_cuda_xcc_sysroot() {/,/^}/p' <<<"$output" > "$BATS_TEST_TMPDIR/task.sh"
	grep -q 'cuda-xcc sysroot create' "$BATS_TEST_TMPDIR/task.sh"
	grep -q -- '--target-fs .*/recipe-sysroot' "$BATS_TEST_TMPDIR/task.sh"
	grep -q 'cuda-xcc flags --target sbsa --cuda 11.8' "$BATS_TEST_TMPDIR/task.sh"
}

@test "yocto: the sysroot task runs after the native tool is staged and before configure" {
	bb -g cuda-xcc-hello
	assert_status 0
	dot=$YOCTO_TOP/task-depends.dot
	grep -q '"cuda-xcc-hello.do_cuda_xcc_sysroot" -> "cuda-xcc-native.do_populate_sysroot"' "$dot"
	grep -q '"cuda-xcc-hello.do_configure" -> "cuda-xcc-hello.do_cuda_xcc_sysroot"' "$dot"
}

@test "yocto: a URL in CUDA_XCC_FROM is refused at parse time with the way out" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	cp "$YOCTO_TOP/conf/local.conf" "$BATS_TEST_TMPDIR/local.conf"
	echo 'CUDA_XCC_FROM:pn-cuda-xcc-hello = "https://example.invalid/x.deb"' >> "$YOCTO_TOP/conf/local.conf"
	bb -e cuda-xcc-hello
	cp "$BATS_TEST_TMPDIR/local.conf" "$YOCTO_TOP/conf/local.conf"
	assert_status 1
	assert_output_contains "fetch it through SRC_URI"
}
