#!/usr/bin/env bats
# cuda-xcc flags: every rule has a passing and a refused case.
load lib/common

@test "flags: jetson 12.6 sm_87 prints exactly one SASS gencode" {
	run xcc flags --target jetson --cuda 12.6 -arch sm_87
	assert_status 0
	assert_output_equals "-gencode=arch=compute_87,code=sm_87"
}

@test "flags: sbsa 12.6 7.5,8.6 gives SASS 75 and 86 plus PTX 86" {
	run xcc flags --target sbsa --cuda 12.6 -arch 7.5,8.6
	assert_status 0
	assert_output_equals "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_86,code=compute_86"
	run xcc flags --target sbsa --cuda 12.6 -arch 7.5,8.6 --format cmake
	assert_status 0
	assert_output_equals "75-real;86"
}

@test "flags: jetson 11.8 6.2,7.2 gives sm_62 and sm_72 (TX2 and Xavier)" {
	run xcc flags --target jetson --cuda 11.8 -arch 6.2,7.2
	assert_status 0
	assert_output_contains "
-gencode=arch=compute_62,code=sm_62 -gencode=arch=compute_72,code=sm_72"
	# TX2 ended with JetPack 4.6 and CUDA 10.2: it builds, but warns.
	assert_output_contains "warning: no JetPack runs CUDA 11.8 on sm_62 (Jetson TX2)"
}

@test "flags: 7.2 with 7.5 is refused: Jetson mixed with a non-Jetson GPU" {
	run xcc flags --target jetson --cuda 11.8 -arch 7.2,7.5
	assert_status 2
	assert_output_contains "sm_75 (Turing) is not a Jetson GPU"
	assert_output_contains "--target sbsa"
	run xcc flags --target sbsa --cuda 11.8 -arch 7.2,7.5
	assert_status 2
	assert_output_contains "sm_72 (Jetson Xavier AGX/NX) cannot be mixed with sm_75"
}

@test "flags: --print-tag follows the linux-aarch64 / linux-sbsa rule" {
	run xcc flags --target jetson --cuda 12.6 -arch 8.7 --print-tag
	assert_output_equals linux-aarch64
	run xcc flags --target jetson --cuda 13.0 -arch 11.0 --print-tag
	assert_output_equals linux-sbsa
	run xcc flags --target sbsa --cuda 12.6 -arch 8.0,8.9 --print-tag
	assert_output_equals linux-sbsa
	run xcc flags --target x86_64 --cuda 12.6 -arch 8.9 --print-tag
	assert_output_equals linux-x86_64
}

@test "flags: Orin on 13.2 is served by linux-sbsa; cuda_compat_orin is JetPack 6.2's need, not JetPack 7.2's" {
	run xcc flags --target jetson --cuda 13.2 -arch 8.7 --print-tag
	assert_status 0
	assert_output_equals linux-sbsa
	# JetPack 7.2 ships CUDA 13.2 for Orin: its libcuda is L4T's own (issue 37 §1).
	run xcc flags --target sbsa --cuda 13.2 -arch sm_87 --jetpack 7.2 --format json
	assert_status 0
	[[ "$output" != *"cuda_compat_orin"* ]]
	[[ "$output" != *"compat libraries"* ]]
	assert_output_contains '"tag":	"linux-sbsa"'
	# Without --jetpack, 7.2 runs it natively, so nothing is a need of every board.
	run xcc flags --target sbsa --cuda 13.2 -arch sm_87 --format json
	assert_status 0
	[[ "$output" != *"cuda_compat_orin"* ]]
	# JetPack 6.2 runs it only with cuda_compat_orin on the board, unverified.
	run xcc flags --target sbsa --cuda 13.2 -arch sm_87 --jetpack 6.2 --format json
	assert_status 0
	run python3 -c 'import json,sys; t=sys.argv[1]; o=json.loads(t[t.index("{"):t.rindex("}") + 1]); b=o["board_needs"]; print(len(b), b[0]["component"], b[0]["package"], b[0]["device_dir"], o["extra_components"])' "$output"
	assert_output_equals "1 cuda_compat_orin cuda-compat-orin-13-2 /usr/local/cuda-13.2/compat_orin ['cuda_compat_orin']"
}

