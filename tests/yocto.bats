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
	BBFILES += "${LAYERDIR}/*.bbappend"
	BBFILE_COLLECTIONS += "cuda-xcc-test"
	BBFILE_PATTERN_cuda-xcc-test = "^${LAYERDIR}/"
	LAYERSERIES_COMPAT_cuda-xcc-test = "scarthgap"
	EOS
	rm -f "$top/test-layer/cuda-xcc-hello_%.bbappend"
	cat > "$top/conf/local.conf" <<-'EOS'
	MACHINE = "qemuarm64"
	DISTRO = "poky"
	CONF_VERSION = "2"
	BB_NO_NETWORK = "1"
	# meta-tegra's machines set this; the class takes the GPUs from it.
	CUDA_ARCHITECTURES = "90"
	CUDA_XCC_TARGET:pn-cuda-xcc-hello = "sbsa"
	# Of meta-oe and oe-core only the recipes of the example's task graph
	# (bitbake -g cuda-xcc-hello: 78 of their 940): parsing them all took
	# minutes of CI's 30, and says nothing about this layer. meta-poky's
	# appends to masked recipes then dangle, which is harmless here.
	BBMASK = "meta-oe/recipes-(?!devtools/cjson/)"
	BBMASK += "/meta/recipes-(?!connectivity/openssl/|core/(expat|gettext|glibc|ncurses|readline|util-linux|zlib)/|devtools/(autoconf|autoconf-archive|automake|binutils|bison|cmake|dwarfsrcfiles|e2fsprogs|elfutils|file|flex|gcc|gnu-config|libedit|libtool|lua|m4|make|ninja|patch|perl|perl-cross|pkgconfig|pseudo|python|quilt|rpm|rsync|unifdef)/|extended/(bzip2|gperf|libarchive|libidn|libnsl|libtirpc|lzip|texinfo-dummy-native|xz|zstd)/|gnome/gtk-doc/|kernel/linux-libc-headers/|support/(attr|curl|gdbm|gmp|gnutls|libcap|libcap-ng|libffi|libgcrypt|libgpg-error|libmicrohttpd|libmpc|libpcre|libunistring|mpfr|nettle|popt|re2c|sqlite)/)"
	BB_DANGLINGAPPENDS_WARNONLY = "1"
	# What only the toolchain's own test suites (do_check, never run here)
	# need, and the mask leaves out.
	ASSUME_PROVIDED += "dejagnu-native expect-native qemu-native"
	# The simulated task environment (sim_* below): the example's work
	# directory, which the tests fill with stand-ins for what the build would
	# have staged there, and CUDA 12.6 archives as the fetcher would have
	# unpacked them into it.
	WORKDIR:pn-cuda-xcc-hello = "${TOPDIR}/simulated/cuda-xcc-hello"
	CUDA_XCC_FROM:pn-cuda-xcc-hello = "${WORKDIR}/redistrib_12.6.3.json"
	CUDA_XCC_COMPONENTS:pn-cuda-xcc-hello = "libcublas"
	CUDA_XCC_RUNTIME_LIBS:pn-cuda-xcc-hello = "libcudart.so.* libcublas.so.*"
	EOS
}

# example_append LINE: a setting for the example recipe alone, until the test
# ends, however it ends.
example_append() {
	echo "$1" > "$YOCTO_TOP/test-layer/cuda-xcc-hello_%.bbappend"
}
teardown() {
	if [ -n "${YOCTO_TOP:-}" ]; then rm -f "$YOCTO_TOP/test-layer/cuda-xcc-hello_%.bbappend"; fi
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
	bb -p
	assert_status 0
	assert_output_contains " 0 errors."
	bb -e cuda-xcc-hello
	assert_status 1
	assert_output_contains "was skipped: CUDA_XCC_ARCH is not set: cuda-xcc needs the CUDA version and the GPUs (CUDA_XCC_ARCH defaults to the MACHINE's CUDA_ARCHITECTURES"
}

