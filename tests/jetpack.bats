#!/usr/bin/env bats
# JetPack profiles (sysroots/jetpack.json): board x CUDA x JetPack, and the
# runtime floors a linked program is checked against.
load lib/common

setup() {
	export XDG_DATA_HOME="$BATS_TEST_TMPDIR/data"
	unset CUDA_XCC_SYSROOT
}

@test "jetpack: --jetpack refuses a CUDA its boards cannot run, naming the releases that can" {
	run xcc flags --target jetson --cuda 12.6 -arch sm_87 --jetpack 5.1
	assert_status 2
	assert_output_contains "JetPack 5.1 runs CUDA up to 12.2 on sm_87"
	assert_output_contains "JetPack releases that run CUDA 12.6 on it: 6.0 (CUDA 12.2, up to 12.9), 6.1 (CUDA 12.6, up to 12.9), 6.2 (CUDA 12.6, up to 12.9; 13.2 with cuda_compat_orin, unverified)"
	# JetPack 7 is SBSA CUDA 13: no L4T (linux-aarch64) CUDA 12 build runs there.
	[[ "$output" != *"7.2 (CUDA"* ]]
	[[ "$output" != *"5.1 (CUDA"* ]]
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.1.2
	assert_status 0
	# 12.2 runs there through NVIDIA's cuda-compat on the board: said on stderr,
	# naming the point release asked for (it has its line's cuda_compat_from).
	assert_output_contains "JetPack 5.1.2's boards run CUDA 12.2 only with NVIDIA's cuda-compat package"
	[ "$(xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.1.2 2>/dev/null)" = "-gencode=arch=compute_87,code=sm_87" ]
}

@test "jetpack: a refusal names exactly the releases that run that CUDA on that GPU" {
	# Orin runs CUDA 13.4 only with JetPack 7.2; JetPack 6.2 reaches 13.2
	# only through cuda_compat_orin, and 5 and 6 otherwise stop at 12.2 and
	# 12.9 (issues 30, 37).
	run xcc flags --target jetson --cuda 13.4 -arch sm_87 --jetpack 6.2
	assert_status 2
	assert_output_contains "JetPack 6.2 runs CUDA up to 12.9 on sm_87"
	assert_output_contains "JetPack releases that run CUDA 13.4 on it: 7.2 (CUDA 13.2, 13.0 to 13.4)"
	[[ "$output" != *"5.1 (CUDA"* ]]
	[[ "$output" != *"6.0 (CUDA"* ]]
	[[ "$output" != *"6.1 (CUDA"* ]]
	[[ "$output" != *"6.2 (CUDA"* ]]
	run xcc flags --target jetson --cuda 13.2 -arch sm_87 --jetpack 7.2
	assert_status 0
	[[ "$output" != *"compat"* ]]
	run xcc flags --target jetson --cuda 13.2 -arch sm_87 --jetpack 6.2
	assert_status 0
	assert_output_contains "unverified"
	run xcc flags --target jetson --cuda 13.2 -arch sm_87 --jetpack 6.1
	assert_status 2
	assert_output_contains "JetPack releases that run CUDA 13.2 on it: 6.2 (CUDA 12.6, up to 12.9; 13.2 with cuda_compat_orin, unverified), 7.2 (CUDA 13.2, 13.0 to 13.4)"
}

@test "jetpack: an L4T CUDA 12 build is refused for JetPack 7.2, which is SBSA CUDA 13" {
	run xcc flags --target jetson --cuda 12.6 -arch sm_87 --jetpack 7.2
	assert_status 2
	assert_output_contains "JetPack 7.2 runs CUDA 13.0 to 13.4 on sm_87 (Jetson AGX Orin, Orin NX, Orin Nano), not CUDA 12.6. JetPack releases that run CUDA 12.6 on it: 6.0"
	run xcc flags --target jetson --cuda 12.6 -arch sm_87 --jetpack 7.2.1
	assert_status 2
}

