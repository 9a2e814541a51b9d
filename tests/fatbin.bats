#!/usr/bin/env bats
# cuda-xcc fatbin on objects, archives, libraries and executables that the
# real nvcc 13.0 builds here, on the CUDA 13 libraries, and on broken input.
load lib/common

NVCC=/usr/local/cuda/bin/nvcc
CUDA_LIB=/usr/local/cuda/targets/x86_64-linux/lib

setup_file() {
	export FX="$BATS_FILE_TMPDIR/fx"
	mkdir -p "$FX"
	[ -x "$NVCC" ] || return 0
	cat >"$FX/k.cu" <<-'EOF'
	__global__ void add(float *a, const float *b, int n)
	{
		int i = blockIdx.x * blockDim.x + threadIdx.x;
		if (i < n)
			a[i] += b[i];
	}
	EOF
	cat >"$FX/main.cu" <<-'EOF'
	__global__ void add(float *a, const float *b, int n);
	int main() { add<<<1, 1>>>(0, 0, 0); return 0; }
	EOF
	cd "$FX"
	# Each fixture once, two compiles at a time (nvcc takes 1-2 s each).
	{
		"$NVCC" -c -Xcompiler -fPIC -gencode arch=compute_75,code=sm_75 \
			-gencode arch=compute_86,code=[sm_86,compute_86] -o plain.o k.cu
		"$NVCC" -c -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_100f,code=sm_100f \
			-gencode arch=compute_110f,code=sm_110f -gencode arch=compute_120a,code=sm_120a \
			-o variants.o k.cu
		"$NVCC" -c -Xfatbin=-compress-all -gencode arch=compute_80,code=[sm_80,compute_80] \
			-o zstd.o k.cu
	} >"$FX/log1" 2>&1 &
	{
		"$NVCC" -c --compress-mode=none -gencode arch=compute_80,code=compute_80 \
			-gencode arch=compute_90a,code=compute_90a -gencode arch=compute_100f,code=compute_100f \
			-o ptxonly.o k.cu
		"$NVCC" -c --compress-mode=speed -Xfatbin=-compress-all \
			-gencode arch=compute_80,code=[sm_80,compute_80] -o lz4.o k.cu
		"$NVCC" -rdc=true -gencode arch=compute_80,code=sm_80 \
			-gencode arch=compute_90,code=[sm_90,compute_90] -o app k.cu main.cu
		"$NVCC" -c -rdc=true -gencode arch=compute_80,code=sm_80 \
			-gencode arch=compute_90a,code=sm_90a -o rdc.o k.cu
	} >"$FX/log2" 2>&1 &
	wait
	gcc -shared -o libplain.so plain.o
	ar rcs libk.a plain.o rdc.o
}

# The exact sets below belong to these releases (pip wheels under
# /usr/local/cuda/dist-info); another release may ship other SMs.
need_release() {
	[ -d "/usr/local/cuda/dist-info/$1.dist-info" ] ||
		skip "the expected sets are those of $1, which is not the installed release"
}

need_nvcc() {
	[ -x "$NVCC" ] || skip "$NVCC is missing (the fixtures are built by the real nvcc 13.0)"
	[ -f "$FX/rdc.o" ] || { cat "$FX/log1" "$FX/log2" >&2; return 1; }
}

# The SMs listed for one kind in --summary output.
@test "fatbin: plain SASS and PTX, PTX compressed with ZSTD by default" {
	need_nvcc
	run xcc fatbin --summary "$FX/plain.o"
	assert_status 0
	assert_output_equals "$FX/plain.o: sass sm_75 sm_86 ptx sm_86"
	run xcc fatbin "$FX/plain.o"
	assert_status 0
	[[ "${lines[2]}" =~ ^\ +sass\ +sm_75\ +none\ .*\ -\ +\.nv_fatbin$ ]]
	[[ "${lines[4]}" =~ ^\ +ptx\ +sm_86\ +zstd\ .*\ 9\.0\ +\.nv_fatbin$ ]]
}