@test "flags: Orin on JetPack 6.2 with 13.2 needs its compat libraries on the board, not only in the sysroot" {
	run xcc flags --target jetson --cuda 13.2 -arch sm_87 --jetpack 6.2
	assert_status 0
	assert_output_contains "note: JetPack 6.2's sm_87 (Jetson AGX Orin, Orin NX, Orin Nano) runs CUDA 13.2 only with NVIDIA's compat libraries for it installed on the board (cuda-compat-orin-13-2, libcuda.so.* in /usr/local/cuda-13.2/compat_orin; the linux-sbsa component cuda_compat_orin); unverified: no NVIDIA page states this pairing"
	assert_output_contains "'cuda-xcc sysroot create' puts it in the sysroot (targets/sbsa-linux/compat_orin/), for run --device"
	assert_output_contains "warning: that JetPack 6.2 runs CUDA 13.2 on sm_87 through cuda_compat_orin is unverified in cuda-xcc's table"
	[[ "$output" != *"component in the sysroot"* ]]
	# Only the tag is asked for: nothing else is said.
	run xcc flags --target jetson --cuda 13.2 -arch sm_87 --print-tag
	assert_output_equals linux-sbsa
}

@test "flags: a JetPack that ships an older CUDA runs the newer one only with cuda-compat on the board" {
	run xcc flags --target jetson --jetpack 5.1 --cuda 12.2 -arch sm_87
	assert_status 0
	assert_output_contains "note: JetPack 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package installed on the board (cuda-compat-12-2, libcuda.so.* in /usr/local/cuda-12.2/compat); 'cuda-xcc sysroot create ... --components cuda_compat' puts it in the sysroot (targets/aarch64-linux/compat/)"
	# JSON on stdout, the note on stderr: both in $output.
	run xcc flags --target jetson --jetpack 5.1 --cuda 12.2 -arch sm_87 --format json
	assert_status 0
	run python3 -c 'import json,sys; t=sys.argv[1]; o=json.loads(t[t.index("{"):t.rindex("}") + 1]); b=o["board_needs"]; print(len(b), b[0]["component"], b[0]["package"], b[0]["device_dir"])' "$output"
	assert_output_equals "1 cuda_compat cuda-compat-12-2 /usr/local/cuda-12.2/compat"
	# JetPack 6.1 ships 12.6: nothing to add; 12.8 needs the package again.
	run xcc flags --target jetson --jetpack 6.1 --cuda 12.6 -arch sm_87
	assert_status 0
	assert_output_equals "-gencode=arch=compute_87,code=sm_87"
	run xcc flags --target jetson --jetpack 6.1 --cuda 12.8 -arch sm_87
	assert_status 0
	assert_output_contains "JetPack 6.1's boards run CUDA 12.8 only with NVIDIA's cuda-compat package installed on the board (cuda-compat-12-8"
	# Without --jetpack it is said only when every JetPack for these boards needs it:
	# Xavier (7.2) and Orin together on 12.2 are JetPack 5.0's and 5.1's alone.
	run xcc flags --target jetson --cuda 12.2 -arch sm_87
	assert_output_equals "-gencode=arch=compute_87,code=sm_87"
	run xcc flags --target jetson --cuda 12.2 -arch sm_72,sm_87
	assert_output_contains "JetPack 5.0's and 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package"
}

@test "flags: Orin on 13.0 and 13.1 is refused with the versions that work" {
	for v in 13.0 13.1; do
		run xcc flags --target jetson --cuda $v -arch sm_87
		assert_status 2
		assert_output_contains "Use --cuda 12.9 or older, or --cuda 13.2 or newer"
	done
}

