#!/usr/bin/env bats
# Driver mode: cuda-xcc [--sysroot DIR] [--cuda V] --target T [-arch LIST] [nvcc args...]
load lib/common

setup() {
	export XDG_DATA_HOME="$BATS_TEST_TMPDIR/data"
	unset CUDA_XCC_SYSROOT
}

# A sysroot-shaped directory whose bin/nvcc records its arguments and exits
# with $FAKE_NVCC_STATUS.
fake_sysroot() {
	local dir=$1 target=$2 cuda=$3 tag=$4 tdir=$5 hostcc=null
	[ -z "${6:-}" ] || hostcc="\"$6\""
	mkdir -p "$dir/bin"
	cat > "$dir/bin/nvcc" <<-'EOS'
	#!/bin/sh
	for a in "$@"; do printf '%s\n' "$a"; done > "$(dirname "$0")/../nvcc.args"
	exit "${FAKE_NVCC_STATUS:-0}"
	EOS
	chmod +x "$dir/bin/nvcc"
	cat > "$dir/sysroot.json" <<-EOS
	{"format": 1, "cuda": "$cuda", "target": "$target", "tag": "$tag",
	 "target_dir": "$tdir", "host_compiler": $hostcc,
	 "capabilities": [], "components": []}
	EOS
}

@test "driver: jetson 11.8 sm_87 dry run uses g++-11, aarch64-linux and one gencode" {
	need aarch64-linux-gnu-g++-11 "apt-get install g++-11-aarch64-linux-gnu"
	run xcc --target jetson --cuda 11.8 -arch sm_87 -### foo.cu
	assert_status 0
	assert_output_contains "-ccbin=$(command -v aarch64-linux-gnu-g++-11) "
	assert_output_contains "-target-dir=aarch64-linux "
	assert_output_contains "-gencode=arch=compute_87,code=sm_87 foo.cu"
	[[ "$output" != *compute_87,code=compute_87* ]]
	assert_output_contains "/cuda-xcc/sysroots/jetson-11.8/bin/nvcc "
}

@test "driver: the highest g++ the CUDA version accepts is chosen" {
	need aarch64-linux-gnu-g++-12 "apt-get install g++-12-aarch64-linux-gnu"
	run xcc --target sbsa --cuda 12.6 -arch sm_90 --dry-run x.cu
	assert_status 0
	assert_output_contains "-ccbin=$(command -v aarch64-linux-gnu-g++-12) "
	assert_output_contains "-target-dir=sbsa-linux "
	assert_output_contains "-arbin=aarch64-linux-gnu-ar "
}

@test "driver: nvcc arguments pass through unchanged and in order" {
	need aarch64-linux-gnu-g++-11
	run xcc --target jetson --cuda 11.8 -arch 87 --dry-run -O2 -Xcompiler -Wall -o 'my out' a.cu -lfoo --target x -DX='a b'
	assert_status 2   # the second --target belongs to cuda-xcc... and is refused: jetson vs x
	run xcc --target jetson --cuda 11.8 -arch 87 --dry-run -O2 -Xcompiler --target -o 'my out' a.cu -lfoo -DX='a b'
	assert_status 0
	assert_output_contains "-gencode=arch=compute_87,code=sm_87 -O2 -Xcompiler --target -o 'my out' a.cu -lfoo '-DX=a b'"
}

@test "driver: the user's -gencode is validated and kept instead of cuda-xcc's" {
	need aarch64-linux-gnu-g++-11
	run xcc --target jetson --cuda 11.8 --dry-run -gencode arch=compute_72,code=sm_72 a.cu
	assert_status 0
	assert_output_contains "-gencode arch=compute_72,code=sm_72 a.cu"
	[[ "$output" != *"-gencode=arch"* ]]
	run xcc --target sbsa --cuda 13.0 --dry-run -gencode=arch=compute_72,code=[sm_72,compute_72] a.cu
	assert_status 2
	assert_output_contains "removed in CUDA 13.0"
	run xcc --target sbsa --cuda 13.0 --dry-run -arch=compute_90a -code=compute_90a a.cu
	assert_status 2
	assert_output_contains "PTX asked for"
	run xcc --target jetson --cuda 12.6 --dry-run --generate-code arch=compute_86,code=sm_86 a.cu
	assert_status 2
	assert_output_contains "not a Jetson GPU"
}

@test "driver: a user -ccbin wins and is checked with -dumpmachine" {
	need aarch64-linux-gnu-g++-12
	run xcc --target sbsa --cuda 12.6 -arch 90 --dry-run -ccbin aarch64-linux-gnu-g++-12 a.cu
	assert_status 0
	assert_output_contains "-ccbin aarch64-linux-gnu-g++-12 a.cu"
	[[ "$output" != *"-ccbin="* ]]
	run xcc --target sbsa --cuda 12.6 -arch 90 --dry-run -ccbin gcc a.cu
	assert_status 2
	assert_output_contains "-ccbin gcc builds for 'x86_64-linux-gnu', not for --target sbsa"
	run xcc --target sbsa --cuda 12.6 -arch 90 --dry-run -ccbin /nonexistent/g++ a.cu
	assert_status 1
	assert_output_contains "cannot run /nonexistent/g++"
}