@test "fatbin: a and f variants are read from the entry flags" {
	need_nvcc
	run xcc fatbin --summary "$FX/variants.o"
	assert_status 0
	assert_output_equals "$FX/variants.o: sass sm_90a sm_100f sm_110f sm_120a ptx -"
	run xcc fatbin --json "$FX/variants.o"
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
got = [(e["kind"], e["sm"], e["variant"], e["section"]) for e in d["entries"]]
assert got == [("sass", 90, "a", ".nv_fatbin"), ("sass", 100, "f", ".nv_fatbin"),
               ("sass", 110, "f", ".nv_fatbin"), ("sass", 120, "a", ".nv_fatbin")], got
assert d["sass"] == ["sm_90a", "sm_100f", "sm_110f", "sm_120a"] and d["ptx"] == []
'
}

@test "fatbin: PTX-only objects, and the PTX text agrees on the variant" {
	need_nvcc
	run xcc fatbin --summary "$FX/ptxonly.o"
	assert_status 0
	assert_output_equals "$FX/ptxonly.o: sass - ptx sm_80 sm_90a sm_100f"
	# --compress-mode=none leaves the PTX readable: the header's variant is
	# what the text says.
	grep -a -q '^\.target sm_90a' "$FX/ptxonly.o"
	grep -a -q '^\.target sm_100f' "$FX/ptxonly.o"
	run xcc fatbin "$FX/ptxonly.o"
	assert_output_contains "none"
	[[ "$output" != *zstd* ]]
}

@test "fatbin: compression is reported as ZSTD or LZ4 without decompressing" {
	need_nvcc
	run xcc fatbin --json "$FX/zstd.o" "$FX/lz4.o"
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
z, l = json.load(sys.stdin)
assert [(e["kind"], e["compression"]) for e in z["entries"]] == [("sass", "zstd"), ("ptx", "zstd")], z
assert [(e["kind"], e["compression"]) for e in l["entries"]] == [("sass", "lz4"), ("ptx", "lz4")], l
for e in z["entries"] + l["entries"]:
    assert e["uncompressed_size"] > e["size"], e
assert z["entries"][1]["ptx_version"] == "9.0"
'
}

@test "fatbin: -rdc=true objects keep their code in __nv_relfatbin" {
	need_nvcc
	run xcc fatbin --json "$FX/rdc.o"
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
assert {e["section"] for e in d["entries"]} == {"__nv_relfatbin"}, d
assert d["sass"] == ["sm_80", "sm_90a"], d
'
	run readelf -SW "$FX/rdc.o"
	[[ "$output" == *__nv_relfatbin* && "$output" != *.nv_fatbin* ]]
}

@test "fatbin: an -rdc executable has linked code in .nv_fatbin and objects' in __nv_relfatbin" {
	need_nvcc
	run xcc fatbin --json "$FX/app"
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
main = sorted(e["arch"] for e in d["entries"] if e["section"] == ".nv_fatbin")
rel = sorted((e["kind"], e["arch"]) for e in d["entries"] if e["section"] == "__nv_relfatbin")
assert main == ["sm_80", "sm_90"], main
assert ("ptx", "sm_90") in rel and ("sass", "sm_80") in rel, rel
assert d["sass"] == ["sm_80", "sm_90"] and d["ptx"] == ["sm_90"], d
'
}

@test "fatbin: shared libraries and every member of a static archive" {
	need_nvcc
	run xcc fatbin --summary "$FX/libplain.so" "$FX/libk.a"
	assert_status 0
	assert_output_equals "$FX/libplain.so: sass sm_75 sm_86 ptx sm_86
$FX/libk.a: sass sm_75 sm_80 sm_86 sm_90a ptx sm_86"
	run xcc fatbin "$FX/libk.a"
	assert_status 0
	assert_output_contains "MEMBER"
	assert_output_contains ".nv_fatbin     plain.o"
	assert_output_contains "__nv_relfatbin rdc.o"
}

