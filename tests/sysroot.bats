#!/usr/bin/env bats
# sysroot create / info / list / verify, from redist-shaped archives built at
# test time (tests/fixtures/make-redist.sh: real ELF files, real sha256).
load lib/common
load lib/httpd
load lib/sysroot

setup_file() {
	sysroot_fixtures
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$FX/m132" --cuda 13.2.0 --tags linux-sbsa >/dev/null
}

setup() {
	sysroot_test_env
	M132=$FX/m132/redistrib_13.2.0.json
}

teardown() {
	stop_httpd
	if [ -n "${HOLDER_PID:-}" ]; then kill "$HOLDER_PID" 2>/dev/null || true; fi
}

mk126() {
	xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" \
		--progress never "$@"
}

machine_of() { readelf -h "$1" | sed -n 's/^ *Machine: *//p'; }

# A private copy of the 12.6.3 mirror, to damage.
mirror_copy() {
	rm -rf "$1"
	cp -r "$FX/m126" "$1"
}

@test "sysroot: --jetpack is checked and recorded; --mirror file:///dir/ works like the path" {
	run mk126 --jetpack 5.1
	assert_status 2
	assert_output_contains "JetPack 5.1 runs CUDA up to 12.2 on sm_87"
	[ ! -e "$D" ]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "file://$FX/m126/" \
		--dest "$D" --progress never --jetpack 6.1.0
	assert_status 0
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["jetpack"], m["products"])' "$D/sysroot.json"
	# A point release is recorded as itself (its L4T is its own).
	assert_output_equals "6.1 {'cuda': '12.6.3'}"
	rm -rf "$D"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "file://$FX/m126/" \
		--dest "$D" --progress never --jetpack 6.2.1
	assert_status 0
	run python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jetpack"])' "$D/sysroot.json"
	assert_output_equals "6.2.1"
	# One the table does not list is refused before anything is made.
	rm -rf "$D"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "file://$FX/m126/" \
		--dest "$D" --progress never --jetpack 6.1.1
	assert_status 2
	assert_output_contains "the point releases of JetPack 6.1 it knows: 6.1"
	[ ! -e "$D" ]
}

@test "sysroot: components carry their CUDA range; a missing one says who asked for it" {
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$BATS_TEST_TMPDIR/m117" --cuda 11.7.1 --tags linux-sbsa >/dev/null
	run xcc sysroot create --target sbsa -arch sm_80 --cuda 11.7 --from "$BATS_TEST_TMPDIR/m117/redistrib_11.7.1.json" \
		--dest "$D" --progress never
	assert_status 0
	[ ! -e "$D/licenses/cuda_profiler_api" ]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D.2" \
		--progress never --components libcufft
	assert_status 2
	assert_output_contains "no component libcufft (named with --components"
}

@test "sysroot: create from a manifest gives NVIDIA's toolkit layout" {
	run mk126 --components libcublas
	assert_status 0
	assert_output_contains "sysroot ready: $D"
	[ "$(machine_of "$D/bin/nvcc")" = "Advanced Micro Devices X86-64" ]
	[ "$(machine_of "$D/nvvm/bin/cicc")" = "Advanced Micro Devices X86-64" ]
	[ "$(machine_of "$D/targets/aarch64-linux/lib/libcudart.so.12.0.1")" = AArch64 ]
	[ "$(readlink "$D/targets/aarch64-linux/lib/libcudart.so")" = libcudart.so.12 ]
	# lib64 of libcublas lands in lib; its headers beside cudart's
	[ -f "$D/targets/aarch64-linux/lib/libcublas.so.12.1" ]
	[ ! -e "$D/targets/aarch64-linux/lib64" ]
	[ -f "$D/targets/aarch64-linux/include/cublas_v2.h" ]
	[ -f "$D/targets/aarch64-linux/lib/stubs/libcuda.so" ]
	# cuda_nvcc's headers from the target tag's copy
	[ -f "$D/targets/aarch64-linux/include/fatbinary_section.h" ]
	[ "$(ls "$D/targets")" = aarch64-linux ]
	# no top <name>-archive directory, no host lib/ at the top; include and
	# lib64 are links into the target directory, as in /usr/local/cuda
	[ -z "$(ls -d "$D"/*-archive 2>/dev/null)" ]
	[ ! -e "$D/lib" ]
	[ "$(readlink "$D/include")" = targets/aarch64-linux/include ]
	[ "$(readlink "$D/lib64")" = targets/aarch64-linux/lib ]
	[ -f "$D/include/cublas_v2.h" ]
	[ -f "$D/lib64/stubs/libcuda.so" ]
	# our profile, not the archive's
	grep -q "Written by cuda-xcc" "$D/bin/nvcc.profile"
	[ -f "$D/licenses/cuda_cudart/LICENSE" ]
	run python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["cuda"], m["target"], m["tag"], m["target_dir"], m["capabilities"], len(m["components"]), all(len(c["sha256"])==64 for c in m["components"]), len(m["fingerprint"]))' "$D/sysroot.json"
	assert_output_equals "12.6.3 jetson linux-aarch64 aarch64-linux ['8.7'] 7 True 64"
	no_leftovers
}

@test "sysroot: CUDA 13.2 sbsa: libnvvm, cuda_crt, cccl/, compat_orin for Orin on JetPack 6.2" {
	run xcc sysroot create --target jetson -arch sm_87 --cuda 13.2 --jetpack 6.2 --from "$M132" --dest "$D" --progress never
	assert_status 0
	[ "$(ls "$D/targets")" = sbsa-linux ]
	[ "$(machine_of "$D/nvvm/lib64/libnvvm.so.4.0.0")" = "Advanced Micro Devices X86-64" ]
	[ -f "$D/targets/sbsa-linux/include/crt/host_config.h" ]
	[ -f "$D/targets/sbsa-linux/include/cccl/cuda/std/version" ]
	[ -f "$D/targets/sbsa-linux/lib/libnvptxcompiler_static.a" ]
	[ "$(machine_of "$D/targets/sbsa-linux/compat_orin/libcuda.so.1")" = AArch64 ]
	grep -q 'SYSTEM_INCLUDES.*include/cccl' "$D/bin/nvcc.profile"
	grep -q '"cuda_compat_orin"' "$D/sysroot.json"
	# The sysroot has what the board needs: the driver does not ask for it on
	# every compile, but says that the pairing is unverified.
	echo '__global__ void k() {}' > "$BATS_TEST_TMPDIR/k.cu"
	run xcc --sysroot "$D" --dry-run -arch sm_87 -c "$BATS_TEST_TMPDIR/k.cu"
	assert_status 0
	[[ "$output" != *"lacks the cuda_compat_orin component"* ]]
	assert_output_contains "warning: that JetPack 6.2 runs CUDA 13.2 on sm_87 through cuda_compat_orin is unverified"
	run xcc sysroot info "$D"
	assert_output_contains "board needs    cuda-compat-orin-13-2: JetPack 6.2's sm_87 (Jetson AGX Orin, Orin NX, Orin Nano) runs CUDA 13.2 only with NVIDIA's compat libraries for it installed on the board"
	assert_output_contains "in the sysroot (targets/sbsa-linux/compat_orin/)"
}

@test "sysroot: JetPack 7.2 runs CUDA 13.2 on Orin natively: no cuda_compat_orin in the plan, the sysroot or its board needs" {
	run xcc sysroot create --target jetson -arch sm_87 --cuda 13.2 --jetpack 7.2 --from "$M132" --dest "$D" --progress never --dry-run
	assert_status 0
	[[ "$output" != *"cuda_compat_orin"* ]]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 13.2 --jetpack 7.2 --from "$M132" --dest "$D" --progress never
	assert_status 0
	[ ! -e "$D/targets/sbsa-linux/compat_orin" ]
	run xcc sysroot info "$D" --json
	assert_status 0
	run python3 -c 'import json,sys; m=json.loads(sys.argv[1]); print(m["jetpack"], m["board_needs"], [c["name"] for c in m["components"] if "compat" in c["name"]])' "$output"
	assert_output_equals "7.2 [] []"
	# Without --jetpack no need is every board's (7.2 has none): nothing planned.
	run xcc sysroot create --target jetson -arch sm_87 --cuda 13.2 --from "$M132" --dest "$D.2" --progress never --dry-run
	assert_status 0
	[[ "$output" != *"cuda_compat_orin"* ]]
}

# A linux-sbsa vendor library for the Orin + Thor test: nvcc 13.0's device code
# for the GPUs given (nvcc -gencode words) in an aarch64 static library, packed
# as redist archive libjk; prints the archive's path.
sbsa_lib_archive() { # OUT GENCODE...
	local out=$1 d
	shift
	d=$out/libjk-linux-sbsa-1.0-archive
	mkdir -p "$d/lib"
	printf '__global__ void k(float *a) { a[threadIdx.x] += 1.0f; }\n' > "$out/k.cu"
	printf 'int jk_fixture(void) { return 1; }\n' > "$out/d.c"
	/usr/local/cuda/bin/nvcc -fatbin "$@" -o "$out/k.fatbin" "$out/k.cu"
	aarch64-linux-gnu-gcc -c -fPIC -o "$out/d.o" "$out/d.c"
	aarch64-linux-gnu-objcopy --add-section .nv_fatbin="$out/k.fatbin" \
		--set-section-flags .nv_fatbin=alloc,readonly "$out/d.o" "$out/k.o"
	aarch64-linux-gnu-ar rcs "$d/lib/libjk_static.a" "$out/k.o"
	tar -C "$out" -cJf "$d.tar.xz" libjk-linux-sbsa-1.0-archive
	echo "$d.tar.xz"
}