@test "flags: Thor is accepted by jetson and sbsa, on 12.8 as sm_101 and from 13.0 as sm_110" {
	run xcc flags --target jetson --cuda 12.8 -arch sm_101
	assert_status 0
	assert_output_contains "-gencode=arch=compute_101,code=sm_101"
	assert_output_contains "from CUDA 13.0 it is sm_110"
	run xcc flags --target sbsa --cuda 13.0 -arch sm_110,sm_90 --print-tag
	assert_status 0
	assert_output_equals linux-sbsa
	run xcc flags --target jetson --cuda 13.0 -arch sm_101
	assert_status 2
	assert_output_contains "renamed sm_110 in CUDA 13.0"
}

@test "flags: spellings 87, 8.7, sm_87, compute_87, SM_87 are the same capability" {
	for a in 87 8.7 sm_87 SM_87; do
		run xcc flags --target jetson --cuda 12.6 -arch $a
		assert_output_equals "-gencode=arch=compute_87,code=sm_87"
	done
	run xcc flags --target jetson --cuda 12.6 -arch compute_87
	assert_output_equals "-gencode=arch=compute_87,code=sm_87 -gencode=arch=compute_87,code=compute_87"
}

@test "flags: repeated -arch and comma lists are merged, sorted and deduplicated" {
	run xcc flags --target x86_64 --cuda 12.6 -arch 9.0 -arch 7.5,8.6 -arch sm_90 --ptx none
	assert_status 0
	assert_output_equals "-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_90,code=sm_90"
}

@test "flags: a and f capabilities" {
	run xcc flags --target sbsa --cuda 12.9 -arch sm_90a,100f,9.0
	assert_status 0
	assert_output_equals "-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_100f,code=sm_100f"
	run xcc flags --target sbsa --cuda 12.9 -arch sm_90a,100f,9.0 --format cmake
	assert_output_equals "90;90a-real;100f-real"
}

@test "flags: an f capability with its own baseline is refused" {
	run xcc flags --target sbsa --cuda 13.0 -arch 11.0f,11.0
	assert_status 2
	assert_output_contains "sm_110f together with its own baseline sm_110"
}

@test "flags: PTX for an a capability is refused, family PTX (compute_100f) is allowed" {
	run xcc flags --target sbsa --cuda 13.0 -arch compute_90a
	assert_status 2
	assert_output_contains "PTX asked for an arch-specific capability"
	assert_output_contains "compute_90a"
	assert_output_contains "runs on exactly that one GPU"
	run xcc flags --target sbsa --cuda 13.0 -arch compute_100f
	assert_status 0
	assert_output_equals "-gencode=arch=compute_100f,code=sm_100f -gencode=arch=compute_100f,code=compute_100f"
}

@test "flags: PTX is decided by GPU, not by target: none for Orin and Thor by default" {
	run xcc flags --target sbsa --cuda 13.0 -arch 11.0
	assert_status 0
	assert_output_equals "-gencode=arch=compute_110,code=sm_110"
	run xcc flags --target jetson --cuda 13.0 -arch 11.0
	assert_output_equals "-gencode=arch=compute_110,code=sm_110"
	run xcc flags --target sbsa --cuda 13.2 -arch 8.7,9.0 --format cmake
	assert_output_contains "87-real;90"
}

@test "flags: sm_101 on CUDA 13 was renamed sm_110, not removed" {
	run xcc flags --target jetson --cuda 13.0 -arch sm_101
	assert_status 2
	assert_output_contains "sm_101 (Jetson Thor (CUDA 12.8-12.9)) was renamed sm_110 in CUDA 13.0"
	assert_output_contains "use -arch sm_110 with CUDA 13.0 or newer, or --cuda 12.9 for sm_101"
	[[ "$output" != *"removed"* ]]
	run xcc flags --target sbsa --cuda 13.0 -arch sm_101f
	assert_status 2
	assert_output_contains "renamed sm_110f"
}

