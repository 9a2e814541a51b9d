#!/usr/bin/env bats
# Buildroot builds for real (make check-buildroot-build; not in make check, it
# takes minutes): host-cuda-xcc from this checkout with its host dependencies,
# then cuda-xcc-runtime (a CUDA 11.8 sysroot from Debian's .debs on the
# target's staging tree) and cuda-xcc-hello (tests/fixtures/buildroot-external:
# a target package whose .cu file goes through $(CUDA_XCC_RUNTIME_NVCC)), in
# Buildroot's own make, with an empty output directory.
#
# Offline, from what this machine has:
# - the host packages' sources: Debian's source packages, prepared by
#   scripts/fetch-buildroot-sources.sh (cached in $XCC_BUILDROOT_SOURCES,
#   default /var/cache/cuda-xcc/buildroot-sources; BR2_DL_DIR and
#   BR2_PACKAGE_OVERRIDE_FILE point there);
# - the toolchain: Debian's aarch64-linux-gnu gcc 11 (CUDA 11.8's newest) as a
#   Buildroot external custom toolchain. Its tools are named
#   aarch64-linux-gnu-gcc-11 and so on: a directory of links gives them the
#   names Buildroot looks for;
# - the CUDA packages: Debian 12's CUDA 11.8 (scripts/fetch-debian-cuda.sh).
# Buildroot runs as uid 1000 of a user namespace: host-tar's configure refuses
# root. XCC_BUILDROOT_BUILD_OUT=DIR keeps the output directory there (a rerun
# then rebuilds only what changed: make host-cuda-xcc-dirclean first to rebuild
# cuda-xcc).
load lib/common
load lib/e2e

BR=${XCC_BUILDROOT_TREE:-/var/cache/cuda-xcc/thirdparty/buildroot}