@test "yocto: the example's defaults pass cuda-xcc's checks with scarthgap's gcc and an Orin MACHINE" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	cuda=$(sed -n 's/^CUDA_XCC_CUDA_VERSION ?= "\(.*\)"$/\1/p' "$XCC_SRCDIR/wrappers/yocto/recipes-examples/cuda-xcc-hello/cuda-xcc-hello_1.0.bb")
	target=$(sed -n 's/^CUDA_XCC_TARGET ?= "\(.*\)"$/\1/p' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass")
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

@test "yocto: the class takes the MACHINE's GPUs and the full cross compiler" {
	bb -e cuda-xcc-hello
	assert_status 0
	grep -qx 'CUDA_XCC_ARCH="90"' <<<"$output"
	grep -q '^DEPENDS=".* cuda-xcc-native' <<<"$output"
	grep -q '^EXTRA_OECMAKE=".*-C .*/cuda-xcc-cache.cmake"' <<<"$output"
	grep -qx 'RDEPENDS:cuda-xcc-hello=" cuda-xcc-hello-cuda-runtime"' <<<"$output"
	# nvcc's host compiler is the MACHINE's, with its tune flags and sysroot.
	grep -q '^CUDA_XCC_DRIVER=.*-ccbin=aarch64-poky-linux-g++ .*-Xcompiler=-mcpu=cortex-a57.*--sysroot=.*recipe-sysroot -arbin=aarch64-poky-linux-gcc-ar"' <<<"$output"
	sed -n '/^do_cuda_xcc_sysroot() {/,/^}/p' <<<"$output" > "$BATS_TEST_TMPDIR/task.sh"
	grep -q 'cuda-xcc sysroot create' "$BATS_TEST_TMPDIR/task.sh"
	grep -q -- '--target-fs .*/recipe-sysroot' "$BATS_TEST_TMPDIR/task.sh"
	grep -q 'cuda-xcc flags --target sbsa --cuda 12.6' "$BATS_TEST_TMPDIR/task.sh"
}

@test "yocto: the sysroot task runs after the native tool is staged and before configure" {
	bb -g cuda-xcc-hello
	assert_status 0
	dot=$YOCTO_TOP/task-depends.dot
	grep -q '"cuda-xcc-hello.do_cuda_xcc_sysroot" -> "cuda-xcc-native.do_populate_sysroot"' "$dot"
	grep -q '"cuda-xcc-hello.do_configure" -> "cuda-xcc-hello.do_cuda_xcc_sysroot"' "$dot"
	# the runtime's license text is in the sysroot
	grep -q '"cuda-xcc-hello.do_populate_lic" -> "cuda-xcc-hello.do_cuda_xcc_sysroot"' "$dot"
}

@test "yocto: a URL or an undefined variable in CUDA_XCC_FROM is refused at parse time with the way out" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	example_append 'CUDA_XCC_FROM:pn-cuda-xcc-hello = "https://example.invalid/x.deb ${UNPACKDIR}/y.deb"'
	bb -e cuda-xcc-hello
	assert_status 1
	assert_output_contains "CUDA_XCC_FROM names https://example.invalid/x.deb: fetch it through SRC_URI"
	# scarthgap has no UNPACKDIR: the name would reach the task unexpanded
	assert_output_contains 'CUDA_XCC_FROM names ${UNPACKDIR}/y.deb, whose variable this release does not define: the fetcher unpacks into ${WORKDIR}'
}

@test "yocto: the runtime package is Proprietary, its license text checksummed in the sysroot once the recipe gives the md5" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	example_append 'CUDA_XCC_RUNTIME_LICENSE_MD5 = "0123456789abcdef0123456789abcdef"'
	bb -e cuda-xcc-hello
	assert_status 0
	grep -qx 'LICENSE:cuda-xcc-hello-cuda-runtime="Proprietary"' <<<"$output"
	grep -q '^LIC_FILES_CHKSUM=".* file://.*/cuda-xcc-sysroot/licenses/cuda_cudart/LICENSE;md5=0123456789abcdef0123456789abcdef"$' <<<"$output"
}