@test "driver: CUDA 11.0-11.6 have host compiler limits: 11.4 takes gcc up to 10" {
	need aarch64-linux-gnu-g++-12
	run xcc --target sbsa --cuda 11.4 -arch 80 --dry-run -ccbin aarch64-linux-gnu-g++-12 a.cu
	assert_status 2
	assert_output_contains "-ccbin aarch64-linux-gnu-g++-12 is gcc 12, but CUDA 11.4 accepts gcc 6 to 10."
	assert_output_contains "apt-get install g++-10-aarch64-linux-gnu"
	run xcc --target sbsa --cuda 11.0 -arch 75 --dry-run -ccbin aarch64-linux-gnu-g++-12 a.cu
	assert_status 2
	assert_output_contains "CUDA 11.0 accepts gcc 6 to 9."
	# CUDA 13.4's limits are unverified: a newer -ccbin is left to nvcc.
	run xcc --target sbsa --cuda 13.4 -arch 90 --dry-run -ccbin aarch64-linux-gnu-g++-12 a.cu
	assert_status 0
}

@test "driver: a user -ccbin is checked against the CUDA release's gcc limits too" {
	need aarch64-linux-gnu-g++-12
	run xcc --target sbsa --cuda 11.8 -arch 90 --dry-run -ccbin aarch64-linux-gnu-g++-12 a.cu
	assert_status 2
	assert_output_contains "-ccbin aarch64-linux-gnu-g++-12 is gcc 12, but CUDA 11.8 accepts gcc"
	assert_output_contains "to 11."
	assert_output_contains "apt-get install g++-11-aarch64-linux-gnu"
	assert_output_contains "-allow-unsupported-compiler"
	# the version comes from the compiler itself when its name has none
	bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin"
	ln -s "$(command -v aarch64-linux-gnu-g++-12)" "$bin/aarch64-linux-gnu-g++"
	run xcc --target sbsa --cuda 11.8 -arch 90 --dry-run -ccbin "$bin/aarch64-linux-gnu-g++" a.cu
	assert_status 2
	assert_output_contains "is gcc 12, but CUDA 11.8 accepts"
	# and from DIR/g++ when -ccbin names a directory
	ln -s "$(command -v aarch64-linux-gnu-g++-12)" "$bin/g++"
	run xcc --target sbsa --cuda 11.8 -arch 90 --dry-run -ccbin "$bin" a.cu
	assert_status 2
	assert_output_contains "-ccbin $bin is gcc 12"
	run xcc --target sbsa --cuda 11.8 -arch 90 --dry-run -allow-unsupported-compiler -ccbin aarch64-linux-gnu-g++-12 a.cu
	assert_status 0
	assert_output_contains "-ccbin aarch64-linux-gnu-g++-12 "
	run xcc --target sbsa --cuda 12.6 -arch 90 --dry-run -ccbin "$bin/aarch64-linux-gnu-g++" a.cu
	assert_status 0
}

@test "driver: no supported cross g++ names the package and -allow-unsupported-compiler" {
	need aarch64-linux-gnu-g++-12
	bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin"
	ln -s "$(command -v aarch64-linux-gnu-g++-12)" "$bin/aarch64-linux-gnu-g++-12"
	PATH="$bin" run "$CUDA_XCC" --target sbsa --cuda 11.8 -arch 90 --dry-run a.cu
	assert_status 2
	assert_output_contains "apt-get install g++-11-aarch64-linux-gnu"
	assert_output_contains "-allow-unsupported-compiler"
	assert_output_contains "found: aarch64-linux-gnu-g++-12 (gcc 12)"
	PATH="$bin" run "$CUDA_XCC" --target sbsa --cuda 11.8 -arch 90 --dry-run -allow-unsupported-compiler a.cu
	assert_status 0
	assert_output_contains "-ccbin=$bin/aarch64-linux-gnu-g++-12 "
}

@test "driver: execs the sysroot's nvcc and returns its exit status" {
	s="$BATS_TEST_TMPDIR/sr"
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	need aarch64-linux-gnu-g++-12
	FAKE_NVCC_STATUS=7 run xcc --sysroot "$s" -arch sm_90 -c a.cu
	assert_status 7
	run cat "$s/nvcc.args"
	assert_output_equals "$(printf '%s\n' "-ccbin=$(command -v aarch64-linux-gnu-g++-12)" -target-dir=sbsa-linux -arbin=aarch64-linux-gnu-ar -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 -c a.cu "-Xcompiler=-ffile-prefix-map=$s=/cuda-xcc/sysroot" -objtemp)"
}

