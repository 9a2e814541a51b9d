#!/usr/bin/env bats
# The real thing: a sysroot made from Debian 12's CUDA 11.8 packages, the real nvcc 11.8
# cross-compiling for aarch64 with aarch64-linux-gnu-g++-11, and the programs run under
# qemu-aarch64. Without a GPU driver the CUDA runtime reports cudaErrorInsufficientDriver
# (35); with the stub libcuda it reports cudaErrorStubLibrary (34).
#
# The packages come from scripts/fetch-debian-cuda.sh (CI runs it first); the cache is
# $XCC_DEB_CACHE, default /var/cache/cuda-xcc/debs. Without them these tests are skipped.
# XCC_E2E_SYSROOT=DIR reuses an existing sysroot instead of creating one.
load lib/common
load lib/e2e

deb_cache() { cuda118_cache; }
debs() { cuda118_debs; }

setup_file() {
	# One sysroot for the whole file: making it means decompressing 667 MB of xz.
	e2e_make_cuda118_sysroot
}

# The sysroot in $S, or skip (no packages) or fail (they are there but create failed).
need_sysroot() {
	e2e_sysroot
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler (g++-11-aarch64-linux-gnu)"
	need qemu-aarch64 "runs the aarch64 programs"
	need readelf "inspects the programs"
	export S
}

# Run an aarch64 program the way a developer without binfmt_misc would.
run_qemu() {
	run qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"
}

# A program that calls a function only the device's rootfs provides.
write_uses_cu() {
	cat > "$1" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
extern "C" int device_value(void);
int main()
{
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	std::printf("device_value=%d err=%d\n", device_value(), (int)e);
	return 2;
}
EOF
}

vector_add() { cp "$XCC_SRCDIR/examples/vector_add.cu" "$1/"; }

@test "e2e: sysroot create from the Debian packages gives a relocatable nvcc 11.8" {
	need_sysroot
	[ -f "$S/sysroot.json" ]
	[ -x "$S/bin/nvcc" ]
	[ ! -L "$S/bin/nvcc" ]
	run "$S/bin/nvcc" --version
	assert_status 0
	assert_output_contains "release 11.8"
	# Debian's bin/gcc and bin/g++ run the x86_64 g++ for an nvcc without -ccbin: left out.
	[ ! -e "$S/bin/g++" ]
	[ ! -e "$S/bin/gcc" ]
	# Debian's bin/nvcc.profile is a link to /etc/nvcc.profile: it must not survive.
	[ -f "$S/bin/nvcc.profile" ]
	[ ! -L "$S/bin/nvcc.profile" ]
	run find "$S" -lname '/*'
	assert_status 0
	[ -z "$output" ] || { echo "absolute symlinks escape the sysroot: $output" >&2; false; }
	# Only cudart's files of nvidia-cuda-dev's 2 GB of libraries, no math library, and no
	# development link left dangling (libnvToolsExt.so without libnvtoolsext1).
	local lib=$S/targets/sbsa-linux/lib
	[ -f "$lib/libcudart_static.a" ]
	[ -f "$lib/libcudadevrt.a" ]
	[ -f "$lib/stubs/libcuda.so" ]
	[ -z "$(ls "$lib" "$lib/stubs" | grep -E 'cublas|cufft|cusparse|npp')" ]
	[ -z "$(find -L "$lib" -type l)" ]
	[ "$(du -sm "$lib" | cut -f1)" -lt 50 ]
	# Each package's license terms (NVIDIA's EULA, as Debian ships them) are kept as a
	# redist archive's LICENSE is: licenses/<component>/, the host's with -host.
	grep -q "NVIDIA" "$S/licenses/libcudart11.0/copyright"
	[ -f "$S/licenses/nvidia-cuda-dev/copyright" ]
	[ -f "$S/licenses/nvidia-cuda-toolkit-host/copyright" ]
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
	# Debian's arm64 build is NVIDIA's SBSA one, and is recorded as such.
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["flavour"]); print(m["flavour_evidence"])' "$S/sysroot.json"
	assert_output_contains "linux-sbsa"
	assert_output_contains "libcudadevrt.a (sm_35 sm_37 sm_50 sm_52 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_89 sm_90)"
}

