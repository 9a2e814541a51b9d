#!/usr/bin/env bats
# cuda-xcc toolchain query: what the shipped wrappers (the CMake toolchain
# file, the Yocto class, the Buildroot package) ask of a sysroot, answered
# by the binary's own rules, so that no wrapper keeps a copy of them.
bats_require_minimum_version 1.5.0
load lib/common
load lib/toolchain

# An environment without another CUDA (this machine's CUDA_HOME, its bin on
# PATH and its stubs on LIBRARY_PATH are what the verdict is about).
clean() { env -i PATH=/usr/bin:/bin HOME="$HOME" "$@"; }

# python3's reading of JSON file $1: field $2 (a Python expression on m).
jfield() { python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# A Jetson sysroot with a fingerprint, at $1.
fp_sysroot() {
	toolchain_sysroot "$1"
	sed -i 's/"components": \[\]/"components": [], "fingerprint": "f00d"/' "$1/sysroot.json"
}

# Another CUDA toolkit, shaped as a native one, at $1.
other_cuda() {
	mkdir -p "$1/bin" "$1/include" "$1/targets/x86_64-linux"
	: > "$1/include/cuda_runtime_api.h"
	printf '#!/bin/sh\nexit 1\n' > "$1/bin/nvcc"
	chmod +x "$1/bin/nvcc"
}

@test "toolchain query: usage errors exit 2 and name the way out" {
	d=$(scratch)
	fp_sysroot "$d/sr"
	run xcc toolchain query --sysroot "$d/sr" --json --cmake
	assert_status 2
	assert_output_contains "give one of --json, --get FIELD, --cmake and --cmake-cache"
	run xcc toolchain meson --sysroot "$d/sr" --json
	assert_status 2
	assert_output_contains "are query's options"
	run xcc toolchain query --sysroot "$d/sr" --json --cache V=1
	assert_status 2
	assert_output_contains "give --cmake-cache too"
	run xcc toolchain query --sysroot "$d/sr" --check nothing
	assert_status 2
	assert_output_contains "--check takes NAME=PATH, not 'nothing'"
	run xcc toolchain query --sysroot "$d/sr" --cmake-cache --cache 'A B=1'
	assert_status 2
	assert_output_contains "a CMake variable's name (letters, digits and '_')"
	run xcc toolchain query --sysroot "$d/sr" --get nosuch
	assert_status 2
	assert_output_contains "no field 'nosuch': --get takes one of sysroot, "
	other_cuda "$d/native"
	run clean CUDA_HOME="$d/native" "$CUDA_XCC" toolchain query --sysroot "$d/sr" --get foreign_cuda
	assert_status 2
	assert_output_contains "the foreign_cuda are records, not words: ask for --json"
	run xcc toolchain query --sysroot "$d"
	assert_status 2
	assert_output_contains "is not a cuda-xcc sysroot (no sysroot.json)"
	run xcc toolchain --help
	assert_status 0
	assert_output_contains "cuda-xcc toolchain query [--sysroot DIR]"
}

@test "toolchain query --json: one answer with everything the wrappers read" {
	d=$(scratch)
	fp_sysroot "$d/sr"
	clean "$CUDA_XCC" toolchain query --sysroot "$d/sr" --output "$d/q.json"
	run jfield "$d/q.json" 'm["sysroot"], m["target_dir"], m["target_path"], m["triple"]'
	assert_output_equals "('$d/sr', 'aarch64-linux', '$d/sr/targets/aarch64-linux', 'aarch64-linux-gnu')"
	run jfield "$d/q.json" 'm["nvcc"], m["host_compiler"], m["host_compiler_c"], m["processor"]'
	assert_output_equals "('$d/sr/bin/nvcc', 'aarch64-linux-gnu-g++-12', 'aarch64-linux-gnu-gcc-12', 'aarch64')"
	run jfield "$d/q.json" 'm["target"], m["cuda"], m["capabilities"], m["archs"], m["gencode"]'
	assert_output_equals "('jetson', '12.6.3', ['8.7'], '87-real', ['-gencode=arch=compute_87,code=sm_87'])"
	run jfield "$d/q.json" 'm["fingerprint"], m["target_fs"], m["foreign_cuda"]'
	assert_output_equals "('f00d', None, [])"
	run jfield "$d/q.json" 'm["sysroot_cmake_unsafe"], m["cmake_refusal"], m["archs_error"]'
	assert_output_equals "(None, None, None)"
	# the GPUs validated as 'cuda-xcc flags' does
	run jfield "$d/q.json" 'm["archs"]'
	assert_output_equals "$(xcc flags --target jetson --cuda 12.6.3 -arch 8.7 --format cmake)"
	# -arch names others, validated: one this target cannot serve is refused
	run xcc toolchain query --sysroot "$d/sr" -arch sm_90 --get archs
	assert_status 2
	assert_output_contains "sm_90"
}

@test "toolchain query --get: one field plain, a list one per line, nothing for none" {
	d=$(scratch)
	fp_sysroot "$d/sr"
	sed -i 's/"capabilities": \["8.7"\]/"capabilities": ["8.7", "7.2"]/' "$d/sr/sysroot.json"
	run xcc toolchain query --sysroot "$d/sr" --get target_dir
	assert_status 0
	assert_output_equals "aarch64-linux"
	run xcc toolchain query --sysroot "$d/sr" --get capabilities
	assert_output_equals "8.7
7.2"
	xcc toolchain query --sysroot "$d/sr" --get target_fs > "$d/none"
	[ ! -s "$d/none" ]
	run xcc toolchain query --sysroot "$d/sr" --get target_fs_recorded
	assert_output_equals "false"
	# --output, as the Buildroot package writes its target-dir file
	run xcc toolchain query --sysroot "$d/sr" --get target_dir --output "$d/target-dir"
	assert_status 0
	[ "$(cat "$d/target-dir")" = aarch64-linux ]
}

@test "toolchain query: another CUDA in the environment: reported, said in CMake, refused where every compile reads it" {
	d=$(scratch)
	fp_sysroot "$d/sr"
	other_cuda "$d/native"
	clean CUDA_HOME="$d/native" CPATH="$d/native/include:/usr/include" \
		"$CUDA_XCC" toolchain query --sysroot "$d/sr" --check "CMAKE_CUDA_COMPILER=$d/native/bin/nvcc" \
		--check CUDAToolkit_ROOT= --output "$d/q.json"
	run jfield "$d/q.json" '[(f["variable"], f["entry"], f["root"], f["reaches"]) for f in m["foreign_cuda"]]'
	assert_output_equals "[('CUDA_HOME', '$d/native', '$d/native', 'toolkit'), ('CPATH', '$d/native/include', '$d/native', 'compiles'), ('CMAKE_CUDA_COMPILER', '$d/native/bin/nvcc', '$d/native', 'given')]"
	run jfield "$d/q.json" 'm["cmake_refusal"]'
	assert_output_contains "CPATH holds $d/native/include, the headers of the CUDA in $d/native"
	# the CMake forms refuse it, with the way out
	run clean CPATH="$d/native/include" "$CUDA_XCC" toolchain query --sysroot "$d/sr" --cmake
	assert_status 2
	assert_output_contains "unset CPATH, or take that entry out of it"
	run clean CPATH="$d/native/include" "$CUDA_XCC" toolchain query --sysroot "$d/sr" --cmake-cache
	assert_status 2
	# and say the others
	run clean CUDA_HOME="$d/native" "$CUDA_XCC" toolchain query --sysroot "$d/sr" --cmake \
		--check "CUDAToolkit_ROOT=$d/native"
	assert_status 0
	assert_output_contains "message(STATUS [[cuda-xcc: CUDA_HOME=$d/native names another CUDA than the sysroot"
	assert_output_contains "message(STATUS [[cuda-xcc: -DCUDAToolkit_ROOT=$d/native names another CUDA"
	# a path inside the sysroot is its own
	run clean CPATH="$d/sr/include" "$CUDA_XCC" toolchain query --sysroot "$d/sr" --get foreign_cuda
	assert_status 0
	assert_output_equals ""
}

# What the CMake code of --cmake sets, read back by cmake itself: value of
# CUDA_XCC_QUERY_$2 from the answer in file $1, into file $3.
cmake_read() {
	printf 'include("${IN}")\nfile(WRITE "${OUT}" "${CUDA_XCC_QUERY_%s}")\n' "$2" > "$BATS_TEST_TMPDIR/read.cmake"
	cmake -DIN="$1" -DOUT="$3" -P "$BATS_TEST_TMPDIR/read.cmake"
}

@test "toolchain query --cmake: a hostile sysroot path is quoted exactly or refused with exit 2" {
	need cmake
	local name sr
	for name in 'sp ace' "qu'o\"te" 'dol$lar${x}$(y)`z`' 'hash#at@' 'back\slash' 'ü'; do
		sr=$BATS_TEST_TMPDIR/$name
		fp_sysroot "$sr"
		run xcc toolchain query --sysroot "$sr" --cmake --output "$BATS_TEST_TMPDIR/q.cmake"
		assert_status 0
		cmake_read "$BATS_TEST_TMPDIR/q.cmake" SYSROOT "$BATS_TEST_TMPDIR/v"
		cmp "$BATS_TEST_TMPDIR/v" <(printf '%s' "$sr")
		cmake_read "$BATS_TEST_TMPDIR/q.cmake" NVCC "$BATS_TEST_TMPDIR/v"
		cmp "$BATS_TEST_TMPDIR/v" <(printf '%s' "$sr/bin/nvcc")
	done
	for name in 'x]==]y' 'semi;colon' $'line\nbreak' 'br[ack]et' 'end ' 'end\'; do
		sr=$BATS_TEST_TMPDIR/$name
		fp_sysroot "$sr"
		run xcc toolchain query --sysroot "$sr" --cmake --output "$BATS_TEST_TMPDIR/refused"
		assert_status 2
		assert_output_contains "CUDA_XCC_SYSROOT '$sr' holds"
		assert_output_contains "move it to a path without one, or link one to it, and name that"
		[ ! -e "$BATS_TEST_TMPDIR/refused" ]
		# the JSON says it, the value intact
		xcc toolchain query --sysroot "$sr" --json --output "$BATS_TEST_TMPDIR/q.json"
		run python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["sysroot"] == sys.argv[2], m["sysroot_cmake_unsafe"] is not None)' "$BATS_TEST_TMPDIR/q.json" "$sr"
		assert_output_equals "True True"
	done
	# the way out it names: a link without them
	ln -s "$BATS_TEST_TMPDIR/semi;colon" "$BATS_TEST_TMPDIR/link"
	run xcc toolchain query --sysroot "$BATS_TEST_TMPDIR/link" --cmake
	assert_status 0
	assert_output_contains "set(CUDA_XCC_QUERY_SYSROOT [[$BATS_TEST_TMPDIR/link]])"
}