@test "fatbin --gpu: on Tegra only SASS of exactly that capability serves" {
	need_nvcc
	# rdc.o: SASS sm_80 and sm_90a, no PTX. The desktop rule lets sm_80
	# run on 8.6; NVIDIA's binary compatibility is not supported on Tegra.
	run xcc fatbin --gpu 8.0,8.6,8.7,8.8 "$FX/rdc.o"
	assert_status 1
	assert_output_equals "$FX/rdc.o: 8.0 OK sm_80
$FX/rdc.o: 8.6 OK sm_80
$FX/rdc.o: 8.7 NOT SERVED
$FX/rdc.o: 8.8 NOT SERVED"
	"$NVCC" -c -gencode arch=compute_87,code=sm_87 -o "$BATS_TEST_TMPDIR/k87.o" "$FX/k.cu"
	run xcc fatbin --gpu 8.7,8.9 "$BATS_TEST_TMPDIR/k87.o"
	assert_status 1
	assert_output_equals "$BATS_TEST_TMPDIR/k87.o: 8.7 OK sm_87
$BATS_TEST_TMPDIR/k87.o: 8.9 NOT SERVED"
}

@test "fatbin --gpu: the serving check on nvcc's output" {
	need_nvcc
	run xcc fatbin --gpu 7.5,8.0,8.6 --gpu 8.7,8.9,9.0,12.0 "$FX/plain.o"
	assert_status 1
	assert_output_equals "$FX/plain.o: 7.5 OK sm_75
$FX/plain.o: 8.0 NOT SERVED
$FX/plain.o: 8.6 OK sm_86
$FX/plain.o: 8.7 PTX-JIT sm_86
$FX/plain.o: 8.9 OK sm_86
$FX/plain.o: 9.0 PTX-JIT sm_86
$FX/plain.o: 12.0 PTX-JIT sm_86"
	run xcc fatbin --gpu sm_90,100,10.3,11.0,12.0,12.1 "$FX/variants.o"
	assert_status 1
	assert_output_equals "$FX/variants.o: 9.0 OK sm_90a
$FX/variants.o: 10.0 OK sm_100f
$FX/variants.o: 10.3 OK sm_100f
$FX/variants.o: 11.0 OK sm_110f
$FX/variants.o: 12.0 OK sm_120a
$FX/variants.o: 12.1 NOT SERVED"
	run xcc fatbin --gpu 8.6,8.7 "$FX/plain.o" "$FX/libk.a"
	assert_status 0
	run xcc fatbin --json --gpu 9.0,12.1 "$FX/ptxonly.o"
	assert_status 0
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]["serving"]
assert d == {"9.0": {"verdict": "PTX-JIT", "by": "sm_90a"},
             "12.1": {"verdict": "PTX-JIT", "by": "sm_80"}}, d
'
	echo 'int f(void) { return 1; }' >"$BATS_TEST_TMPDIR/host.c"
	gcc -c -o "$BATS_TEST_TMPDIR/host.o" "$BATS_TEST_TMPDIR/host.c"
	run xcc fatbin --gpu 8.7 "$BATS_TEST_TMPDIR/host.o"
	assert_status 0
	assert_output_equals "$BATS_TEST_TMPDIR/host.o: no device code"
	run xcc fatbin --gpu 8.8x "$FX/plain.o"
	assert_status 2
	assert_output_contains "'8.8x' is not a GPU capability"
}

@test "fatbin: a bare fatbin from nvcc -fatbin" {
	need_nvcc
	cd "$BATS_TEST_TMPDIR"
	"$NVCC" -fatbin -gencode arch=compute_87,code=sm_87 -o k.fatbin "$FX/k.cu"
	run xcc fatbin --summary k.fatbin
	assert_status 0
	assert_output_equals "k.fatbin: sass sm_87 ptx -"
}