@test "e2e: --target jetson refuses Debian's arm64 packages: the SBSA build, no Jetson SASS" {
	local from=() d j=$BATS_TEST_TMPDIR/J
	[ "$(debs | wc -l)" -ge 3 ] || skip "the CUDA 11.8 .debs are not in $(deb_cache)"
	while read -r d; do from+=(--from "$d"); done < <(debs)
	run "$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 11.8 --dest "$j" \
		--progress never "${from[@]}"
	assert_status 2
	assert_output_contains "--target jetson with CUDA 11.8 needs NVIDIA's L4T build"
	assert_output_contains "are the SBSA build, for Arm servers with a discrete GPU (linux-sbsa)"
	assert_output_contains "none for a Jetson GPU (sm_53 sm_62 sm_72 sm_87)"
	assert_output_contains "libcudadevrt.a (sm_35 sm_37 sm_50 sm_52 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_89 sm_90)"
	assert_output_contains "Debian's arm64 CUDA packages are SBSA builds"
	[ ! -e "$j" ]
	[ -z "$(ls -d "$j".tmp-* 2>/dev/null)" ]
}

@test "e2e: --cuda 12.6 from Debian's CUDA 11.8 packages is refused, naming both releases" {
	local from=() d w=$BATS_TEST_TMPDIR/W
	[ "$(debs | wc -l)" -ge 3 ] || skip "the CUDA 11.8 .debs are not in $(deb_cache)"
	while read -r d; do from+=(--from "$d"); done < <(debs)
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.6 --dest "$w" --progress never \
		--dry-run "${from[@]}"
	assert_status 2
	assert_output_contains "--cuda 12.6 asked for, but "
	assert_output_contains "11.8.89~11.8.0-5~deb12u1) is CUDA 11.8"
	assert_output_contains "pass --cuda 11.8, or the packages of CUDA 12.6"
	[ ! -e "$w" ]
}

@test "e2e: verify and doctor find a CUDA record the files are not, and 4 bytes changed in libcudart" {
	need_sysroot
	local c=$BATS_TEST_TMPDIR/C f
	# a copy of hard links, each file changed below replaced, never written through
	cp -al "$S" "$c" 2>/dev/null || cp -a "$S" "$c"
	rm "$c/sysroot.json"
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["cuda"]="12.6"; json.dump(m, open(sys.argv[2], "w"))' "$S/sysroot.json" "$c/sysroot.json"
	# as a create that recorded the wrong release would have written it
	sysroot_resign "$c"
	run "$CUDA_XCC" sysroot verify --metadata-only "$c"
	assert_status 1
	assert_output_contains "sysroot.json records CUDA 12.6, but targets/sbsa-linux/include/cuda.h (CUDA_VERSION 11080) is CUDA 11.8"
	assert_output_contains "made from nvidia-cuda-toolkit 11.8."
	assert_output_contains "make the sysroot again with --cuda 11.8"
	run "$CUDA_XCC" doctor --sysroot "$c"
	assert_output_contains "records CUDA 12.6, but"
	# the original's contents, 4 bytes overwritten in place in the copy: same size, same mode
	f=$(ls "$c"/targets/sbsa-linux/lib/libcudart.so.11.*.* | head -1)
	[ -f "$f" ]
	cp -p "$f" "$f.new"
	mv "$f.new" "$f"
	printf 'XXXX' | dd of="$f" bs=1 seek=4096 conv=notrunc status=none
	run "$CUDA_XCC" sysroot verify "$c"
	assert_status 1
	assert_output_contains "changed contents: targets/sbsa-linux/lib/${f##*/} (sha256 made as"
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
	assert_output_contains "every file's contents match"
}