@test "driver: the target_fs a sysroot was made for is used unless --target-fs names another" {
	need aarch64-linux-gnu-g++-12
	local s=$BATS_TEST_TMPDIR/sr fs=$BATS_TEST_TMPDIR/fs other=$BATS_TEST_TMPDIR/other
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	mkdir -p "$fs/usr/lib/aarch64-linux-gnu" "$other/lib/aarch64-linux-gnu"
	cp /usr/aarch64-linux-gnu/lib/libc.so.6 "$fs/usr/lib/aarch64-linux-gnu/"
	cp /usr/aarch64-linux-gnu/lib/libc.so.6 "$other/lib/aarch64-linux-gnu/"
	sed -i "s|\"host_compiler\"|\"target_fs\": \"$fs\", \"host_compiler\"|" "$s/sysroot.json"
	run xcc --sysroot "$s" -arch sm_90 -### a.cu -o a
	assert_status 0
	assert_output_contains "-Xcompiler=--sysroot=$fs "
	assert_output_contains "-Xlinker=-rpath-link=$fs/usr/lib/aarch64-linux-gnu "
	# the command line wins
	run xcc --sysroot "$s" -arch sm_90 --target-fs "$other" -### a.cu -o a
	assert_status 0
	assert_output_contains "-Xcompiler=--sysroot=$other "
	[[ "$output" != *"$fs"* ]]
	# a recorded rootfs that is gone is named, with the ways out
	rm -rf "$fs"
	run xcc --sysroot "$s" -arch sm_90 -### a.cu -o a
	assert_status 2
	assert_output_contains "$fs, which is no longer a directory"
	assert_output_contains "--target-fs"
}

@test "driver: sysroot lookup: --sysroot, then CUDA_XCC_SYSROOT, then the store" {
	need aarch64-linux-gnu-g++-12
	fake_sysroot "$BATS_TEST_TMPDIR/env" sbsa 12.6 linux-sbsa sbsa-linux
	fake_sysroot "$XDG_DATA_HOME/cuda-xcc/sysroots/sbsa-12.6" sbsa 12.6 linux-sbsa sbsa-linux
	CUDA_XCC_SYSROOT="$BATS_TEST_TMPDIR/env" run xcc -arch 90 --dry-run a.cu
	assert_status 0
	assert_output_contains "$BATS_TEST_TMPDIR/env/bin/nvcc "
	run xcc --target sbsa --cuda 12.6 -arch 90 --dry-run a.cu
	assert_output_contains "$XDG_DATA_HOME/cuda-xcc/sysroots/sbsa-12.6/bin/nvcc "
	run xcc --sysroot "$BATS_TEST_TMPDIR/nope" -arch 90 a.cu
	assert_status 2
	assert_output_contains "no sysroot at $BATS_TEST_TMPDIR/nope (no such directory)"
}

@test "driver: cuda-xcc-nvcc is the driver alone, without libcurl's and libarchive's libraries" {
	local nv
	nv=$(dirname "$CUDA_XCC")/cuda-xcc-nvcc
	[ -x "$nv" ] || skip "no cuda-xcc-nvcc beside $CUDA_XCC (the static build ships cuda-xcc alone)"
	need readelf
	need aarch64-linux-gnu-g++-12
	s="$BATS_TEST_TMPDIR/sr"
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	run xcc --sysroot "$s" -arch sm_90 --dry-run -c a.cu
	assert_status 0
	local planned=$output
	run "$nv" --sysroot "$s" -arch sm_90 --dry-run -c a.cu
	assert_status 0
	assert_output_equals "$planned"
	FAKE_NVCC_STATUS=7 run "$nv" --sysroot "$s" -arch sm_90 -c a.cu
	assert_status 7
	run readelf -d "$nv"
	assert_status 0
	[[ "$output" != *libcurl* ]]
	[[ "$output" != *libarchive* ]]
	run "$nv"
	assert_status 2
	assert_output_contains "cuda-xcc-nvcc takes nvcc's arguments"
}

@test "driver: a Jetson GPU asked of an SBSA sysroot: Debian's arm64 packages are SBSA builds, a Jetson sysroot comes from linux-aarch64" {
	s="$BATS_TEST_TMPDIR/sbsa"
	fake_sysroot "$s" sbsa 12.4.1 linux-sbsa sbsa-linux
	run xcc --sysroot "$s" -arch sm_87 --dry-run a.cu
	assert_status 2
	assert_output_contains "sysroot $s is an SBSA one (--target sbsa"
	assert_output_contains "Debian's arm64 CUDA packages are SBSA builds"
	assert_output_contains "NVIDIA's linux-aarch64 archives ('cuda-xcc sysroot create --target jetson --cuda 12.4.1 -arch sm_87 --dest DIR', without --from)"
	assert_output_contains "pass it as --sysroot DIR"
	# --target jetson would only meet "made for --target sbsa, not jetson": not offered
	[[ "$output" != *"Use --target jetson"* ]]
	# the same through the user's own -gencode
	run xcc --sysroot "$s" -gencode arch=compute_87,code=sm_87 --dry-run a.cu
	assert_status 2
	assert_output_contains "Debian's arm64 CUDA packages are SBSA builds"
	# without a sysroot --target is the user's to change: the flags' own advice stays
	run xcc --target sbsa --cuda 12.4 -arch sm_87 --dry-run a.cu
	assert_status 2
	assert_output_contains "Use --target jetson."
}