# --- the class's tasks, run in a simulated task environment ------------------
# Offline, bitbake cannot run the class's tasks: cuda-xcc-native, the cross
# compiler and oe-core's native tools would have to be built from downloaded
# sources first. These tests run the tasks' real code instead: the script
# bitbake would write as run.do_TASK (tests/lib/bitbake_task.py takes the
# task's expanded functions and the exported variables from `bitbake -e
# cuda-xcc-hello`, where local.conf moved WORKDIR to $YOCTO_TOP/simulated),
# with only the missing tools and directories stood in for:
# - the cuda-xcc under test where STAGING_BINDIR_NATIVE says;
# - aarch64-poky-linux-g++ and -gcc-ar in STAGING_BINDIR_TOOLCHAIN: Debian's
#   aarch64 gcc 12 under the MACHINE's names, logging how they were called;
# - STAGING_DIR_TARGET (recipe-sysroot): Debian's arm64 libc and headers in
#   the image's usr/lib and usr/include;
# - CUDA 12.6 redistrib archives (tests/fixtures/make-redist.sh) in WORKDIR,
#   where the fetcher would have put them (CUDA_XCC_FROM in local.conf);
# - cmake_do_install (the program's own installation, which needs the
#   configure and compile tasks): a stand-in program file.

# sim_var NAME: NAME's value in the bitbake -e output.
sim_var() { sed -n "s/^\(export \)\{0,1\}$1=\"\(.*\)\"\$/\2/p" "$SIM_ENV"; }

# sim_prepare: bitbake -e cuda-xcc-hello, then the stand-ins where its
# variables point.
sim_prepare() {
	local native toolchain fs cc
	need aarch64-linux-gnu-g++-12 "the MACHINE's compiler stand-in"
	need aarch64-linux-gnu-gcc-ar-12 "the MACHINE's ar stand-in"
	need xz "the fixture archives"
	bb -e cuda-xcc-hello
	assert_status 0
	SIM_ENV=$BATS_TEST_TMPDIR/bitbake-e.txt
	printf '%s\n' "$output" > "$SIM_ENV"
	W=$(sim_var WORKDIR)
	[ "$W" = "$YOCTO_TOP/simulated/cuda-xcc-hello" ]
	rm -rf "$W"
	mkdir -p "$W"
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$W" --cuda 12.6.3 >/dev/null
	fs=$(sim_var STAGING_DIR_TARGET)
	[ "$fs" = "$W/recipe-sysroot" ]
	mkdir -p "$fs/usr"
	cp -a /usr/aarch64-linux-gnu/lib "$fs/usr/lib"
	cp -a /usr/aarch64-linux-gnu/include "$fs/usr/include"
	native=$(sim_var STAGING_BINDIR_NATIVE)
	toolchain=$(sim_var STAGING_BINDIR_TOOLCHAIN)
	mkdir -p "$native" "$toolchain"
	cp "$CUDA_XCC" "$native/cuda-xcc"
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
		# the stand-in for the program's own installation, expanded as
		# bitbake expands ${D} in functions
		echo "cmake_do_install() { install -D -m 0755 /dev/null '$(sim_var D)/usr/bin/cuda-xcc-hello'; }"
		if [ -n "${2:-}" ]; then echo "cd '$2'"; fi
		echo "$1"
	} > "$script"
	run env -i /bin/sh "$script"
}