@test "e2e: vector_add with static cudart runs under qemu and reports no driver (35)" {
	need_sysroot
	d=$(scratch)
	vector_add "$d"
	cd "$d"
	# The driver chooses g++-11 by itself: CUDA 11.8 refuses gcc 12.
	run xcc --sysroot "$S" -arch sm_90 -### vector_add.cu -o va
	assert_status 0
	assert_output_contains "-ccbin=$(command -v aarch64-linux-gnu-g++-11) "
	run xcc --sysroot "$S" -arch sm_90 -cudart static vector_add.cu -o va
	assert_status 0
	run readelf -h va
	assert_output_contains "AArch64"
	run readelf -d va
	[[ "$output" != *libcudart* ]]
	run_qemu ./va
	assert_status 2
	assert_output_contains "err=35 (cudaErrorInsufficientDriver"
}

@test "e2e: shared cudart runs without LD_LIBRARY_PATH; the stub libcuda gives 34" {
	need_sysroot
	d=$(scratch)
	vector_add "$d"
	cd "$d"
	run xcc --sysroot "$S" -arch sm_90 -cudart shared vector_add.cu -o va_shared
	assert_status 0
	run readelf -d va_shared
	assert_output_contains "Shared library: [libcudart.so.11.0]"
	assert_output_contains "/targets/sbsa-linux/lib]"
	run_qemu ./va_shared
	assert_status 2
	assert_output_contains "err=35 (cudaErrorInsufficientDriver"

	# The stub offered as the driver: the runtime loads it and says so.
	mkdir stub
	cp "$S/targets/sbsa-linux/lib/stubs/libcuda.so" stub/libcuda.so.1
	run_qemu -E LD_LIBRARY_PATH="$d/stub" ./va_shared
	assert_status 2
	assert_output_contains "err=34 (cudaErrorStubLibrary"
	run xcc --sysroot "$S" -arch sm_90 vector_add.cu -o va_static
	assert_status 0
	run_qemu -E LD_LIBRARY_PATH="$d/stub" ./va_static
	assert_status 2
	assert_output_contains "err=34 (cudaErrorStubLibrary"
}

@test "e2e: -rdc=true separate compilation links and runs" {
	need_sysroot
	d=$(scratch)
	cd "$d"
	cat > twice.cu <<'EOF'
__device__ int twice(int x) { return 2 * x; }
EOF
	cat > main.cu <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
extern __device__ int twice(int x);
__global__ void k(int *p) { *p = twice(*p); }
int main()
{
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	std::printf("rdc: err=%d\n", (int)e);
	if (e == cudaSuccess) {
		k<<<1, 1>>>(nullptr);
	}
	return e == cudaSuccess ? 0 : 2;
}
EOF
	run xcc --sysroot "$S" -arch sm_90 -rdc=true -c twice.cu -o twice.o
	assert_status 0
	run xcc --sysroot "$S" -arch sm_90 -rdc=true -c main.cu -o main.o
	assert_status 0
	run xcc --sysroot "$S" -arch sm_90 -rdc=true twice.o main.o -o rdc
	assert_status 0
	run_qemu ./rdc
	assert_status 2
	assert_output_contains "rdc: err=35"
}

