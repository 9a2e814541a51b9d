#!/usr/bin/env bats
# cuda-xcc check: will files cuda-xcc did not build run on a board? Real files only:
# Debian's arm64 CUDA 11.8 and 12.4 libraries (.debs read in place), programs built here
# with known SASS, PTX and floors (nvcc 13.0's fatbins; the aarch64 cross g++), a wheel and
# a .deb assembled here from them, and the Debian 11 root (scripts/fetch-target-root.sh).
load lib/common
bats_require_minimum_version 1.5.0

cache118() { echo "${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}"; }
cache124() { echo "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; }
cache_bullseye() { echo "${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}"; }
NVCC=${XCC_NVCC:-/usr/local/cuda/bin/nvcc}

# The programs: x86_64 ones with nvcc 13.0 (SASS sm_86 only; PTX compute_80 only), and an
# aarch64 program with nvcc 13.0's sm_87 fatbin, a C++17 need of GCC 11's libstdc++
# (GLIBCXX_3.4.29) and Debian 12's glibc (GLIBC_2.34), and a library of its own.
build_programs() {
	local d=$BATS_FILE_TMPDIR/prog
	mkdir -p "$d"
	cd "$d" || return 1
	printf '__global__ void scale(float *p, float f) { p[threadIdx.x] *= f; }\n' > dev.cu
	printf '#include "dev.cu"\nint main() { float *p; cudaMalloc(&p, 4);\n%s\n}\n' \
		'scale<<<1, 1>>>(p, 2.0f); return cudaDeviceSynchronize();' > host.cu
	if [ -x "$NVCC" ]; then
		"$NVCC" -gencode arch=compute_86,code=sm_86 -o sass86 host.cu &&
			"$NVCC" -gencode arch=compute_80,code=compute_80 -o ptx80 host.cu &&
			"$NVCC" -fatbin -gencode arch=compute_87,code=sm_87 -o k87.fatbin dev.cu ||
			return 1
	fi
	command -v aarch64-linux-gnu-g++ >/dev/null && [ -f k87.fatbin ] || return 0
	printf '\t.section .nv_fatbin,"a"\n\t.balign 8\n\t.incbin "k87.fatbin"\n' > fat.S
	printf 'int widget(int x) { return x + 1; }\n' > widget.c
	cat > app.cc <<'EOF'
#include <charconv>
#include <cstring>
extern "C" int widget(int);
int main(int argc, char **argv)
{
	double d = 0;
	std::from_chars(argv[0], argv[0] + std::strlen(argv[0]), d);
	return widget(argc) == 2 && d == 0 ? 0 : 1;
}
EOF
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libwidget.so.1 -o libwidget.so.1 widget.c &&
		ln -sf libwidget.so.1 libwidget.so &&
		aarch64-linux-gnu-g++ -std=c++17 -o app app.cc fat.S -L. -lwidget
}

setup_file() {
	(build_programs) > "$BATS_FILE_TMPDIR/build.log" 2>&1 || echo failed > "$BATS_FILE_TMPDIR/build.failed"
	if [ "$(ls "$(cache_bullseye)"/*_arm64.deb 2>/dev/null | wc -l)" -ge 7 ]; then
		bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --cache "$(cache_bullseye)" \
			--dest "$BATS_FILE_TMPDIR/bullseye" > "$BATS_FILE_TMPDIR/root.log" 2>&1 || true
	fi
}

setup() {
	if [ -f "$BATS_FILE_TMPDIR/build.failed" ]; then
		cat "$BATS_FILE_TMPDIR/build.log" >&2
		return 1
	fi
	P=$BATS_FILE_TMPDIR/prog
}

deb124() {
	local f
	f=$(ls "$(cache124)"/"$1"_*_arm64.deb 2>/dev/null | head -n1)
	[ -n "$f" ] || skip "Debian's CUDA 12.4 $1 is not in $(cache124) (run scripts/fetch-debian-cuda.sh --release trixie)"
	echo "$f"
}
deb118() {
	local f
	f=$(ls "$(cache118)"/"$1"_*_arm64.deb 2>/dev/null | head -n1)
	[ -n "$f" ] || skip "Debian's CUDA 11.8 $1 is not in $(cache118) (run scripts/fetch-debian-cuda.sh)"
	echo "$f"
}
need_app() {
	need aarch64-linux-gnu-g++ "the aarch64 program"
	[ -x "$NVCC" ] || skip "no nvcc at $NVCC"
}
need_root() {
	[ -f "$BATS_FILE_TMPDIR/bullseye/lib/aarch64-linux-gnu/libc.so.6" ] ||
		skip "the bullseye arm64 .debs are not in $(cache_bullseye) (run scripts/fetch-target-root.sh)"
	R=$BATS_FILE_TMPDIR/bullseye
}

@test "check: served by SASS: Debian's cuFFT 12.4 .deb on JetPack 6.2 (Orin's sm_87, read in place)" {
	local deb
	deb=$(deb124 libcufft11)
	run xcc check --jetpack 6.2 "$deb"
	assert_status 0
	assert_output_contains "OK      $deb:usr/lib/aarch64-linux-gnu/libcufft.so.11.2.1.3: gpus 8.7 sass sm_87;"
	assert_output_contains "cuda 12.4 (package version 11.2.1.3~12.4.1-2)"
	assert_output_contains "total: 1 files: 1 ok, 0 need cuda-compat, 0 cannot be told, 0 will not run"
}

@test "check: not served: Debian's cuBLAS 12.4 has sm_86 SASS, which an Orin (Tegra, exact SASS only) cannot run" {
	local deb
	deb=$(deb124 libcublas12)
	run xcc check --jetpack 6.2 --gpu 8.7 "$deb"
	assert_status 1
	assert_output_contains "FAIL    $deb:usr/lib/aarch64-linux-gnu/libcublas.so.12.4.5.8: gpus 8.7 not-served;"
	assert_output_contains "GPU 8.7 is not served: no SASS that runs on it and no PTX it can JIT (sass sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90 ptx sm_90)"
}

@test "check: the same cuBLAS is served on a Grace Hopper (sm_90) with the Debian 11 root" {
	local a b
	need_root
	a=$(deb124 libcublas12)
	b=$(deb124 libcublaslt12)
	run xcc check --gpu 9.0 --target-fs "$R" --verbose "$a" "$b"
	assert_status 0
	assert_output_contains "OK      $a:usr/lib/aarch64-linux-gnu/libcublas.so.12.4.5.8: gpus 9.0 sass sm_90;"
	assert_output_contains "needed libcublasLt.so.12: input $b:usr/lib/aarch64-linux-gnu/libcublasLt.so.12.4.5.8"
	assert_output_contains "needed libgcc_s.so.1: root $R/lib/aarch64-linux-gnu/libgcc_s.so.1"
}

@test "check: PTX only: Debian's cuSOLVER 12.4 serves Orin by JIT of its sm_86 PTX (ISA 8.4) on JetPack 6.2" {
	local s b l p j
	s=$(deb124 libcusolver11)
	b=$(deb124 libcublas12)
	l=$(deb124 libcublaslt12)
	p=$(deb124 libcusparse12)
	j=$(deb124 libnvjitlink12)
	run xcc check --jetpack 6.2 "$s" "$b" "$l" "$p" "$j"
	assert_status 1
	assert_output_contains "OK      $s:usr/lib/aarch64-linux-gnu/libcusolver.so.11.6.1.9: gpus 8.7 ptx sm_86;"
}

@test "check: PTX too new: the same cuSOLVER on JetPack 5.1, whose driver (CUDA 11.4, 12.2 with cuda-compat) cannot JIT ISA 8.4" {
	local s
	s=$(deb124 libcusolver11)
	run xcc check --jetpack 5.1 --gpu 8.7 "$s"
	assert_status 1
	assert_output_contains "gpus 8.7 ptx-too-new sm_86;"
	assert_output_contains "GPU 8.7 has only the PTX of sm_86 (ISA 8.4, CUDA 12.4), which JetPack 5.1's driver (CUDA 11.4) cannot JIT-compile, even with cuda-compat"
	assert_output_contains "built with CUDA 12.4 (package version 11.6.1.9~12.4.1-2), newer than JetPack 5.1's boards run (CUDA 11.4, up to 12.2)"
}

@test "check: compat needed: cuFFT 12.4 on JetPack 6.0 (CUDA 12.2) runs with cuda-compat-12-4, and --with-compat says the board has it" {
	local deb
	deb=$(deb124 libcufft11)
	run xcc check --jetpack 6.0 "$deb"
	assert_status 1
	assert_output_contains "COMPAT  $deb:"
	assert_output_contains "it runs with NVIDIA's cuda-compat-12-4 on the board (in /usr/local/cuda-12.4/compat)"
	assert_output_contains "0 ok, 1 need cuda-compat"
	run xcc check --jetpack 6.0 --with-compat "$deb"
	assert_status 0
}

@test "check: compat needed for PTX: Debian's cuSOLVER 11.8 on JetPack 5.1 JITs its ISA 7.8 only with cuda-compat-11-8" {
	local s b l p
	s=$(deb118 libcusolver11)
	b=$(deb118 libcublas11)
	l=$(deb118 libcublaslt11)
	p=$(deb118 libcusparse11)
	run xcc check --jetpack 5.1 --gpu 8.7 "$s" "$b" "$l" "$p"
	assert_status 1
	assert_output_contains "COMPAT  $s:usr/lib/aarch64-linux-gnu/libcusolver.so.11.4.1.48: gpus 8.7 ptx-compat sm_86;"
	assert_output_contains "GPU 8.7 runs only the PTX of sm_86 (ISA 7.8, CUDA 11.8), newer than the board's driver (CUDA 11.4): it JIT-compiles only with cuda-compat-11-8 on the board"
}

@test "check: floor too new: the cross-built program needs GLIBC_2.34 and GLIBCXX_3.4.29, newer than JetPack 5.1 and the Debian 11 root" {
	need_app
	need_root
	run xcc check --jetpack 5.1 --gpu 8.7 --cuda 11.4 "$P/app" "$P/libwidget.so.1"
	assert_status 1
	assert_output_contains "needs GLIBC_2.34 (libc.so.6), newer than JetPack 5.1 (Ubuntu 20.04) provides: it will not start there"
	assert_output_contains "needs GLIBCXX_3.4.29 (libstdc++.so.6), newer than JetPack 5.1 (Ubuntu 20.04) provides"
	run xcc check --gpu 8.7 --target-fs "$R" "$P/app" "$P/libwidget.so.1"
	assert_status 1
	assert_output_contains "needs GLIBC_2.34 (libc.so.6), newer than --target-fs $R provides"
	assert_output_contains "needs GLIBCXX_3.4.29 (libstdc++.so.6), newer than --target-fs $R provides"
}

@test "check: NEEDED missing: the program without its libwidget.so.1 on JetPack 7.2" {
	need_app
	run xcc check --jetpack 7.2 --gpu 8.7 --cuda 13.0 "$P/app"
	assert_status 1
	assert_output_contains "FAIL    $P/app: gpus 8.7 sass sm_87;"
	assert_output_contains "needs libwidget.so.1, which is in none of the files checked, the JetPack's libraries nor on the board: add the package that has it"
	run xcc check --jetpack 7.2 --gpu 8.7 --cuda 13.0 "$P/app" "$P/libwidget.so.1"
	assert_status 0
}

@test "check: a wheel assembled here, read in place: its program finds its library inside it" {
	need_app
	need zip
	local w=$BATS_TEST_TMPDIR/w
	mkdir -p "$w/widget/lib" "$w/widget-1.0.dist-info"
	cp "$P/app" "$P/libwidget.so.1" "$w/widget/lib/"
	printf 'Metadata-Version: 2.1\nName: widget\nVersion: 1.0\n' > "$w/widget-1.0.dist-info/METADATA"
	printf 'Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-manylinux_2_34_aarch64\n' \
		> "$w/widget-1.0.dist-info/WHEEL"
	(cd "$w" && zip -qr "$BATS_TEST_TMPDIR/widget-1.0-py3-none-manylinux_2_34_aarch64.whl" widget widget-1.0.dist-info)
	run xcc check --jetpack 7.2 --gpu 8.7 --cuda 13.0 --verbose "$BATS_TEST_TMPDIR/widget-1.0-py3-none-manylinux_2_34_aarch64.whl"
	assert_status 0
	assert_output_contains "OK      $BATS_TEST_TMPDIR/widget-1.0-py3-none-manylinux_2_34_aarch64.whl:widget/lib/app: gpus 8.7 sass sm_87;"
	assert_output_contains "needed libwidget.so.1: input $BATS_TEST_TMPDIR/widget-1.0-py3-none-manylinux_2_34_aarch64.whl:widget/lib/libwidget.so.1"
	# Nothing was unpacked beside it.
	run ls "$BATS_TEST_TMPDIR"
	assert_output_equals "$(printf 'w\nwidget-1.0-py3-none-manylinux_2_34_aarch64.whl')"
}

@test "check: a .deb assembled here: its package version names the CUDA it was built with, newer than JetPack 6.2 runs" {
	need_app
	need dpkg-deb
	local d=$BATS_TEST_TMPDIR/d
	mkdir -p "$d/DEBIAN" "$d/usr/lib/aarch64-linux-gnu" "$d/usr/bin"
	cp "$P/app" "$d/usr/bin/"
	cp "$P/libwidget.so.1" "$d/usr/lib/aarch64-linux-gnu/"
	printf 'Package: widget\nVersion: 1.0~13.0.0-1\nArchitecture: arm64\nMaintainer: t <t@example.org>\nDescription: test\n' \
		> "$d/DEBIAN/control"
	dpkg-deb --root-owner-group -b "$d" "$BATS_TEST_TMPDIR/widget.deb" > /dev/null
	run xcc check --jetpack 6.2 "$BATS_TEST_TMPDIR/widget.deb"
	assert_status 1
	assert_output_contains "built with CUDA 13.0 (package version 1.0~13.0.0-1), newer than JetPack 6.2's boards run (CUDA 12.6, up to 12.9): it will not run there"
	run xcc check --jetpack 7.2 --gpu 8.7 "$BATS_TEST_TMPDIR/widget.deb"
	assert_status 0
	assert_output_contains "total: 2 files: 2 ok"
}

@test "check: a directory of cuFFT 12.4's files: its newest PTX (ISA 7.8) is only a floor of its CUDA, --cuda says which" {
	need dpkg-deb
	local deb
	deb=$(deb124 libcufft11)
	dpkg-deb -x "$deb" "$BATS_TEST_TMPDIR/x"
	run xcc check --jetpack 6.2 "$BATS_TEST_TMPDIR/x"
	assert_status 1
	assert_output_contains "UNKNOWN $BATS_TEST_TMPDIR/x/usr/lib/aarch64-linux-gnu/libcufft.so.11.2.1.3: gpus 8.7 sass sm_87;"
	assert_output_contains "built with CUDA 11.8 or newer (its newest PTX ISA), not said which: JetPack 6.2's driver runs CUDA 12.6; give --cuda to compare"
	run xcc check --jetpack 6.2 --cuda 12.4 "$BATS_TEST_TMPDIR/x"
	assert_status 0
	run xcc check --jetpack 6.0 --cuda 12.4 "$BATS_TEST_TMPDIR/x"
	assert_status 1
	assert_output_contains "COMPAT  $BATS_TEST_TMPDIR/x/"
}

@test "check: a device root as input: Debian 11's arm64 C runtime all starts on JetPack 5.1" {
	need_root
	run xcc check --jetpack 5.1 "$R"
	assert_status 0
	assert_output_contains "OK      $R/lib/aarch64-linux-gnu/libc-2.31.so: no device code; needs GLIBC_2.17 (JetPack 5.1 (Ubuntu 20.04)); needed 1/1 found"
	assert_output_contains "0 need cuda-compat, 0 cannot be told, 0 will not run"
}

@test "check: cannot tell: a library found only in the JetPack's unverified list is not ok" {
	local s
	s=$(deb124 libcusolver11)
	run xcc check --jetpack 6.2 "$s"
	assert_status 1
	assert_output_contains "UNKNOWN $s:"
	assert_output_contains "needs libcublas.so.12, found only in the unverified list of JetPack 6.2's libraries (board.json): cannot tell whether the board has it"
}

@test "check: cannot tell: PTX without a board's driver; SASS sm_86 serves the desktop 8.6 and 8.9, not 9.0" {
	[ -x "$NVCC" ] || skip "no nvcc at $NVCC"
	run xcc check --gpu 8.6 "$P/ptx80"
	assert_status 1
	assert_output_contains "UNKNOWN $P/ptx80: gpus 8.6 ptx-unknown sm_80;"
	assert_output_contains "GPU 8.6 has only the PTX of sm_80 (ISA 9.0): it runs when the board's driver is CUDA 13.0 or newer; give --jetpack to compare"
	run xcc check --gpu 8.6,8.9 "$P/sass86"
	assert_status 0
	assert_output_contains "OK      $P/sass86: gpus 8.6 sass sm_86 8.9 sass sm_86;"
	run xcc check --gpu 9.0 "$P/sass86"
	assert_status 1
	assert_output_contains "GPU 9.0 is not served"
}

@test "check: an x86_64 program will not run on a Jetson" {
	[ -x "$NVCC" ] || skip "no nvcc at $NVCC"
	run xcc check --jetpack 7.0 "$P/sass86"
	assert_status 1
	assert_output_contains "is an x86_64 file, and the board runs aarch64 programs"
}

@test "check: --json: one object per file and the total" {
	need python3
	local deb
	deb=$(deb124 libcufft11)
	run xcc check --jetpack 6.0 --json "$deb"
	assert_status 1
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = d["files"][0]
assert f["status"] == "compat", f
assert f["gpus"] == [{"gpu": "8.7", "verdict": "sass", "by": "sm_87"}], f["gpus"]
assert f["cuda"] == {"how": "exact", "version": "12.4", "from": "package version 11.2.1.3~12.4.1-2", "status": "compat"}, f["cuda"]
assert f["floor_from"] == "JetPack 6.0 (Ubuntu 22.04)"
assert d["total"] == {"files": 1, "ok": 0, "compat": 1, "unknown": 0, "fail": 0}, d["total"]
'
}

@test "check: usage errors exit 2 and name the way out" {
	run xcc check /nonexistent
	assert_status 2
	assert_output_contains "name the board: --jetpack J"
	run xcc check --gpu 8.7 /nonexistent
	assert_status 2
	assert_output_contains "/nonexistent: No such file or directory"
	run xcc check --jetpack 6.2 --gpu 8.6 "$XCC_SRCDIR/README.md"
	assert_status 2
	assert_output_contains "--gpu 8.6 is no board of JetPack 6.2"
	run xcc check --gpu 8.7 "$XCC_SRCDIR/README.md"
	assert_status 2
	assert_output_contains "is not an ELF file, a directory, a .deb or a wheel"
	run xcc check --gpu 8.7
	assert_status 2
	run xcc check --gpu sm_99x "$XCC_SRCDIR/README.md"
	assert_status 2
}