@test "jetpack: point releases resolve to their own release; the line works as before" {
	# 5.0.2 is a production release (L4T 35.1, CUDA 11.4, Ubuntu 20.04).
	# Its boards, like 5.1's, run 12.2 only with cuda-compat (said on stderr).
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.0.2
	assert_status 0
	assert_output_contains "JetPack 5.0.2's boards run CUDA 12.2 only with NVIDIA's cuda-compat package installed on the board (cuda-compat-12-2"
	[ "$(xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.0.2 2>/dev/null)" = "-gencode=arch=compute_87,code=sm_87" ]
	run xcc flags --target jetson --cuda 12.2 -arch sm_72 --jetpack 5.0
	assert_status 0
	assert_output_contains "JetPack 5.0's boards run CUDA 12.2 only with NVIDIA's cuda-compat package"
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.1
	assert_status 0
	[ "$(xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.1 2>/dev/null)" = "-gencode=arch=compute_87,code=sm_87" ]
	# A point release the table does not list is not taken for another.
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.0.1
	assert_status 2
	assert_output_contains "--jetpack 5.0.1 is not a JetPack release cuda-xcc knows; the point releases of JetPack 5.0 it knows: 5.0.2 (or --jetpack 5.0 for any of them)"
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.1.9
	assert_status 2
	assert_output_contains "5.1, 5.1.1, 5.1.2, 5.1.3, 5.1.4, 5.1.5, 5.1.6"
	# A fact the table holds unverified is said to be, never passed as checked.
	run xcc flags --target jetson --cuda 13.2 -arch sm_87 --jetpack 6.2.1
	assert_status 0
	assert_output_contains "warning: that JetPack 6.2.1 runs CUDA 13.2 on sm_87 through cuda_compat_orin is unverified"
	run xcc doctor --target jetson --cuda 13.2 --jetpack 6.2.1
	[[ "$output" == *"skip  jetpack "*"JetPack 6.2.1 runs CUDA up to 12.9; CUDA 13.2 only on sm_87, with NVIDIA's cuda_compat_orin on the board (unverified"* ]]
	[[ "$output" != *"ok    jetpack"* ]]
	run xcc flags --target jetson --cuda 12.6 -arch sm_87 --jetpack 6.1
	assert_status 0
	[[ "$output" != *"unverified"* ]]
}

@test "jetpack: --jetpack refuses a board it does not support" {
	run xcc flags --target jetson --cuda 12.2 -arch sm_72 --jetpack 6.0
	assert_status 2
	assert_output_contains "JetPack 6.0 does not support sm_72 (Jetson Xavier AGX/NX)"
	assert_output_contains "JetPack releases that run CUDA 12.2 on it: 5.0 (CUDA 11.4, up to 12.2), 5.1 (CUDA 11.4, up to 12.2)"
	[[ "$output" != *"4.6 (CUDA"* ]]
	run xcc flags --target sbsa --cuda 13.0 -arch sm_90 --jetpack 7.0
	assert_status 2
	assert_output_contains "no Jetson GPU"
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 9.9
	assert_status 2
	assert_output_contains "--jetpack 9.9 is not a JetPack release cuda-xcc knows; known: 4.6, 5.0, 5.1, 6.0, 6.1, 6.2, 7.0, 7.1, 7.2"
}

@test "jetpack: sysroot create --jetpack refuses a board or a CUDA the release cannot run, before fetching anything" {
	run xcc sysroot create --target jetson --jetpack 5.1 -arch sm_53 --cuda 11.8 \
		--dest "$BATS_TEST_TMPDIR/S" --mirror "file://$BATS_TEST_TMPDIR/none/" --dry-run
	assert_status 2
	assert_output_contains "JetPack 5.1 does not support sm_53 (Jetson TX1, Jetson Nano). No JetPack release runs CUDA 11.8 on it; the releases that support it: 4.6 (CUDA 10.2)"
	run xcc sysroot create --target jetson --jetpack 5.1 -arch sm_87 --cuda 12.6 \
		--dest "$BATS_TEST_TMPDIR/S" --mirror "file://$BATS_TEST_TMPDIR/none/" --dry-run
	assert_status 2
	assert_output_contains "JetPack 5.1 runs CUDA up to 12.2 on sm_87"
	[ ! -e "$BATS_TEST_TMPDIR/S" ]
}

@test "jetpack: boards no JetPack runs with this CUDA warn without --jetpack" {
	run xcc flags --target jetson --cuda 12.6 -arch sm_72
	assert_status 0
	assert_output_contains "warning: no JetPack runs CUDA 12.6 on sm_72"
	run xcc flags --target jetson --cuda 11.8 -arch sm_53
	assert_status 0
	assert_output_contains "warning: no JetPack runs CUDA 11.8 on sm_53"
	assert_output_contains "4.6 (CUDA 10.2)"
	run xcc flags --target jetson --cuda 12.2 -arch sm_72
	assert_status 0
	[[ "$output" != *"warning"* ]]
}