@test "flags: CUDA versions past the tables warn or are refused" {
	run xcc flags --target sbsa --cuda 13.5 -arch sm_90
	assert_status 0
	assert_output_contains "warning: CUDA 13.5 is newer than the newest release cuda-xcc's tables know (13.4)"
	run xcc flags --target sbsa --cuda 14.0 -arch sm_90
	assert_status 2
	assert_output_contains "CUDA 14.0 is newer than any release cuda-xcc knows"
	run xcc flags --target sbsa --cuda 12.10 -arch sm_90
	assert_status 2
	assert_output_contains "CUDA 12.10 does not exist: 12.9 was the last CUDA 12 release"
	run xcc flags --target sbsa --cuda 11.9 -arch sm_80
	assert_status 2
	assert_output_contains "11.8 was the last CUDA 11 release"
	run xcc flags --target sbsa --cuda 13.3 -arch sm_90
	assert_status 0
	[[ "$output" != *"warning"* ]]
}

@test "flags: CUDA 13.4 is known, and what of it is unverified is said" {
	run xcc flags --target sbsa --cuda 13.4 -arch sm_90
	assert_status 0
	assert_output_contains "warning: CUDA 13.4 is in cuda-xcc's tables, but unverified: its GPU list"
	[[ "$output" != *"newer than the newest release"* ]]
	run xcc flags --target sbsa --cuda 13.4.2 -arch sm_90 --format json
	assert_status 0
	# JetPack 7.2 runs 13.4 on Orin (minor version compatibility with its 13.2).
	run xcc flags --target jetson --cuda 13.4 -arch sm_87 --jetpack 7.2
	assert_status 0
}

@test "flags: unknown capabilities are named, with what CUDA knows" {
	run xcc flags --target sbsa --cuda 12.6 -arch sm_99,8.6,banana
	assert_status 2
	assert_output_contains "'sm_99' is not a known GPU capability"
	assert_output_contains "'banana' is not a known GPU capability"
	assert_output_contains "CUDA 12.6 knows: 50 52 53"
}

@test "flags: too old and too new for the CUDA version" {
	run xcc flags --target sbsa --cuda 13.0 -arch sm_72
	assert_status 2
	assert_output_contains "sm_72 (Volta) was removed in CUDA 13.0, last supported by 12.9"
	run xcc flags --target x86_64 --cuda 12.6 -arch sm_100
	assert_status 2
	assert_output_contains "sm_100 (Blackwell) needs CUDA 12.8 or newer"
	run xcc flags --target x86_64 --cuda 12.0 -arch sm_35
	assert_status 2
	assert_output_contains "removed in CUDA 12.0, last supported by 11.8"
}

@test "flags: Jetson capabilities need an aarch64 target" {
	run xcc flags --target x86_64 --cuda 12.6 -arch sm_87
	assert_status 2
	assert_output_contains "sm_87 is a Jetson GPU"
	assert_output_contains "use --target jetson"
}

@test "flags: a pre-SBSA Jetson is refused by --target sbsa" {
	run xcc flags --target sbsa --cuda 12.6 -arch sm_87
	assert_status 2
	assert_output_contains "linux-aarch64"
	assert_output_contains "Use --target jetson"
}

@test "flags: --target jetson with CUDA 12.3.x or before 11.8 has no linux-aarch64 redist" {
	run xcc flags --target jetson --cuda 12.3.2 -arch sm_87
	assert_status 2
	assert_output_contains "NVIDIA publishes no linux-aarch64 libraries for CUDA 12.3"
	assert_output_contains "11.8-12.2, 12.4-12.9"
	run xcc flags --target jetson --cuda 11.7 -arch sm_87
	assert_status 2
	assert_output_contains "no linux-aarch64 libraries for CUDA 11.7"
	run xcc flags --target jetson --cuda 12.4 -arch sm_87
	assert_status 0
}