@test "e2e: -dlto with nvcc 11.8 puts LTO-IR in the aarch64 object; the device link makes SASS with Debian's libnvvm4" {
	need_sysroot
	d=$(scratch)
	cd "$d"
	printf '__device__ int f(int x) { return x + 1; }\n__global__ void k(int *p) { *p = f(*p); }\n' > k.cu
	run xcc --sysroot "$S" -dlto -arch sm_90 -c k.cu -o k.o
	assert_status 0
	run xcc fatbin k.o
	assert_output_contains "lto-ir sm_90"
	[[ "$output" != *"sass   sm_90"* ]]
	run xcc --sysroot "$S" -arch lto_80 -rdc=true -c k.cu -o k80.o
	assert_status 0
	run xcc fatbin k80.o
	assert_output_contains "lto-ir sm_80"
	if [ -n "$(cuda118_libnvvm)" ] && [ -z "${XCC_E2E_SYSROOT:-}" ]; then
		# Made with Debian's libnvvm4: create put it where nvlink loads it.
		[ -f "$S/nvvm/lib64/libnvvm.so.4.0.0" ]
		run readlink "$S/nvvm/lib64/libnvvm.so"
		assert_output_equals "libnvvm.so.4"
	fi
	run xcc --sysroot "$S" -dlto -arch sm_90 -dlink k.o -o dl.o
	if [ -e "$S/nvvm/lib64/libnvvm.so" ]; then
		assert_status 0
		run xcc fatbin dl.o
		assert_output_contains "sass   sm_90"
		[[ "$output" != *lto-ir* ]]
	else
		# Debian's libnvvm is in libnvvm4, which the sysroot was not made from: said.
		assert_status 1
		assert_output_contains "the sysroot has no $S/nvvm/lib64/libnvvm.so, which nvlink loads"
		assert_output_contains "--from Debian's libnvvm4 .deb"
	fi
}

@test "e2e: nvcc --lib makes the archive with the cross ar (-arbin)" {
	need_sysroot
	d=$(scratch)
	vector_add "$d"
	cd "$d"
	# A plain 'ar' first on PATH that refuses: only -arbin=aarch64-linux-gnu-ar avoids it.
	mkdir decoy
	printf '#!/bin/sh\necho "ar $*" >> %s/ar.log\nexit 1\n' "$d" > decoy/ar
	chmod +x decoy/ar
	PATH=$d/decoy:$PATH run xcc --sysroot "$S" -arch sm_90 --lib vector_add.cu -o libva.a
	assert_status 0
	[ ! -e ar.log ]
	run aarch64-linux-gnu-ar t libva.a
	assert_status 0
	assert_output_contains "vector_add.o"
	run readelf -h libva.a
	assert_output_contains "AArch64"
}

@test "e2e: CUDA 13.0 and decoy tools first on PATH are never used by the sysroot's nvcc" {
	need_sysroot
	d=$(scratch)
	vector_add "$d"
	cd "$d"
	mkdir decoy
	for t in ptxas fatbinary nvlink cudafe++ cicc nvcc; do
		printf '#!/bin/sh\necho "%s $*" >> %s/decoy.log\nexit 1\n' "$t" "$d" > "decoy/$t"
		chmod +x "decoy/$t"
	done
	path=$d/decoy
	[ -d /usr/local/cuda/bin ] && path=$path:/usr/local/cuda/bin
	PATH=$path:$PATH run xcc --sysroot "$S" -arch sm_90 -rdc=true vector_add.cu -o va
	assert_status 0
	[ ! -e decoy.log ] || { cat decoy.log >&2; false; }
	run_qemu ./va
	assert_output_contains "err=35"
}

@test "e2e: only an unsupported cross g++ installed: the error names g++-11-aarch64-linux-gnu" {
	need aarch64-linux-gnu-g++-12 "the unsupported compiler the test offers"
	d=$(scratch)
	mkdir "$d/bin"
	ln -s "$(command -v aarch64-linux-gnu-g++-12)" "$d/bin/aarch64-linux-gnu-g++-12"
	PATH=$d/bin run xcc --target sbsa --cuda 11.8 -arch sm_90 -### x.cu -o x
	assert_status 2
	assert_output_contains "aarch64-linux-gnu-g++-12 (gcc 12)"
	assert_output_contains "apt-get install g++-11-aarch64-linux-gnu"
	assert_output_contains "-allow-unsupported-compiler"
}

# A small device root filesystem, Debian-style (merged /usr, multiarch), made from the cross
# toolchain's own aarch64 libraries.
make_rootfs() {
	local r=$1 lib=$1/usr/lib/aarch64-linux-gnu
	mkdir -p "$lib"
	ln -s usr/lib "$r/lib"
	cp -a /usr/aarch64-linux-gnu/lib/. "$lib/"
	ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$r/usr/lib/ld-linux-aarch64.so.1"
	# Debian's linker scripts name the device's own paths.
	printf 'GROUP ( /lib/aarch64-linux-gnu/libc.so.6 /usr/lib/aarch64-linux-gnu/libc_nonshared.a AS_NEEDED ( /lib/ld-linux-aarch64.so.1 ) )\n' > "$lib/libc.so"
}