@test "jetpack: gpus --jetpack lists the release's boards" {
	run xcc gpus --jetpack 6.2 --json
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert sorted({r["capability"] for r in rows}) == ["8.7"], rows
'
	run xcc gpus --jetpack 5.1 --cuda 12.6 --target jetson --json
	assert_status 0
	assert_output_equals "[]"
}

# A sysroot whose nvcc links the given C++ program with the cross g++, so
# the driver's after-link check has a real aarch64 program to read.
linking_sysroot() {
	local dir=$1
	mkdir -p "$dir/bin" "$dir/targets/aarch64-linux/lib"
	cat > "$dir/bin/nvcc" <<-'EOS'
	#!/bin/sh
	out=a.out
	while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
	exec aarch64-linux-gnu-g++-12 -x c++ "$PROGRAM_SRC" -o "$out"
	EOS
	chmod +x "$dir/bin/nvcc"
	cat > "$dir/sysroot.json" <<-EOS
	{"format": 1, "cuda": "12.2.2", "target": "jetson", "tag": "linux-aarch64",
	 "target_dir": "aarch64-linux", "host_compiler": "aarch64-linux-gnu-g++-12",
	 "capabilities": ["8.7"], "components": []}
	EOS
}

@test "jetpack: a linked program's GLIBC_/GLIBCXX_ needs are checked against the JetPack floor" {
	need aarch64-linux-gnu-g++-12
	local s=$BATS_TEST_TMPDIR/sr
	linking_sysroot "$s"
	export PROGRAM_SRC=$BATS_TEST_TMPDIR/p.cc
	cat > "$PROGRAM_SRC" <<-'EOS'
	#include <iostream>
	#include <string>
	int main() { std::string s = "x"; std::cout << s << std::endl; return 0; }
	EOS
	cd "$BATS_TEST_TMPDIR"
	# No --jetpack, no --target-fs: the floor is the oldest JetPack that
	# runs sm_87 with CUDA 12.2 (5.0, Ubuntu 20.04, glibc 2.31).
	run xcc --sysroot "$s" -arch sm_87 -o prog a.cu
	assert_status 0
	[ -x prog ]
	assert_output_contains "warning: prog needs GLIBC_2.34 (libc.so.6), newer than JetPack 5.0 (Ubuntu 20.04: glibc 2.31"
	assert_output_contains "--target-fs ROOTFS"
	run xcc --sysroot "$s" -arch sm_87 --jetpack 5.1 --strict -o prog a.cu
	assert_status 1
	assert_output_contains "error: prog needs GLIBC_2.34 (libc.so.6)"
	# JetPack 6.2 (glibc 2.35) runs it.
	run xcc --sysroot "$s" -arch sm_87 --jetpack 6.2 --strict -o prog a.cu
	assert_status 0
	[[ "$output" != *"needs GLIBC_"* ]]
}

# bats test_tags=sweep
@test "jetpack: flags, sysroot info --json and doctor agree on every (JetPack, GPU, CUDA) triple of the tables" {
	local w=$BATS_TEST_TMPDIR/triples
	mkdir -p "$w"
	run python3 "$XCC_SRCDIR/tests/lib/jetpack_triples.py" "$CUDA_XCC" "$XCC_SRCDIR" "$w"
	assert_status 0
	# The last line counts them; every line before it is a disagreement.
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "triples "* ]]
	# The facts of issue 37 among them: JetPack 7.2 runs 13.2 on Orin
	# natively; 6.2 (and its points) only with cuda_compat_orin; no L4T CUDA
	# 12 build on JetPack 7; the point releases users run.
	grep -qx '7.2 sm_87 13.2 accepted needs=' "$w/triples.txt"
	grep -qx '7.2.1 sm_110 13.2 accepted needs=' "$w/triples.txt"
	grep -qx '6.2 sm_87 13.2 accepted needs=cuda_compat_orin' "$w/triples.txt"
	grep -qx '6.2.3 sm_87 13.2 accepted needs=cuda_compat_orin' "$w/triples.txt"
	grep -qx '6.2 sm_87 13.4 refused' "$w/triples.txt"
	grep -qx '7.2 sm_87 12.6 refused' "$w/triples.txt"
	grep -qx '5.1.6 sm_87 12.2 accepted needs=cuda_compat' "$w/triples.txt"
	grep -qx '6.2.2 sm_87 12.6 accepted needs=' "$w/triples.txt"
}