@test "driver: the sysroot decides target and CUDA, and refuses what it cannot serve" {
	need aarch64-linux-gnu-g++-12
	s="$BATS_TEST_TMPDIR/sr"
	fake_sysroot "$s" jetson 12.8.1 linux-aarch64 aarch64-linux
	run xcc --sysroot "$s" -arch sm_87 --dry-run a.cu
	assert_status 0
	assert_output_contains "-target-dir=aarch64-linux"
	run xcc --sysroot "$s" -arch sm_101 --dry-run a.cu
	assert_status 2
	assert_output_contains "holds linux-aarch64 libraries, but these GPUs need linux-sbsa"
	run xcc --sysroot "$s" --target sbsa -arch sm_90 --dry-run a.cu
	assert_status 2
	assert_output_contains "was made for --target jetson, not sbsa"
	run xcc --sysroot "$s" --cuda 12.6 -arch sm_87 --dry-run a.cu
	assert_status 2
	assert_output_contains "holds CUDA 12.8.1, not 12.6"
	run xcc --sysroot "$s" --cuda 1 -arch sm_87 --dry-run a.cu
	assert_status 2
	assert_output_contains "holds CUDA 12.8.1, not 1"
	run xcc --sysroot "$s" --cuda 12.8.0 -arch sm_87 --dry-run a.cu
	assert_status 2
	run xcc --sysroot "$s" --cuda 12.8 -arch sm_87 --dry-run a.cu
	assert_status 0
	run xcc --sysroot "$s" --cuda 12.8.1 -arch sm_87 --dry-run a.cu
	assert_status 0
	echo '{broken' > "$s/sysroot.json"
	run xcc --sysroot "$s" -arch sm_87 --dry-run a.cu
	assert_status 1
	assert_output_contains "is not valid JSON"
}

@test "driver: without a sysroot only --dry-run works" {
	need aarch64-linux-gnu-g++-12
	run xcc --target sbsa --cuda 12.6 -arch 90 a.cu
	assert_status 2
	assert_output_contains "Create it with 'cuda-xcc sysroot create --target sbsa --cuda 12.6 -arch sm_90'"
	run xcc --target sbsa -arch 90 a.cu
	assert_status 2
	assert_output_contains "no sysroot found for --target sbsa"
	run xcc -arch 90 a.cu
	assert_status 2
	assert_output_contains "no target: pass --target (one of jetson, sbsa, x86_64)"
}