@test "e2e: --target-fs links against the device's libraries and the program runs there" {
	need_sysroot
	d=$(scratch)
	vector_add "$d"
	cd "$d"
	make_rootfs "$d/rootfs"
	# A library only the device has, which needs another one only the device has:
	# -lfromdevice works only through the rootfs's lib dirs, its NEEDED only with -rpath-link.
	echo 'int dep_value(void) { return 7; }' > dep.c
	echo 'int dep_value(void); int device_value(void) { return dep_value() * 6; }' > dev.c
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libdevdep.so.1 -o rootfs/usr/lib/aarch64-linux-gnu/libdevdep.so.1 dep.c
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libfromdevice.so.1 -o rootfs/usr/lib/aarch64-linux-gnu/libfromdevice.so.1 dev.c rootfs/usr/lib/aarch64-linux-gnu/libdevdep.so.1
	ln -s libfromdevice.so.1 rootfs/usr/lib/aarch64-linux-gnu/libfromdevice.so
	write_uses_cu uses.cu
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/rootfs" uses.cu -o uses -lfromdevice
	assert_status 0
	[[ "$output" != *warning* ]]
	run readelf -d uses
	assert_output_contains "Shared library: [libfromdevice.so.1]"
	# The device's own loader and libraries: qemu's -L is the rootfs.
	run qemu-aarch64 -L "$d/rootfs" ./uses
	assert_output_contains "device_value=42 err=35"

	# Without --target-fs the device's library is nowhere to be found.
	run xcc --sysroot "$S" -arch sm_90 uses.cu -o uses2 -lfromdevice
	assert_status 1
	assert_output_contains "fromdevice"

	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/none" uses.cu -o uses
	assert_status 2
	assert_output_contains "is not a directory"
}

@test "e2e: a sysroot made with --target-fs builds against that rootfs without the option" {
	need_sysroot
	[ -z "${XCC_E2E_SYSROOT:-}" ] || skip "makes a sysroot of its own from the packages"
	d=$(scratch)
	cd "$d"
	make_rootfs "$d/rootfs"
	echo 'int device_value(void) { return 42; }' > dev.c
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libfromdevice.so.1 -o rootfs/usr/lib/aarch64-linux-gnu/libfromdevice.so.1 dev.c
	ln -s libfromdevice.so.1 rootfs/usr/lib/aarch64-linux-gnu/libfromdevice.so
	local from=() deb
	while read -r deb; do from+=(--from "$deb"); done < <(debs)
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 11.8 --dest "$d/S" --progress never \
		--target-fs "$d/rootfs" "${from[@]}"
	assert_status 0
	grep -q "\"target_fs\":	\"$(realpath "$d/rootfs")\"" "$d/S/sysroot.json"
	write_uses_cu uses.cu
	# -lfromdevice is found only in the recorded rootfs
	run xcc --sysroot "$d/S" -arch sm_90 uses.cu -o uses -lfromdevice
	assert_status 0
	run qemu-aarch64 -L "$d/rootfs" ./uses
	assert_output_contains "device_value=42 err=35"
	run xcc --sysroot "$d/S" -arch sm_90 --dry-run uses.cu -o uses
	assert_output_contains "-Xcompiler=--sysroot=$(realpath "$d/rootfs")"
}