@test "toolchain query --get: a value with a line break is refused, not split" {
	local sr=$BATS_TEST_TMPDIR/$'line\nbreak'
	fp_sysroot "$sr"
	run xcc toolchain query --sysroot "$sr" --get sysroot
	assert_status 2
	assert_output_contains "holds a line break, which a plain answer cannot carry: ask for --json"
	run xcc toolchain query --sysroot "$sr" --get target_dir
	assert_status 0
	assert_output_equals "aarch64-linux"
}

@test "toolchain query: a device root or a cuda-xcc path CMake cannot carry is refused by the CMake forms" {
	d=$(scratch)
	fp_sysroot "$d/sr"
	mkdir -p "$d/root fs/lib/aarch64-linux-gnu"
	run xcc toolchain query --sysroot "$d/sr" --target-fs "$d/root fs" --cmake
	assert_status 2
	assert_output_contains "CUDA_XCC_TARGET_FS '$d/root fs' holds ' ': its compiler options reach"
	assert_output_contains "(a link to it will do)"
	run xcc toolchain query --sysroot "$d/sr" --cuda-xcc "$d/a;b/cuda-xcc" --cmake
	assert_status 2
	assert_output_contains "CUDA_XCC_EXECUTABLE '$d/a;b/cuda-xcc' holds a ';'"
	# an empty --target-fs is none, as the toolchain file passes an unset one
	run xcc toolchain query --sysroot "$d/sr" --target-fs "" --get target_fs
	assert_status 0
	assert_output_equals ""
}