@test "driver: the suggested create command works when pasted" {
	need aarch64-linux-gnu-g++-12
	run xcc --target jetson --cuda 12.6 -arch sm_87 a.cu
	assert_status 2
	assert_output_contains "'cuda-xcc sysroot create --target jetson --cuda 12.6 -arch sm_87'"
	cmd=$(echo "$output" | sed -n "s/.*Create it with '\\(cuda-xcc [^']*\\)'.*/\\1/p")
	[ -n "$cmd" ]
	# Pasted (with --dry-run: no network here), it plans instead of failing
	# on its arguments.
	run xcc ${cmd#cuda-xcc } --dry-run --mirror "$BATS_TEST_TMPDIR/none"
	[[ "$output" != *"the board decides"* ]]
	[[ "$output" != *"usage"* ]]
	run xcc --target jetson --cuda 12.6 -arch sm_87 --dry-run a.cu
	assert_status 0
	assert_output_contains "create it with 'cuda-xcc sysroot create --target jetson --cuda 12.6 -arch sm_87'"
}

@test "driver: validation errors exit 2 before anything runs" {
	run xcc --target jetson --cuda 13.0 -arch sm_87 --dry-run a.cu
	assert_status 2
	assert_output_contains "Use --cuda 12.9 or older, or --cuda 13.2 or newer"
	run xcc --target jetson --cuda 12.6 -arch native --dry-run a.cu
	assert_status 2
	assert_output_contains "-arch native"
	run xcc --target jetson --cuda 12.6 --dry-run a.cu
	assert_status 2
	assert_output_contains "the board decides"
	run xcc --target jetson --cuda 12.6 --ptx maybe a.cu
	assert_status 2
	run xcc --target jetson --cuda
	assert_status 2
	assert_output_contains "--cuda needs a value"
}

@test "driver: -dlto at a compile becomes code=lto_XX, which nvcc takes beside -gencode" {
	need aarch64-linux-gnu-g++-12
	# nvcc refuses -dlto beside -gencode where it compiles: the LTO-IR is asked in the
	# -gencode instead, and -rdc=true, which -dlto implies, is kept explicit.
	run xcc --target jetson --cuda 12.6 -dlto -arch sm_87 -rdc=true -c k.cu -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_87,code=lto_87 -rdc=true -c k.cu"
	[[ "$output" != *" -dlto"* ]]
	[[ "$output" != *"code=sm_87"* ]]
	run xcc --target jetson --cuda 12.6 -dlto -arch sm_87 -c k.cu -###
	assert_status 0
	assert_output_contains "-rdc=true -gencode=arch=compute_87,code=lto_87 -c k.cu"
	# PTX stays as the policy asks: x86_64's highest gets compute_90 beside the LTO-IR.
	run xcc --target x86_64 --cuda 13.0 --dlink-time-opt -arch sm_90 -dc k.cu -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_90,code=lto_90 -gencode=arch=compute_90,code=compute_90 -dc k.cu"
	[[ "$output" != *"-rdc=true"* ]]
	[[ "$output" != *"--dlink-time-opt"* ]]
}

@test "driver: -arch lto_XX asks for LTO-IR, in any case, and the device link makes SASS" {
	need aarch64-linux-gnu-g++-12
	for a in lto_87 LTO_87; do
		run xcc --target jetson --cuda 12.6 -arch "$a" -rdc=true -c k.cu -###
		assert_status 0
		assert_output_contains "-gencode=arch=compute_87,code=lto_87 -rdc=true"
		[[ "$output" != *"code=sm_87"* ]]
	done
	run xcc --target jetson --cuda 12.6 -arch lto_87,sm_87 -rdc=true -c k.cu -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_87,code=sm_87 -gencode=arch=compute_87,code=lto_87 -rdc=true"
	# The device link keeps -dlto and names the SASS it makes (nvlink refuses lto_87).
	run xcc --target jetson --cuda 12.6 -arch lto_87 -dlto -dlink k.o -o dl.o -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_87,code=sm_87 -dlto -dlink k.o -o dl.o"
	[[ "$output" != *"code=lto_87"* ]]
	run xcc --target jetson --cuda 12.6 -arch sm_87 -dlto k.o main.o -o prog -###
	assert_status 0
	assert_output_contains "-gencode=arch=compute_87,code=sm_87 -dlto k.o main.o -o prog"
	# Compile and link in one call: nvcc's own spelling, one GPU.
	run xcc --target jetson --cuda 12.6 -arch sm_87 -dlto k.cu -o prog -###
	assert_status 0
	assert_output_contains " -arch=sm_87 -dlto k.cu -o prog"
	[[ "$output" != *"-gencode"* ]]
}

@test "driver: LTO is validated like the rest" {
	need aarch64-linux-gnu-g++-12
	run xcc --target x86_64 --cuda 11.1 -arch lto_75 -rdc=true -c k.cu -###
	assert_status 2
	assert_output_contains "lto_75 (LTO-IR, for -dlto) needs CUDA 11.2 or newer"
	run xcc --target x86_64 --cuda 12.6 -arch lto_87 -rdc=true -c k.cu -###
	assert_status 2
	assert_output_contains "sm_87 is a Jetson GPU"
	run xcc --target x86_64 --cuda 12.6 -arch lto_99 -rdc=true -c k.cu -###
	assert_status 2
	assert_output_contains "'lto_99' is not a known GPU capability"
	run xcc --target x86_64 --cuda 13.0 -dlto -gencode arch=compute_90,code=sm_90 -c k.cu -###
	assert_status 2
	assert_output_contains "code=lto_87"
	run xcc --target x86_64 --cuda 13.0 -dlto -arch sm_80,sm_90 k.cu -o prog -###
	assert_status 2
	assert_output_contains "compile with -dc"
	# The user's own code=lto_XX is kept and checked.
	run xcc --target x86_64 --cuda 13.0 -gencode arch=compute_90,code=lto_90 -rdc=true -c k.cu -###
	assert_status 0
	assert_output_contains "-gencode arch=compute_90,code=lto_90 -rdc=true -c k.cu"
	run xcc --target x86_64 --cuda 13.0 -gencode arch=compute_87,code=lto_87 -rdc=true -c k.cu -###
	assert_status 2
}

# A sysroot for --target x86_64 made of this machine's CUDA 13.0 (/usr/local/cuda): bin/
# holds links (or copies) of its programs, for nvcc and nvlink find their tools and
# nvvm/lib64/libnvvm.so (which -dlto's device link loads) beside their own path.
real_cuda_sysroot() {
	local dir=$1 cuda=${XCC_SYSTEM_CUDA:-/usr/local/cuda} nvvm f
	need "$cuda/bin/nvcc" "NVIDIA's CUDA toolkit at $cuda"
	"$cuda/bin/nvcc" --version | grep -q "release 13.0" || skip "$cuda is not CUDA 13.0"
	need x86_64-linux-gnu-g++-12 "CUDA 13.0's x86_64 host compiler"
	nvvm=$(dirname "$(find -L "$cuda/nvvm" "$cuda/lib" "$cuda/lib64" -maxdepth 2 -name 'libnvvm.so*' 2>/dev/null | head -1)")
	[ "$nvvm" != . ] || skip "$cuda has no libnvvm.so, which the device link of -dlto loads"
	mkdir -p "$dir/bin" "$dir/nvvm"
	for f in "$cuda"/*; do
		case "${f##*/}" in bin|nvvm) ;; *) ln -s "$f" "$dir/" ;; esac
	done
	for f in "$cuda"/bin/*; do
		if [ -d "$f" ]; then ln -s "$f" "$dir/bin/"; else ln "$f" "$dir/bin/" 2>/dev/null || cp "$f" "$dir/bin/"; fi
	done
	ln -s "$cuda/nvvm/bin" "$cuda/nvvm/libdevice" "$dir/nvvm/"
	ln -s "$(readlink -f "$nvvm")" "$dir/nvvm/lib64"
	cat > "$dir/sysroot.json" <<-EOS
	{"format": 1, "cuda": "13.0", "target": "x86_64", "tag": "linux-x86_64",
	 "target_dir": "x86_64-linux", "host_compiler": "x86_64-linux-gnu-g++-12",
	 "capabilities": [], "components": []}
	EOS
}

@test "driver: with real nvcc 13.0 -dlto puts LTO-IR in the object and the device link makes the SASS" {
	local s=$BATS_TEST_TMPDIR/cuda13 d=$BATS_TEST_TMPDIR
	real_cuda_sysroot "$s"
	printf '__device__ int f(int x) { return x + 1; }\n__global__ void k(int *p) { *p = f(*p); }\n' > "$d/k.cu"
	run xcc --sysroot "$s" -dlto -arch sm_90 -rdc=true -c "$d/k.cu" -o "$d/k.o"
	assert_status 0
	run xcc fatbin "$d/k.o"
	assert_status 0
	assert_output_contains "lto-ir sm_90"
	[[ "$output" != *"sass   sm_90"* ]]
	run xcc --sysroot "$s" -arch lto_90 -c "$d/k.cu" -o "$d/k2.o" -rdc=true
	assert_status 0
	run xcc fatbin "$d/k2.o"
	assert_output_contains "lto-ir sm_90"
	run xcc --sysroot "$s" -dlto -arch sm_90 -dlink "$d/k.o" -o "$d/dl.o"
	assert_status 0
	run xcc fatbin "$d/dl.o"
	assert_status 0
	assert_output_contains "sass   sm_90"
	[[ "$output" != *"lto-ir"* ]]
}

@test "check-link: with no floor known it says so, and fails under --strict" {
	need aarch64-linux-gnu-gcc "links the program"
	local d=$BATS_TEST_TMPDIR
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	aarch64-linux-gnu-gcc -o "$d/new" "$d/m.c"
	run xcc check-link --target jetson --strict "$d/new"
	assert_status 1
	assert_output_contains "error: no runtime floor is known for --target jetson, so nothing was checked"
	assert_output_contains "--jetpack J"
	[ -e "$d/new" ]   # a file named to check is the user's: only reported on
	run xcc check-link --target jetson "$d/new"
	assert_status 0
	assert_output_contains "warning: no runtime floor is known for --target jetson"
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/new"
	assert_status 0
	assert_output_equals ""
}

@test "check-link: a link that fails the --strict check leaves no output" {
	need aarch64-linux-gnu-gcc "links the program"
	local d=$BATS_TEST_TMPDIR
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	# Debian 12's cross glibc gives GLIBC_2.34, above JetPack 5.1's 2.31.
	run xcc check-link --target jetson --jetpack 5.1 --strict -- aarch64-linux-gnu-gcc -o "$d/l" "$d/m.c"
	assert_status 1
	assert_output_contains "newer than JetPack 5.1"
	assert_output_contains "removed $d/l"
	[ ! -e "$d/l" ]
	run xcc check-link --target jetson --strict -- aarch64-linux-gnu-gcc -o "$d/l2" "$d/m.c"
	assert_status 1
	[ ! -e "$d/l2" ]
	# Without --strict the same link stays, with its warning.
	run xcc check-link --target jetson --jetpack 5.1 -- aarch64-linux-gnu-gcc -o "$d/l3" "$d/m.c"
	assert_status 0
	[ -x "$d/l3" ]
}

@test "check-link: --compiler=CC runs CC with the arguments after it and checks its link, as '-- CC' does" {
	need aarch64-linux-gnu-gcc "links the program"
	local d=$BATS_TEST_TMPDIR
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	run xcc check-link --target jetson --jetpack 5.1 --strict --compiler=aarch64-linux-gnu-gcc -o "$d/l" "$d/m.c"
	assert_status 1
	assert_output_contains "newer than JetPack 5.1"
	[ ! -e "$d/l" ]
	# A compile is only run; check-link's own options end at --compiler=.
	run xcc check-link --target jetson --jetpack 5.1 --strict --compiler=aarch64-linux-gnu-gcc -c -o "$d/m.o" "$d/m.c"
	assert_status 0
	[ -f "$d/m.o" ]
	run xcc check-link --target jetson --compiler= -c "$d/m.c"
	assert_status 2
	assert_output_contains "--compiler=CC"
}

@test "driver: a link that fails the --strict floor check leaves no output" {
	need aarch64-linux-gnu-gcc "links the program"
	need aarch64-linux-gnu-g++-12
	local d=$BATS_TEST_TMPDIR
	fake_sysroot "$d/sr" jetson 12.2 linux-aarch64 aarch64-linux aarch64-linux-gnu-g++-12
	# This nvcc links a plain C program to its -o, with the cross glibc's GLIBC_2.34.
	cat > "$d/sr/bin/nvcc" <<-'EOS'
	#!/bin/sh
	out=a.out
	while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
	printf 'int main(void) { return 0; }\n' > "$out.c"
	exec aarch64-linux-gnu-gcc -o "$out" "$out.c"
	EOS
	run xcc --sysroot "$d/sr" --jetpack 5.1 --strict -arch sm_87 a.cu -o "$d/app"
	assert_status 1
	assert_output_contains "newer than JetPack 5.1"
	[ ! -e "$d/app" ]
	run xcc --sysroot "$d/sr" --jetpack 5.1 -arch sm_87 a.cu -o "$d/app"
	assert_status 0
	[ -x "$d/app" ]
}

# Each concrete command a message suggests (quoted 'cuda-xcc ...', or doctor's "fix: cuda-xcc
# ..."), one a line; placeholders (V, T, sm_XX, DIR) are no concrete command, and doctor's
# ok lines suggest nothing.
suggested_commands() {
	{
		grep -v '^ok ' <<<"$1" | grep -o "'cuda-xcc [^']*'" | tr -d "'"
		sed -n 's/.*fix: \(cuda-xcc [^;(]*\).*/\1/p' <<<"$1"
	} | sed 's/ *$//' | grep -v -E ' (V|T|sm_XX|DIR)( |$)' || true
}