@test "e2e: --target-fs warns when the program needs a newer GLIBC_ than the device has" {
	need_sysroot
	d=$(scratch)
	vector_add "$d"
	cd "$d"
	# A runtime-only device filesystem (no libc6-dev) whose C library is older than the
	# cross toolchain's 2.36: a tiny libc.so.6 whose only version is the aarch64 baseline,
	# GLIBC_2.17. The start files and libc.so then come from the toolchain, whose
	# __libc_start_main is GLIBC_2.34.
	mkdir -p old/lib/aarch64-linux-gnu
	printf 'GLIBC_2.17 { global: puts; local: *; };\n' > old.map
	echo 'int puts(const char *s) { (void)s; return 0; }' > old.c
	aarch64-linux-gnu-gcc -shared -nostdlib -fPIC -Wl,-soname,libc.so.6 \
		-Wl,--version-script=old.map -o old/lib/aarch64-linux-gnu/libc.so.6 old.c
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/old" vector_add.cu -o va
	assert_status 0
	assert_output_contains "warning: va needs GLIBC_2.34"
	assert_output_contains "provides only up to GLIBC_2.17"
	[ -f va ]

	# The same program against the toolchain's own glibc: nothing to warn about.
	make_rootfs "$d/new"
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/new" vector_add.cu -o va
	assert_status 0
	[[ "$output" != *warning* ]]

	# An archive (--lib) is no program: nothing to check, so not even a "cannot check".
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/old" --lib vector_add.cu -o libva.a
	assert_status 0
	[ -f libva.a ]
	[[ "$output" != *warning* ]]
}

@test "e2e: --target-fs checks the program's GLIBCXX_ needs against that root's own libstdc++" {
	need_sysroot
	d=$(scratch)
	cd "$d"
	local lib=rootfs/usr/lib/aarch64-linux-gnu
	mkdir -p rootfs/lib/aarch64-linux-gnu "$lib"
	cp /usr/aarch64-linux-gnu/lib/libc.so.6 rootfs/lib/aarch64-linux-gnu/
	# The device's libstdc++ defines up to GLIBCXX_3.4.20 and CXXABI_1.3.8 (gcc 4.9's).
	printf '%s\n' 'GLIBCXX_3.4 { global: fx_a; local: *; };' \
		'GLIBCXX_3.4.20 { global: fx_b; } GLIBCXX_3.4;' 'CXXABI_1.3 { global: fx_c; };' \
		'CXXABI_1.3.8 { global: fx_d; } CXXABI_1.3;' > cxx.map
	echo 'int fx_a, fx_b, fx_c, fx_d;' > cxx.c
	aarch64-linux-gnu-gcc -shared -nostdlib -fPIC -Wl,-soname,libstdc++.so.6 \
		-Wl,--version-script=cxx.map -o "$lib/libstdc++.so.6" cxx.c
	cat > str.cu <<'EOF'
#include <iostream>
#include <string>
int main(int argc, char **argv)
{
	std::string s(argv[0]);
	std::cout << s.size() << std::endl;
	return argc > 5;
}
EOF
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/rootfs" str.cu -o str
	assert_status 0
	assert_output_contains "warning: str needs GLIBCXX_3.4.21 (libstdc++.so.6), newer than the --target-fs $(realpath "$d/rootfs")/usr/lib/aarch64-linux-gnu/libstdc++.so.6 defines (up to GLIBCXX_3.4.20): it will not start on that device"
	assert_output_contains "-Xcompiler -static-libstdc++ -Xcompiler -static-libgcc"
	[ -x str ]
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/rootfs" --strict str.cu -o str
	assert_status 1
	assert_output_contains "error: str needs GLIBCXX_3.4.21 (libstdc++.so.6)"
	# The way out it names: the C++ runtime linked in, nothing left to need.
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/rootfs" --strict \
		-Xcompiler -static-libstdc++ -Xcompiler -static-libgcc str.cu -o str
	assert_status 0
	[ -z "$(printf '%s' "$output" | grep GLIBCXX_)" ]
	# The toolchain's own libstdc++ on the device: nothing above it.
	cp /usr/aarch64-linux-gnu/lib/libstdc++.so.6 "$lib/libstdc++.so.6"
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/rootfs" --strict str.cu -o str
	assert_status 0
	[ -z "$(printf '%s' "$output" | grep GLIBCXX_)" ]
}

