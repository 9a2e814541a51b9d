#!/usr/bin/env bats
# One opener for a finished sysroot (src/sysroot/sysroot_open.c): the driver, the
# toolchain files (generated and shipped), check-link, run, doctor, info and verify
# answer alike for a recorded device root and for a root that is not one.
load lib/common
bats_require_minimum_version 1.5.0

bullseye_cache() { echo "${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}"; }

setup_file() {
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
	export OPENER_ROOT=$BATS_FILE_TMPDIR/bullseye
	if ls "$(bullseye_cache)"/*_arm64.deb >/dev/null 2>&1; then
		bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --cache "$(bullseye_cache)" \
			--dest "$OPENER_ROOT" >"$BATS_FILE_TMPDIR/root.log" 2>&1 || true
	fi
}

# A sysroot for sbsa CUDA 12.4 with Debian 12's cross g++ and no files but its
# record, made for device root $2 ("null" for none).
fake_sysroot() {
	local dir=$1 fs=$2
	mkdir -p "$dir/bin" "$dir/targets/sbsa-linux/lib" "$dir/targets/sbsa-linux/include"
	printf '#!/bin/sh\nexit 0\n' >"$dir/bin/nvcc"
	chmod +x "$dir/bin/nvcc"
	[ "$fs" = null ] || fs="\"$fs\""
	cat >"$dir/sysroot.json" <<-EOS
	{"format": 1, "cuda": "12.4.1", "target": "sbsa", "tag": "linux-sbsa",
	 "target_dir": "sbsa-linux", "host_compiler": "aarch64-linux-gnu-g++-12",
	 "target_fs": $fs, "capabilities": ["9.0"], "components": []}
	EOS
}

need_root() {
	[ -f "$OPENER_ROOT/lib/aarch64-linux-gnu/libc.so.6" ] ||
		skip "the bullseye arm64 .debs are not in $(bullseye_cache) (run scripts/fetch-target-root.sh)"
}

@test "opener: a recorded device root is bound alike by the driver, toolchain meson and toolchain cmake" {
	need aarch64-linux-gnu-g++-12 "the sysroot's host compiler (g++-aarch64-linux-gnu)"
	need_root
	local s=$BATS_TEST_TMPDIR/sr
	fake_sysroot "$s" "$OPENER_ROOT"
	run "$CUDA_XCC" --sysroot "$s" -### a.cu -o a
	assert_status 0
	assert_output_contains "-Xcompiler=--sysroot=$OPENER_ROOT "
	run "$CUDA_XCC" toolchain meson --sysroot "$s"
	assert_status 0
	assert_output_contains "'--target-fs', '$OPENER_ROOT'"
	run "$CUDA_XCC" toolchain cmake --sysroot "$s"
	assert_status 0
	assert_output_contains "CUDA_XCC_TARGET_FS"
	assert_output_contains "$OPENER_ROOT"
}

@test "opener: a C program built through the generated CMake file links against the recorded root's glibc" {
	need cmake
	need readelf "reads the program's version needs"
	need aarch64-linux-gnu-gcc-12 "the sysroot's C compiler (gcc-aarch64-linux-gnu)"
	need_root
	local s=$BATS_TEST_TMPDIR/sr d=$BATS_TEST_TMPDIR/p
	fake_sysroot "$s" "$OPENER_ROOT"
	mkdir -p "$d"
	printf 'cmake_minimum_required(VERSION 3.21)\nproject(p C)\nadd_executable(p p.c)\n' >"$d/CMakeLists.txt"
	printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$d/p.c"
	"$CUDA_XCC" toolchain cmake --sysroot "$s" --output "$d/tc.cmake"
	run cmake -S "$d" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$d/tc.cmake"
	assert_status 0
	run cmake --build "$d/b"
	assert_status 0
	# Debian 12's cross glibc would make it need GLIBC_2.34 (__libc_start_main).
	run readelf -V "$d/b/p"
	assert_status 0
	assert_output_contains "GLIBC_2.17"
	[[ "$output" != *GLIBC_2.34* ]]
}

@test "opener: a device root without libc.so.6 is refused alike, recorded or given" {
	need aarch64-linux-gnu-g++-12 "the sysroot's host compiler (g++-aarch64-linux-gnu)"
	local s=$BATS_TEST_TMPDIR/sr e=$BATS_TEST_TMPDIR/empty good=$BATS_TEST_TMPDIR/good
	mkdir -p "$e/lib"
	fake_sysroot "$s" "$e"
	fake_sysroot "$good" null
	local want="has no libc.so.6 in lib/aarch64-linux-gnu, usr/lib/aarch64-linux-gnu, lib or usr/lib"
	# recorded
	run "$CUDA_XCC" --sysroot "$s" -### a.cu -o a
	assert_status 2
	assert_output_contains "sysroot $s records a device root filesystem that is not one"
	assert_output_contains "$want"
	run "$CUDA_XCC" toolchain meson --sysroot "$s"
	assert_status 2
	assert_output_contains "$want"
	run "$CUDA_XCC" toolchain cmake --sysroot "$s"
	assert_status 2
	assert_output_contains "$want"
	run "$CUDA_XCC" check-link --sysroot "$s" /bin/true
	assert_status 2
	assert_output_contains "$want"
	# given
	run "$CUDA_XCC" --sysroot "$good" --target-fs "$e" -### a.cu -o a
	assert_status 2
	assert_output_contains "--target-fs $e $want"
	run "$CUDA_XCC" toolchain meson --sysroot "$good" --target-fs "$e"
	assert_status 2
	assert_output_contains "--target-fs $e $want"
	run "$CUDA_XCC" toolchain cmake --sysroot "$good" --target-fs "$e"
	assert_status 2
	assert_output_contains "--target-fs $e $want"
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$e" /bin/true
	assert_status 2
	assert_output_contains "--target-fs $e $want"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 -arch sm_90 --target-fs "$e" \
		--from "$BATS_TEST_TMPDIR/none.deb" --dest "$BATS_TEST_TMPDIR/new" --dry-run
	assert_status 2
	assert_output_contains "--target-fs $e $want"
	[ ! -e "$BATS_TEST_TMPDIR/new" ]
	# doctor and verify report it, and info shows it
	run "$CUDA_XCC" doctor --sysroot "$s"
	assert_status 1
	assert_output_contains "$want"
	run "$CUDA_XCC" sysroot verify "$s"
	assert_status 1
	assert_output_contains "$want"
	run "$CUDA_XCC" sysroot info "$s"
	assert_status 0
	assert_output_contains "target fs      $e: does not hold:"
}

@test "opener: the CMake toolchain file takes a recorded root that is not one as the driver does" {
	need cmake
	need aarch64-linux-gnu-g++-12 "the sysroot's host compiler (g++-aarch64-linux-gnu)"
	local s=$BATS_TEST_TMPDIR/sr e=$BATS_TEST_TMPDIR/empty d=$BATS_TEST_TMPDIR/p
	mkdir -p "$e/lib" "$d"
	fake_sysroot "$s" "$e"
	printf 'cmake_minimum_required(VERSION 3.21)\nproject(p C)\n' >"$d/CMakeLists.txt"
	run cmake -S "$d" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$s" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	assert_output_contains "has no libc.so.6"
	# refused by the toolchain file itself, before CMake tries the compiler
	[[ "$output" != *"is not able to compile"* ]]
	[[ "$output" == *"cuda-xcc-toolchain.cmake"*"has no libc.so.6"* ]]
}

@test "opener: one wording and one status per problem of the sysroot itself, whichever verb" {
	need aarch64-linux-gnu-g++-12 "the sysroot's host compiler (g++-aarch64-linux-gnu)"
	local s=$BATS_TEST_TMPDIR/sr v
	fake_sysroot "$s" null
	sed -i 's/"target": "sbsa"/"target": "mars"/' "$s/sysroot.json"
	for v in "--sysroot $s -### a.cu" "toolchain meson --sysroot $s" "toolchain cmake --sysroot $s" \
		"check-link --sysroot $s /bin/true" "run --sysroot $s /bin/true" "sysroot info $s" \
		"sysroot verify $s"; do
		# shellcheck disable=SC2086
		run "$CUDA_XCC" $v
		echo "$v: $status $output"
		assert_status 1
		assert_output_contains "$s/sysroot.json names the unknown target 'mars'"
	done
	run "$CUDA_XCC" doctor --sysroot "$s"
	assert_status 1
	assert_output_contains "$s/sysroot.json names the unknown target 'mars'"
	# a directory that holds no sysroot: what the option names is not one
	for v in "--sysroot $BATS_TEST_TMPDIR -### a.cu" "toolchain meson --sysroot $BATS_TEST_TMPDIR" \
		"check-link --sysroot $BATS_TEST_TMPDIR /bin/true" "sysroot info $BATS_TEST_TMPDIR"; do
		# shellcheck disable=SC2086
		run "$CUDA_XCC" $v
		assert_status 2
		assert_output_contains "is not a cuda-xcc sysroot (no sysroot.json)"
	done
	# a sysroot for another target than --target
	fake_sysroot "$s" null
	for v in "--sysroot $s --target jetson -### a.cu" "check-link --sysroot $s --target jetson /bin/true" \
		"doctor --sysroot $s --target jetson"; do
		# shellcheck disable=SC2086
		run "$CUDA_XCC" $v
		assert_status 2
		assert_output_contains "sysroot $s was made for --target sbsa, not jetson"
	done
}