@test "sysroot: Orin and Thor in one CUDA 13.2 SBSA sysroot for JetPack 7.2, each GPU checked with the exact-SASS rule" {
	[ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc at /usr/local/cuda (it builds the vendor library's device code)"
	need aarch64-linux-gnu-objcopy "puts device code into an aarch64 object"
	local both only87
	both=$(sbsa_lib_archive "$BATS_TEST_TMPDIR/both" -gencode arch=compute_87,code=sm_87 -gencode arch=compute_110,code=sm_110)
	only87=$(sbsa_lib_archive "$BATS_TEST_TMPDIR/only87" -gencode arch=compute_87,code=sm_87)
	run xcc sysroot create --target sbsa -arch sm_87,sm_110 --cuda 13.2 --jetpack 7.2 --from "$M132" --from "$both" --dest "$D" --progress never --dry-run
	assert_status 0
	[[ "$output" != *"cuda_compat_orin"* ]]
	run xcc sysroot create --target sbsa -arch sm_87,sm_110 --cuda 13.2 --jetpack 7.2 --from "$M132" --from "$both" --dest "$D" --progress never
	assert_status 0
	[ "$(ls "$D/targets")" = sbsa-linux ]
	run xcc sysroot info "$D"
	assert_status 0
	echo "$output" | grep -E '^  lib/libjk_static.a +OK +OK$'
	run xcc sysroot info "$D" --json
	run python3 -c 'import json,sys; m=json.loads(sys.argv[1]); print(m["capabilities"], m["jetpack"], m["board_needs"])' "$output"
	assert_output_equals "['8.7', '11.0'] 7.2 []"
	# Orin's SASS does not serve Thor: on Tegra only the GPU's own SASS runs.
	run xcc sysroot create --target sbsa -arch sm_87,sm_110 --cuda 13.2 --jetpack 7.2 --from "$M132" --from "$only87" --dest "$D.2" --progress never
	assert_status 2
	assert_output_contains "NOT SERVED"
	[ ! -e "$D.2" ]
}

@test "sysroot: Orin and Thor together are refused naming the GPU a CUDA or JetPack cannot serve" {
	run xcc sysroot create --target sbsa -arch sm_87,sm_110 --cuda 13.0 --jetpack 7.2 --from "$M132" --dest "$D" --dry-run
	assert_status 2
	assert_output_contains "sm_87 (Jetson AGX Orin, Orin NX, Orin Nano) cannot be served by CUDA 13.0"
	run xcc sysroot create --target sbsa -arch sm_87,sm_110 --cuda 13.2 --jetpack 7.1 --from "$M132" --dest "$D" --dry-run
	assert_status 2
	assert_output_contains "JetPack 7.1 does not support sm_87"
	run xcc sysroot create --target sbsa -arch sm_87,sm_110 --cuda 13.2 --jetpack 6.2 --from "$M132" --dest "$D" --dry-run
	assert_status 2
	assert_output_contains "JetPack 6.2 does not support sm_110"
	[ ! -e "$D" ]
}

@test "sysroot: JetPack 5.1 with CUDA 12.2: create offers cuda_compat and unpacks it into compat/; info and the driver say what the board needs" {
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$BATS_TEST_TMPDIR/m122" --cuda 12.2.2 --tags linux-aarch64 --compat >/dev/null
	local m=$BATS_TEST_TMPDIR/m122/redistrib_12.2.2.json
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.2 --jetpack 5.1 --from "$m" --dest "$D" --progress never
	assert_status 0
	assert_output_contains "note: JetPack 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package installed on the board (cuda-compat-12-2, libcuda.so.* in /usr/local/cuda-12.2/compat); --components cuda_compat puts it in the sysroot (targets/aarch64-linux/compat/)"
	[ ! -e "$D/targets/aarch64-linux/compat" ]
	run xcc sysroot info "$D"
	assert_status 0
	assert_output_contains "board needs    cuda-compat-12-2: JetPack 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package"
	assert_output_contains "not in the sysroot: install cuda-compat-12-2 on the board, or make the sysroot again with --components cuda_compat"
	echo '__global__ void k() {}' > "$BATS_TEST_TMPDIR/k.cu"
	run xcc --sysroot "$D" --dry-run -arch sm_87 -c "$BATS_TEST_TMPDIR/k.cu"
	assert_status 0
	assert_output_contains "note: JetPack 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package"
	assert_output_contains "this sysroot lacks the cuda_compat component"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.2 --jetpack 5.1 --from "$m" --dest "$D.2" \
		--progress never --components cuda_compat
	assert_status 0
	[[ "$output" != *"cuda-compat"* ]]
	[ "$(machine_of "$D.2/targets/aarch64-linux/compat/libcuda.so.1.1")" = AArch64 ]
	[ "$(readlink "$D.2/targets/aarch64-linux/compat/libcuda.so.1")" = libcuda.so.1.1 ]
	[ -f "$D.2/licenses/cuda_compat/LICENSE" ]
	run xcc sysroot info "$D.2"
	assert_output_contains "board needs    cuda-compat-12-2: JetPack 5.1's boards"
	assert_output_contains "in the sysroot (targets/aarch64-linux/compat/), for run --device and the runtime packages to ship"
	run xcc sysroot info --json "$D.2"
	assert_status 0
	run python3 -c 'import json,sys; b=json.loads(sys.argv[1])["board_needs"]; print(len(b), b[0]["component"], b[0]["package"], b[0]["device_dir"], b[0]["in_sysroot"])' "$output"
	assert_output_equals "1 cuda_compat cuda-compat-12-2 /usr/local/cuda-12.2/compat True"
	run xcc --sysroot "$D.2" --dry-run -arch sm_87 -c "$BATS_TEST_TMPDIR/k.cu"
	assert_status 0
	[[ "$output" != *"compat"* ]]
	# doctor's jetpack line: the release as tables shows it (a line its points'
	# L4T range; a point its own) and what the board needs.
	l=$(xcc doctor --sysroot "$D" | awk '$2 == "jetpack"' || true)
	[[ "$l" == "ok "*"JetPack 5.1 (L4T 35.2.1 to 35.6.4, Ubuntu 20.04) supports 8.7; JetPack 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package installed on the board"* ]]
	[[ "$l" == *"the sysroot lacks the cuda_compat component: install cuda-compat-12-2 on the board"* ]]
	[[ "$l" != *"runs CUDA 12.2"* ]]
	l=$(xcc doctor --sysroot "$D.2" --jetpack 5.1.2 | awk '$2 == "jetpack"' || true)
	[[ "$l" == "ok "*"JetPack 5.1.2 (L4T 35.4.1, Ubuntu 20.04) supports 8.7; JetPack 5.1.2's boards run CUDA 12.2 only with"* ]]
	[[ "$l" == *"the sysroot has the cuda_compat component (targets/aarch64-linux/compat/)"* ]]
}

@test "sysroot: --dry-run prints the plan and creates nothing" {
	run mk126 --dry-run
	assert_status 0
	assert_output_contains "tag linux-aarch64, targets/aarch64-linux"
	assert_output_contains "host   cuda_nvcc"
	assert_output_contains "cuda_cudart-linux-aarch64-12.6.96-archive.tar.xz"
	assert_output_contains "fingerprint "
	[ ! -e "$D" ]
	[ ! -e "$D.lock" ]
}

@test "sysroot: selection from NVIDIA's real manifests" {
	local m=$XCC_SRCDIR/tests/data/manifests/cuda
	run xcc sysroot create --target sbsa --cuda 13.0.2 --from "$m/redistrib_13.0.2.json" --dry-run
	assert_status 0
	assert_output_contains "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-13.0.88-archive.tar.xz"
	assert_output_contains "libnvvm/linux-x86_64/"
	assert_output_contains "cuda_crt/linux-sbsa/"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 13.0.2 --from "$m/redistrib_13.0.2.json" --dry-run
	assert_status 2
	assert_output_contains "linux-sbsa serves it only from CUDA 13.2"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 11.8 --from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 0
	[ "$(echo "$output" | grep -c '^target .*linux-aarch64/')" -eq 5 ]
	[ "$(echo "$output" | grep -c '^host .*linux-x86_64/')" -eq 1 ]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --components fabricmanager --dry-run
	assert_status 2
	assert_output_contains "no linux-aarch64 archive of fabricmanager"
	assert_output_contains "linux-x86_64, linux-sbsa"
}

# Real device code for the library flavour tests: nvcc 13.0's fatbin containers in an
# aarch64 object, archived as libcudadevrt.a is. $FX/fb/l4t.a carries sm_87 SASS, which
# only NVIDIA's L4T build has; $FX/fb/sbsa.a sm_80 and sm_90 SASS and no Jetson GPU's,
# as a server (SBSA) build.
flavour_libs() {
	local nvcc=/usr/local/cuda/bin/nvcc fb=$FX/fb f
	[ -x "$nvcc" ] || skip "$nvcc is missing (it builds the flavour fixtures' device code)"
	need aarch64-linux-gnu-objcopy "puts device code into an aarch64 object"
	[ -f "$fb/sbsa.a" ] && return 0
	mkdir -p "$fb"
	printf '__global__ void k(float *a) { a[threadIdx.x] += 1.0f; }\n' > "$fb/k.cu"
	printf 'int devrt_fixture(void) { return 1; }\n' > "$fb/d.c"
	"$nvcc" -fatbin -gencode arch=compute_87,code=sm_87 -o "$fb/l4t.fatbin" "$fb/k.cu"
	"$nvcc" -fatbin -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=[sm_90,compute_90] -o "$fb/sbsa.fatbin" "$fb/k.cu"
	aarch64-linux-gnu-gcc -c -fPIC -o "$fb/d.o" "$fb/d.c"
	for f in l4t sbsa; do
		aarch64-linux-gnu-objcopy --add-section .nv_fatbin="$fb/$f.fatbin" \
			--set-section-flags .nv_fatbin=alloc,readonly "$fb/d.o" "$fb/$f.o"
		aarch64-linux-gnu-ar rcs "$fb/$f.a.tmp" "$fb/$f.o"
		mv "$fb/$f.a.tmp" "$fb/$f.a"
	done
}

# cudart_as OUT TAG DEVRT [STATIC]: the fixture's linux-aarch64 cuda_cudart repacked as
# OUT/cuda_cudart-TAG-12.6.96-archive.tar.xz, with DEVRT as its libcudadevrt.a (and
# STATIC as its libcudart_static.a); prints the archive's path.
cudart_as() {
	local out=$1 tag=$2 name=cuda_cudart-$2-12.6.96-archive src
	rm -rf "$out/x"
	mkdir -p "$out/x"
	tar -xJf "$FX"/m126/cuda_cudart/linux-aarch64/*.tar.xz -C "$out/x"
	src=$(echo "$out"/x/cuda_cudart-*)
	[ "$src" = "$out/x/$name" ] || mv "$src" "$out/x/$name"
	cp "$3" "$out/x/$name/lib/libcudadevrt.a"
	if [ -n "${4:-}" ]; then cp "$4" "$out/x/$name/lib/libcudart_static.a"; fi
	tar -C "$out/x" -cJf "$out/$name.tar.xz" "$name"
	echo "$out/$name.tar.xz"
}

# sysroot create for TARGET with CUDA 12.6 from the fixture's host nvcc and ARCHIVE.
create_from_cudart() { # TARGET ARCH ARCHIVE
	xcc sysroot create --target "$1" -arch "$2" --cuda 12.6 --dest "$D" --progress never \
		--from "$FX"/m126/cuda_nvcc/linux-x86_64/*.tar.xz --from "$3"
}

json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$D/sysroot.json" "$1"; }

@test "sysroot: --target jetson refuses the SBSA build of the libraries, however named; the L4T build is recorded" {
	flavour_libs
	local a o=$BATS_TEST_TMPDIR/a
	# named L4T (linux-aarch64), but its device code is a server build's
	a=$(cudart_as "$o" linux-aarch64 "$FX/fb/sbsa.a")
	run create_from_cudart jetson sm_87 "$a"
	assert_status 2
	assert_output_contains "--target jetson with CUDA 12.6 needs NVIDIA's L4T build, for Jetson's integrated GPU (linux-aarch64)"
	assert_output_contains "are the SBSA build, for Arm servers with a discrete GPU (linux-sbsa)"
	assert_output_contains "SASS but none for a Jetson GPU (sm_53 sm_62 sm_72 sm_87)"
	assert_output_contains "libcudadevrt.a (sm_80 sm_90)"
	assert_output_contains "use --target sbsa"
	[ ! -e "$D" ]
	no_leftovers
	# the same archive for an Arm server is what it is
	run create_from_cudart sbsa sm_90 "$a"
	assert_status 0
	run json_field flavour
	assert_output_equals "linux-sbsa"
	rm -rf "$D"
	# the L4T build: Jetson SASS
	a=$(cudart_as "$o" linux-aarch64 "$FX/fb/l4t.a")
	run create_from_cudart jetson sm_87 "$a"
	assert_status 0
	run json_field flavour
	assert_output_equals "linux-aarch64"
	run json_field flavour_evidence
	assert_output_contains "libcudadevrt.a (sm_87)"
	run xcc sysroot info "$D"
	assert_output_contains "libraries      linux-aarch64 build (SASS for a Jetson GPU, which only the L4T build carries, in libcudadevrt.a (sm_87))"
}

@test "sysroot: --target sbsa refuses the L4T build; libraries of both builds are refused" {
	flavour_libs
	local a o=$BATS_TEST_TMPDIR/a
	a=$(cudart_as "$o" linux-sbsa "$FX/fb/l4t.a")
	run create_from_cudart sbsa sm_90 "$a"
	assert_status 2
	assert_output_contains "--target sbsa with CUDA 12.6 needs NVIDIA's SBSA build, for Arm servers with a discrete GPU (linux-sbsa)"
	assert_output_contains "are the L4T build, for Jetson's integrated GPU (linux-aarch64)"
	assert_output_contains "libcudadevrt.a (sm_87)"
	assert_output_contains "use --target jetson"
	[ ! -e "$D" ]
	a=$(cudart_as "$o" linux-aarch64 "$FX/fb/l4t.a" "$FX/fb/sbsa.a")
	run create_from_cudart jetson sm_87 "$a"
	assert_status 2
	assert_output_contains "mix NVIDIA's two aarch64 builds"
	assert_output_contains "libcudadevrt.a (sm_87) carry SASS for a Jetson GPU"
	assert_output_contains "libcudart_static.a (sm_80 sm_90) carry SASS but none"
	[ ! -e "$D" ]
}

@test "sysroot: verify finds server libraries copied into a Jetson sysroot" {
	flavour_libs
	local a o=$BATS_TEST_TMPDIR/a lib=$D/targets/aarch64-linux/lib
	a=$(cudart_as "$o" linux-aarch64 "$FX/fb/l4t.a")
	run create_from_cudart jetson sm_87 "$a"
	assert_status 0
	run xcc sysroot verify "$D"
	assert_status 0
	# an SBSA build's libcudadevrt.a copied over the L4T one
	cp "$FX/fb/sbsa.a" "$lib/libcudadevrt.a"
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "the target libraries are not the build this sysroot is for (linux-aarch64)"
	assert_output_contains "libcudadevrt.a (sm_80 sm_90)"
}

@test "sysroot: without device code the packages' names tell the build; .debs, which do not say, leave it unknown and say so" {
	local p=$BATS_TEST_TMPDIR/pkg
	# the fixture archives carry no device code: a linux-sbsa one is no Jetson library
	run create_from_cudart jetson sm_87 "$(echo "$FX"/m126/cuda_cudart/linux-sbsa/*.tar.xz)"
	assert_status 2
	assert_output_contains "are the SBSA build"
	assert_output_contains "no SASS in any target library; the packages name linux-sbsa: cuda_cudart"
	[ ! -e "$D" ]
	# from the manifest: the tag it was taken for
	mk126
	run json_field flavour
	assert_output_equals "linux-aarch64"
	rm -rf "$D"
	make_debian_debs "$p"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 0
	assert_output_contains "note: cannot tell which build of NVIDIA's aarch64 libraries the sysroot holds"
	run json_field flavour
	assert_output_equals "None"
	run xcc sysroot info "$D"
	assert_output_contains "libraries      which build (L4T or SBSA) is not known"
}

@test "sysroot: several manifests: CUDA's release whatever the order, each product's version" {
	local m=$XCC_SRCDIR/tests/data/manifests
	run xcc sysroot create --target sbsa --cuda 12.8 -arch sm_90 --from "$m/cudnn/redistrib_9.14.0.json" \
		--from "$m/cuda/redistrib_12.8.1.json" --components cudnn --dry-run
	assert_status 0
	assert_output_contains "target sbsa, CUDA 12.8.1,"
	assert_output_contains "product cudnn 9.14.0"
	assert_output_contains "cudnn/linux-sbsa/cudnn-linux-sbsa-9.14.0"
	run xcc sysroot create --target sbsa --cuda 11.8 -arch sm_90 --from "$m/cudnn/redistrib_9.14.0.json" \
		--from "$m/cuda/redistrib_11.8.0.json" --components cudnn --dry-run
	assert_status 2
	assert_output_contains "has no variant of cudnn for CUDA 11 (cuda11); its variants are for: cuda12, cuda13"
	run xcc sysroot create --target sbsa --cuda 12.8.0 -arch sm_90 --from "$m/cuda/redistrib_12.8.1.json" --dry-run
	assert_status 0
	assert_output_contains "--cuda 12.8.0 asked for, but"
	assert_output_contains "is CUDA 12.8.1"
}

@test "sysroot: a rerun with the same inputs does nothing and says so" {
	mk126
	local before
	before=$(stat -c %i "$D/sysroot.json")
	run mk126
	assert_status 0
	assert_output_contains "up to date"
	[ "$(stat -c %i "$D/sysroot.json")" = "$before" ]
	# other GPUs: made again, in place
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$M126" --dest "$D" --progress never
	assert_status 0
	assert_output_contains "sysroot ready"
	grep -q '"7.2"' "$D/sysroot.json"
	no_leftovers
}

@test "sysroot: corrupt, truncated and mismatching archives are refused; the old sysroot stays" {
	mk126
	local sig m=$BATS_TEST_TMPDIR/m a
	sig=$(tree_sig "$D")
	a=cuda_cudart/linux-aarch64/cuda_cudart-linux-aarch64-12.6.96-archive.tar.xz

	# one flipped byte: sha256 mismatch
	mirror_copy "$m"
	printf '\377' | dd of="$m/$a" bs=1 seek=100 conv=notrunc 2>/dev/null
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_failed
	assert_output_contains "cuda_cudart-linux-aarch64-12.6.96-archive.tar.xz"
	[ "$(tree_sig "$D")" = "$sig" ]

	# truncated: size mismatch
	mirror_copy "$m"
	truncate -s 200 "$m/$a"
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_failed
	assert_output_contains "cuda_cudart-linux-aarch64-12.6.96-archive.tar.xz"
	[ "$(tree_sig "$D")" = "$sig" ]

	# a broken archive whose manifest entry matches it: unpack refuses it
	mirror_copy "$m"
	head -c 300 "$FX/m126/$a" > "$m/$a"
	sed -i "s/$(sha256sum "$FX/m126/$a" | cut -d' ' -f1)/$(sha256sum "$m/$a" | cut -d' ' -f1)/; s/\"size\": \"$(stat -c %s "$FX/m126/$a")\"/\"size\": \"300\"/" "$m/redistrib_12.6.3.json"
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_failed
	[ "$(tree_sig "$D")" = "$sig" ]
	no_leftovers

	# one whose xz data breaks half-way through 20 MB, the decoder thread
	# ahead of the files being written: the same
	mirror_copy "$m"
	local big=$BATS_TEST_TMPDIR/big top
	mkdir -p "$big"
	xz -dc "$FX/m126/$a" | tar -C "$big" -xf -
	top=$(ls "$big")
	seq 1 3000000 >"$big/$top/lib/big.txt"
	tar -C "$big" -cf - "$top" | xz -1 >"$m/$a"
	printf '\x55\xaa\x55\xaa' | dd of="$m/$a" bs=1 seek=$(( $(stat -c %s "$m/$a") / 2 )) conv=notrunc 2>/dev/null
	sed -i "s/$(sha256sum "$FX/m126/$a" | cut -d' ' -f1)/$(sha256sum "$m/$a" | cut -d' ' -f1)/; s/\"size\": \"$(stat -c %s "$FX/m126/$a")\"/\"size\": \"$(stat -c %s "$m/$a")\"/" "$m/redistrib_12.6.3.json"
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_failed
	assert_output_contains "corrupt xz data"
	[ "$(tree_sig "$D")" = "$sig" ]
	no_leftovers
}

@test "sysroot: a hostile archive is refused and nothing is written outside" {
	local m=$BATS_TEST_TMPDIR/m a
	mirror_copy "$m"
	a=cuda_nvtx/linux-aarch64/cuda_nvtx-linux-aarch64-12.6.88-archive.tar.xz
	python3 - "$m/$a" <<'EOF'
import io, lzma, sys, tarfile
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w") as t:
    for name, data in [("cuda_nvtx-linux-aarch64-12.6.88-archive/include/ok.h", b"ok\n"),
                       ("cuda_nvtx-linux-aarch64-12.6.88-archive/../../../../escaped", b"x\n")]:
        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
open(sys.argv[1], "wb").write(lzma.compress(buf.getvalue()))
EOF
	sed -i "s/$(sha256sum "$FX/m126/$a" | cut -d' ' -f1)/$(sha256sum "$m/$a" | cut -d' ' -f1)/; s/\"size\": \"$(stat -c %s "$FX/m126/$a")\"/\"size\": \"$(stat -c %s "$m/$a")\"/" "$m/redistrib_12.6.3.json"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_status 1
	assert_output_contains "refused"
	[ ! -e "$D" ]
	[ -z "$(find "$BATS_TEST_TMPDIR" -name escaped)" ]
}

@test "sysroot: single archives, sides read from their content, not their names" {
	local s=$BATS_TEST_TMPDIR/single f
	mkdir -p "$s"
	for f in cuda_nvcc/linux-x86_64 cuda_cudart/linux-aarch64 cuda_cccl/linux-aarch64 cuda_nvtx/linux-aarch64; do
		cp "$FX/m126/$f"/*.tar.xz "$s/"
	done
	# a misleading name: the aarch64 cudart called x86_64
	mv "$s"/cuda_cudart-linux-aarch64-*.tar.xz "$s/cuda_cudart-linux-x86_64-12.6.96-archive.tar.xz"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --progress never \
		$(for f in "$s"/*.tar.xz; do printf -- '--from %s ' "$f"; done)
	assert_status 0
	[ "$(machine_of "$D/bin/nvcc")" = "Advanced Micro Devices X86-64" ]
	[ "$(machine_of "$D/targets/aarch64-linux/lib/libcudart.so.12.0.1")" = AArch64 ]
	[ -f "$D/targets/aarch64-linux/include/fatbinary_section.h" ]
	[ -f "$D/targets/aarch64-linux/include/cuda_runtime.h" ]
	grep -q '"side":	"host"' "$D/sysroot.json"
	# without the host side there is no nvcc: refused, with the way out
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$BATS_TEST_TMPDIR/sr2" --progress never \
		--from "$s/cuda_cudart-linux-x86_64-12.6.96-archive.tar.xz"
	assert_status 2
	assert_output_contains "no x86_64 nvcc"
	[ ! -e "$BATS_TEST_TMPDIR/sr2" ]
}

@test "sysroot: .deb and wheel packages map into the same layout" {
	need dpkg-deb "to build test .deb packages"
	local p=$BATS_TEST_TMPDIR/pkg e=$FX/m126
	mkdir -p "$p/host/DEBIAN" "$p/host/usr/lib/nvidia-cuda-toolkit/bin" "$p/host/usr/lib/nvidia-cuda-toolkit/libdevice" "$p/host/usr/bin"
	tar -xJf "$e"/cuda_nvcc/linux-x86_64/*.tar.xz -C "$p" --wildcards '*/bin/nvcc' '*/bin/ptxas'
	cp "$p"/cuda_nvcc-linux-x86_64-*/bin/nvcc "$p/host/usr/lib/nvidia-cuda-toolkit/bin/nvcc"
	cp "$p"/cuda_nvcc-linux-x86_64-*/bin/ptxas "$p/host/usr/bin/ptxas"
	ln -s /etc/nvcc.profile "$p/host/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile"
	printf '#!/bin/sh\nexec /usr/lib/nvidia-cuda-toolkit/bin/nvcc "$@"\n' > "$p/host/usr/bin/nvcc"
	printf 'BC' > "$p/host/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"
	printf 'Package: nvidia-cuda-toolkit\nVersion: 12.6.0-1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' > "$p/host/DEBIAN/control"
	dpkg-deb -Zxz --build "$p/host" "$p/host.deb" >/dev/null
	# the target as a wheel
	mkdir -p "$p/whl/nvidia/cuda_runtime/include" "$p/whl/nvidia/cuda_runtime/lib" "$p/whl/nvidia_cuda_runtime-12.6.0.dist-info"
	tar -xJf "$e"/cuda_cudart/linux-aarch64/*.tar.xz -C "$p" --wildcards '*/libcudart.so.12.0.1'
	cp "$p"/cuda_cudart-linux-aarch64-*/lib/libcudart.so.12.0.1 "$p/whl/nvidia/cuda_runtime/lib/libcudart.so.12"
	printf '/* cuda_runtime.h */\n' > "$p/whl/nvidia/cuda_runtime/include/cuda_runtime.h"
	touch "$p/whl/nvidia/__init__.py" "$p/whl/nvidia/cuda_runtime/__init__.py"
	printf 'Wheel-Version: 1.0\nTag: py3-none-manylinux_2_28_aarch64\n' > "$p/whl/nvidia_cuda_runtime-12.6.0.dist-info/WHEEL"
	printf 'Metadata-Version: 2.1\nName: nvidia-cuda-runtime\nVersion: 12.6.0\n' > "$p/whl/nvidia_cuda_runtime-12.6.0.dist-info/METADATA"
	(cd "$p/whl" && python3 -c 'import zipfile,os; z=zipfile.ZipFile("../rt.whl","w"); [z.write(os.path.join(r,f)) for r,_,fs in os.walk(".") for f in fs]')
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never --from "$p/host.deb" --from "$p/rt.whl"
	assert_status 0
	[ "$(machine_of "$D/bin/nvcc")" = "Advanced Micro Devices X86-64" ]
	[ "$(machine_of "$D/bin/ptxas")" = "Advanced Micro Devices X86-64" ]
	[ -f "$D/nvvm/libdevice/libdevice.10.bc" ]
	grep -q "Written by cuda-xcc" "$D/bin/nvcc.profile"
	[ ! -L "$D/bin/nvcc.profile" ]
	[ "$(machine_of "$D/targets/sbsa-linux/lib/libcudart.so.12")" = AArch64 ]
	[ -f "$D/targets/sbsa-linux/include/cuda_runtime.h" ]
	[ -z "$(ls -d "$D"/*.dist-info "$D"/usr 2>/dev/null)" ]
	[ -z "$(find "$D" -name __init__.py)" ]
}

# Debian-shaped CUDA packages in $1 (host.deb: the amd64 toolkit; dev.deb: the arm64
# nvidia-cuda-dev with cudart's and cublas's files and headers, dev links into
# rt.deb (libcudart12) and blas.deb (libcublas12), which are built too).
make_debian_debs() {
	need dpkg-deb "to build test .deb packages"
	local p=$1 e=$FX/m126 x=$1/x l=usr/lib/aarch64-linux-gnu
	mkdir -p "$x" "$p/host/DEBIAN" "$p/host/usr/lib/nvidia-cuda-toolkit/bin" "$p/host/usr/bin" \
		"$p/dev/DEBIAN" "$p/dev/usr/include" "$p/dev/$l/stubs" "$p/dev/$l/cuda-gdb" \
		"$p/rt/DEBIAN" "$p/rt/$l" "$p/blas/DEBIAN" "$p/blas/$l"
	tar -xJf "$e"/cuda_nvcc/linux-x86_64/*.tar.xz -C "$x" --wildcards '*/bin/nvcc'
	cp "$x"/cuda_nvcc-*/bin/nvcc "$p/host/usr/lib/nvidia-cuda-toolkit/bin/nvcc"
	# Debian 12.4's compute-sanitizer: a host tool under the toolkit dir, linked from usr/bin.
	mkdir -p "$p/host/usr/lib/nvidia-cuda-toolkit/compute-sanitizer"
	printf '#!/bin/sh\n' > "$p/host/usr/lib/nvidia-cuda-toolkit/compute-sanitizer/compute-sanitizer"
	ln -s ../lib/nvidia-cuda-toolkit/compute-sanitizer/compute-sanitizer "$p/host/usr/bin/compute-sanitizer"
	# Debian's wrappers that run the build machine's g++ for an nvcc without -ccbin
	printf '#!/bin/sh\nexec x86_64-linux-gnu-g++ "$@"\n' > "$p/host/usr/lib/nvidia-cuda-toolkit/bin/g++"
	printf '#!/bin/sh\nexec x86_64-linux-gnu-gcc "$@"\n' > "$p/host/usr/lib/nvidia-cuda-toolkit/bin/gcc"
	chmod +x "$p/host/usr/lib/nvidia-cuda-toolkit/bin/g++" "$p/host/usr/lib/nvidia-cuda-toolkit/bin/gcc"
	printf 'Package: nvidia-cuda-toolkit\nVersion: 12.6.0-1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' > "$p/host/DEBIAN/control"
	tar -xJf "$e"/cuda_cudart/linux-aarch64/*.tar.xz -C "$x"
	tar -xJf "$e"/libcublas/linux-aarch64/*.tar.xz -C "$x"
	cp "$x"/cuda_cudart-*/include/* "$x"/libcublas-*/include/* "$p/dev/usr/include/"
	cp "$x"/cuda_cudart-*/lib/libcudart_static.a "$x"/cuda_cudart-*/lib/libcudadevrt.a "$p/dev/$l/"
	cp "$x"/cuda_cudart-*/lib/libcudart_static.a "$p/dev/$l/libcublas_static.a"
	cp "$x"/cuda_cudart-*/lib/libcudart_static.a "$p/dev/$l/cuda-gdb/libcudacore.a"
	cp "$x"/cuda_cudart-*/lib/stubs/libcuda.so "$p/dev/$l/stubs/libcuda.so"
	cp "$x"/cuda_cudart-*/lib/stubs/libcuda.so "$p/dev/$l/stubs/libcublas.so"
	ln -s libcudart.so.12 "$p/dev/$l/libcudart.so"
	ln -s libcublas.so.12 "$p/dev/$l/libcublas.so"
	ln -s libnvToolsExt.so.1 "$p/dev/$l/libnvToolsExt.so"
	# Debian 12.4's glibc math-vector.h for the build machine's own -I (not a CUDA header).
	mkdir -p "$p/dev/usr/lib/nvidia-cuda-toolkit/include/aarch64-linux-gnu/bits"
	echo '/* glibc */' > "$p/dev/usr/lib/nvidia-cuda-toolkit/include/aarch64-linux-gnu/bits/math-vector.h"
	printf 'Package: nvidia-cuda-dev\nVersion: 12.6.0-1\nArchitecture: arm64\nMaintainer: t <t@t>\nDescription: test\n' > "$p/dev/DEBIAN/control"
	cp "$x"/cuda_cudart-*/lib/libcudart.so.12.0.1 "$p/rt/$l/"
	ln -s libcudart.so.12.0.1 "$p/rt/$l/libcudart.so.12"
	printf 'Package: libcudart12\nVersion: 12.6.0-1\nArchitecture: arm64\nMaintainer: t <t@t>\nDescription: test\n' > "$p/rt/DEBIAN/control"
	cp "$x"/libcublas-*/lib64/libcublas.so.12.1 "$p/blas/$l/"
	ln -s libcublas.so.12.1 "$p/blas/$l/libcublas.so.12"
	printf 'Package: libcublas12\nVersion: 12.6.0-1\nArchitecture: arm64\nMaintainer: t <t@t>\nDescription: test\n' > "$p/blas/DEBIAN/control"
	for d in host dev rt blas; do dpkg-deb -Zxz --build "$p/$d" "$p/$d.deb" >/dev/null; done
}

@test "sysroot: from a .deb holding many libraries only the planned components' files are taken" {
	local p=$BATS_TEST_TMPDIR/pkg l=$D/targets/sbsa-linux/lib
	make_debian_debs "$p"
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 0
	# Debian's gcc/g++ wrappers (the x86_64 compiler) are left out; nvcc stays
	[ -x "$D/bin/nvcc" ]
	[ ! -e "$D/bin/g++" ]
	[ ! -e "$D/bin/gcc" ]
	# cudart's files, all headers (small), no cublas library, no cuda-gdb
	[ -f "$l/libcudart_static.a" ]
	[ -f "$l/libcudadevrt.a" ]
	[ -f "$l/stubs/libcuda.so" ]
	[ -f "$l/libcudart.so.12.0.1" ]
	[ "$(readlink "$l/libcudart.so")" = libcudart.so.12 ]
	[ -f "$D/targets/sbsa-linux/include/cublas_v2.h" ]
	[ -z "$(ls "$l" "$l/stubs" | grep cublas)" ]
	[ ! -e "$l/cuda-gdb" ]
	# the dev link whose library's package was not given is not left dangling
	[ ! -L "$l/libnvToolsExt.so" ]
	assert_output_contains "libnvToolsExt.so"
	# nor is a tool link to what a cross toolkit does not take; Debian's glibc shim stays out
	[ ! -L "$D/bin/compute-sanitizer" ]
	assert_output_contains "not part of a cross toolkit: bin/compute-sanitizer"
	[ -z "$(find -L "$D" -type l)" ]
	[ ! -e "$D/targets/sbsa-linux/include/aarch64-linux-gnu" ]
	[ ! -e "$D/compute-sanitizer" ]
	[ -z "$(find -L "$l" -type l)" ]
	run xcc sysroot verify "$D"
	assert_status 0
	# asked for with --components, cublas's files in nvidia-cuda-dev come
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb" --components libcublas
	assert_status 0
	[ -f "$l/libcublas_static.a" ]
	[ -f "$l/stubs/libcublas.so" ]
	# cublas's own package given with --from asks for it too: it comes from both
	# packages, and the sysroot is remade
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb" --from "$p/blas.deb"
	assert_status 0
	[ -f "$l/libcublas_static.a" ]
	[ -f "$l/stubs/libcublas.so" ]
	[ "$(machine_of "$l/libcublas.so.12.1")" = AArch64 ]
	[ "$(readlink -f "$l/libcublas.so")" = "$(readlink -f "$l/libcublas.so.12.1")" ]
	[ -f "$l/libcudart_static.a" ]
	run xcc sysroot verify "$D"
	assert_status 0
	# a component whose files are unknown is refused before anything is done
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$BATS_TEST_TMPDIR/sr2" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --components libnosuch
	assert_status 2
	assert_output_contains "libnosuch"
	assert_output_contains "libcublas"
	[ ! -e "$BATS_TEST_TMPDIR/sr2" ]
	# --dry-run shows which library files are taken
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --dry-run \
		--from "$p/host.deb" --from "$p/dev.deb" --components libcublas
	assert_output_contains "libraries taken from .debs and wheels: libcudart.so*"
	assert_output_contains " libcublas_static.a "
}

@test "sysroot: --target-fs is recorded and gives the target libraries the device's libstdc++" {
	need aarch64-linux-gnu-g++ "builds a target library that needs libstdc++"
	local p=$BATS_TEST_TMPDIR/pkg fs=$BATS_TEST_TMPDIR/fs bare=$BATS_TEST_TMPDIR/bare t=/usr/aarch64-linux-gnu/lib
	local a=$BATS_TEST_TMPDIR/cuda_cxx-linux-sbsa-1.0-archive
	make_debian_debs "$p"
	# a target library (a redist archive of its own) that needs libstdc++ and libgcc_s
	mkdir -p "$a/lib"
	printf '#include <string>\nstd::string cxx_name() { return std::string("cxx"); }\n' > "$p/cxx.cc"
	aarch64-linux-gnu-g++ -shared -fPIC -Wl,-soname,libcxx.so.1 -o "$a/lib/libcxx.so.1" "$p/cxx.cc"
	readelf -d "$a/lib/libcxx.so.1" | grep -q 'libstdc++.so.6'
	tar -cJf "$a.tar.xz" -C "$BATS_TEST_TMPDIR" "$(basename "$a")"
	# two device filesystems from the cross toolchain's own libraries: one with libstdc++
	mkdir -p "$fs/usr/lib/aarch64-linux-gnu" "$bare/usr/lib/aarch64-linux-gnu"
	cp "$t"/libc.so.6 "$t"/libm.so.6 "$t"/libgcc_s.so.1 "$t"/libstdc++.so.6* "$fs/usr/lib/aarch64-linux-gnu/"
	cp "$t"/libc.so.6 "$t"/libm.so.6 "$t"/libgcc_s.so.1 "$bare/usr/lib/aarch64-linux-gnu/"
	ln -s usr/lib "$fs/lib"
	ln -s usr/lib "$bare/lib"
	local from=(--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb" --from "$a.tar.xz")

	# without --target-fs the cross toolchain provides libstdc++: nothing to note
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never "${from[@]}"
	assert_status 0
	[[ "$output" != *libstdc++* ]]
	grep -q '"target_fs":	null' "$D/sysroot.json"
	# a device without libstdc++: the toolchain's copy is not taken for it
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never "${from[@]}" \
		--target-fs "$bare"
	assert_status 0
	assert_output_contains "device must provide: libstdc++.so.6 (needed by targets/sbsa-linux/lib/libcxx.so.1)"
	grep -q "\"target_fs\":	\"$(realpath "$bare")\"" "$D/sysroot.json"
	# one with it: resolved there; another rootfs is another sysroot (remade, recorded)
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never "${from[@]}" \
		--target-fs "$BATS_TEST_TMPDIR/./fs"
	assert_status 0
	[[ "$output" != *libstdc++* ]]
	[[ "$output" != *"up to date"* ]]
	grep -q "\"target_fs\":	\"$(realpath "$fs")\"" "$D/sysroot.json"
	run xcc sysroot info "$D"
	assert_output_contains "target fs      $(realpath "$fs")"
	run xcc sysroot verify "$D"
	assert_status 0
	# refused before anything is done
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$BATS_TEST_TMPDIR/sr2" --progress never \
		"${from[@]}" --target-fs "$BATS_TEST_TMPDIR/nonesuch"
	assert_status 2
	assert_output_contains "--target-fs $BATS_TEST_TMPDIR/nonesuch is not a directory"
	[ ! -e "$BATS_TEST_TMPDIR/sr2" ]
}

@test "sysroot: --target-fs warns about target libraries the device's glibc cannot load" {
	need aarch64-linux-gnu-gcc "builds a target library and an old libc.so.6"
	local p=$BATS_TEST_TMPDIR/pkg old=$BATS_TEST_TMPDIR/old new=$BATS_TEST_TMPDIR/new t=/usr/aarch64-linux-gnu/lib
	local a=$BATS_TEST_TMPDIR/cuda_thr-linux-sbsa-1.0-archive
	make_debian_debs "$p"
	# a target library that needs glibc 2.34's pthread_create
	mkdir -p "$a/lib"
	printf '#include <pthread.h>\nstatic void *run(void *a) { return a; }\nint start(pthread_t *t) { return pthread_create(t, 0, run, 0); }\n' > "$p/thr.c"
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libthr.so.1 -o "$a/lib/libthr.so.1" "$p/thr.c"
	readelf -V "$a/lib/libthr.so.1" | grep -q GLIBC_2.34
	tar -cJf "$a.tar.xz" -C "$BATS_TEST_TMPDIR" "$(basename "$a")"
	# a device whose C library defines only the aarch64 baseline, GLIBC_2.17
	mkdir -p "$old/lib/aarch64-linux-gnu"
	printf 'GLIBC_2.17 { global: puts; local: *; };\n' > "$p/old.map"
	echo 'int puts(const char *s) { (void)s; return 0; }' > "$p/old.c"
	aarch64-linux-gnu-gcc -shared -nostdlib -fPIC -Wl,-soname,libc.so.6 \
		-Wl,--version-script="$p/old.map" -o "$old/lib/aarch64-linux-gnu/libc.so.6" "$p/old.c"
	local from=(--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb" --from "$a.tar.xz")
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never "${from[@]}" \
		--target-fs "$old"
	assert_status 0
	assert_output_contains "warning: targets/sbsa-linux/lib/libthr.so.1 needs GLIBC_2.34, but the --target-fs C library"
	assert_output_contains "provides only up to GLIBC_2.17 (missing: GLIBC_2.34)"
	# cudart needs only GLIBC_2.17: no warning for it
	[[ "$output" != *"libcudart.so.12.0.1 needs"* ]]
	[ -f "$D/sysroot.json" ]
	# the cross toolchain's own glibc (2.36): nothing to warn about
	mkdir -p "$new/lib/aarch64-linux-gnu"
	cp "$t"/libc.so.6 "$t"/libgcc_s.so.1 "$new/lib/aarch64-linux-gnu/"
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never "${from[@]}" \
		--target-fs "$new"
	assert_status 0
	[[ "$output" != *warning* ]]
	# a root with no C library is no device root: refused before anything is
	# written, as the driver and the toolchain files refuse it
	mkdir -p "$BATS_TEST_TMPDIR/nolibc/usr/lib"
	cp "$D/sysroot.json" "$BATS_TEST_TMPDIR/before.json"
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never "${from[@]}" \
		--target-fs "$BATS_TEST_TMPDIR/nolibc"
	assert_status 2
	assert_output_contains "--target-fs $BATS_TEST_TMPDIR/nolibc has no libc.so.6"
	cmp "$D/sysroot.json" "$BATS_TEST_TMPDIR/before.json"
}

@test "sysroot: from a mirror over HTTP, and --cuda 12.6 finds 12.6.3 in the index" {
	start_httpd normal "$FX/m126"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$HTTPD_URL/" --dest "$D" --progress never
	assert_status 0
	grep -q '"cuda":	"12.6.3"' "$D/sysroot.json"
	[ "$(machine_of "$D/targets/aarch64-linux/lib/libcudart.so.12.0.1")" = AArch64 ]
	# the same from the manifest's URL, from the cache: up to date
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$HTTPD_URL/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_status 0
	assert_output_contains "up to date"
}

@test "sysroot: a local directory as the mirror; a release it does not list is refused" {
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$FX/m126" --dest "$D" --progress never
	assert_status 0
	grep -q '"cuda":	"12.6.3"' "$D/sysroot.json"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.4 --mirror "$FX/m126" --dest "$D" --progress never
	assert_status 2
	assert_output_contains "lists no redistrib_12.4.N.json"
	grep -q '"cuda":	"12.6.3"' "$D/sysroot.json"
}

@test "sysroot: a server that hangs up halfway, and one that sends wrong bytes" {
	mk126
	local sig
	sig=$(tree_sig "$D")
	start_httpd drop-always "$FX/m126" .tar.xz
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --mirror "$HTTPD_URL/" --dest "$D" --progress never
	assert_failed
	[ "$(tree_sig "$D")" = "$sig" ]
	stop_httpd
	start_httpd wrong "$FX/m126" .tar.xz
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --mirror "$HTTPD_URL/" --dest "$D" --progress never
	assert_failed
	assert_output_contains "sha256"
	[ "$(tree_sig "$D")" = "$sig" ]
	no_leftovers
}

@test "sysroot: the lock stops a second create of the same DIR" {
	mkdir -p "$(dirname "$D")"
	# one process holds the lock until killed
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "w"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close()
time.sleep(60)' "$D.lock" "$BATS_TEST_TMPDIR/held" 3>&- &
	HOLDER_PID=$!
	for _ in $(seq 100); do [ -e "$BATS_TEST_TMPDIR/held" ] && break; sleep 0.1; done
	run mk126
	assert_status 1
	assert_output_contains "another cuda-xcc is creating $D"
	[ ! -e "$D" ]
	kill "$HOLDER_PID"; wait "$HOLDER_PID" 2>/dev/null || true
	run mk126
	assert_status 0
}

@test "sysroot: kill -9 at every stage leaves the old sysroot or none, and a rerun gives the same tree" {
	local ref=$BATS_TEST_TMPDIR/ref sig_ref sig_old point
	# every create the whole way: one made from the file store reaches no stage to kill
	xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$ref" --progress never --no-file-store
	sig_ref=$(tree_sig "$ref" | sed "s|$ref||g")
	for point in fetch extract tree meta synced; do
		# no old sysroot: nothing that looks like one may remain
		rm -rf "$D"
		CUDA_XCC_TEST_CRASH_AT=$point run mk126 --no-file-store
		assert_status 137
		[ ! -e "$D/sysroot.json" ]
		ls -d "$D".tmp-* >/dev/null
		mk126 --no-file-store
		[ "$(tree_sig "$D" | sed "s|$D||g")" = "$sig_ref" ]
		no_leftovers
		# an old sysroot (other GPUs) stays whole
		rm -rf "$D"
		xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$M126" --dest "$D" --progress never --no-file-store
		sig_old=$(tree_sig "$D")
		CUDA_XCC_TEST_CRASH_AT=$point run mk126 --no-file-store
		assert_status 137
		[ "$(tree_sig "$D")" = "$sig_old" ]
		mk126 --no-file-store
		[ "$(tree_sig "$D" | sed "s|$D||g")" = "$sig_ref" ]
	done
	# killed right after the exchange: the new one is in place, the old one
	# is cleaned by the next run
	CUDA_XCC_TEST_CRASH_AT=swap run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$M126" --dest "$D" --progress never --no-file-store
	assert_status 137
	grep -q '"7.2"' "$D/sysroot.json"
	mk126 --no-file-store
	[ "$(tree_sig "$D" | sed "s|$D||g")" = "$sig_ref" ]
	no_leftovers
	# and an asynchronous kill -9, whenever it lands
	# (the binary itself in the background, so that $! is its pid)
	"$CUDA_XCC" sysroot create --target jetson -arch sm_72 --cuda 12.6 --from "$M126" --dest "$D" --progress never --no-file-store &
	sleep 0.05
	kill -9 $! 2>/dev/null || true
	wait $! 2>/dev/null || true
	[ ! -e "$D" ] || [ -f "$D/sysroot.json" ]
	mk126 --no-file-store
	[ "$(tree_sig "$D" | sed "s|$D||g")" = "$sig_ref" ]
}

@test "sysroot: an existing directory that is not a sysroot is never replaced" {
	mkdir -p "$D"
	echo precious > "$D/file"
	run mk126
	assert_status 2
	assert_output_contains "is not a cuda-xcc sysroot"
	[ "$(cat "$D/file")" = precious ]
}

@test "sysroot: progress: plain lines off a terminal, a bar with always, nothing with never" {
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D"
	assert_status 0
	assert_output_contains "extracted cuda_cudart target"
	rm -rf "$D"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" --progress always --no-file-store
	assert_status 0
	assert_output_contains "100%"
	assert_output_contains "download "
	rm -rf "$D"
	run mk126 --no-file-store
	assert_status 0
	assert_output_equals "sysroot ready: $D"
}

@test "sysroot: info, info --json, list (the store) and verify" {
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --progress never
	assert_status 0
	local s=$XDG_DATA_HOME/cuda-xcc/sysroots/jetson-12.6
	[ -f "$s/sysroot.json" ]
	run xcc sysroot list
	assert_status 0
	assert_output_contains "jetson-12.6"
	assert_output_contains "linux-aarch64"
	run xcc sysroot list --json
	assert_status 0
	echo "$output" | python3 -c 'import json,sys; l = json.load(sys.stdin); assert [(e["name"], e["tag"], e["capabilities"]) for e in l] == [("jetson-12.6", "linux-aarch64", ["8.7"])], l'
	run xcc sysroot info "$s"
	assert_status 0
	assert_output_contains "CUDA           12.6.3"
	assert_output_contains "target cuda_cudart"
	run xcc sysroot info "$s" --json
	assert_status 0
	echo "$output" | python3 -c 'import json,sys; assert json.load(sys.stdin)["tag"] == "linux-aarch64"'
	run xcc sysroot verify "$s"
	assert_status 0
	assert_output_contains "OK"
	echo tampered >> "$s/targets/aarch64-linux/include/cuda.h"
	rm "$s/bin/ptxas"
	run xcc sysroot verify "$s"
	assert_status 1
	assert_output_contains "bin/ptxas"
	assert_output_contains "include/cuda.h"
	run xcc sysroot info "$BATS_TEST_TMPDIR/nothing"
	assert_status 2
	assert_output_contains "no sysroot at $BATS_TEST_TMPDIR/nothing (no such directory)"
	mkdir "$BATS_TEST_TMPDIR/empty"
	run xcc sysroot info "$BATS_TEST_TMPDIR/empty"
	assert_status 2
	assert_output_contains "is not a cuda-xcc sysroot (no sysroot.json)"
}

@test "sysroot: verify checks every file's contents: 4 bytes overwritten in place, the size kept, are found" {
	mk126
	local f=$D/targets/aarch64-linux/lib/libcudart.so.12.0.1 size
	[ -f "$f" ]
	size=$(stat -c %s "$f")
	run xcc sysroot verify "$D"
	assert_status 0
	assert_output_contains "$D: OK: every file's contents match the sha256 create recorded"
	printf 'XXXX' | dd of="$f" bs=1 seek=100 conv=notrunc status=none
	[ "$(stat -c %s "$f")" = "$size" ]
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "changed contents: targets/aarch64-linux/lib/libcudart.so.12.0.1 (sha256 made as"
	# the fast check says it is one, and passes what it cannot see
	run xcc sysroot verify --metadata-only "$D"
	assert_status 0
	assert_output_contains "OK: metadata only (--metadata-only)"
	assert_output_contains "contents NOT checked"
	# doctor's sysroot check is verify's
	run xcc doctor --sysroot "$D"
	assert_output_contains "changed contents: targets/aarch64-linux/lib/libcudart.so.12.0.1"
}

@test "sysroot: verify on a sysroot that records no digests says it cannot check the contents" {
	mk126
	# what an older cuda-xcc wrote: no header, no digests
	python3 -c '
import sys
p = sys.argv[1]
out = []
for line in open(p).read().splitlines():
    if line.startswith("#"):
        continue
    f = line.split(" ", 4)
    out.append(" ".join(f[:3] + [f[4]]) if f[0] == "f" else line)
open(p, "w").write("\n".join(out) + "\n")' "$D/sysroot.files"
	edit_records -digest -files_sha256
	run xcc sysroot verify "$D"
	assert_status 0
	assert_output_contains "$D: NOT VERIFIED: metadata only: this sysroot records no digests"
	assert_output_contains "CANNOT be checked"
	case "$output" in *"contents match"*) false ;; esac
	# its metadata is still checked
	echo tampered >> "$D/targets/aarch64-linux/include/cuda_runtime_api.h"
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "changed: targets/aarch64-linux/include/cuda_runtime_api.h"
}

# Rewrite $D's records as one who rewrites the tree would: sysroot.json's members
# (python's json: "KEY=VALUE" sets one, "-KEY" drops one), then, with "resign", the
# digests of sysroot.files and of sysroot.json made again as create makes them.
edit_records() {
	python3 - "$D" "$@" <<-'EOF'
	import hashlib, json, sys
	d = sys.argv[1]
	meta = json.load(open(d + "/sysroot.json"))
	for a in sys.argv[2:]:
	    if a == "resign":
	        meta.pop("digest", None)
	        meta["files_sha256"] = hashlib.sha256(open(d + "/sysroot.files", "rb").read()).hexdigest()
	        text = json.dumps(meta, separators=(",", ":"), ensure_ascii=False)
	        meta["digest"] = hashlib.sha256(text.encode()).hexdigest()
	    elif a.startswith("-"):
	        meta.pop(a[1:], None)
	    else:
	        k, v = a.split("=", 1)
	        meta[k] = v
	open(d + "/sysroot.json", "w").write(json.dumps(meta, indent=1) + "\n")
	EOF
}

@test "sysroot: verify covers sysroot.json and sysroot.files by their digests; an edit of either is found" {
	mk126
	local fp good
	good=$(cat "$D/sysroot.json")
	run xcc sysroot verify "$D"
	assert_status 0
	assert_output_contains "$D: OK: every file's contents match the sha256 create recorded, and sysroot.json and sysroot.files their digests"
	# sysroot.json edited in place: another host compiler.
	edit_records host_compiler=aarch64-linux-gnu-g++-13
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "changed: sysroot.json (digest made as "
	assert_output_contains "edited after create; make the sysroot again"
	[[ "$output" != *": OK:"* ]]
	# The driver's --sysroot-fingerprint names the inputs; the edit is found beside it.
	fp=$(xcc sysroot info "$D" --fingerprint)
	run xcc --sysroot "$D" --sysroot-fingerprint "$fp" -arch sm_87 -### x.cu -o x
	assert_status 2
	assert_output_contains "the sysroot $D has the fingerprint asked, but its sysroot.json was edited after create"
	run xcc sysroot info "$D" --tree-digest
	assert_status 1
	assert_output_contains "no tree digest of records that do not hold together"
	# create does not take it for up to date: it is made again.
	run mk126
	assert_status 0
	assert_output_contains "sysroot ready"
	run xcc sysroot verify "$D"
	assert_status 0
	printf '%s\n' "$good" > "$D/sysroot.json"
	run xcc --sysroot "$D" --sysroot-fingerprint "$fp" -arch sm_87 -### x.cu -o x
	assert_status 0
	# sysroot.files edited: a line no entry of the tree has is the least of it.
	echo '# a note' >> "$D/sysroot.files"
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "changed: sysroot.files (sha256 made as "
}

@test "sysroot: a tree rewritten together with its records passes verify; only verify --expect with the digest kept outside finds it" {
	mk126
	local t f=$D/targets/aarch64-linux/include/cuda.h
	run xcc sysroot info "$D" --tree-digest
	assert_status 0
	[[ "$output" =~ ^[0-9a-f]{64}$ ]]
	t=$output
	run xcc sysroot verify "$D" --expect "$t"
	assert_status 0
	assert_output_contains "$D: OK: "
	# The same inputs, another destination: the same tree digest.
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D.2" --progress never
	assert_status 0
	[ "$(xcc sysroot info "$D.2" --tree-digest)" = "$t" ]
	# A file changed, its line in sysroot.files and both digests made again.
	echo '#define CUDA_XCC_PLANTED 1' >> "$f"
	python3 - "$D" "$f" <<-'EOF'
	import hashlib, os, sys
	d, f = sys.argv[1], sys.argv[2]
	rel = os.path.relpath(f, d)
	new = hashlib.sha256(open(f, "rb").read()).hexdigest()
	out = []
	for line in open(d + "/sysroot.files").read().splitlines():
	    p = line.split(" ", 4)
	    if p[0] == "f" and len(p) == 5 and p[4] == rel:
	        line = " ".join([p[0], p[1], str(os.path.getsize(f)), new, rel])
	    out.append(line)
	open(d + "/sysroot.files", "w").write("\n".join(out) + "\n")
	EOF
	edit_records resign
	run xcc sysroot verify "$D"
	assert_status 0
	run xcc sysroot verify "$D" --expect "$t"
	assert_status 1
	assert_output_contains "tree digest "
	assert_output_contains ", not the expected $t: this is not the sysroot that digest was taken of"
	[[ "$output" != *": OK:"* ]]
	# What is not a digest, and a check that would not read the contents: usage errors.
	run xcc sysroot verify "$D" --expect "${t:0:63}"
	assert_status 2
	assert_output_contains "--expect ${t:0:63} is not a tree digest: 64 lowercase hex digits"
	run xcc sysroot verify "$D" --expect "${t^^}"
	assert_status 2
	run xcc sysroot verify "$D" --metadata-only --expect "$t"
	assert_status 2
	assert_output_contains "--expect needs every file's contents checked: not with --metadata-only"
	run xcc sysroot info "$D" --json --tree-digest
	assert_status 2
	assert_output_contains "one of --json, --fingerprint and --tree-digest, not two"
}

@test "sysroot: a sysroot whose records carry no digests (an older cuda-xcc's) is read; verify says what it cannot check, never OK" {
	mk126
	local fp
	fp=$(xcc sysroot info "$D" --fingerprint)
	# What the release before wrote: the same sysroot.json without the two digests.
	edit_records -digest -files_sha256
	run xcc sysroot info "$D"
	assert_status 0
	run xcc --sysroot "$D" --sysroot-fingerprint "$fp" -arch sm_87 -### x.cu -o x
	assert_status 0
	run xcc sysroot verify "$D"
	assert_status 0
	assert_output_contains "$D: NOT VERIFIED: every file's contents match the sha256 sysroot.files records, but sysroot.json and sysroot.files carry no digest of their own"
	assert_output_contains "CANNOT be told"
	[[ "$output" != *": OK:"* ]]
	run xcc sysroot verify "$D" --metadata-only
	assert_status 0
	assert_output_contains "$D: NOT VERIFIED: metadata only (--metadata-only): contents NOT checked, and sysroot.json and sysroot.files carry no digest"
	run xcc sysroot verify "$D" --expect "$(printf '%064d' 0)"
	assert_status 1
	assert_output_contains "tree digest: $D records none (an older cuda-xcc made it), so it cannot be checked against --expect"
	run xcc sysroot info "$D" --tree-digest
	assert_status 1
	assert_output_contains "$D records no tree digest (an older cuda-xcc made it)"
	# Its files are still checked.
	printf 'X' | dd of="$D/targets/aarch64-linux/include/cuda.h" bs=1 seek=3 conv=notrunc status=none
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "changed contents: targets/aarch64-linux/include/cuda.h"
}

@test "sysroot: a --cuda the packages are not is refused, naming both; verify fails on a CUDA record the files are not" {
	local p=$BATS_TEST_TMPDIR/pkg
	make_debian_debs "$p"
	run xcc sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never --dry-run \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 2
	assert_output_contains "--cuda 12.4 asked for, but host.deb (nvidia-cuda-toolkit 12.6.0-1) is CUDA 12.6"
	assert_output_contains "pass --cuda 12.6, or the packages of CUDA 12.4"
	[ ! -e "$D" ]
	# a library's version is not CUDA's (cuBLAS 12.1 ships in CUDA 12.6): not compared
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 0
	run xcc sysroot verify --metadata-only "$D"
	assert_status 0
	python3 -c 'import json,sys; p=sys.argv[1]; m=json.load(open(p)); m["cuda"]="12.4"; json.dump(m, open(p, "w"))' "$D/sysroot.json"
	run xcc sysroot verify --metadata-only "$D"
	assert_status 1
	assert_output_contains "sysroot.json records CUDA 12.4, but it was made from nvidia-cuda-toolkit 12.6.0-1, which is CUDA 12.6"
	# headers of another release than the packages' versions say: refused after extraction,
	# the sysroot there left as it was
	printf '#define CUDA_VERSION 12040\n' > "$p/dev/usr/include/cuda.h"
	dpkg-deb -Zxz --build "$p/dev" "$p/dev.deb" >/dev/null
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 2
	assert_output_contains "--cuda 12.6 asked for, but the sysroot's targets/sbsa-linux/include/cuda.h (CUDA_VERSION 12040) says CUDA 12.4"
	run python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda"])' "$D/sysroot.json"
	assert_output_equals "12.4"
}

@test "sysroot: usage errors" {
	run xcc sysroot create --cuda 12.6
	assert_status 2
	assert_output_contains "--target and --cuda are required"
	run xcc sysroot create --target jetson --cuda 12.6 -arch sm_87 --jobs 0
	assert_status 2
	run xcc sysroot create --target jetson --cuda 12.6 -arch sm_87 --progress sometimes
	assert_status 2
	run xcc sysroot frobnicate
	assert_status 2
}

# nvcc must use its own ptxas, fatbinary, nvlink, cicc and cudafe++, never
# PATH's: the real nvcc 13.0 in a sysroot-shaped tree, another CUDA's bin and
# logging decoys first on PATH.
@test "sysroot: nvcc.profile puts the sysroot's own tools before PATH's" {
	[ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc at /usr/local/cuda"
	need g++ "host compiler for nvcc"
	run xcc sysroot create --target x86_64 --cuda 13.2 --from "$M132" --dest "$D" --progress never
	assert_status 0
	local t decoy=$BATS_TEST_TMPDIR/decoy log=$BATS_TEST_TMPDIR/decoy.log
	# the real toolkit's tools in place of the fixture's ELF stand-ins
	cp /usr/local/cuda/bin/nvcc "$D/bin/nvcc"
	for t in ptxas fatbinary nvlink cudafe++ bin2c; do ln -sf /usr/local/cuda/bin/$t "$D/bin/$t"; done
	cp /usr/local/cuda/bin/crt/* "$D/bin/crt/"
	ln -sf /usr/local/cuda/nvvm/bin/cicc "$D/nvvm/bin/cicc"
	ln -sf /usr/local/cuda/nvvm/libdevice/libdevice.10.bc "$D/nvvm/libdevice/libdevice.10.bc"
	rm -rf "$D/targets/x86_64-linux/include" "$D/targets/x86_64-linux/lib"
	ln -s /usr/local/cuda/include "$D/targets/x86_64-linux/include"
	ln -s /usr/local/cuda/lib "$D/targets/x86_64-linux/lib"
	mkdir -p "$decoy"
	for t in ptxas fatbinary nvlink cicc cudafe++; do
		printf '#!/bin/sh\necho %s >> %s\nexit 1\n' "$t" "$log" > "$decoy/$t"
		chmod +x "$decoy/$t"
	done
	printf '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n' > "$BATS_TEST_TMPDIR/k.cu"
	cd "$BATS_TEST_TMPDIR"
	PATH="$decoy:/usr/local/cuda/bin:$PATH" run "$D/bin/nvcc" -ccbin g++ -arch sm_75 -c k.cu -o k.o
	assert_status 0
	[ ! -e "$log" ]
	[ -s k.o ]
	PATH="$decoy:/usr/local/cuda/bin:$PATH" run "$D/bin/nvcc" -ccbin g++ -arch sm_75 -c k.cu -o k.o --dryrun
	assert_output_contains "$D/bin"
	# the control: without a profile nvcc does pick the decoys
	PATH="$decoy:/usr/local/cuda/bin:$PATH" run "$D/bin/nvcc" --dont-use-profile -ccbin g++ -arch sm_75 -I"$D/targets/x86_64-linux/include" -c k.cu -o k2.o
	assert_status 1
	[ -s "$log" ]
}

# The serving check: a target library with sm_80 SASS and compute_80 PTX runs
# on 8.6, needs the JIT on 9.0, and cannot serve 7.5.
@test "sysroot: libraries that cannot serve a requested GPU stop create, unless --allow-unserved" {
	[ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc at /usr/local/cuda"
	need g++ "host compiler for nvcc"
	local w=$BATS_TEST_TMPDIR/k a
	mkdir -p "$w/libk-linux-x86_64-1.0-archive/lib"
	printf '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\nvoid run(float *x) { k<<<1, 1>>>(x); }\n' > "$w/k.cu"
	/usr/local/cuda/bin/nvcc -ccbin g++ -shared -Xcompiler -fPIC \
		-gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 \
		-o "$w/libk-linux-x86_64-1.0-archive/lib/libk.so" "$w/k.cu"
	# and a static library with the same device code: read member by member
	/usr/local/cuda/bin/nvcc -ccbin g++ -lib \
		-gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 \
		-o "$w/libk-linux-x86_64-1.0-archive/lib/libk_static.a" "$w/k.cu"
	a=$w/libk-linux-x86_64-1.0-archive.tar.xz
	tar -C "$w" -cJf "$a" libk-linux-x86_64-1.0-archive
	run xcc sysroot create --target x86_64 --cuda 13.2 -arch sm_75,sm_86,sm_90 --from "$M132" --from "$a" --dest "$D" --progress never
	assert_status 2
	assert_output_contains "NOT SERVED"
	assert_output_contains "--allow-unserved"
	[ ! -e "$D" ]
	run xcc sysroot create --target x86_64 --cuda 13.2 -arch sm_75,sm_86,sm_90 --from "$M132" --from "$a" --dest "$D" --progress never --allow-unserved
	assert_status 0
	run xcc sysroot info "$D"
	assert_status 0
	echo "$output" | grep -E '^  lib/libk.so +NOT SERVED +OK +PTX-JIT$'
	echo "$output" | grep -E '^  lib/libk_static.a +NOT SERVED +OK +PTX-JIT$'
	run xcc sysroot create --target x86_64 --cuda 13.2 -arch sm_86 --from "$M132" --from "$a" --dest "$D" --progress never
	assert_status 0
}

# ---- symlinks composed from two archives (issue 16 §1) ----------------------
# The target package (extracted first) makes targets/aarch64-linux/lib a link to
# ../../bin/q/../victim: bin/q is missing then, so it stays inside the tree. The
# host package (extracted second) brings bin/q -> .., inside too. Together lib
# leads to $BATS_TEST_TMPDIR/victim, beside the sysroot's temporary tree: the
# dangling-link cleanup (a .deb in the plan) would then delete links there.

# pack_tar OUT.tar.xz ENTRY...: f:PATH:FILE (a copy), t:PATH:TEXT, l:PATH:TARGET
pack_tar() {
	python3 - "$@" <<'PY'
import io, lzma, sys, tarfile
out, entries = sys.argv[1], sys.argv[2:]
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w") as t:
    for e in entries:
        kind, path, arg = e.split(":", 2)
        i = tarfile.TarInfo(path)
        if kind == "l":
            i.type, i.linkname = tarfile.SYMTYPE, arg
            t.addfile(i)
            continue
        data = open(arg, "rb").read() if kind == "f" else arg.encode() + b"\n"
        i.size, i.mode = len(data), 0o755 if kind == "f" else 0o644
        t.addfile(i, io.BytesIO(data))
open(out, "wb").write(lzma.compress(buf.getvalue()))
PY
}

# DIR gets: target.tar.xz (the lib link), target.whl (include/up) and host.tar.xz,
# host.deb (bin/q)
composing_archives() {
	local p=$1 x=$1/x e=$FX/m126 a=cuda_nvcc-linux-x86_64-12.6.88-archive
	local b=cuda_cudart-linux-aarch64-12.6.96-archive
	mkdir -p "$x"
	tar -xJf "$e"/cuda_nvcc/linux-x86_64/*.tar.xz -C "$x" --wildcards '*/bin/nvcc'
	tar -xJf "$e"/cuda_cudart/linux-aarch64/*.tar.xz -C "$x" --wildcards '*/libcudart.so.12.0.1'
	local nvcc=$x/$a/bin/nvcc so=$x/$b/lib/libcudart.so.12.0.1
	pack_tar "$p/$a.tar.xz" "f:$a/bin/nvcc:$nvcc" "l:$a/bin/q:.."
	pack_tar "$p/$b.tar.xz" "t:$b/include/cuda_runtime.h:/* cuda_runtime.h */" \
		"f:$b/share/libcudart.so.12.0.1:$so" "l:$b/lib:../../bin/q/../victim"
	if command -v dpkg-deb >/dev/null; then
		local t=usr/lib/nvidia-cuda-toolkit
		mkdir -p "$p/deb/DEBIAN" "$p/deb/$t/bin"
		cp "$nvcc" "$p/deb/$t/bin/nvcc"
		ln -s .. "$p/deb/$t/bin/q"
		printf 'Package: nvidia-cuda-toolkit\nVersion: 12.6.0-1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' > "$p/deb/DEBIAN/control"
		dpkg-deb -Zxz --build "$p/deb" "$p/host.deb" >/dev/null
	fi
	# a zip symlink: S_IFLNK in the external attributes, the target as data
	python3 - "$p/target.whl" "$so" <<'PY'
import sys, zipfile
out, so = sys.argv[1:3]
with zipfile.ZipFile(out, "w") as z:
    z.writestr("nvidia/cuda_runtime/include/cuda_runtime.h", "/* cuda_runtime.h */\n")
    z.writestr("nvidia/cuda_runtime/share/libcudart.so.12", open(so, "rb").read())
    # (a wheel's lib/ itself is never mapped when a wheel is in the plan)
    link = zipfile.ZipInfo("nvidia/cuda_runtime/include/up")
    link.create_system = 3
    link.external_attr = 0o120777 << 16
    z.writestr(link, "../../../bin/q/../victim")
    z.writestr("nvidia_cuda_runtime-12.6.0.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-manylinux_2_28_aarch64\n")
    z.writestr("nvidia_cuda_runtime-12.6.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: nvidia-cuda-runtime\nVersion: 12.6.0\n")
PY
	mv "$p/$a.tar.xz" "$p/host.tar.xz"
	mv "$p/$b.tar.xz" "$p/target.tar.xz"
}

# Where the composed link leads: a user's directory with a dangling link
# (what the cleanup would delete) and a file.
make_victim() {
	local v=$BATS_TEST_TMPDIR/victim
	rm -rf "$v"
	mkdir -p "$v"
	printf 'the user'"'"'s own file\n' > "$v/own.txt"
	ln -s nowhere "$v/libdangling.so"
}

assert_victim_untouched() {
	local v=$BATS_TEST_TMPDIR/victim
	[ "$(cat "$v/own.txt")" = "the user's own file" ]
	[ -L "$v/libdangling.so" ]
	[ "$(ls -A "$v" | wc -l)" -eq 2 ]
	[ ! -e "$D" ]
	no_leftovers
}

# create_pair FIRST SECOND: the two given in that order, one job at a time
create_pair() {
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --progress never \
		--jobs 1 --allow-unserved --from "$1" --from "$2"
}

assert_refused_escape() { # LINK -> TARGET
	assert_status 2
	assert_output_contains "symlinks together lead out of the sysroot"
	assert_output_contains "symlink $1 leads outside the tree, to $BATS_TEST_TMPDIR/victim"
}

# check_pair TARGET HOST [LINK]: refused in both orders, the victim as it was
check_pair() {
	local p=$BATS_TEST_TMPDIR/pair link=${3:-targets/aarch64-linux/lib -> ../../bin/q/../victim}
	make_victim
	create_pair "$p/$1" "$p/$2"
	assert_refused_escape "$link"
	assert_victim_untouched
	create_pair "$p/$2" "$p/$1"
	assert_refused_escape "$link"
	assert_victim_untouched
}

@test "sysroot: symlinks of two archives that together leave the tree are refused (tar.xz + tar.xz, both orders)" {
	mkdir -p "$BATS_TEST_TMPDIR/pair"
	composing_archives "$BATS_TEST_TMPDIR/pair"
	check_pair target.tar.xz host.tar.xz
	# each is harmless alone: the host one with a real target package
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --progress never \
		--allow-unserved --from "$BATS_TEST_TMPDIR/pair/host.tar.xz" \
		--from "$FX"/m126/cuda_cudart/linux-aarch64/*.tar.xz
	assert_status 0
	[ -L "$D/bin/q" ]
	[ -f "$D/bin/nvcc.profile" ]
}

@test "sysroot: symlinks of two archives that together leave the tree are refused (tar.xz + .deb, both orders)" {
	need dpkg-deb "to build test .deb packages"
	mkdir -p "$BATS_TEST_TMPDIR/pair"
	composing_archives "$BATS_TEST_TMPDIR/pair"
	check_pair target.tar.xz host.deb
}

@test "sysroot: symlinks of two archives that together leave the tree are refused (wheel + tar.xz, both orders)" {
	mkdir -p "$BATS_TEST_TMPDIR/pair"
	composing_archives "$BATS_TEST_TMPDIR/pair"
	check_pair target.whl host.tar.xz "targets/aarch64-linux/include/up -> ../../../bin/q/../victim"
}

@test "sysroot: verify reports a symlink that leads out of the sysroot" {
	mk126
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	cp "$D/bin/nvcc" "$BATS_TEST_TMPDIR/outside/nvcc"
	cp "$D/bin/nvcc.profile" "$BATS_TEST_TMPDIR/outside/nvcc.profile"
	# the link is in the recorded listing too: only the link check can see it
	ln -s ../../../outside "$D/targets/aarch64-linux/up"
	printf 'l targets/aarch64-linux/up -> ../../../outside\n' >> "$D/sysroot.files"
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "symlink targets/aarch64-linux/up -> ../../../outside leads outside the tree, to $BATS_TEST_TMPDIR/outside"
	rm "$D/targets/aarch64-linux/up"
	ln -s /etc "$D/targets/aarch64-linux/up"
	sed -i 's|^l targets/aarch64-linux/up -> .*|l targets/aarch64-linux/up -> /etc|' "$D/sysroot.files"
	run xcc sysroot verify "$D"
	assert_status 1
	assert_output_contains "symlink targets/aarch64-linux/up -> /etc goes through a symlink to an absolute path"
}

@test "sysroot: an archive that expands past its bound is refused before it fills the disk; --max-expand raises the bound" {
	local s=$BATS_TEST_TMPDIR/single f top
	mkdir -p "$s/src"
	for f in cuda_nvcc/linux-x86_64 cuda_cudart/linux-aarch64; do
		cp "$FX/m126/$f"/*.tar.xz "$s/"
	done
	# the fixture's cccl, with 80 MB of zeros in a header: a few KB of xz
	f=$(ls "$FX"/m126/cuda_cccl/linux-aarch64/*.tar.xz)
	tar -C "$s/src" -xJf "$f"
	top=$(ls "$s/src")
	head -c 80000000 /dev/zero >"$s/src/$top/include/zeros.h"
	tar -C "$s/src" -cJf "$s/$(basename "$f")" "$top"
	[ "$(stat -c %s "$s/$(basename "$f")")" -lt 100000 ]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --progress never \
		$(for f in "$s"/*.tar.xz; do printf -- '--from %s ' "$f"; done)
	assert_status 1
	assert_output_contains "refused: it expands to more than 67.1 MB (at member $top/include/zeros.h)"
	assert_output_contains "--max-expand SIZE raises the bound"
	[ ! -e "$D" ]
	no_leftovers
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --progress never \
		--max-expand 200M $(for f in "$s"/*.tar.xz; do printf -- '--from %s ' "$f"; done)
	assert_status 0
	[ "$(stat -c %s "$D/targets/aarch64-linux/include/zeros.h")" = 80000000 ]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --dest "$D" --max-expand 12Q
	assert_status 2
	assert_output_contains "--max-expand takes a size such as 900M or 40G, not '12Q'"
}

@test "sysroot: a .deb whose Installed-Size understates its contents is refused at that bound; --max-expand raises it" {
	local p=$BATS_TEST_TMPDIR/pkg
	make_debian_debs "$p"
	# dev.deb again, declaring 10 KiB while it holds 5 MB of zeros in a header
	head -c 5000000 /dev/zero > "$p/dev/usr/include/zeros.h"
	printf 'Installed-Size: 10\n' >> "$p/dev/DEBIAN/control"
	dpkg-deb -Zxz --build "$p/dev" "$p/dev.deb" >/dev/null
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 1
	assert_output_contains "dev.deb"
	assert_output_contains "refused: it expands to more than 1.1 MB (at member usr/include/zeros.h)"
	assert_output_contains "the package declares Installed-Size: 10 KiB; --max-expand SIZE raises the bound"
	[ ! -e "$D" ]
	no_leftovers
	# the same package, trusted
	run xcc sysroot create --target sbsa --cuda 12.6 --dest "$D" --progress never --max-expand 64M \
		--from "$p/host.deb" --from "$p/dev.deb" --from "$p/rt.deb"
	assert_status 0
	[ "$(stat -c %s "$D/targets/sbsa-linux/include/zeros.h")" = 5000000 ]
}

# A mirror of three payload components whose names sort against their
# sizes: bulk_a 100 KB, bulk_b 500 KB, bulk_c 900 KB in 3000 small files (the
# slowest to extract). Random bytes, so that the archives are as large. Each
# names its files after itself: with one path in two archives, the tree
# would depend on which worker wrote it last.
bulk_mirror() {
	local pay=$BATS_FILE_TMPDIR/bulkpay
	BULK=$BATS_FILE_TMPDIR/bulk
	[ -f "$BULK/redistrib_12.6.3.json" ] && return 0
	python3 - "$pay" <<'PY'
import os, sys
root = sys.argv[1]
for name, files, size in (("a", 1, 100000), ("b", 1, 500000), ("c", 3000, 300)):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for i in range(files):
        with open(os.path.join(d, f"{name}{i:04d}.bin"), "wb") as f:
            f.write(os.urandom(size))
PY
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$BULK" --cuda 12.6.3 --tags linux-x86_64 \
		--payload "bulk_a=$pay/a" --payload "bulk_b=$pay/b" --payload "bulk_c=$pay/c" >/dev/null
}

# The lines about one archive's stage, in the order they came: "fetched
# bulk_c" and so on.
stages() { sed -n 's/^\(fetched\|extracting\|extracted\) *\(bulk_[abc]\) .*/\1 \2/p'; }

@test "sysroot: downloads go largest first, and an archive is extracted while the next ones download" {
	bulk_mirror
	HTTPD_RATE=10000000 start_httpd throttle "$BULK"
	run xcc sysroot create --target x86_64 --cuda 12.6 --from "$HTTPD_URL/redistrib_12.6.3.json" \
		--components bulk_a,bulk_b,bulk_c --dest "$D" --allow-unserved --jobs 1
	assert_status 0
	[ -f "$D/targets/x86_64-linux/lib/c2999.bin" ]
	local order
	order=$(stages <<<"$output" | sed -n 's/^fetched //p' | tr '\n' ' ')
	[ "$order" = "bulk_c bulk_b bulk_a " ] || { echo "fetched in this order: $order" >&2; false; }
	# with one worker, bulk_c (3000 files) is still being extracted when
	# the next archive has arrived: the download went on meanwhile
	stages <<<"$output" | sed -n '/^extracting bulk_c$/,/^extracted bulk_c$/p' >"$BATS_TEST_TMPDIR/during"
	grep -qx 'fetched bulk_b' "$BATS_TEST_TMPDIR/during" || { stages <<<"$output" >&2; false; }
	# and the tree is the one a create without a server gives
	local sig
	sig=$(tree_sig "$D" | sed "s|$D||g")
	rm -rf "$D"
	xcc sysroot create --target x86_64 --cuda 12.6 --from "$BULK/redistrib_12.6.3.json" \
		--components bulk_a,bulk_b,bulk_c --dest "$D" --allow-unserved --progress never --jobs 2
	[ "$(tree_sig "$D" | sed "s|$D||g")" = "$sig" ]
}

@test "sysroot: an archive whose hash does not match never reaches the tree while others are extracted" {
	bulk_mirror
	local bad sig
	bad=$(cd "$BULK" && ls bulk_b/linux-x86_64/*-archive.tar.xz)
	# an old sysroot, to be left as it was
	xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" --progress never
	sig=$(tree_sig "$D")
	start_httpd wrong "$BULK" "$(basename "$bad")"
	run xcc sysroot create --target x86_64 --cuda 12.6 --from "$HTTPD_URL/redistrib_12.6.3.json" \
		--components bulk_a,bulk_b,bulk_c --dest "$D" --allow-unserved --jobs 1
	assert_status 1
	assert_output_contains "sha256 mismatch"
	# the others were fetched and being extracted; the bad one never was
	stages <<<"$output" >"$BATS_TEST_TMPDIR/stages"
	grep -qx 'extracting bulk_c' "$BATS_TEST_TMPDIR/stages"
	grep -qx 'fetched bulk_b' "$BATS_TEST_TMPDIR/stages" && false
	grep -qx 'extracting bulk_b' "$BATS_TEST_TMPDIR/stages" && false
	[ "$(tree_sig "$D")" = "$sig" ]
	no_leftovers
	# nothing of it is kept in the cache under its promised hash
	[ -z "$(find "$XDG_CACHE_HOME" -name "$(sha256sum "$BULK/$bad" | cut -c1-64)")" ]
}

# Two payload components for x86_64 whose lib/ both hold same.txt: $1 and
# $2 its two contents. The mirror in $CONFLICT; the archives' names in
# $NAME_A and $NAME_B.
conflict_mirror() {
	local pay=$BATS_TEST_TMPDIR/cpay
	CONFLICT=$BATS_TEST_TMPDIR/conflict
	rm -rf "$pay" "$CONFLICT"
	mkdir -p "$pay/a" "$pay/b"
	printf '%s\n' "$1" >"$pay/a/same.txt"
	printf '%s\n' "$2" >"$pay/b/same.txt"
	echo a >"$pay/a/only_a.txt"
	echo b >"$pay/b/only_b.txt"
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$CONFLICT" --cuda 12.6.3 --tags linux-x86_64 \
		--payload "bulk_a=$pay/a" --payload "bulk_b=$pay/b" >/dev/null
	NAME_A=$(basename "$CONFLICT"/bulk_a/linux-x86_64/*.tar.xz)
	NAME_B=$(basename "$CONFLICT"/bulk_b/linux-x86_64/*.tar.xz)
}

mk_conflict() { # JOBS
	xcc sysroot create --target x86_64 --cuda 12.6 --from "$CONFLICT/redistrib_12.6.3.json" \
		--components bulk_a,bulk_b --dest "$D" --allow-unserved --progress never --jobs "$1"
}

@test "sysroot: one path in two archives of one phase: different copies are refused naming both, whatever --jobs; equal ones merge" {
	local sig first j
	conflict_mirror one two
	xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" --progress never
	sig=$(tree_sig "$D")
	for j in 1 4 1 4; do
		run mk_conflict "$j"
		assert_status 1
		assert_output_contains "targets/x86_64-linux/lib/same.txt: in bulk_a ($NAME_A) and in bulk_b ($NAME_B): their contents differ"
		assert_output_contains "Leave one of the two archives out"
		first=${first:-$output}
		[ "$output" = "$first" ]
		[ "$(tree_sig "$D")" = "$sig" ]
		no_leftovers
	done
	# the same bytes in both: one file, no message
	conflict_mirror one one
	for j in 1 4; do
		rm -rf "$D"
		run mk_conflict "$j"
		assert_status 0
		[ "$(cat "$D/targets/x86_64-linux/lib/same.txt")" = one ]
		[ -f "$D/targets/x86_64-linux/lib/only_a.txt" ]
		[ -f "$D/targets/x86_64-linux/lib/only_b.txt" ]
		run xcc sysroot verify "$D"
		assert_status 0
	done
}

# cuda_nvtx's aarch64 archive of the mirror copy $1 replaced by one whose
# member $2 (after the archive's top directory) is a file, or with $3 a
# symlink to $3; the manifest's hash and size follow.
nvtx_with_member() {
	local m=$1 a=cuda_nvtx/linux-aarch64/cuda_nvtx-linux-aarch64-12.6.88-archive.tar.xz
	mirror_copy "$m"
	python3 - "$m/$a" "$2" "${3:-}" <<'PY'
import io, lzma, sys, tarfile
out, name, target = sys.argv[1], sys.argv[2], sys.argv[3]
top = "cuda_nvtx-linux-aarch64-12.6.88-archive/"
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
    i = tarfile.TarInfo(top + "include/ok.h"); i.size = 3; t.addfile(i, io.BytesIO(b"ok\n"))
    i = tarfile.TarInfo(top + name)
    if target:
        i.type = tarfile.SYMTYPE; i.linkname = target; t.addfile(i)
    else:
        i.size = 2; t.addfile(i, io.BytesIO(b"x\n"))
open(out, "wb").write(lzma.compress(buf.getvalue()))
PY
	sed -i "s/$(sha256sum "$FX/m126/$a" | cut -d' ' -f1)/$(sha256sum "$m/$a" | cut -d' ' -f1)/; s/\"size\": \"$(stat -c %s "$FX/m126/$a")\"/\"size\": \"$(stat -c %s "$m/$a")\"/" "$m/redistrib_12.6.3.json"
}

@test "sysroot: a member name or link target with a newline is refused at create, named with the newline escaped" {
	local m=$BATS_TEST_TMPDIR/m
	nvtx_with_member "$m" $'include/two\nlines.h'
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_status 1
	assert_output_contains 'cuda_nvtx-linux-aarch64-12.6.88-archive.tar.xz: member "cuda_nvtx-linux-aarch64-12.6.88-archive/include/two\nlines.h" refused: a newline in its name'
	[ ! -e "$D" ]
	no_leftovers
	nvtx_with_member "$m" include/link.h $'ok.h\nx'
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$m/redistrib_12.6.3.json" --dest "$D" --progress never
	assert_status 1
	assert_output_contains 'member "cuda_nvtx-linux-aarch64-12.6.88-archive/include/link.h" refused: a newline in its target "ok.h\nx"'
	[ ! -e "$D" ]
	no_leftovers
}