@test "jetpack: every release row names its source, and the releases users run are known with their L4T" {
	run python3 - "$XCC_SRCDIR/sysroots/jetpack.json" <<-'PY'
	import json, sys
	t = json.load(open(sys.argv[1]))
	bad = []
	for line in t["releases"]:
	    rows = [line] + line["points"] + line.get("gpu_compat", [])
	    for r in rows:
	        name = r.get("jetpack", line["jetpack"] + " gpu_compat")
	        src = r.get("source", "")
	        # a page address, or a repository and path
	        if not ("https://" in src or "OE4T/meta-tegra " in src or "redistrib" in src):
	            bad.append(name)
	        if r.get("unverified") and "unverified" not in src:
	            bad.append(name + " (unverified, but its source does not say so)")
	print(" ".join(bad) or "all sourced")
	PY
	assert_status 0
	assert_output_equals "all sourced"
	run xcc flags --target jetson --cuda 12.2 -arch sm_87 --jetpack 5.1.6
	assert_status 0
	run xcc flags --target jetson --cuda 12.6 -arch sm_87 --jetpack 6.2.2
	assert_status 0
	run xcc flags --target jetson --cuda 13.2 -arch sm_110 --jetpack 7.2.1
	assert_status 0
	# Each with its own L4T (doctor's sysroot-less jetpack line says it).
	local sr=$BATS_TEST_TMPDIR/sr
	mkdir -p "$sr/bin"
	printf '{"format": 1, "cuda": "12.6.3", "target": "jetson", "tag": "linux-aarch64", "target_dir": "aarch64-linux", "host_compiler": "aarch64-linux-gnu-g++-12", "capabilities": ["8.7"], "components": []}\n' > "$sr/sysroot.json"
	run xcc doctor --sysroot "$sr" --jetpack 6.2.3
	[[ "$output" == *"ok    jetpack "*"JetPack 6.2.3 (L4T 36.5.2, Ubuntu 22.04) runs CUDA 12.6.3 on 8.7"* ]]
	run xcc doctor --sysroot "$sr" --jetpack 6.2.2
	[[ "$output" == *"JetPack 6.2.2 (L4T 36.5.0, Ubuntu 22.04)"* ]]
	run xcc doctor --sysroot "$sr" --jetpack 6.2.1
	[[ "$output" == *"JetPack 6.2.1 (L4T 36.4.4, Ubuntu 22.04)"* ]]
	[[ "$output" != *"unverified"* ]]
	printf '{"format": 1, "cuda": "13.2.0", "target": "jetson", "tag": "linux-sbsa", "target_dir": "sbsa-linux", "host_compiler": "aarch64-linux-gnu-g++-12", "capabilities": ["11.0"], "components": []}\n' > "$sr/sysroot.json"
	run xcc doctor --sysroot "$sr" --jetpack 7.2
	[[ "$output" == *"JetPack 7.2 (L4T 39.2.0 to 39.2.1, Ubuntu 24.04) runs CUDA 13.2.0 on 11.0"* ]]
	run xcc doctor --sysroot "$sr" --jetpack 7.0
	[[ "$output" == *"JetPack 7.0 (L4T 38.2.0 to 38.2.2, Ubuntu 24.04)"* ]]
	printf '{"format": 1, "cuda": "12.2.2", "target": "jetson", "tag": "linux-aarch64", "target_dir": "aarch64-linux", "host_compiler": "aarch64-linux-gnu-g++-12", "capabilities": ["8.7"], "components": []}\n' > "$sr/sysroot.json"
	run xcc doctor --sysroot "$sr" --jetpack 5.1.5
	[[ "$output" == *"JetPack 5.1.5 (L4T 35.6.1 to 35.6.2, Ubuntu 20.04)"* ]]
	run xcc doctor --sysroot "$sr" --jetpack 5.1.6
	[[ "$output" == *"JetPack 5.1.6 (L4T 35.6.4, Ubuntu 20.04)"* ]]
}