setup_file() {
	export BR_STATE=$BATS_FILE_TMPDIR/state
	export BR_OUT=${XCC_BUILDROOT_BUILD_OUT:-$BATS_FILE_TMPDIR/out}
	local why=
	[ -f "$BR/Makefile" ] || why="no Buildroot tree in $BR (scripts/setup.sh unpacks ../shared/thirdparty/buildroot-*.tar.xz there)"
	for tool in aarch64-linux-gnu-gcc-11 aarch64-linux-gnu-g++-11 unshare rsync qemu-aarch64; do
		[ -n "$why" ] || command -v "$tool" >/dev/null || why="$tool is not installed"
	done
	[ -n "$why" ] || [ "$(cuda118_debs | wc -l)" -ge 3 ] ||
		why="the CUDA 11.8 .debs are not in $(cuda118_cache) (run scripts/fetch-debian-cuda.sh)"
	if [ -n "$why" ]; then
		echo "skip $why" >"$BR_STATE"
		return 0
	fi
	# The toolchain lives in the output directory, which names it.
	local sources tc=$BR_OUT/debian-toolchain t from
	if ! sources=$(bash "$XCC_SRCDIR/scripts/fetch-buildroot-sources.sh" --buildroot "$BR" \
		${XCC_BUILDROOT_SOURCES:+--cache "$XCC_BUILDROOT_SOURCES"} 2>"$BATS_FILE_TMPDIR/sources.log"); then
		echo "fail scripts/fetch-buildroot-sources.sh: $(tail -3 "$BATS_FILE_TMPDIR/sources.log")" >"$BR_STATE"
		return 0
	fi
	rm -rf "$tc"
	mkdir -p "$tc/bin"
	for t in /usr/bin/aarch64-linux-gnu-*; do
		t=${t##*/}
		case "$t" in
		*-1[0-9]) ;;
		*) ln -sf "/usr/bin/$t" "$tc/bin/$t" ;;
		esac
	done
	for t in gcc g++ cpp gcc-ar gcc-nm gcc-ranlib gcov; do
		ln -sf "/usr/bin/aarch64-linux-gnu-$t-11" "$tc/bin/aarch64-linux-gnu-$t"
	done
	# Debian's target directory in the layout Buildroot copies from
	# (tests/fixtures/buildroot-external/external.mk says why).
	mkdir -p "$tc/sysroot/usr"
	ln -sfn /usr/aarch64-linux-gnu/lib "$tc/sysroot/lib"
	cp -a /usr/aarch64-linux-gnu/include "$tc/sysroot/usr/include"
	from=$(cuda118_debs | tr '\n' ' ')
	mkdir -p "$BR_OUT"
	cat >"$BR_OUT/defconfig" <<-EOF
	BR2_aarch64=y
	BR2_DL_DIR="$(sed -n 2p <<<"$sources")"
	BR2_PACKAGE_OVERRIDE_FILE="$(sed -n 1p <<<"$sources")"
	BR2_JLEVEL=2
	BR2_TOOLCHAIN_EXTERNAL=y
	BR2_TOOLCHAIN_EXTERNAL_CUSTOM=y
	BR2_TOOLCHAIN_EXTERNAL_PATH="$tc"
	BR2_TOOLCHAIN_EXTERNAL_CUSTOM_PREFIX="aarch64-linux-gnu"
	BR2_TOOLCHAIN_EXTERNAL_GCC_11=y
	BR2_TOOLCHAIN_EXTERNAL_HEADERS_6_1=y
	BR2_TOOLCHAIN_EXTERNAL_CUSTOM_GLIBC=y
	BR2_TOOLCHAIN_EXTERNAL_CXX=y
	BR2_TOOLCHAIN_EXTERNAL_OPENMP=y
	# BR2_TOOLCHAIN_EXTERNAL_INET_RPC is not set
	BR2_INIT_NONE=y
	BR2_SYSTEM_BIN_SH_NONE=y
	# BR2_PACKAGE_BUSYBOX is not set
	# BR2_PACKAGE_IFUPDOWN_SCRIPTS is not set
	# BR2_TARGET_GENERIC_GETTY is not set
	# BR2_TARGET_ROOTFS_TAR is not set
	BR2_PACKAGE_CUDA_XCC_RUNTIME=y
	BR2_PACKAGE_CUDA_XCC_RUNTIME_CUDA_11_8=y
	BR2_PACKAGE_CUDA_XCC_RUNTIME_TARGET_SBSA=y
	BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_80=y
	BR2_PACKAGE_CUDA_XCC_RUNTIME_GPU_SM_90=y
	BR2_PACKAGE_CUDA_XCC_RUNTIME_FROM="${from% }"
	BR2_PACKAGE_CUDA_XCC_HELLO=y
	EOF
	local externals=$XCC_SRCDIR/wrappers/buildroot:$XCC_SRCDIR/tests/fixtures/buildroot-external
	if ! make -C "$BR" O="$BR_OUT" BR2_EXTERNAL="$externals" BR2_DEFCONFIG="$BR_OUT/defconfig" \
		defconfig >"$BATS_FILE_TMPDIR/defconfig.log" 2>&1; then
		echo "fail make defconfig: $(tail -3 "$BATS_FILE_TMPDIR/defconfig.log")" >"$BR_STATE"
		return 0
	fi
	SECONDS=0
	if unshare --user --map-user=1000 --map-group=1000 nice -n 10 make -C "$BR_OUT" \
		>"$BR_OUT/make.log" 2>&1; then
		echo "ok $SECONDS" >"$BR_STATE"
	else
		echo "fail make (log: $BR_OUT/make.log): $(tail -20 "$BR_OUT/make.log")" >"$BR_STATE"
	fi
	# The wall time, for README's note (bats prints this with --show-output-of-passing-tests).
	echo "# buildroot make took $SECONDS s" >&3
}

need_build() {
	e2e_state_take "$BR_STATE"
	H=$BR_OUT/host T=$BR_OUT/target
}