@test "flags: default is the default set for servers and an error for Jetson" {
	run xcc flags --target sbsa --cuda 12.6 --format cmake
	assert_status 0
	assert_output_equals "75-real;80-real;86-real;89-real;90"
	run xcc flags --target x86_64 --cuda 13.0 -arch default --format cmake --ptx none
	assert_output_equals "75-real;80-real;86-real;89-real;90-real;100-real;103-real;120-real;121-real"
	run xcc flags --target jetson --cuda 12.6 -arch default
	assert_status 2
	assert_output_contains "the board decides"
	assert_output_contains "Jetson AGX Orin, Orin NX, Orin Nano"
	assert_output_contains "8.7 (-arch sm_87)"
}

@test "flags: all and all-major" {
	run xcc flags --target x86_64 --cuda 12.6 -arch all-major --format cmake
	assert_output_equals "50-real;60-real;70-real;80-real;90"
	# nvcc's own all-major: the lowest capability of the release plus every
	# X.0 (nvcc 13.0 -arch=all-major --dryrun; CMake's table for 11.8), less
	# what the target cannot serve: Jetson Thor's sm_110 is no x86_64 GPU.
	run xcc flags --target x86_64 --cuda 13.0 -arch all-major --format cmake
	assert_output_equals "75-real;80-real;90-real;100-real;120"
	run xcc flags --target x86_64 --cuda 13.0 -arch sm_110
	assert_status 2
	run xcc flags --target sbsa --cuda 13.0 -arch all-major --format cmake
	assert_output_equals "75-real;80-real;90-real;100-real;110-real;120"
	run xcc flags --target sbsa --cuda 11.8 -arch all-major --format cmake
	assert_output_equals "35-real;50-real;60-real;70-real;80-real;90"
	run xcc flags --target jetson --cuda 11.8 -arch all --format cmake
	assert_output_contains "
53-real;62-real;72-real;87-real"
	run xcc flags --target jetson --cuda 12.6 -arch all-major
	assert_status 2
}

@test "flags: --ptx none, highest and all" {
	run xcc flags --target sbsa --cuda 12.6 -arch 8.0,8.6 --ptx none --format cmake
	assert_output_equals "80-real;86-real"
	run xcc flags --target sbsa --cuda 12.6 -arch 8.0,8.6 --ptx all --format cmake
	assert_output_equals "80;86"
	run xcc flags --target jetson --cuda 12.6 -arch 8.7 --ptx highest --format cmake
	assert_output_equals "87"
	run xcc flags --target sbsa --cuda 12.6 -arch 8.0 --ptx some
	assert_status 2
	assert_output_contains "--ptx takes none, highest or all"
}

@test "flags: --format json carries the tag, target dir and triple" {
	run xcc flags --target jetson --cuda 12.6 -arch 8.7 --format json
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["tag"] == "linux-aarch64", d
assert d["target_dir"] == "aarch64-linux", d
assert d["triple"] == "aarch64-linux-gnu", d
assert d["gencode"] == ["-gencode=arch=compute_87,code=sm_87"], d
assert d["cmake"] == "87-real", d
'
}

@test "flags: usage errors exit 2" {
	run xcc flags --cuda 12.6 -arch 8.6
	assert_status 2
	assert_output_contains "--target and --cuda are required"
	run xcc flags --target mars --cuda 12.6
	assert_status 2
	assert_output_contains "unknown target 'mars'; known targets: jetson, sbsa, x86_64"
	run xcc flags --target sbsa --cuda twelve
	assert_status 2
	assert_output_contains "'twelve' is not a CUDA version"
	run xcc flags --target sbsa --cuda 12.7 -arch 8.6
	assert_status 2
	assert_output_contains "CUDA 12.7 was never released"
	run xcc flags --target sbsa --cuda 12.6 --format yaml
	assert_status 2
	run xcc flags --target sbsa --cuda 12.6 --bogus
	assert_status 2
	assert_output_contains "unknown option '--bogus'"
}