@test "fatbin: the CUDA 13 libraries" {
	[ -f "$CUDA_LIB/libcublas.so.13" ] || skip "no CUDA 13 libraries under $CUDA_LIB"
	need_release nvidia_cublas-13.1.0.3
	need_release nvidia_cuda_runtime-13.0.96
	run xcc fatbin --summary "$CUDA_LIB/libcublas.so.13" "$CUDA_LIB/libcudart.so.13"
	assert_status 0
	assert_output_equals "$CUDA_LIB/libcublas.so.13: sass sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 ptx sm_120
$CUDA_LIB/libcudart.so.13: sass - ptx -"
	run xcc fatbin --summary "$CUDA_LIB/libcudadevrt.a"
	assert_status 0
	assert_output_equals "$CUDA_LIB/libcudadevrt.a: sass sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_103 sm_110 sm_120 sm_121 ptx sm_121"
}

@test "fatbin: kernels kept in data sections (cuFFT's .ldata) are found, or skipped on request" {
	[ -f "$CUDA_LIB/libcufft.so.12" ] || skip "no libcufft.so.12 under $CUDA_LIB"
	need_release nvidia_cufft-12.0.0.61
	run xcc fatbin --summary --fatbin-sections-only "$CUDA_LIB/libcufft.so.12"
	assert_status 0
	assert_output_equals "$CUDA_LIB/libcufft.so.12: sass sm_75 ptx -"
	run xcc fatbin --summary "$CUDA_LIB/libcufft.so.12"
	assert_status 0
	assert_output_equals "$CUDA_LIB/libcufft.so.12: sass sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_110 sm_120 ptx sm_75 sm_80 sm_86 sm_90 lto-ir sm_75"
}

# cuobjdump's SASS and PTX sets of each FILE against --summary --fatbin-sections-only
# (cuobjdump reads only those sections).
same_sets_as_cuobjdump() {
	local c=$1 f elf ptx
	shift
	for f in "$@"; do
		elf=$("$c" --list-elf "$f" 2>/dev/null | grep '^ELF file' |
			grep -o 'sm_[0-9]*[af]\?\.cubin$' | sed 's/\.cubin$//' | sort -u -V | tr '\n' ' ' || true)
		ptx=$("$c" --list-ptx "$f" 2>/dev/null | grep '^PTX file' |
			grep -o 'sm_[0-9]*[af]\?\.ptx$' | sed 's/\.ptx$//' | sort -u -V | tr '\n' ' ' || true)
		run xcc fatbin --summary --fatbin-sections-only "$f"
		assert_status 0
		ptx=${ptx% }
		assert_output_equals "$f: sass ${elf:-- }ptx ${ptx:--}"
	done
}

@test "fatbin: the same sets as cuobjdump --list-elf/--list-ptx where it can read the file" {
	local c v compared=0 cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs} tk dev d
	# CUDA 13's cuobjdump, where installed, reads nvcc 13's fixtures. Older ones
	# print nonsense such as sm_4 for them: they take the SM from the cubin's
	# e_flags, which ELF ABI version 8 laid out anew.
	c=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
	if [ -x "$c" ] && [ -x "$NVCC" ]; then
		v=$("$c" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
		if [ "${v:-0}" -ge 13 ]; then
			need_nvcc
			same_sets_as_cuobjdump "$c" "$FX"/{plain.o,variants.o,ptxonly.o,rdc.o,app,libplain.so,libk.a}
			compared=1
		fi
	fi
	# Debian's cuobjdump 11.8 reads CUDA 11.8's arm64 libraries: libcudadevrt and NPP's
	# libnppitc ship different SASS sets (sm_37, sm_52), libcudart_static has no device code.
	tk=$(ls "$cache"/nvidia-cuda-toolkit_11.8.*_amd64.deb 2>/dev/null | head -n1 || true)
	dev=$(ls "$cache"/nvidia-cuda-dev_11.8.*_arm64.deb 2>/dev/null | head -n1 || true)
	if [ -z "$tk" ] || [ -z "$dev" ]; then
		[ "$compared" = 1 ] && return 0
		skip "no cuobjdump 13, and Debian's CUDA 11.8 .debs are not in $cache (run scripts/fetch-debian-cuda.sh)"
	fi
	d=$BATS_TEST_TMPDIR/deb
	mkdir -p "$d"
	dpkg-deb --fsys-tarfile "$tk" | tar -x -C "$d" ./usr/bin/cuobjdump
	# --occurrence stops reading once the members are out (about 30 s of xz less the tail),
	# which leaves dpkg-deb writing to a closed pipe: its complaint is no error.
	dpkg-deb --fsys-tarfile "$dev" 2>/dev/null | tar -x -C "$d" --occurrence=1 \
		./usr/lib/aarch64-linux-gnu/libcudadevrt.a ./usr/lib/aarch64-linux-gnu/libcudart_static.a \
		./usr/lib/aarch64-linux-gnu/libnppitc_static.a
	"$d/usr/bin/cuobjdump" --version | grep -q 'release 11\.8'
	same_sets_as_cuobjdump "$d/usr/bin/cuobjdump" \
		"$d"/usr/lib/aarch64-linux-gnu/{libcudadevrt.a,libcudart_static.a,libnppitc_static.a}
	# Device code was found (by both, as they agree): an empty comparison proves nothing.
	run xcc fatbin --summary --fatbin-sections-only "$d/usr/lib/aarch64-linux-gnu/libcudadevrt.a"
	assert_output_contains "sass sm_35 sm_37 sm_50 sm_52"
}