@test "toolchain query: a sysroot that records no host compiler: --cmake refuses it, a cache (whose caller names one) does not" {
	d=$(scratch)
	one_file_sysroot "$d/sr" sbsa 12.4.1 "" 9.0
	sed -i 's/"host_compiler": "",//' "$d/sr/sysroot.json"
	run xcc toolchain query --sysroot "$d/sr" --cmake
	assert_status 2
	assert_output_contains "names no cross g++ (host_compiler); recreate it with 'cuda-xcc sysroot create'"
	run xcc toolchain query --sysroot "$d/sr" --cmake-cache --cache "CMAKE_CUDA_HOST_COMPILER=my-g++"
	assert_status 0
	assert_output_contains 'set(CMAKE_CUDA_HOST_COMPILER [[my-g++]] CACHE STRING "cuda-xcc")'
	xcc toolchain query --sysroot "$d/sr" --output "$d/q.json"
	run jfield "$d/q.json" 'm["host_compiler"], m["host_compiler_c"]'
	assert_output_equals "(None, None)"
	run jfield "$d/q.json" 'm["cmake_refusal"]'
	assert_output_contains "names no cross g++"
}

@test "toolchain query --cmake-cache: the toolkit's entries and the caller's, read back by cmake -C" {
	need cmake
	local sr=$BATS_TEST_TMPDIR/"s\$p a'ce"
	one_file_sysroot "$sr" sbsa 12.4.1 aarch64-linux-gnu-g++-12 9.0
	run xcc toolchain query --sysroot "$sr" -arch sm_90 --cmake-cache --output "$BATS_TEST_TMPDIR/c.cmake" \
		--cache 'CMAKE_CUDA_COMPILER=/a b/$x/n]]v]=]cc' --cache 'CUDA_NVCC_FLAGS=-O2;-g' --cache 'EMPTY='
	assert_status 0
	mkdir "$BATS_TEST_TMPDIR/p"
	cat > "$BATS_TEST_TMPDIR/p/CMakeLists.txt" <<-'EOS'
	cmake_minimum_required(VERSION 3.16)
	project(cache NONE)
	foreach(v CUDAToolkit_ROOT CUDA_TOOLKIT_ROOT_DIR CUDA_TOOLKIT_TARGET_DIR
			CMAKE_CUDA_ARCHITECTURES CMAKE_CUDA_COMPILER CUDA_NVCC_FLAGS EMPTY)
		file(WRITE "${CMAKE_BINARY_DIR}/${v}.txt" "${${v}}")
	endforeach()
	EOS
	run cmake -C "$BATS_TEST_TMPDIR/c.cmake" -S "$BATS_TEST_TMPDIR/p" -B "$BATS_TEST_TMPDIR/b"
	assert_status 0
	local b=$BATS_TEST_TMPDIR/b
	cmp "$b/CUDAToolkit_ROOT.txt" <(printf '%s' "$sr")
	cmp "$b/CUDA_TOOLKIT_ROOT_DIR.txt" <(printf '%s' "$sr")
	cmp "$b/CUDA_TOOLKIT_TARGET_DIR.txt" <(printf '%s' "$sr/targets/sbsa-linux")
	cmp "$b/CMAKE_CUDA_ARCHITECTURES.txt" <(printf '%s' 90)
	cmp "$b/CMAKE_CUDA_COMPILER.txt" <(printf '%s' '/a b/$x/n]]v]=]cc')
	cmp "$b/CUDA_NVCC_FLAGS.txt" <(printf '%s' '-O2;-g')
	[ ! -s "$b/EMPTY.txt" ]
	# STRING entries: a PATH one would turn a '\' into '/'
	grep -q '^CMAKE_CUDA_COMPILER:STRING=' "$b/CMakeCache.txt"
}