@test "driver, doctor: every command a message suggests works when pasted" {
	need aarch64-linux-gnu-g++-12
	local all="" cmds n=0
	run xcc --target jetson -arch sm_87 a.cu
	assert_status 2
	all+=$output$'\n'
	run xcc --target x86_64 a.cu
	assert_status 2
	all+=$output$'\n'
	run xcc --target jetson --cuda 12.6 -arch sm_87 a.cu
	assert_status 2
	all+=$output$'\n'
	run xcc --target jetson --cuda 12.6 -arch sm_87 --dry-run a.cu
	all+=$output$'\n'
	for t in jetson sbsa x86_64; do
		run xcc doctor --target "$t" --cuda 12.6
		all+=$output$'\n'
	done
	run xcc doctor --target jetson --cuda 13.0
	all+=$output$'\n'
	cmds=$(suggested_commands "$all")
	echo "$cmds"
	while read -r c; do
		[ -n "$c" ] || continue
		n=$((n + 1))
		# shellcheck disable=SC2086 # the command is pasted as a shell would split it
		case "$c" in
		"cuda-xcc sysroot create "*) run xcc ${c#cuda-xcc } --dry-run --mirror "$BATS_TEST_TMPDIR/none" ;;
		*) run xcc ${c#cuda-xcc } ;;
		esac
		echo "$c: $status $output"
		[ "$status" -ne 2 ]
	done <<<"$cmds"
	# The sysroot create of jetson without -arch was one of them, and the driver's own.
	[ "$n" -ge 6 ]
}