@test "fatbin: truncated, corrupt and hostile files give a clear error, not a crash" {
	need_nvcc
	cd "$BATS_TEST_TMPDIR"
	read -r off size < <(readelf -SW "$FX/libplain.so" | sed 's/\[ */[/' |
		awk '$2 == ".nv_fatbin" { print $5, $6 }')
	off=$((16#$off)) size=$((16#$size))
	[ "$size" -gt 0 ]

	# The file cut in the middle of the fatbin section.
	head -c $((off + size / 2)) "$FX/libplain.so" >cut.so
	run xcc fatbin cut.so
	assert_status 1
	assert_output_contains "cut.so"

	# The first container claims 2^64-1 bytes of entries.
	cp "$FX/libplain.so" huge.so
	printf '\377\377\377\377\377\377\377\377' | dd of=huge.so bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
	run xcc fatbin huge.so
	assert_status 1
	assert_output_contains "huge.so: .nv_fatbin+0x0: container declares 0xffffffffffffffff bytes"

	# An entry header size of 0 would loop forever on a naive parser.
	cp "$FX/libplain.so" zero.so
	printf '\0\0\0\0' | dd of=zero.so bs=1 seek=$((off + 16 + 4)) conv=notrunc 2>/dev/null
	run xcc fatbin zero.so
	assert_status 1
	assert_output_contains "zero.so: .nv_fatbin+0x10: entry header size 0 is outside 64.."

	# Bad magic.
	cp "$FX/libplain.so" magic.so
	printf 'XXXX' | dd of=magic.so bs=1 seek=$off conv=notrunc 2>/dev/null
	run xcc fatbin --summary magic.so
	assert_status 1
	assert_output_contains "magic.so: .nv_fatbin+0x0: no fatbin container here (bad magic)"

	# Not ELF at all; missing; other files still get listed.
	echo hello >text.txt
	run xcc fatbin --summary text.txt "$FX/plain.o"
	assert_status 1
	assert_output_contains "text.txt: not an ELF file, static archive or fatbin"
	run xcc fatbin --summary text.txt "$FX/plain.o" nonexistent.so
	assert_status 2
	assert_output_contains "nonexistent.so: No such file or directory"
	assert_output_contains "$FX/plain.o: sass sm_75 sm_86 ptx sm_86"

	# A truncated archive.
	head -c 3000 "$FX/libk.a" >cut.a
	run xcc fatbin cut.a
	assert_status 1
	assert_output_contains "cut.a"
}

@test "fatbin: usage errors and help" {
	run xcc fatbin
	assert_status 2
	assert_output_contains "no FILE given"
	run xcc fatbin --bogus x
	assert_status 2
	run xcc fatbin --help
	assert_status 0
	assert_output_contains "--summary"
	assert_output_contains "FILE: sass sm_75 sm_90a ptx sm_90"
}