@test "toolchain query: the wrappers keep no copy of the binary's rules, and ask it" {
	local cm=$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake
	local yc=$XCC_SRCDIR/wrappers/yocto/classes br=$XCC_SRCDIR/wrappers/buildroot/package
	# CMake: no check of its own of the characters CMake cannot carry, no
	# foreign-CUDA walk, no reading of sysroot.json; the answer of the query instead
	run grep -c 'MATCHES "\[\]\[;\|_xcc_foreign_cuda\|cuda_runtime_api\.h\|string(JSON' "$cm"
	assert_output_equals 0
	grep -q 'toolchain query --cmake --sysroot "${CUDA_XCC_SYSROOT}"' "$cm"
	grep -q 'cmake_language(EVAL CODE "${_xcc_query}")' "$cm"
	# Yocto: no CMake quoting and no JSON reading of its own
	run grep -c 'cmake_set\|json\.load\|\]\$fence\]' "$yc/cuda-xcc.bbclass" "$yc/cuda-xcc-base.bbclass"
	assert_output_contains "cuda-xcc.bbclass:0"
	assert_output_contains "cuda-xcc-base.bbclass:0"
	grep -q 'toolchain query --sysroot "$1" .*' "$yc/cuda-xcc-base.bbclass"
	# Buildroot: the target directory from the binary, not from a listing of targets/
	run grep -c 'ls $(CUDA_XCC_RUNTIME_SYSROOT)/targets' "$br/cuda-xcc-runtime/cuda-xcc-runtime.mk"
	assert_output_equals 0
	grep -q 'toolchain query --sysroot $(CUDA_XCC_RUNTIME_SYSROOT)' "$br/cuda-xcc-runtime/cuda-xcc-runtime.mk"
}