# Another CUDA toolkit, shaped as /usr/local/cuda is: its headers, its nvcc
# beside targets/, its stubs.
foreign_cuda() {
	mkdir -p "$1/bin" "$1/targets/x86_64-linux/include" "$1/targets/x86_64-linux/lib/stubs"
	printf '#!/bin/sh\nexit 0\n' > "$1/bin/nvcc"
	chmod +x "$1/bin/nvcc"
	: > "$1/targets/x86_64-linux/include/cuda_runtime_api.h"
	ln -s targets/x86_64-linux/include "$1/include"
	ln -s targets/x86_64-linux/lib "$1/lib64"
}

@test "driver: another CUDA's entries in LIBRARY_PATH and CPATH are left out of nvcc's environment" {
	need aarch64-linux-gnu-g++-12
	local s=$BATS_TEST_TMPDIR/sr f=$BATS_TEST_TMPDIR/native keep=$BATS_TEST_TMPDIR/mylibs
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	# the fake nvcc records what it was given to search
	printf '#!/bin/sh\nprintf "%%s|%%s\\n" "${LIBRARY_PATH-unset}" "${CPATH-unset}" > "$(dirname "$0")/../nvcc.env"\n' > "$s/bin/nvcc"
	foreign_cuda "$f"
	mkdir -p "$keep" "$s/targets/sbsa-linux/lib"
	LIBRARY_PATH="$f/lib64/stubs:$keep:$s/targets/sbsa-linux/lib" CPATH="$f/include" CUDA_HOME="$f" \
		run xcc --sysroot "$s" -arch sm_90 -c a.cu
	assert_status 0
	run cat "$s/nvcc.env"
	assert_output_equals "$keep:$s/targets/sbsa-linux/lib|unset"
}

@test "driver: check-link runs the link without another CUDA's LIBRARY_PATH entries" {
	need aarch64-linux-gnu-g++-12
	local s=$BATS_TEST_TMPDIR/sr f=$BATS_TEST_TMPDIR/native
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	foreign_cuda "$f"
	LIBRARY_PATH="$f/lib64/stubs" run xcc check-link --sysroot "$s" -- sh -c 'echo "[${LIBRARY_PATH-unset}]"'
	assert_status 0
	assert_output_equals "[unset]"
}

@test "driver: the sysroot is mapped for nvcc's host compiler; one source to an object gets -objtemp and, under a map, its mapped path for cudafe++" {
	need aarch64-linux-gnu-g++-12
	local s=$BATS_TEST_TMPDIR/ws/sr
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	mkdir -p "$BATS_TEST_TMPDIR/ws/src"
	cd "$BATS_TEST_TMPDIR/ws/src"
	run xcc --sysroot "$s" -arch sm_90 --dry-run -c k/a.cu -o a.o "-Xcompiler=-ffile-prefix-map=$BATS_TEST_TMPDIR/ws=/ws"
	assert_status 0
	assert_output_contains " -Xcompiler=-ffile-prefix-map=$s=/cuda-xcc/sysroot -objtemp -Xcudafe=--orig_src_path_name=/ws/src/k/a.cu"
	# two sources: nvcc names their intermediate files itself, each its own module id
	run xcc --sysroot "$s" -arch sm_90 --dry-run -c a.cu b.cu
	assert_status 0
	assert_output_contains " -Xcompiler=-ffile-prefix-map=$s=/cuda-xcc/sysroot"
	[[ "$output" != *-objtemp* ]]
	# no map covers the source: its path stays nvcc's
	run xcc --sysroot "$s" -arch sm_90 --dry-run -c a.cu -keep
	assert_status 0
	[[ "$output" != *orig_src_path_name* ]]
	[[ "$output" != *-objtemp* ]]
}

