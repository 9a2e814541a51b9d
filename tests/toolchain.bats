#!/usr/bin/env bats
# cuda-xcc toolchain: build-system files bound to a sysroot, and where the
# shipped wrappers are. The real Meson and CMake builds are in tests/e2e.bats.
load lib/common
load lib/toolchain

# A device root with the cross toolchain's C library in its multiarch dir.
fake_rootfs() {
	mkdir -p "$1/lib/aarch64-linux-gnu" "$1/usr/lib/aarch64-linux-gnu"
	cp -L /usr/aarch64-linux-gnu/lib/libc.so.6 "$1/lib/aarch64-linux-gnu/"
}

@test "toolchain: usage errors name the problem and exit 2" {
	run xcc toolchain
	assert_status 2
	assert_output_contains "name one build system: cmake, meson or flags"
	run xcc toolchain ninja --sysroot /nonexistent
	assert_status 2
	assert_output_contains "unknown build system 'ninja'"
	run env -u CUDA_XCC_SYSROOT "$CUDA_XCC" toolchain meson
	assert_status 2
	assert_output_contains "give --sysroot DIR"
	run xcc toolchain meson --bogus
	assert_status 2
	assert_output_contains "unknown option '--bogus'"
}

@test "toolchain: a directory that is no sysroot is refused" {
	d=$(scratch)
	run xcc toolchain meson --sysroot "$d"
	assert_status 2
	assert_output_contains "is not a cuda-xcc sysroot (no sysroot.json)"
}