@test "toolchain query: the CMake toolchain file configures with the query's answer" {
	need cmake
	need aarch64-linux-gnu-g++-12 "the fake sysroot names it"
	d=$(scratch)
	fp_sysroot "$d/sr"
	mkdir -p "$d/p"
	printf 'cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\nmessage(STATUS "q=${CMAKE_SYSTEM_PROCESSOR} ${CMAKE_C_COMPILER} ${CMAKE_CUDA_ARCHITECTURES} ${CUDAToolkit_TARGET_DIR}")\n' > "$d/p/CMakeLists.txt"
	run clean cmake -S "$d/p" -B "$d/b" -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$d/sr" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 0
	assert_output_contains "-- q=aarch64 $(command -v aarch64-linux-gnu-gcc-12) 87-real $d/sr/targets/aarch64-linux"
	# no cuda-xcc to ask: said, with the way out, and CMake's own errors after it are not
	if command -v cuda-xcc || [ -e /usr/local/bin/cuda-xcc ]; then
		return 0
	fi
	run clean cmake -S "$d/p" -B "$d/b2" -DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$d/sr"
	assert_status 1
	assert_output_contains "cuda-xcc: no cuda-xcc on PATH"
	assert_output_contains "-DCUDA_XCC_EXECUTABLE=PATH"
	[[ "$output" != *"not set, after EnableLanguage"* ]] || { echo "$output" >&2; false; }
}