@test "flags: every -arch a refusal suggests is one the same command accepts (native, default, all-major)" {
	local t v kw s n=0
	for t in jetson sbsa x86_64; do
		for v in 11.8 12.2 12.6 12.9 13.0 13.1 13.2 13.4; do
			for kw in native default all-major; do
				run xcc flags --target "$t" --cuda "$v" -arch "$kw"
				[ "$status" -eq 2 ] || continue
				# "e.g. -arch sm_87 for Orin", and each board line not marked as
				# outside this CUDA version: "8.7 (-arch sm_87)".
				for s in $(grep -o 'e\.g\. -arch sm_[0-9a-z]*' <<<"$output" | sed 's/^e\.g\. -arch //') \
					$(grep -v '\[not' <<<"$output" | grep -o '(-arch sm_[0-9a-z]*)' | sed 's/^(-arch //; s/)$//'); do
					run xcc flags --target "$t" --cuda "$v" -arch "$s"
					[ "$status" -eq 0 ] || { echo "--target $t --cuda $v: suggested -arch $s is refused: $output" >&2; return 1; }
					n=$((n + 1))
				done
			done
		done
	done
	[ "$n" -gt 20 ]
	# CUDA 13.0 serves no Orin: Thor is the example, Orin is marked.
	run xcc flags --target jetson --cuda 13.0 -arch default
	assert_status 2
	assert_output_contains "e.g. -arch sm_110 for Thor."
	assert_output_contains "8.7 (-arch sm_87)  [not served by this CUDA version]"
	run xcc flags --target x86_64 --cuda 13.0 -arch native
	assert_status 2
	assert_output_contains "e.g. -arch sm_90 for Hopper"
}

@test "flags: a CUDA a refusal suggests for Orin with Thor is one Thor has too" {
	run xcc flags --target sbsa --cuda 13.0 -arch sm_87,sm_110
	assert_status 2
	assert_output_contains "Use --cuda 13.2 or newer."
	[[ "$output" != *"12.9 or older"* ]]
	run xcc flags --target sbsa --cuda 13.2 -arch sm_87,sm_110
	assert_status 0
}

@test "flags: compute_XX is SASS and PTX here and PTX only in nvcc: --help says it, the driver notes it as it rewrites -arch=compute_XX" {
	run xcc flags --help
	assert_status 0
	assert_output_contains "compute_87 is SASS and PTX for 8.7 here, where nvcc's own"
	assert_output_contains "-arch=compute_87 alone is PTX only"
	local sr=$BATS_TEST_TMPDIR/sr
	mkdir -p "$sr/bin"
	printf '{"format": 1, "cuda": "12.6.3", "target": "jetson", "tag": "linux-aarch64", "target_dir": "aarch64-linux", "host_compiler": "aarch64-linux-gnu-g++-12", "capabilities": ["8.7"], "components": []}\n' > "$sr/sysroot.json"
	echo '__global__ void k() {}' > "$BATS_TEST_TMPDIR/k.cu"
	run xcc --sysroot "$sr" -arch=compute_87 --dry-run -c "$BATS_TEST_TMPDIR/k.cu"
	assert_status 0
	assert_output_contains "note: compute_87 means SASS and PTX for 8.7 in cuda-xcc (-gencode=arch=compute_87,code=sm_87 and code=compute_87), where nvcc's own -arch=compute_87 embeds PTX only"
	assert_output_contains "-gencode=arch=compute_87,code=sm_87 -gencode=arch=compute_87,code=compute_87"
	run xcc --sysroot "$sr" -arch=sm_87 --dry-run -c "$BATS_TEST_TMPDIR/k.cu"
	assert_status 0
	[[ "$output" != *"means SASS and PTX"* ]]
}