@test "toolchain meson: the cross file names the cross compilers, the driver and cuda-xcc run" {
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	run xcc toolchain meson --sysroot "$d/sr"
	assert_status 0
	# C and C++ go through check-link, which checks their links' output.
	assert_output_contains "', 'check-link', '--sysroot', '$d/sr', '--compiler=aarch64-linux-gnu-gcc-12']"
	assert_output_contains "', 'check-link', '--sysroot', '$d/sr', '--compiler=aarch64-linux-gnu-g++-12']"
	assert_output_contains "', '--sysroot', '$d/sr', '-arch', '8.7']"
	assert_output_contains "', 'run', '--sysroot', '$d/sr']"
	assert_output_contains "cpp_args = ['-I$d/sr/targets/aarch64-linux/include', '-ffile-prefix-map=$d/sr=/cuda-xcc/sysroot'"
	# A program linking a shared library that links the sysroot's libraries links: every
	# language's links follow NEEDED entries into the sysroot (a cross ld reads no RUNPATH).
	assert_output_contains "cuda_link_args = ['-Xlinker=-rpath-link=$d/sr/targets/aarch64-linux/lib']"
	assert_output_contains "'-Wl,-rpath-link,$d/sr/targets/aarch64-linux/lib']"
	assert_output_contains "cpu_family = 'aarch64'"
	# The driver is named by its absolute path, so PATH does not matter.
	line=$(grep '^cuda = ' <<<"$output")
	bin=${line#cuda = [\'}
	bin=${bin%%\'*}
	[ -x "$bin" ]
	[ "${bin:0:1}" = / ]
	# The driver alone where it is installed beside cuda-xcc: a tenth of the start-up.
	if [ -x "$(dirname "$CUDA_XCC")/cuda-xcc-nvcc" ]; then
		[ "$bin" = "$(cd "$(dirname "$CUDA_XCC")" && pwd -P)/cuda-xcc-nvcc" ]
	fi
}

@test "toolchain meson: -arch and --target-fs override the sysroot's; --output writes the file" {
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	fake_rootfs "$d/rootfs"
	run xcc toolchain meson --sysroot "$d/sr" -arch sm_87 --target-fs "$d/rootfs" --output "$d/x.ini"
	assert_status 0
	assert_output_equals ""
	grep -q "'-arch', 'sm_87', '--target-fs', '$d/rootfs'\]" "$d/x.ini"
	grep -q "^exe_wrapper = .*'run', '--sysroot', '$d/sr', '--target-fs', '$d/rootfs'\]" "$d/x.ini"
	grep -q "'--sysroot=$d/rootfs'" "$d/x.ini"
	grep -q "^cpp = .*'check-link', '--sysroot', '$d/sr', '--target-fs', '$d/rootfs', '--compiler=aarch64-linux-gnu-g++-12'\]" "$d/x.ini"
	# C and C++ build against the root as the driver's CUDA does, not with --sysroot alone.
	grep -q "^c_link_args = .*'-B$d/rootfs/lib/aarch64-linux-gnu/'" "$d/x.ini"
	grep -q "^cpp_link_args = .*'-Wl,-rpath-link,$d/rootfs/lib/aarch64-linux-gnu'" "$d/x.ini"
	mkdir "$d/empty"
	run xcc toolchain meson --sysroot "$d/sr" --target-fs "$d/empty"
	assert_status 2
	assert_output_contains "--target-fs $d/empty has no libc.so.6"
}

@test "toolchain flags: the cross g++'s and nvcc's options for a device root, overlay first" {
	d=$(scratch)
	export XDG_CACHE_HOME=$d/cache
	toolchain_sysroot "$d/sr"
	fake_rootfs "$d/rootfs"
	mkdir -p "$d/rootfs/lib/aarch64-linux-gnu/real"
	touch "$d/rootfs/lib/aarch64-linux-gnu/real/libpthread.so.0"
	ln -s /lib/aarch64-linux-gnu/real/libpthread.so.0 "$d/rootfs/usr/lib/aarch64-linux-gnu/libpthread.so"
	run xcc toolchain flags --sysroot "$d/sr" --target-fs "$d/rootfs"
	assert_status 0
	overlay=$(find "$d/cache/cuda-xcc/target-fs" -mindepth 1 -maxdepth 1 -type d)
	[ -n "$overlay" ]
	[ "$(sed -n 1p <<<"$output")" = "--sysroot=$d/rootfs" ]
	[ "$(sed -n 2p <<<"$output")" = "-B$overlay/" ]
	[ "$(sed -n 3p <<<"$output")" = "-B$d/rootfs/lib/aarch64-linux-gnu/" ]
	[ "$(sed -n 4p <<<"$output")" = "-B$d/rootfs/usr/lib/aarch64-linux-gnu/" ]
	[ "$(sed -n 5p <<<"$output")" = "-Wl,-rpath-link,$overlay" ]
	assert_output_contains "-Wl,-rpath-link,$d/rootfs/usr/lib"
	assert_output_contains "-Wl,--allow-shlib-undefined"
	run readlink "$overlay/libpthread.so"
	assert_output_equals "$d/rootfs/lib/aarch64-linux-gnu/real/libpthread.so.0"
	run xcc toolchain flags --sysroot "$d/sr" --target-fs "$d/rootfs" --nvcc
	assert_status 0
	[ "$(sed -n 1p <<<"$output")" = "-Xcompiler=--sysroot=$d/rootfs" ]
	[ "$(sed -n 2p <<<"$output")" = "-Xcompiler=-B$overlay/" ]
	assert_output_contains "-Xlinker=-rpath-link=$overlay"
	# No root given or recorded: said.
	run xcc toolchain flags --sysroot "$d/sr"
	assert_status 2
	assert_output_contains "no device root filesystem: give --target-fs ROOTFS"
}

@test "toolchain meson: a quote in a path is written as Meson reads it back" {
	d=$(scratch)
	toolchain_sysroot "$d/it's"
	run xcc toolchain meson --sysroot "$d/it's"
	assert_status 0
	# Meson doubles a machine file's backslashes before parsing: no \' escape.
	assert_output_contains "'--sysroot', '$d/it' + ''''s'''"
}

@test "toolchain quote: words for sh come back as they were, in sh and in bash" {
	local words=('a"b\c$d${e};f' "it's" '' 'two  spaces' "$(printf 'line\nbreak')" '-arbin=x' '*' '~')
	run xcc toolchain quote --sh "${words[@]}"
	assert_status 0
	for shell in sh bash; do
		run "$shell" -c 'eval "set -- $1"; printf "%s\n" "$#"; for w; do printf "[%s]\n" "$w"; done' \
			quote "$(xcc toolchain quote --sh "${words[@]}")"
		assert_status 0
		[ "${lines[0]}" = 8 ]
		[ "$output" = "$(printf '%s\n' 8; printf '[%s]\n' "${words[@]}")" ]
	done
	# safe words stay bare; none at all is an empty line
	run xcc toolchain quote --sh /usr/bin/nvcc -target-dir=sbsa-linux
	assert_output_equals "/usr/bin/nvcc -target-dir=sbsa-linux"
	run xcc toolchain quote --sh
	assert_status 0
	assert_output_equals ""
}

@test "toolchain quote: a Meson array that Meson reads back, or a refusal that names the word" {
	need meson
	d=$(scratch)
	local words=('-ccbin=a\b' 'x\\y' "it's" "''two" 'a"b' "$d/sp ace/ü")
	run xcc toolchain quote --meson "${words[@]}"
	assert_status 0
	printf '[properties]\nwords = %s\n' "$output" > "$d/words.ini"
	printf "[host_machine]\nsystem = 'linux'\ncpu_family = 'aarch64'\ncpu = 'aarch64'\nendian = 'little'\n" > "$d/base.ini"
	mkdir "$d/p"
	printf "project('p')\nforeach w : meson.get_external_property('words')\nmessage('word=[' + w + ']')\nendforeach\n" > "$d/p/meson.build"
	run meson setup --cross-file "$d/base.ini" --cross-file "$d/words.ini" "$d/b" "$d/p"
	assert_status 0
	for w in "${words[@]}"; do
		assert_output_contains "word=[$w]"
	done
	run xcc toolchain quote --meson
	assert_output_equals "[]"
	for bad in "$(printf 'a\nb')" "a'''b" "ends'" "q'\\x"; do
		run xcc toolchain quote --meson ok "$bad"
		assert_status 2
		assert_output_contains "'$bad' cannot be written as a Meson string"
	done
}

@test "toolchain quote: the quoting is named first, and every word after it is a word" {
	run xcc toolchain quote
	assert_status 2
	assert_output_contains "say which quoting first: --sh or --meson, then the words"
	run xcc toolchain quote -arbin=x --sh
	assert_status 2
	assert_output_contains "say which quoting first"
	# --help and --meson after the form are words
	run xcc toolchain quote --sh --help --meson
	assert_status 0
	assert_output_equals "--help --meson"
	run xcc toolchain quote --help
	assert_status 0
	assert_output_contains "cuda-xcc toolchain quote --sh|--meson [WORD]..."
}

@test "toolchain cmake: a toolchain file bound to the sysroot that includes the shipped one" {
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	run xcc toolchain cmake --sysroot "$d/sr" -arch 8.7
	assert_status 0
	assert_output_contains "set(CUDA_XCC_SYSROOT [[$d/sr]] CACHE STRING"
	assert_output_contains "set(CUDA_XCC_ARCH [[8.7]] CACHE STRING"
	line=$(grep '^include(' <<<"$output")
	file=${line#include([[}
	file=${file%]])}
	[ -f "$file" ]
	cmp "$file" "$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake"
}