@test "e2e: --target-fs flags and its validation (no packages needed)" {
	need aarch64-linux-gnu-g++-11 "the host compiler the plan names"
	d=$(scratch)
	mkdir -p "$d/fs/usr/lib/aarch64-linux-gnu" "$d/fs/usr/include"
	ln -s usr/lib "$d/fs/lib"
	cp /usr/aarch64-linux-gnu/lib/libc.so.6 "$d/fs/usr/lib/aarch64-linux-gnu/"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/fs" -### x.cu -o x
	assert_status 0
	assert_output_contains "-Xcompiler=--sysroot=$d/fs "
	# The rootfs's multiarch dirs come first for start files and libraries...
	assert_output_contains "-Xcompiler=-B$d/fs/lib/aarch64-linux-gnu/ "
	assert_output_contains "-Xcompiler=-B$d/fs/usr/lib/aarch64-linux-gnu/ "
	# ...and ld follows NEEDED chains through all of its lib dirs.
	assert_output_contains "-Xlinker=-rpath-link=$d/fs/usr/lib/aarch64-linux-gnu "
	assert_output_contains "-Xlinker=-rpath-link=$d/fs/usr/lib "

	mkdir "$d/empty"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/empty" -### x.cu -o x
	assert_status 2
	assert_output_contains "has no libc.so.6"

	mkdir "$d/a,b"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/a,b" -### x.cu -o x
	assert_status 2
	assert_output_contains "without ','"
}

@test "e2e: a CMake project through the toolchain file builds with nvcc 11.8 and runs" {
	need_sysroot
	need cmake "builds the example project"
	d=$(scratch)
	run cmake -S "$XCC_SRCDIR/examples/cmake" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90
	assert_status 0
	assert_output_contains "Found CUDAToolkit: $S/targets/sbsa-linux/include (found version \"11.8.89\")"
	grep -qx 'CMAKE_CUDA_ARCHITECTURES:STRING=90' "$d/b/CMakeCache.txt"
	grep -q "CMAKE_CUDA_HOST_COMPILER:.*=.*aarch64-linux-gnu-g++-11" "$d/b/CMakeCache.txt" ||
		grep -q "aarch64-linux-gnu-g++-11" "$d/b/CMakeFiles/"*/CMakeCUDACompiler.cmake
	run cmake --build "$d/b"
	assert_status 0
	run file "$d/b/vector_add"
	assert_output_contains "ARM aarch64"
	# CMake links the shared cudart (CUDA::cudart) without a run path into the sysroot.
	run_qemu -E LD_LIBRARY_PATH="$S/targets/sbsa-linux/lib" "$d/b/vector_add"
	assert_status 2
	assert_output_contains "err=35 (cudaErrorInsufficientDriver"
	# cuda-xcc run finds the sysroot's libcudart by itself...
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" "$d/b/vector_add"
	assert_status 2
	assert_output_contains "err=35 (cudaErrorInsufficientDriver"
	# ...and so does ctest through it: no GPU, so the example's test is skipped, not passed.
	run env -u LD_LIBRARY_PATH ctest --test-dir "$d/b" -V
	assert_status 0
	assert_output_contains "vector_add (Skipped)"
	assert_output_contains "err=35 (cudaErrorInsufficientDriver"
}