@test "yocto: do_cuda_xcc_sysroot runs for real: sysroot on the image's libc, validated CMake cache" {
	sim_prepare
	fs=$(sim_var STAGING_DIR_TARGET)
	sr=$(sim_var CUDA_XCC_SYSROOT)
	cache=$(sim_var CUDA_XCC_CMAKE_CACHE)
	sim_task do_cuda_xcc_sysroot
	assert_status 0
	assert_output_contains "sysroot ready: $sr"
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["target"], m["cuda"], m["target_dir"], m["target_fs"])' "$sr/sysroot.json"
	assert_output_equals "sbsa 12.6.3 sbsa-linux $fs"
	[ -f "$sr/targets/sbsa-linux/lib/libcudart.so.12.0.1" ]
	# the MACHINE's compiler went through the driver's checks (machine, version)
	grep -qx 'aarch64-poky-linux-g++ -dumpmachine' "$W/toolchain.log"
	grep -qx 'aarch64-poky-linux-g++ -dumpversion' "$W/toolchain.log"
	grep -qxF 'set(CMAKE_CUDA_ARCHITECTURES [[90]] CACHE STRING "validated by cuda-xcc")' "$cache"
	nvcc=$(sim_var CUDA_XCC_NVCC)
	grep -qxF "set(CMAKE_CUDA_COMPILER [[$nvcc]] CACHE STRING \"cuda-xcc\")" "$cache"
	grep -qxF 'set(CMAKE_CUDA_HOST_COMPILER [[aarch64-poky-linux-g++]] CACHE STRING "cuda-xcc")' "$cache"
	# the flags every compilation needs are the compiler's, not CMAKE_CUDA_FLAGS'
	run grep CMAKE_CUDA_FLAGS "$cache"
	assert_status 1
	grep -q "^exec '$sr/bin/nvcc' '-target-dir=sbsa-linux' '-arbin=aarch64-poky-linux-gcc-ar' '-Xcompiler=-mcpu=cortex-a57+crc,.*,--sysroot=$fs' \"\\\$@\"\$" "$nvcc"
	grep -qxF "set(CUDAToolkit_ROOT [[$sr]] CACHE STRING \"cuda-xcc\")" "$cache"
}

@test "yocto: do_install's append puts the runtime libraries and NVIDIA's license texts into D" {
	sim_prepare
	sim_task do_cuda_xcc_sysroot
	assert_status 0
	d=$(sim_var D)
	sr=$(sim_var CUDA_XCC_SYSROOT)
	# do_install[cleandirs] = "${D}", [dirs] = "${B}" (base.bbclass)
	mkdir -p "$d" "$(sim_var B)"
	sim_task do_install "$(sim_var B)"
	assert_status 0
	[ -x "$d/usr/bin/cuda-xcc-hello" ]
	[ "$(readlink "$d/usr/lib/libcudart.so.12")" = libcudart.so.12.0.1 ]
	cmp "$sr/targets/sbsa-linux/lib/libcudart.so.12.0.1" "$d/usr/lib/libcudart.so.12.0.1"
	[ "$(readlink "$d/usr/lib/libcublas.so.12")" = libcublas.so.12.1 ]
	# only what CUDA_XCC_RUNTIME_LIBS names: no development links, no stubs
	run ls "$d/usr/lib"
	assert_output_equals "$(printf '%s\n' libcublas.so.12 libcublas.so.12.1 libcudart.so.12 libcudart.so.12.0.1)"
	lic=$d/usr/share/licenses/cuda-xcc-hello-cuda-runtime
	cmp "$sr/licenses/cuda_cudart/LICENSE" "$lic/cuda_cudart-LICENSE"
	cmp "$sr/licenses/libcublas/LICENSE" "$lic/libcublas-LICENSE"
	# not the x86_64 tools' terms: nvcc never reaches the image
	[ -f "$sr/licenses/cuda_nvcc-host/LICENSE" ]
	[ ! -e "$lic/cuda_nvcc-host-LICENSE" ]
	# a library CUDA_XCC_RUNTIME_LIBS names that the sysroot lacks stops the task
	rm "$sr"/targets/sbsa-linux/lib/libcublas.so*
	sim_task do_install "$(sim_var B)"
	assert_status 1
	assert_output_contains "ERROR: CUDA_XCC_RUNTIME_LIBS: no libcublas.so.* in $sr/targets/sbsa-linux/lib"
}

@test "yocto: a GPU the CUDA release does not support stops do_cuda_xcc_sysroot with cuda-xcc's message" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	example_append 'CUDA_ARCHITECTURES = "35"'
	sim_prepare
	grep -qx 'CUDA_XCC_ARCH="35"' "$SIM_ENV"
	sim_task do_cuda_xcc_sysroot
	assert_status 2
	assert_output_contains "sm_35 (Kepler) was removed in CUDA 12.0, last supported by 11.8"
	[ ! -e "$(sim_var CUDA_XCC_SYSROOT)" ]
	[ ! -e "$(sim_var CUDA_XCC_CMAKE_CACHE)" ]
}