@test "toolchain cmake: CMake configures through the bound file and validates the GPUs" {
	need cmake
	need aarch64-linux-gnu-g++-12 "the fake sysroot names it"
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	run xcc toolchain cmake --sysroot "$d/sr" -arch sm_90 --output "$d/tc.cmake"
	assert_status 0
	run cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$d/tc.cmake"
	assert_status 1
	assert_output_contains "sm_90"
	assert_output_contains "jetson"
}

@test "toolchain --data-dir: the shipped wrappers, installed or in the sources" {
	run xcc toolchain --data-dir
	assert_status 0
	[ -f "$output/cmake/cuda-xcc-toolchain.cmake" ]
	# --help says what an install holds there: cmake/ alone, no yocto/ or buildroot/
	run xcc toolchain --help
	assert_status 0
	assert_output_contains "print where the shipped CMake toolchain file is (its"
	[[ "$output" != *"yocto/"* ]] || { echo "$output" >&2; false; }
}

@test "toolchain: make install puts the CMake toolchain file under share/cuda-xcc, and cuda-xcc-full in libexec/cuda-xcc" {
	need make
	need readelf
	[ -f "${XCC_BUILDDIR:-}/Makefile" ] || skip "needs the build tree (XCC_BUILDDIR)"
	[ "$CUDA_XCC" = "$XCC_BUILDDIR/src/cuda-xcc" ] || skip "installs the build tree's binary, not $CUDA_XCC"
	d=$(scratch)
	run make -C "$XCC_BUILDDIR" install DESTDIR="$d/dest" prefix=/opt/xcc
	assert_status 0
	[ -f "$d/dest/opt/xcc/share/cuda-xcc/cmake/cuda-xcc-toolchain.cmake" ]
	[ -x "$d/dest/opt/xcc/bin/cuda-xcc" ]
	# a dynamic build's commands run in cuda-xcc-full, found from cuda-xcc wherever the
	# tree was moved (DESTDIR here, as Yocto's and Buildroot's staged trees)
	readelf -d "$CUDA_XCC" | grep -q NEEDED || return 0
	[ -x "$d/dest/opt/xcc/libexec/cuda-xcc/cuda-xcc-full" ]
	run "$d/dest/opt/xcc/bin/cuda-xcc" gpus --target sbsa --cuda 12.4
	assert_status 0
	assert_output_contains "sm_90"
}

