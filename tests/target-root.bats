#!/usr/bin/env bats
# Device roots taken as they are: a minimal JetPack-5-like root from Debian 11's arm64
# packages (scripts/fetch-target-root.sh), the example built against it with --target-fs,
# and the absolute symlinks such roots hold (libpthread.so -> /lib/.../libpthread.so.0),
# which cuda-xcc reads inside the root through an overlay.
#
# The bullseye packages come from scripts/fetch-target-root.sh (scripts/setup.sh runs it
# first; cached in $XCC_DEB_CACHE_BULLSEYE, default /var/cache/cuda-xcc/debs-bullseye), the
# CUDA 11.8 packages from scripts/fetch-debian-cuda.sh. Without them those tests skip.
load lib/common
load lib/e2e
load lib/toolchain
bats_require_minimum_version 1.5.0

bullseye_cache() { echo "${XCC_DEB_CACHE_BULLSEYE:-/var/cache/cuda-xcc/debs-bullseye}"; }

setup_file() {
	local n
	export TR_STATE=$BATS_FILE_TMPDIR/state
	# The overlays go to the test's own cache, not the user's.
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/cache
	n=$(ls "$(bullseye_cache)"/*_arm64.deb 2>/dev/null | wc -l)
	if [ "$n" -lt 7 ]; then
		echo "skip the bullseye arm64 .debs are not in $(bullseye_cache) (run scripts/fetch-target-root.sh)" > "$TR_STATE"
		return 0
	fi
	# Unpacking only: the packages are cached, so nothing is downloaded.
	if ! bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --cache "$(bullseye_cache)" \
		--dest "$BATS_FILE_TMPDIR/bullseye" > "$BATS_FILE_TMPDIR/root.log" 2>&1; then
		echo "fail fetch-target-root.sh failed: $(tail -5 "$BATS_FILE_TMPDIR/root.log")" > "$TR_STATE"
		return 0
	fi
	echo "ok $BATS_FILE_TMPDIR/bullseye" > "$TR_STATE"
	if [ "$(cuda118_debs | wc -l)" -ge 3 ]; then
		local from=() d
		while read -r d; do from+=(--from "$d"); done < <(cuda118_debs)
		"$CUDA_XCC" sysroot create --target sbsa --cuda 11.8 --dest "$BATS_FILE_TMPDIR/S" \
			--progress never "${from[@]}" > "$BATS_FILE_TMPDIR/create.log" 2>&1 || true
	fi
}

# The bullseye root in $R, or skip (no packages) or fail (they are there but it failed).
need_root() {
	e2e_state_take "$TR_STATE"
	R=$E2E_VALUE
}

# The CUDA 11.8 sysroot in $S, or skip.
need_sysroot() {
	S=$BATS_FILE_TMPDIR/S
	if [ "$(cuda118_debs | wc -l)" -lt 3 ]; then
		skip "the CUDA 11.8 .debs are not in $(cuda118_cache) (run scripts/fetch-debian-cuda.sh)"
	fi
	if [ ! -f "$S/sysroot.json" ]; then
		cat "$BATS_FILE_TMPDIR/create.log" >&2
		return 1
	fi
	need aarch64-linux-gnu-g++-11 "CUDA 11.8's host compiler (g++-11-aarch64-linux-gnu)"
	need qemu-aarch64 "runs the aarch64 programs"
	need readelf "reads the programs' version needs"
}

# The highest GLIBC_ version a file needs, e.g. GLIBC_2.17.
glibc_max() {
	readelf -V "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -1
}

# Into root $1: libfoo.so as a link to $2, a shared libfoo.so.1 whose foo() returns 42
# and a static libfoo.a whose foo() returns 1.
add_libfoo() {
	local r=$1 link_target=$2 src=$BATS_TEST_TMPDIR/foo
	mkdir -p "$r/lib/aarch64-linux-gnu" "$r/usr/lib/aarch64-linux-gnu" "$src"
	echo 'int foo(void) { return 42; }' > "$src/shared.c"
	echo 'int foo(void) { return 1; }' > "$src/static.c"
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libfoo.so.1 -o "$r/lib/aarch64-linux-gnu/libfoo.so.1" "$src/shared.c"
	aarch64-linux-gnu-gcc -c -o "$src/static.o" "$src/static.c"
	aarch64-linux-gnu-ar rc "$r/usr/lib/aarch64-linux-gnu/libfoo.a" "$src/static.o"
	ln -s "$link_target" "$r/usr/lib/aarch64-linux-gnu/libfoo.so"
}

# A root of the test's making from the cross toolchain's C library, with add_libfoo's files.
make_synthetic_root() {
	mkdir -p "$1/lib/aarch64-linux-gnu"
	cp -P /usr/aarch64-linux-gnu/lib/libc.so.6 /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 \
		"$1/lib/aarch64-linux-gnu/"
	add_libfoo "$1" "$2"
}

@test "target-root: fetch-target-root.sh unpacks bullseye's arm64 C runtime as Debian ships it" {
	need_root
	[ -f "$R/lib/aarch64-linux-gnu/libc-2.31.so" ]
	[ -f "$R/usr/lib/aarch64-linux-gnu/libc.so" ]
	[ -f "$R/usr/include/stdio.h" ]
	[ -f "$R/usr/include/linux/version.h" ]
	[ -f "$R/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.28" ]
	[ -f "$R/lib/aarch64-linux-gnu/libgcc_s.so.1" ]
	# Debian's absolute development links are kept as they are.
	run readlink "$R/usr/lib/aarch64-linux-gnu/libpthread.so"
	assert_output_equals "/lib/aarch64-linux-gnu/libpthread.so.0"
	run readlink "$R/usr/lib/aarch64-linux-gnu/libm.so"
	assert_output_equals "/lib/aarch64-linux-gnu/libm.so.6"
	# Its C and C++ runtimes are older than the cross toolchain's, as on JetPack 5.
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$R"
	assert_output_contains "the device's glibc is GLIBC_2.30, the cross toolchain's GLIBC_2.36; the device's libstdc++ defines up to GLIBCXX_3.4.28"
}

@test "target-root: fetch-target-root.sh refuses an existing root and unknown releases" {
	need_root
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --cache "$(bullseye_cache)" --dest "$R"
	assert_status 2
	assert_output_contains "$R exists and is not empty"
	[ -f "$R/lib/aarch64-linux-gnu/libc-2.31.so" ]
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --release buster --dest "$BATS_TEST_TMPDIR/x"
	assert_status 2
	assert_output_contains "unknown release 'buster'"
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --cache "$(bullseye_cache)"
	assert_status 2
	assert_output_contains "--dest DIR is required"
	[ ! -e "$BATS_TEST_TMPDIR/x" ]
}

@test "target-root: the example built against bullseye needs at most GLIBC_2.31 and runs under qemu" {
	need_root
	need_sysroot
	d=$(scratch)
	cp "$XCC_SRCDIR/examples/vector_add.cu" "$d/"
	cd "$d"
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$R" vector_add.cu -o va
	assert_status 0
	[[ "$output" != *warning* ]]
	max=$(glibc_max va)
	[ -n "$max" ]
	[ "$(printf '%s\n' "$max" GLIBC_2.31 | sort -V | tail -1)" = GLIBC_2.31 ]
	# ld took the shared C library from the root, not libpthread.a/libdl.a.
	readelf -d va | grep -q 'NEEDED.*\[libc.so.6\]'
	run qemu-aarch64 -L "$R" ./va
	assert_status 2
	assert_output_contains "cudaErrorInsufficientDriver"
	# Without the root, Debian 12's cross glibc makes the same program need GLIBC_2.34.
	run xcc --sysroot "$S" -arch sm_90 vector_add.cu -o va12
	assert_status 0
	readelf -V va12 | grep -q 'GLIBC_2.34'
	[ "$(printf '%s\n' "$(glibc_max va12)" GLIBC_2.31 | sort -V | tail -1)" != GLIBC_2.31 ]
}

@test "target-root: bullseye's absolute links are read inside the root through an overlay" {
	need_root
	need aarch64-linux-gnu-g++-11 "the host compiler the plan names"
	before=$(cd "$R" && find . -printf '%p %l %s %T@\n' | sort | sha256sum)
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$R" -### x.cu -o x
	assert_status 0
	overlay=$(printf '%s\n' "$output" | grep -o -- "-Xcompiler=-B$XDG_CACHE_HOME/cuda-xcc/target-fs/[0-9a-f]*/" | head -1)
	overlay=${overlay#-Xcompiler=-B}
	[ -n "$overlay" ]
	# First among the search paths, before the root's own multiarch dirs...
	[[ "$output" == *"-Xcompiler=-B$overlay -Xcompiler=-B$R/lib/aarch64-linux-gnu/"* ]]
	[[ "$output" == *"-Xlinker=-rpath-link=${overlay%/} "* ]]
	# ...with the links of the root, pointing at the files the device would load.
	run readlink "$overlay/libpthread.so"
	assert_output_equals "$R/lib/aarch64-linux-gnu/libpthread-2.31.so"
	run readlink "$overlay/libm.so"
	assert_output_equals "$R/lib/aarch64-linux-gnu/libm-2.31.so"
	# libc.so is a linker script (a plain file), not a link: not in the overlay.
	[ ! -e "$overlay/libc.so" ]
	# The root is untouched.
	after=$(cd "$R" && find . -printf '%p %l %s %T@\n' | sort | sha256sum)
	[ "$before" = "$after" ]
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$R"
	assert_output_contains "ok    target-fs-links  14 absolute links among the linker's files"
}

@test "target-root: a root's absolute links: the shared library, not the static one beside it, at link and at run time" {
	need_root
	need_sysroot
	d=$(scratch)
	# The bullseye root and a library of the test's own, linked absolutely.
	cp -a "$R" "$d/root"
	add_libfoo "$d/root" /lib/aarch64-linux-gnu/libfoo.so.1
	cat > "$d/usefoo.cu" <<'X'
#include <cstdio>
extern "C" int foo(void);
int main() { std::printf("foo=%d\n", foo()); return 0; }
X
	cd "$d"
	run xcc --sysroot "$S" -arch sm_90 --target-fs "$d/root" usefoo.cu -o usefoo -lfoo
	assert_status 0
	readelf -d usefoo | grep -q 'NEEDED.*\[libfoo.so.1\]'
	run qemu-aarch64 -L "$d/root" ./usefoo
	assert_status 0
	assert_output_equals "foo=42"
	# libfoo.so.1 itself as an absolute link, as some of Ubuntu's and L4T's
	# are: qemu alone follows it on this machine, where it names nothing
	mv "$d/root/lib/aarch64-linux-gnu/libfoo.so.1" "$d/root/lib/aarch64-linux-gnu/libfoo.so.1.0"
	ln -s /lib/aarch64-linux-gnu/libfoo.so.1.0 "$d/root/lib/aarch64-linux-gnu/libfoo.so.1"
	run -127 qemu-aarch64 -L "$d/root" ./usefoo
	assert_output_contains "libfoo.so.1: cannot open shared object file"
	run "$CUDA_XCC" run --target-fs "$d/root" ./usefoo
	assert_status 0
	assert_output_contains "foo=42"
	# the loader's own link made absolute: qemu cannot be told to read it in the root
	ln -sfn /lib/aarch64-linux-gnu/ld-2.31.so "$d/root/lib/ld-linux-aarch64.so.1"
	run "$CUDA_XCC" run --target-fs "$d/root" ./usefoo
	assert_status 1
	assert_output_contains "the program's loader $d/root/lib/ld-linux-aarch64.so.1 is a link to /lib/aarch64-linux-gnu/ld-2.31.so"
	assert_output_contains "ln -sfr $d/root/lib/aarch64-linux-gnu/ld-2.31.so $d/root/lib/ld-linux-aarch64.so.1"
}

@test "target-root: a link that names no file inside the root either is said, by the driver and doctor" {
	need aarch64-linux-gnu-gcc "builds the synthetic root's libraries"
	need aarch64-linux-gnu-g++-11 "the host compiler the plan names"
	d=$(scratch)
	make_synthetic_root "$d/ok" /lib/aarch64-linux-gnu/libfoo.so.1
	make_synthetic_root "$d/bad" /lib/aarch64-linux-gnu/libfoo.so.7
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/ok" -### x.cu -o x
	assert_status 0
	[[ "$output" != *"names no file"* ]]
	overlay=$(printf '%s\n' "$output" | grep -o -- "-B$XDG_CACHE_HOME/cuda-xcc/target-fs/[0-9a-f]*/" | head -1)
	run readlink "${overlay#-B}libfoo.so"
	assert_output_equals "$d/ok/lib/aarch64-linux-gnu/libfoo.so.1"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/bad" -### x.cu -o x
	assert_status 0
	assert_output_contains "warning: --target-fs $d/bad: usr/lib/aarch64-linux-gnu/libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.7 names no file in that root"
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$d/bad"
	assert_output_contains "FAIL  target-fs-links  1 absolute link in $d/bad names no file in that root: usr/lib/aarch64-linux-gnu/libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.7"
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$d/ok"
	assert_output_contains "ok    target-fs-links  1 absolute link among the linker's files (first: usr/lib/aarch64-linux-gnu/libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1)"
	# A root with relative links only needs no overlay.
	rm "$d/ok/usr/lib/aarch64-linux-gnu/libfoo.so"
	ln -s ../../../lib/aarch64-linux-gnu/libfoo.so.1 "$d/ok/usr/lib/aarch64-linux-gnu/libfoo.so"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/ok" -### x.cu -o x
	assert_status 0
	[[ "$output" != *"/cuda-xcc/target-fs/"* ]]
}

# A CMake project with C, C++ and CUDA: a C library on a second thread (libpthread, libm), a
# CUDA static library, a C++ program and a C program linking both, and a C++ program whose
# g++ 11 std::allocator needs GLIBCXX_3.4.29, which bullseye's libstdc++ lacks.
write_mixed_project() {
	mkdir -p "$1"
	cat > "$1/CMakeLists.txt" <<'X'
cmake_minimum_required(VERSION 3.21)
project(mixed LANGUAGES C CXX CUDA)
find_package(Threads REQUIRED)
add_library(counter STATIC counter.c)
target_link_libraries(counter PUBLIC Threads::Threads m)
add_library(kernels STATIC kernels.cu)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE counter kernels)
add_executable(ctool ctool.c)
target_link_libraries(ctool PRIVATE counter)
add_executable(newcxx newcxx.cpp)
X
	cat > "$1/counter.c" <<'X'
#include <math.h>
#include <pthread.h>
static void *work(void *arg) { *(double *)arg = sqrt(*(double *)arg); return 0; }
double threaded_sqrt(double x)
{
	pthread_t t;
	if (pthread_create(&t, 0, work, &x))
		return -1;
	pthread_join(t, 0);
	return x;
}
X
	cat > "$1/kernels.cu" <<'X'
#include <cuda_runtime.h>
__global__ void twice(int *v) { v[threadIdx.x] *= 2; }
extern "C" int device_count(void)
{
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	return e == cudaSuccess ? n : -(int)e;
}
X
	cat > "$1/main.cpp" <<'X'
#include <cstdio>
#include <string>
extern "C" double threaded_sqrt(double);
extern "C" int device_count(void);
int main()
{
	std::string s = "sqrt=" + std::to_string((int)threaded_sqrt(49.0));
	std::printf("%s devices=%d\n", s.c_str(), device_count());
	return 0;
}
X
	cat > "$1/ctool.c" <<'X'
#include <stdio.h>
double threaded_sqrt(double);
int main(void) { printf("c sqrt=%d\n", (int)threaded_sqrt(81.0)); return 0; }
X
	cat > "$1/newcxx.cpp" <<'X'
#include <vector>
int main(int argc, char **)
{
	std::vector<int> v(argc * 1000);
	return v[0];
}
X
}

@test "target-root: CMake builds C, C++ and CUDA against the bullseye root; every link is checked" {
	need_root
	need_sysroot
	need cmake "builds the project"
	d=$(scratch)
	write_mixed_project "$d/src"
	run cmake -S "$d/src" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_ARCH=sm_90 -DCUDA_XCC_TARGET_FS="$R" \
		-DCUDA_XCC_EXECUTABLE="$CUDA_XCC"
	assert_status 0
	# Before, the C and C++ links took the cross toolchain's libc beside the root's
	# libpthread and failed (__libc_pthread_init@GLIBC_PRIVATE).
	run cmake --build "$d/b" --verbose
	assert_status 0
	[[ "$output" != *"GLIBC_PRIVATE"* ]]
	# The floor check runs after the C, C++ (and CUDA) links: the launcher is on their lines.
	grep -q -- "check-link --sysroot $S --target-fs $R -- /usr/bin/aarch64-linux-gnu-gcc-11 .* -o ctool" <<<"$output"
	grep -q -- "check-link --sysroot $S --target-fs $R -- /usr/bin/aarch64-linux-gnu-g++-11 .* -o app" <<<"$output"
	assert_output_contains "newcxx needs GLIBCXX_3.4.29 (libstdc++.so.6), newer than the --target-fs $R/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.28 defines (up to GLIBCXX_3.4.28)"
	[[ "$output" != *"app needs"* ]]
	[[ "$output" != *"ctool needs"* ]]
	for p in app ctool; do
		max=$(glibc_max "$d/b/$p")
		[ -n "$max" ]
		[ "$(printf '%s\n' "$max" GLIBC_2.31 | sort -V | tail -1)" = GLIBC_2.31 ]
	done
	run qemu-aarch64 -L "$R" "$d/b/app"
	assert_status 0
	assert_output_equals "sqrt=7 devices=-35"
	run qemu-aarch64 -L "$R" "$d/b/ctool"
	assert_status 0
	assert_output_equals "c sqrt=9"
	# CUDA_XCC_STRICT makes a need above the floor fail the link, and no program is left.
	run cmake -S "$d/src" -B "$d/strict" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_ARCH=sm_90 -DCUDA_XCC_TARGET_FS="$R" \
		-DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_STRICT=ON
	assert_status 0
	run cmake --build "$d/strict" --target newcxx
	[ "$status" -ne 0 ]
	assert_output_contains "error: newcxx needs GLIBCXX_3.4.29"
	[ ! -e "$d/strict/newcxx" ]
}

@test "target-root: Meson builds C++ and CUDA against the bullseye root; links are checked; the test runs in the root" {
	need_root
	need_sysroot
	need meson "builds the project"
	need ninja "Meson's backend"
	d=$(scratch)
	cp -r "$XCC_SRCDIR/examples/meson" "$d/src"
	write_mixed_project "$d/mixed"
	cp "$d/mixed/newcxx.cpp" "$d/src/"
	echo "executable('newcxx', 'newcxx.cpp')" >> "$d/src/meson.build"
	run "$CUDA_XCC" toolchain meson --sysroot "$S" -arch sm_90 --target-fs "$R" --output "$d/cross.ini"
	assert_status 0
	run env CUDA_PATH="$S" meson setup --cross-file "$d/cross.ini" "$d/b" "$d/src"
	assert_status 0
	run meson compile -C "$d/b"
	assert_status 0
	[[ "$output" != *"GLIBC_PRIVATE"* ]]
	# The C++ links went through check-link, as the driver's CUDA links are checked.
	assert_output_contains "newcxx needs GLIBCXX_3.4.29 (libstdc++.so.6), newer than the --target-fs $R/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.28 defines (up to GLIBCXX_3.4.28)"
	[[ "$output" != *"launch needs"* ]]
	max=$(glibc_max "$d/b/launch")
	[ -n "$max" ]
	[ "$(printf '%s\n' "$max" GLIBC_2.31 | sort -V | tail -1)" = GLIBC_2.31 ]
	# meson test runs the program through the exe_wrapper, 'cuda-xcc run' with the root.
	run meson test -C "$d/b" --print-errorlogs
	assert_status 0
	grep -q "launch_increment: err=35 (cudaErrorInsufficientDriver)" "$d/b/meson-logs/testlog.txt"
	grep -q -- "--target-fs $R" "$d/b/meson-logs/testlog.txt"
}

@test "target-root: check-link checks files or a link command against the root and the JetPack floor" {
	need_root
	need aarch64-linux-gnu-gcc "links the programs"
	d=$(scratch)
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	# Debian 12's cross glibc: GLIBC_2.34, above bullseye's and JetPack 5's.
	aarch64-linux-gnu-gcc -o "$d/new" "$d/m.c"
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$R" "$d/new"
	assert_status 0
	assert_output_contains "warning: $d/new needs GLIBC_2.34, but the --target-fs C library"
	run "$CUDA_XCC" check-link --target sbsa --jetpack 5.1 --strict "$d/new"
	assert_status 1
	assert_output_contains "error: $d/new needs GLIBC_2.34 (libc.so.6), newer than JetPack 5.1"
	assert_output_contains "scripts/fetch-target-root.sh --jetpack J"
	# As a linker launcher: the command runs, then the file its -o names is checked.
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$R" -- aarch64-linux-gnu-gcc -o "$d/l" "$d/m.c"
	assert_status 0
	[ -x "$d/l" ]
	assert_output_contains "warning: $d/l needs GLIBC_2.34, but the --target-fs C library"
	# A compile links nothing: it is run, and its object is not checked.
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$R" -- aarch64-linux-gnu-gcc -c -o "$d/m.o" "$d/m.c"
	assert_status 0
	[ -s "$d/m.o" ]
	assert_output_equals ""
	# A failing link command's status is the launcher's; nothing is checked.
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$R" -- aarch64-linux-gnu-gcc -o "$d/bad" "$d/missing.c"
	assert_status 1
	[ ! -e "$d/bad" ]
	run "$CUDA_XCC" check-link --target sbsa
	assert_status 2
	assert_output_contains "give the files to check, or '--' and the link command"
	run env -u CUDA_XCC_SYSROOT "$CUDA_XCC" check-link "$d/new"
	assert_status 2
	assert_output_contains "no target: give --sysroot DIR"
}

# The device's C library in root $1 at usr/aarch64-linux-gnu/lib (where Debian 12's cross
# toolchain keeps its own on this machine), and a JetPack-like sysroot.json in $2.
move_libc_aside() {
	mkdir -p "$1/usr/aarch64-linux-gnu/lib" "$2/bin"
	cat > "$2/sysroot.json" <<-'EOS'
	{"format": 1, "cuda": "12.6.3", "target": "jetson", "tag": "linux-aarch64",
	 "target_dir": "aarch64-linux", "host_compiler": "aarch64-linux-gnu-g++-12",
	 "capabilities": ["8.7"], "components": []}
	EOS
}

# The bullseye root copied to $d/root, move_libc_aside's sysroot in $d/sr, for a test whose
# decoy is this machine's cross glibc 2.36 (where links or scripts lead here), or skip.
decoy_root() {
	need_root
	need aarch64-linux-gnu-gcc "links the programs"
	need readelf "reads the programs' version needs"
	if [ ! -f /usr/aarch64-linux-gnu/lib/libc.so.6 ]; then
		skip "no /usr/aarch64-linux-gnu/lib/libc.so.6 (libc6-arm64-cross) to be the decoy"
	fi
	d=$(scratch)
	cp -a "$R" "$d/root"
	move_libc_aside "$d/root" "$d/sr"
}

# Root $1, whose libc.so.6 (in-root: $2, bullseye's 2.31) is reached through links that
# this machine, following them itself, would take to its own glibc 2.36: each reader
# reads the device's. $3 is a fake sysroot for the toolchain flags.
assert_read_inside() {
	local r=$1 libc=$2 sr=$3 d=$BATS_TEST_TMPDIR before after fl
	before=$(cd "$r" && find . -printf '%p %l %s %T@\n' | sort | sha256sum)
	# doctor: the root's floor, not this machine's.
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$r"
	assert_output_contains "the device's glibc is GLIBC_2.30, the cross toolchain's GLIBC_2.36"
	[[ "$output" != *"device glibc GLIBC_2.36"* ]]
	# check-link: a program needing GLIBC_2.34 does not start on that root.
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	aarch64-linux-gnu-gcc -o "$d/new" "$d/m.c"
	run "$CUDA_XCC" check-link --target sbsa --strict --target-fs "$r" "$d/new"
	assert_status 1
	assert_output_contains "error: $d/new needs GLIBC_2.34, but the --target-fs C library $libc provides only up to GLIBC_2.30"
	# The linker: the root's libc, where arc4random (glibc 2.36) is missing.
	run "$CUDA_XCC" toolchain flags --sysroot "$sr" --target-fs "$r"
	assert_status 0
	fl=$output
	printf '#include <stdlib.h>\nint main(void) { return (int)arc4random(); }\n' > "$d/a4.c"
	# shellcheck disable=SC2086 # the flags are words
	run aarch64-linux-gnu-gcc $fl -o "$d/a4" "$d/a4.c"
	assert_status 1
	assert_output_contains "undefined reference to \`arc4random'"
	# shellcheck disable=SC2086
	run aarch64-linux-gnu-gcc $fl -o "$d/m" "$d/m.c"
	assert_status 0
	readelf -V "$d/m" | grep -q 'GLIBC_2.17'
	run readelf -V "$d/m"
	[[ "$output" != *"GLIBC_2.34"* ]]
	after=$(cd "$r" && find . -printf '%p %l %s %T@\n' | sort | sha256sum)
	[ "$before" = "$after" ]
}

@test "target-root: a link with more .. than its depth is read inside the root, not this machine's glibc" {
	decoy_root
	mv "$d/root/lib/aarch64-linux-gnu/libc-2.31.so" "$d/root/usr/aarch64-linux-gnu/lib/libc.so.6"
	# Deeper than any test directory: on this machine it reaches /, on the device too.
	up=$(printf '../%.0s' $(seq 40))
	ln -sfn "${up}usr/aarch64-linux-gnu/lib/libc.so.6" "$d/root/lib/aarch64-linux-gnu/libc.so.6"
	[ "$(readlink -f "$d/root/lib/aarch64-linux-gnu/libc.so.6")" = /usr/aarch64-linux-gnu/lib/libc.so.6 ]
	assert_read_inside "$d/root" "$d/root/usr/aarch64-linux-gnu/lib/libc.so.6" "$d/sr"
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$d/root"
	assert_output_contains "absolute or escaping links among the linker's files"
	# run: qemu loads the root's libc, not this machine's (which crashed its 2.31 loader).
	need qemu-aarch64 "runs the aarch64 program"
	printf '#include <stdio.h>\n#include <gnu/libc-version.h>\nint main(void) { printf("glibc %%s\\n", gnu_get_libc_version()); return 0; }\n' > "$d/v.c"
	# shellcheck disable=SC2046 # the flags are words
	aarch64-linux-gnu-gcc $("$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$d/root") -o "$d/v" "$d/v.c"
	run "$CUDA_XCC" run --target-fs "$d/root" "$d/v"
	assert_status 0
	assert_output_equals "glibc 2.31"
}

@test "target-root: an absolute directory link is read inside the root, not this machine's glibc" {
	decoy_root
	rmdir "$d/root/usr/aarch64-linux-gnu/lib"
	mv "$d/root/lib/aarch64-linux-gnu" "$d/root/usr/aarch64-linux-gnu/lib"
	ln -s /usr/aarch64-linux-gnu/lib "$d/root/lib/aarch64-linux-gnu"
	assert_read_inside "$d/root" "$d/root/usr/aarch64-linux-gnu/lib/libc-2.31.so" "$d/sr"
	# run: the loader's link goes through that dir link, which qemu follows here: refused.
	run "$CUDA_XCC" run --target-fs "$d/root" "$BATS_TEST_TMPDIR/m"
	assert_status 1
	assert_output_contains "the program's loader $d/root/lib/ld-linux-aarch64.so.1 is a link to aarch64-linux-gnu/ld-2.31.so, which qemu follows on this machine, not in the root"
}

# Root $1's libc.so as the linker script $2 (one line).
plant_script() {
	printf '/* planted */\nOUTPUT_FORMAT(elf64-littleaarch64)\n%s\n' "$2" > "$1/usr/lib/aarch64-linux-gnu/libc.so"
}

@test "target-root: a linker script's paths with .. are read inside the root, or the script is refused naming the path" {
	decoy_root
	# Deeper than any test directory: on this machine they reach /; on the device they stop there.
	up=$(printf '../%.0s' $(seq 40))
	nonshared=/usr/lib/aarch64-linux-gnu/libc_nonshared.a
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	# Paths the device reads inside the root: the root's glibc 2.31 is linked. An
	# assignment's = names no file.
	plant_script "$d/root" "PROVIDE(xcc_probe = 1); GROUP ( /lib/${up}lib/aarch64-linux-gnu/libc.so.6 $nonshared AS_NEEDED ( =/${up}lib/ld-linux-aarch64.so.1 ) )"
	run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$d/root"
	assert_status 0
	fl=$output
	# shellcheck disable=SC2086 # the flags are words
	run "$CUDA_XCC" check-link --target sbsa --strict --target-fs "$d/root" -- aarch64-linux-gnu-gcc $fl -o "$d/m" "$d/m.c"
	assert_status 0
	assert_output_equals ""
	[ "$(glibc_max "$d/m")" = GLIBC_2.17 ]
	# Paths that name nothing in the root, where this machine's glibc 2.36 is: refused.
	decoy=${up}usr/aarch64-linux-gnu/lib/libc.so.6
	for group in "GROUP ( /$decoy $nonshared )" "INPUT ( /$decoy )" \
		"GROUP ( /lib/aarch64-linux-gnu/libc.so.6 AS_NEEDED ( /$decoy ) )" \
		"GROUP ( \"/$decoy\" )" "GROUP ( \$SYSROOT/$decoy )"; do
		plant_script "$d/root" "$group"
		run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$d/root"
		assert_status 2
		assert_output_contains "--target-fs $d/root: the linker script usr/lib/aarch64-linux-gnu/libc.so names "
		assert_output_contains "$decoy, no file in that root (read as the device reads it, / being the root and .. stopping there)"
	done
	# The driver refuses it too, before nvcc runs.
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/root" -### x.cu -o x
	assert_status 2
	assert_output_contains "the linker script usr/lib/aarch64-linux-gnu/libc.so names \$SYSROOT/$decoy"
	# A relative path with .., and a = that names a file beside the root.
	plant_script "$d/root" "GROUP ( $decoy )"
	run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$d/root"
	assert_status 2
	assert_output_contains "names $decoy, a relative path with '..'"
	plant_script "$d/root" "GROUP ( =2/lib/aarch64-linux-gnu/libc.so.6 )"
	run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$d/root"
	assert_status 2
	assert_output_contains "names =2/lib/aarch64-linux-gnu/libc.so.6, which ld joins to the root's path without a '/'"
	# Behind a link that stays in the root, the same script is read the same way.
	mv "$d/root/usr/lib/aarch64-linux-gnu/libc.so" "$d/root/usr/lib/libc-script"
	ln -s ../libc-script "$d/root/usr/lib/aarch64-linux-gnu/libc.so"
	run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$d/root"
	assert_status 2
	assert_output_contains "the linker script usr/lib/aarch64-linux-gnu/libc.so names =2/lib"
}

@test "target-root: a root whose libc links loop or name nothing inside it is refused, the link named" {
	d=$(scratch)
	mkdir -p "$d/loop/lib/aarch64-linux-gnu" "$d/dangling/lib/aarch64-linux-gnu"
	ln -s libc.so.6.b "$d/loop/lib/aarch64-linux-gnu/libc.so.6"
	ln -s /lib/aarch64-linux-gnu/libc.so.6 "$d/loop/lib/aarch64-linux-gnu/libc.so.6.b"
	# On this machine it leads to a libc; on the device, to nothing.
	up=$(printf '../%.0s' $(seq 40))
	ln -s "${up}usr/aarch64-linux-gnu/lib/libc.so.6" "$d/dangling/lib/aarch64-linux-gnu/libc.so.6"
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$d/loop" "$d/m.c"
	assert_status 2
	assert_output_contains "--target-fs $d/loop: the links from lib/aarch64-linux-gnu/libc.so.6 loop or are more than 40 deep"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/loop" -### x.cu -o x
	assert_status 2
	assert_output_contains "the links from lib/aarch64-linux-gnu/libc.so.6 loop"
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$d/dangling" "$d/m.c"
	assert_status 2
	assert_output_contains "--target-fs $d/dangling: lib/aarch64-linux-gnu/libc.so.6 -> ${up}usr/aarch64-linux-gnu/lib/libc.so.6 names no file in that root"
	run xcc --target sbsa --cuda 11.8 -arch sm_90 --target-fs "$d/dangling" -### x.cu -o x
	assert_status 2
	assert_output_contains "lib/aarch64-linux-gnu/libc.so.6 -> ${up}usr/aarch64-linux-gnu/lib/libc.so.6 names no file in that root"
	run "$CUDA_XCC" doctor --target sbsa --cuda 11.8 --target-fs "$d/dangling"
	assert_output_contains "FAIL  glibc-floor      --target-fs $d/dangling: lib/aarch64-linux-gnu/libc.so.6 -> ${up}usr"
}

@test "target-root: the C++ runtime advice is what links and starts: -static-libstdc++ only where the toolchain's glibc is no newer than the root's" {
	need_root
	need aarch64-linux-gnu-g++-12 "Debian 12's cross g++ (glibc 2.36)"
	need qemu-aarch64 "runs the aarch64 programs"
	need readelf "reads the programs' version needs"
	d=$(scratch)
	one_file_sysroot "$d/sr" sbsa 12.6.3 aarch64-linux-gnu-g++-12 9.0
	# g++-12's libstdc++ makes this need GLIBCXX_3.4.29; bullseye's (as JetPack 5's) has 3.4.28.
	printf '#include <iostream>\n#include <string>\n#include <vector>\nint main() { std::vector<std::string> v{"a", "b"}; std::cout << std::to_string(42) + v[1] << std::endl; return 0; }\n' > "$d/p.cpp"
	run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$R"
	assert_status 0
	fl=$output
	# shellcheck disable=SC2086 # the flags are words
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$R" -- aarch64-linux-gnu-g++-12 $fl -o "$d/p" "$d/p.cpp"
	assert_status 0
	assert_output_contains "$d/p needs GLIBCXX_3.4.29 (libstdc++.so.6)"
	assert_output_contains "-static-libstdc++ does not help: this toolchain's static C++ runtime was built against its own glibc (up to GLIBC_2.36), newer than the device's (up to GLIBC_2.30)"
	[[ "$output" != *"link the C++ runtime into the program"* ]]
	[[ "$output" != *"link it into the program"* ]]
	# What that advice would give: against the root the link fails
	# (__libc_single_threaded, _dl_find_object are glibc 2.32 and 2.35's).
	# shellcheck disable=SC2086
	run aarch64-linux-gnu-g++-12 $fl -static-libstdc++ -static-libgcc -o "$d/ps" "$d/p.cpp"
	assert_status 1
	assert_output_contains "undefined reference to"
	[ ! -e "$d/ps" ]
	# Without a root, against JetPack 5.1's floor: it adds GLIBC_2.32-2.36 needs.
	aarch64-linux-gnu-g++-12 -static-libstdc++ -static-libgcc -o "$d/pj" "$d/p.cpp"
	readelf -V "$d/pj" | grep -q 'GLIBC_2.36'
	run "$CUDA_XCC" check-link --target jetson --jetpack 5.1 --strict "$d/pj"
	assert_status 1
	assert_output_contains "$d/pj needs GLIBC_2.36 (libc.so.6), newer than JetPack 5.1"
	assert_output_contains "for GLIBCXX_/CXXABI_/GCC_ needs, use a cross g++ built for the device's glibc and libstdc++"
	[[ "$output" != *"-static-libstdc++ -Xcompiler -static-libgcc"* ]]
	# A root with the toolchain's own glibc and bullseye's older libstdc++: there the
	# static C++ runtime is advised, and following it the program passes and starts.
	r2=$d/r2
	mkdir -p "$r2/lib/aarch64-linux-gnu" "$r2/usr/lib/aarch64-linux-gnu"
	cp -L /usr/aarch64-linux-gnu/lib/libc.so.6 /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 \
		/usr/aarch64-linux-gnu/lib/libm.so.6 "$r2/lib/aarch64-linux-gnu/"
	ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$r2/lib/ld-linux-aarch64.so.1"
	cp -P "$R"/usr/lib/aarch64-linux-gnu/libstdc++.so.6* "$r2/usr/lib/aarch64-linux-gnu/"
	cp "$R/lib/aarch64-linux-gnu/libgcc_s.so.1" "$r2/lib/aarch64-linux-gnu/"
	run "$CUDA_XCC" toolchain flags --sysroot "$d/sr" --target-fs "$r2"
	assert_status 0
	fl=$output
	# shellcheck disable=SC2086
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$r2" -- aarch64-linux-gnu-g++-12 $fl -o "$d/q" "$d/p.cpp"
	assert_status 0
	assert_output_contains "$d/q needs GLIBCXX_3.4.29 (libstdc++.so.6)"
	assert_output_contains "link the C++ runtime into the program (-Xcompiler -static-libstdc++ -Xcompiler -static-libgcc: the cross toolchain's glibc, up to GLIBC_2.36, is no newer than the device's, up to GLIBC_2.36"
	# shellcheck disable=SC2086
	run "$CUDA_XCC" check-link --target sbsa --target-fs "$r2" --strict -- aarch64-linux-gnu-g++-12 $fl \
		-static-libstdc++ -static-libgcc -o "$d/qs" "$d/p.cpp"
	assert_status 0
	assert_output_equals ""
	run qemu-aarch64 -L "$r2" "$d/qs"
	assert_status 0
	assert_output_equals "42b"
}