@test "yocto: the class's CMake cache entries carry any value as it is" {
	local d i
	need cmake
	d=$(scratch)
	sed -n '/^cuda_xcc_cmake_set() {$/,/^}$/p' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass" \
		> "$d/fn.sh"
	[ -s "$d/fn.sh" ]
	. "$d/fn.sh"
	values=('a"b\c$d${e};f' 'x]]y]=]z]==]w' 'ends]' 'ends]=' "it's #h ü" 'back\')
	for i in "${!values[@]}"; do
		cuda_xcc_cmake_set "V$i" STRING "${values[$i]}" doc
	done > "$d/cache.cmake"
	mkdir "$d/proj"
	cat > "$d/proj/CMakeLists.txt" <<-'EOS'
	cmake_minimum_required(VERSION 3.16)
	project(cache NONE)
	foreach(i RANGE 5)
		file(WRITE "${CMAKE_BINARY_DIR}/v${i}.txt" "${V${i}}")
	endforeach()
	EOS
	run cmake -C "$d/cache.cmake" -S "$d/proj" -B "$d/b"
	assert_status 0
	for i in "${!values[@]}"; do
		cmp "$d/b/v$i.txt" <(printf '%s' "${values[$i]}")
	done
	# and the nvcc script's words, quoted for sh
	sed -n '/^cuda_xcc_sh_quote() {$/,/^}$/p' "$XCC_SRCDIR/wrappers/yocto/classes/cuda-xcc.bbclass" \
		> "$d/q.sh"
	[ -s "$d/q.sh" ]
	. "$d/q.sh"
	for i in "${!values[@]}"; do
		eval "set -- $(cuda_xcc_sh_quote "${values[$i]}")"
		[ "$1" = "${values[$i]}" ]
	done
}

@test "yocto: a recipe written to meta-tegra's names: its flags reach do_configure, and its -DCMAKE_CUDA_FLAGS drops none of the class's" {
	[ -n "$YOCTO_POKY" ] || skip "poky and meta-oe are not unpacked in $(thirdparty) (scripts/setup.sh does it)"
	printf '%s\n' 'CUDA_NVCC_EXTRA_FLAGS:append = " --expt-relaxed-constexpr"' \
		'CUDA_NVCC_COMPAT_FLAGS = "--default-stream per-thread"' \
		'CXX_FOR_CUDA = "${CCACHE}${HOST_PREFIX}g++ ${HOST_CC_ARCH}${TOOLCHAIN_OPTIONS}"' \
		'EXTRA_OECMAKE:append = " -DCMAKE_CUDA_FLAGS=-O3"' > "$YOCTO_TOP/test-layer/cuda-xcc-hello_%.bbappend"
	sim_prepare
	nvcc=$(sim_var CUDA_XCC_NVCC)
	sr=$(sim_var CUDA_XCC_SYSROOT)
	fs=$(sim_var STAGING_DIR_TARGET)
	python3 "$XCC_SRCDIR/tests/lib/bitbake_task.py" "$SIM_ENV" do_configure > "$BATS_TEST_TMPDIR/configure.sh"
	grep -qx "export CUDACXX=\"$nvcc\"" "$BATS_TEST_TMPDIR/configure.sh"
	grep -qx 'export CUDAHOSTCXX="aarch64-poky-linux-g++"' "$BATS_TEST_TMPDIR/configure.sh"
	grep -q '^export CUDAFLAGS=" *--default-stream per-thread *--expt-relaxed-constexpr -Xcompiler=-mcpu=cortex-a57+crc,.*,--sysroot='"$fs"'"$' "$BATS_TEST_TMPDIR/configure.sh"
	sim_task do_cuda_xcc_sysroot
	assert_status 0
	# what CMake's compiler runs, with the recipe's own CMAKE_CUDA_FLAGS
	printf '#!/bin/sh\necho "nvcc $*"\n' > "$sr/bin/nvcc"
	run "$nvcc" -O3 -c hello.cu
	assert_status 0
	[[ "$output" =~ ^nvcc\ -target-dir=sbsa-linux\ -arbin=aarch64-poky-linux-gcc-ar\ -Xcompiler=-mcpu=cortex-a57\+crc,[^\ ]*,--sysroot=$fs\ -O3\ -c\ hello.cu$ ]]
}