@test "toolchain cmake: a project reading CUDA_HOME gets the sysroot, not another CUDA in the environment" {
	need cmake
	need aarch64-linux-gnu-g++-12 "the fake sysroot names it"
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	printf '#!/bin/sh\nexit 0\n' > "$d/sr/bin/nvcc"
	chmod +x "$d/sr/bin/nvcc"
	f=$d/native
	mkdir -p "$f/bin" "$f/targets/x86_64-linux/include"
	printf '#!/bin/sh\nexit 0\n' > "$f/bin/nvcc"
	chmod +x "$f/bin/nvcc"
	: > "$f/targets/x86_64-linux/include/cuda_runtime_api.h"
	ln -s targets/x86_64-linux/include "$f/include"
	mkdir -p "$d/p"
	cat > "$d/p/CMakeLists.txt" <<-'EOS'
	cmake_minimum_required(VERSION 3.18)
	set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}" CACHE PATH "the project's CUDA")
	project(reads_cuda_home LANGUAGES C)
	set(CUDA_DIR "$ENV{CUDA_HOME}" CACHE PATH "read after project()")
	find_program(NVCC_FOUND nvcc)
	message(STATUS "root=${CUDAToolkit_ROOT}")
	message(STATUS "after=${CUDA_DIR}")
	message(STATUS "path=$ENV{CUDA_PATH}")
	message(STATUS "nvcc=${NVCC_FOUND}")
	EOS
	run xcc toolchain cmake --sysroot "$d/sr" --output "$d/tc.cmake"
	assert_status 0
	CUDA_HOME=$f CUDA_PATH=$f PATH=$f/bin:$PATH run cmake -S "$d/p" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$d/tc.cmake"
	assert_status 0
	assert_output_contains "-- root=$d/sr"
	assert_output_contains "-- after=$d/sr"
	assert_output_contains "-- path=$d/sr"
	assert_output_contains "-- nvcc=$d/sr/bin/nvcc"
	assert_output_contains "CUDA_HOME=$f names another CUDA than the sysroot"
	run grep "^CUDAToolkit_ROOT:" "$d/b/CMakeCache.txt"
	assert_output_equals "CUDAToolkit_ROOT:PATH=$d/sr"
	# another CUDA's headers on CPATH reach every compile: refused
	CPATH=$f/include run cmake -S "$d/p" -B "$d/b2" -DCMAKE_TOOLCHAIN_FILE="$d/tc.cmake"
	assert_status 1
	assert_output_contains "cuda-xcc: CPATH holds $f/include"
}

@test "toolchain cmake: a Jetson GPU on an SBSA sysroot is explained in CMake's words" {
	need cmake
	need aarch64-linux-gnu-g++-12 "the fake sysroot names it"
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	sed -i 's/"jetson"/"sbsa"/; s/"linux-aarch64"/"linux-sbsa"/; s/"aarch64-linux"/"sbsa-linux"/; s/"8.7"/"9.0"/; s/12.6.3/12.4.1/' "$d/sr/sysroot.json"
	run cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCMAKE_CUDA_ARCHITECTURES=87-real
	assert_status 1
	assert_output_contains "Debian's arm64 CUDA packages are SBSA"
	assert_output_contains "-DCUDA_XCC_SYSROOT"
	assert_output_contains "linux-aarch64"
}