# bats test_tags=project
@test "e2e: ctest runs a cross-built project's tests through cuda-xcc run and reports a failure" {
	need_sysroot
	need cmake "builds the project"
	need ctest "runs its tests"
	d=$(scratch)
	mkdir "$d/src"
	cat > "$d/src/CMakeLists.txt" <<-'EOF'
	cmake_minimum_required(VERSION 3.19)
	project(twotests LANGUAGES CXX CUDA)
	find_package(CUDAToolkit REQUIRED)
	enable_testing()
	add_executable(probe probe.cu)
	target_link_libraries(probe PRIVATE CUDA::cudart)
	# Passes: with no GPU driver the runtime says so (35), as expected here.
	add_test(NAME expects_no_driver COMMAND probe 35)
	# Fails on purpose: it expects a working GPU.
	add_test(NAME expects_a_gpu COMMAND probe 0)
	EOF
	cat > "$d/src/probe.cu" <<-'EOF'
	#include <cstdlib>
	#include <iostream>
	#include <cuda_runtime.h>
	int main(int argc, char **argv)
	{
		int n = -1, want = argc > 1 ? std::atoi(argv[1]) : 0;
		cudaError_t e = cudaGetDeviceCount(&n);
		std::cout << "probe: err=" << (int)e << " want=" << want << std::endl;
		return (int)e == want ? 0 : 1;
	}
	EOF
	run cmake -S "$d/src" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90
	assert_status 0
	# The tests run through cuda-xcc run with the sysroot.
	grep -qF "\"$CUDA_XCC\" \"run\" \"--sysroot\" \"$S\"" "$d/b/CTestTestfile.cmake"
	run cmake --build "$d/b"
	assert_status 0
	run readelf -d "$d/b/probe"
	assert_output_contains "Shared library: [libcudart.so.11.0]"
	[[ "$output" != *"$S"* ]]
	run env -u LD_LIBRARY_PATH ctest --test-dir "$d/b" --output-on-failure
	assert_status 8
	assert_output_contains "expects_no_driver ................   Passed"
	assert_output_contains "expects_a_gpu ....................***Failed"
	assert_output_contains "probe: err=35 want=0"
	assert_output_contains "50% tests passed, 1 tests failed out of 2"
	# With a device set, the tests run there instead.
	run cmake -S "$d/src" -B "$d/b" -DCUDA_XCC_DEVICE=ssh://tester@127.0.0.1:2222 -DCUDA_XCC_SSH_CONFIG="$d/cfg"
	assert_status 0
	grep -qF "\"--device\" \"ssh://tester@127.0.0.1:2222\" \"--ssh-config\" \"$d/cfg\" \"$d/b/probe\"" "$d/b/CTestTestfile.cmake"
}

# bats test_tags=project
@test "e2e: a Meson project through 'cuda-xcc toolchain meson' builds with nvcc 11.8 and its test runs" {
	need_sysroot
	need meson "builds the example project"
	need ninja "Meson's backend"
	d=$(scratch)
	run "$CUDA_XCC" toolchain meson --sysroot "$S" -arch sm_90 --output "$d/cross.ini"
	assert_status 0
	run env CUDA_PATH="$S" meson setup --cross-file "$d/cross.ini" "$d/b" "$XCC_SRCDIR/examples/meson"
	assert_status 0
	assert_output_contains "Run-time dependency CUDA (modules: cudart) found: YES 11.8 ($S)"
	run ninja -C "$d/b"
	assert_status 0
	run file "$d/b/launch"
	assert_output_contains "ARM aarch64"
	# meson test runs the program through the cross file's exe_wrapper (qemu).
	run meson test -C "$d/b" --print-errorlogs
	assert_status 0
	grep -q "launch_increment: err=35 (cudaErrorInsufficientDriver)" "$d/b/meson-logs/testlog.txt"
}

# bats test_tags=project
@test "e2e: CMake names the component to add when a target links a CUDA library the sysroot lacks" {
	need_sysroot
	need cmake "configures the project"
	d=$(scratch)
	mkdir -p "$d/p"
	cat > "$d/p/CMakeLists.txt" <<-EOF2
	cmake_minimum_required(VERSION 3.19)
	project(uses_cublas LANGUAGES CXX CUDA)
	find_package(CUDAToolkit REQUIRED)
	add_executable(uses_cublas "$XCC_SRCDIR/examples/vector_add.cu")
	target_link_libraries(uses_cublas PRIVATE CUDA::cudart CUDA::cublas)
	EOF2
	run cmake -S "$d/p" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90
	assert_status 1
	assert_output_contains "cuda-xcc: uses_cublas links CUDA::cublas, but the"
	assert_output_contains "--components"
	assert_output_contains "libcublas'"
}