@test "buildroot build: host-cuda-xcc from this checkout, on its own libarchive that reads xz and zstd" {
	need_build
	run "$H/bin/cuda-xcc" --version
	assert_status 0
	assert_output_contains "cuda-xcc"
	# linked with Buildroot's host libraries, not the build machine's
	run env -u LD_LIBRARY_PATH ldd "$H/bin/cuda-xcc"
	assert_status 0
	[[ "$output" =~ libarchive\.so[^$'\n']*=\>\ $H/lib/cuda-xcc/lib/ ]]
	[[ "$output" =~ libelf\.so[^$'\n']*=\>\ $H/lib/ ]]
	PKG_CONFIG_LIBDIR=$H/lib/cuda-xcc/lib/pkgconfig:$H/lib/pkgconfig run "$H/bin/pkgconf" --libs --static libarchive
	assert_status 0
	assert_output_contains "-llzma"
	assert_output_contains "-lzstd"
	[ -L "$H/bin/cuda-xcc-patchelf" ]
}

@test "buildroot build: cuda-xcc-runtime made the sysroot on the target's staging tree, with the GPUs validated for CMake" {
	need_build
	sr=$H/share/cuda-xcc/sysroot
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["target"], m["cuda"], m["target_fs"])' "$sr/sysroot.json"
	assert_status 0
	assert_output_contains "sbsa 11.8"
	assert_output_contains "$(realpath "$BR_OUT/staging")"
	run cat "$H/share/cuda-xcc/cmake-architectures"
	assert_status 0
	assert_output_contains "80-real"
	assert_output_contains "90"
	# the runtime is in the target, as it is on the board
	run readelf -h "$T/usr/lib/libcudart.so.11.0"
	assert_status 0
	assert_output_contains "AArch64"
}

@test "buildroot build: cuda-xcc-hello is an aarch64 program with sm_80 and sm_90 code, for the target's loader" {
	need_build
	p=$T/usr/bin/cuda-xcc-hello
	run readelf -h "$p"
	assert_status 0
	assert_output_contains "AArch64"
	run readelf -l "$p"
	assert_output_contains "[Requesting program interpreter: /lib/ld-linux-aarch64.so.1]"
	# no path of the build machine stays in the program
	run readelf -d "$p"
	assert_status 0
	[[ "$output" != *"$BR_OUT"* ]]
	[[ "$output" != *"/usr/aarch64-linux-gnu"* ]]
	assert_output_contains "libcudart.so.11.0"
	# nor in any ELF file of the target: Buildroot's fix-rpath, which would
	# remove such paths, cannot with Debian's patchelf (fetch-buildroot-sources.sh)
	run find "$T" -type f -exec sh -c 'for f; do readelf -d "$f" 2>/dev/null | grep -qF "$0" && echo "$f"; done; true' "$BR_OUT" {} +
	assert_status 0
	[ -z "$output" ]
	run "$H/bin/cuda-xcc" fatbin --summary "$p"
	assert_status 0
	assert_output_contains "sass sm_80 sm_90"
	assert_output_contains "ptx sm_90"
	run "$H/bin/cuda-xcc" fatbin --gpu sm_80,sm_90 "$p"
	assert_status 0
}

@test "buildroot build: cuda-xcc-hello runs in the target tree under qemu-aarch64 and finds no GPU" {
	need_build
	# The target's own loader, glibc, libstdc++ and libcudart: qemu's -L is the target tree.
	run qemu-aarch64 -L "$T" "$T/usr/bin/cuda-xcc-hello"
	assert_status 2
	assert_output_contains "cuda-xcc-hello: no device: err=35 (cudaErrorInsufficientDriver)"
}

@test "buildroot build: legal-info carries NVIDIA's terms for the runtime, as Debian's .debs ship them" {
	need_build
	rm -rf "$BR_OUT/legal-info"
	run make -C "$BR_OUT" -s --no-print-directory cuda-xcc-runtime-legal-info
	assert_status 0
	run cat "$BR_OUT/legal-info/manifest.csv"
	assert_output_contains '"cuda-xcc-runtime","11.8","NVIDIA CUDA Toolkit EULA"'
	assert_output_contains "licenses/libcudart11.0/copyright"
	# each .deb's usr/share/doc/<package>/copyright, NVIDIA's EULA in it
	lic=$BR_OUT/legal-info/licenses/cuda-xcc-runtime-11.8/licenses
	for p in libcudart11.0 nvidia-cuda-dev nvidia-cuda-toolkit; do
		grep -q "End User License Agreement" "$lic/$p/copyright"
	done
}