@test "driver: a sysroot path with a comma is left unmapped, with a warning that names the way out" {
	need aarch64-linux-gnu-g++-12
	local s=$BATS_TEST_TMPDIR/a,b/sr
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	run xcc --sysroot "$s" -arch sm_90 --dry-run -c a.cu
	assert_status 0
	assert_output_contains "holds a comma, an '=', a space or a quote, which nvcc's -Xcompiler cannot carry"
	assert_output_contains "move the sysroot to a path without one"
	[[ "$output" != *-ffile-prefix-map* ]]
}

# The static binary is one program (no loader to pay): the split is a dynamic build's.
skip_static() {
	readelf -d "$CUDA_XCC" | grep -q NEEDED || skip "$CUDA_XCC is a static binary, one program"
}

@test "driver: cuda-xcc runs driver mode without libcurl and libarchive, and hands every command to cuda-xcc-full" {
	local full
	full=$(dirname "$CUDA_XCC")/cuda-xcc-full
	need readelf
	skip_static
	need strace "shows which program ran"
	# (LeakSanitizer cannot run under ptrace: the sanitizer pass's binaries leave it out there)
	need aarch64-linux-gnu-g++-12
	s="$BATS_TEST_TMPDIR/sr"
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	run readelf -d "$CUDA_XCC"
	assert_status 0
	[[ "$output" != *libcurl* ]]
	[[ "$output" != *libarchive* ]]
	# driver mode: one program, no second exec
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 run strace -f -s 1000 -e trace=execve -o "$BATS_TEST_TMPDIR/trace" "$CUDA_XCC" --sysroot "$s" -arch sm_90 --dry-run -c a.cu
	assert_status 0
	run grep -c cuda-xcc-full "$BATS_TEST_TMPDIR/trace"
	assert_output_equals 0
	# a command: cuda-xcc-full, with the same arguments
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 run strace -f -s 1000 -e trace=execve -o "$BATS_TEST_TMPDIR/trace" "$CUDA_XCC" gpus --target sbsa --cuda 12.6
	assert_status 0
	grep -qF "execve(\"$full\", [\"$CUDA_XCC\", \"gpus\", \"--target\", \"sbsa\", \"--cuda\", \"12.6\"]" "$BATS_TEST_TMPDIR/trace"
}


@test "driver: a command run beside a file or directory of its name is still the command" {
	need aarch64-linux-gnu-g++-12
	s="$BATS_TEST_TMPDIR/sr"
	fake_sysroot "$s" sbsa 12.6.3 linux-sbsa sbsa-linux aarch64-linux-gnu-g++-12
	d=$(scratch)
	mkdir "$d/sysroot"
	touch "$d/gpus"
	cd "$d"
	run "$CUDA_XCC" sysroot info "$s" --json
	assert_status 0
	assert_output_contains '"target":'
	run "$CUDA_XCC" gpus --target sbsa --cuda 12.6
	assert_status 0
	assert_output_contains "9.0"
}
@test "driver: cuda-xcc without its cuda-xcc-full says where it looked and the way out" {
	need readelf
	skip_static
	need strings
	local installed
	installed=$(strings "$CUDA_XCC" | grep '^/.*/cuda-xcc-full$' || true)
	if [ -n "$installed" ] && [ -x "$installed" ]; then
		skip "cuda-xcc-full is installed in $installed"
	fi
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cp "$CUDA_XCC" "$BATS_TEST_TMPDIR/bin/cuda-xcc"
	run "$BATS_TEST_TMPDIR/bin/cuda-xcc" gpus
	assert_status 1
	assert_output_contains "/cuda-xcc-full"
	assert_output_contains "which runs every command but driver mode: reinstall cuda-xcc"
}

@test "driver: README's quick tour shows the nvcc command the driver prints" {
	need aarch64-linux-gnu-g++-11 "the command names it"
	local d=$BATS_TEST_TMPDIR shown
	# the two lines after the tour's -### command, joined as the shell would
	shown=$(grep -A2 -F '$ cuda-xcc --target jetson --cuda 11.8 -arch sm_87 -### foo.cu' \
		"$XCC_SRCDIR/README.md" | sed -n '2,3p' | sed 's/ *\\$//' | tr -s ' \n' '  ')
	shown=${shown% }
	[ -n "$shown" ]
	XDG_DATA_HOME=$d run xcc --target jetson --cuda 11.8 -arch sm_87 -### foo.cu
	assert_status 0
	# the command line alone (stdout and the note on stderr come in either order)
	[ "$(grep -v '^cuda-xcc: ' <<<"$output")" = "${shown/.../$d/cuda-xcc}" ] ||
		{ echo "README: ${shown/.../$d/cuda-xcc}" >&2; echo "driver: $output" >&2; false; }
}