# CMake's own errors after a fatal one in the toolchain file, which blame the project.
refute_cmake_aftermath() {
	[[ "$output" != *"unable to find a build program"* ]] || { echo "$output" >&2; false; }
	[[ "$output" != *"not set, after EnableLanguage"* ]] || { echo "$output" >&2; false; }
}

@test "toolchain cmake: a refused configure stops with cuda-xcc's error alone, not 'unable to find a build program corresponding to Ninja'" {
	need cmake
	need ninja "the generator whose build program CMake then claims to miss"
	need aarch64-linux-gnu-g++-12 "the fake sysroot names it"
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	sed -i 's/"jetson"/"sbsa"/; s/"linux-aarch64"/"linux-sbsa"/; s/"aarch64-linux"/"sbsa-linux"/; s/"8.7"/"9.0"/; s/12.6.3/12.4.1/' "$d/sr/sysroot.json"
	# a refusal after the compilers are known: a Jetson GPU on an SBSA sysroot
	run cmake -G Ninja -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCMAKE_CUDA_ARCHITECTURES=87-real
	assert_status 1
	assert_output_contains "cuda-xcc: the sysroot $d/sr is an SBSA one"
	refute_cmake_aftermath
	# the flags' "--target jetson" is no answer in a configure
	[[ "$output" != *"Use --target jetson"* ]]
	# one before them, with either generator: no sysroot named
	local g
	for g in Ninja "Unix Makefiles"; do
		rm -rf "$d/b"
		run env -u CUDA_XCC_SYSROOT cmake -G "$g" -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" \
			-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
			-DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
		assert_status 1
		assert_output_contains "cuda-xcc: set CUDA_XCC_SYSROOT"
		refute_cmake_aftermath
	done
	# and one in a check of a value
	rm -rf "$d/b"
	run cmake -G Ninja -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		"-DCUDA_XCC_SYSROOT=$d/a;b" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 1
	assert_output_contains "cuda-xcc: CUDA_XCC_SYSROOT"
	refute_cmake_aftermath
	# The build program found on the way is the one CMake itself would cache: the same
	# build directory configures once the error is fixed.
	run grep -x "CMAKE_MAKE_PROGRAM:FILEPATH=$(command -v ninja)" "$d/b/CMakeCache.txt"
	assert_status 0
}

@test "toolchain: make install puts bash and zsh completion where they look for it" {
	need make
	need bash
	[ -f "${XCC_BUILDDIR:-}/Makefile" ] || skip "needs the build tree (XCC_BUILDDIR)"
	[ "$CUDA_XCC" = "$XCC_BUILDDIR/src/cuda-xcc" ] || skip "installs the build tree's binary, not $CUDA_XCC"
	d=$(scratch)
	run make -C "$XCC_BUILDDIR" install DESTDIR="$d/dest" prefix=/opt/xcc
	assert_status 0
	[ -f "$d/dest/opt/xcc/share/zsh/site-functions/_cuda-xcc" ]
	local f=$d/dest/opt/xcc/share/bash-completion/completions/cuda-xcc
	[ -f "$f" ]
	# the verbs, a verb's actions and an option's values
	run bash -c ". '$f'; COMP_WORDS=(cuda-xcc s); COMP_CWORD=1; _cuda_xcc; echo \"\${COMPREPLY[*]}\""
	assert_output_equals "sysroot"
	run bash -c ". '$f'; COMP_WORDS=(cuda-xcc sysroot l); COMP_CWORD=2; _cuda_xcc; echo \"\${COMPREPLY[*]}\""
	assert_output_equals "list"
	run bash -c ". '$f'; COMP_WORDS=(cuda-xcc flags --target s); COMP_CWORD=3; _cuda_xcc; echo \"\${COMPREPLY[*]}\""
	assert_output_equals "sbsa"
	if command -v zsh >/dev/null; then
		run zsh -n "$d/dest/opt/xcc/share/zsh/site-functions/_cuda-xcc"
		assert_status 0
	fi
}
