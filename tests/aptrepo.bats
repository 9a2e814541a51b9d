#!/usr/bin/env bats
# sysroot create --from apt repositories shaped as NVIDIA's (tests/fixtures/make-aptrepo.sh:
# the same package names, versions and file layout, served on 127.0.0.1): CUDA's x86_64 and
# cross-linux-sbsa repositories, its cross-linux-aarch64 one, and Jetson's common and t234.
# Each makes a sysroot that verifies, with TensorRT and cuDNN (Jetson's also with VPI and L4T's
# multimedia libraries) and the CUDA libraries they need, their device code checked for the
# GPU asked for; a .cu program linking them built from it starts under cuda-xcc run and
# reaches the missing driver (with Debian's real CUDA 12.4 as the payload:
# scripts/fetch-debian-cuda.sh --release trixie). Hostile indexes are refused, and leave no
# sysroot.
load lib/common
load lib/httpd
load lib/sysroot
load lib/aptrepo
bats_require_minimum_version 1.5.0

setup_file() {
	aptrepo_fixtures
}

setup() {
	export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache XDG_DATA_HOME=$BATS_TEST_TMPDIR/data
	D=$BATS_TEST_TMPDIR/sr
}

teardown() {
	stop_httpd
}

# The link-and-run tests need the real payload, a cross g++ and qemu.
need_real() {
	grep -qx debian "$APT_FX/payload-kind" ||
		skip "no real CUDA 12.4 payload (run scripts/fetch-debian-cuda.sh --release trixie)"
	need aarch64-linux-gnu-g++-12 "CUDA 12.4's host compiler (g++-aarch64-linux-gnu)"
	need qemu-aarch64 "runs the aarch64 program"
}

# The device-code tests need the fixtures' fatbins (an nvcc made them).
need_device_code() {
	grep -qv '^none$' "$APT_FX/device-code" ||
		skip "no nvcc made the fixtures' device code (/usr/local/cuda/bin/nvcc or the real payload)"
}

# Build the program against sysroot $S for -arch $1 and run it; with a second argument
# "l4t", VPI and NvBufSurface too.
build_and_run() {
	local p=$BATS_TEST_TMPDIR/prog l=$S/targets/aarch64-linux/lib extra=()
	apt_program "$p.cu" "${2:-}"
	if [ "${2:-}" = l4t ]; then extra=(-L"$l/nvidia" -lnvvpi -lnvbufsurface); fi
	run "$CUDA_XCC" --sysroot "$S" -arch "$1" -o "$p" "$p.cu" -lnvinfer -lcudnn "${extra[@]}"
	assert_status 0
	run "$CUDA_XCC" run --sysroot "$S" "$p"
	assert_status 2
	assert_output_contains "cudaGetDeviceCount: err=35 (cudaErrorInsufficientDriver)"
	assert_output_contains "getInferLibVersion 100300 cudnnGetVersion 90300"
	if [ "${2:-}" = l4t ]; then assert_output_contains "vpi 3002004 nvbufsurface 36040"; fi
}

# $S holds TensorRT and cuDNN for target directory $1 with what their libraries NEED (cuBLAS,
# cuBLASLt; NVRTC, which cuDNN loads), and verifies: every NEEDED of theirs is in the tree.
assert_trt_cudnn() {
	[ -f "$S/targets/$1/lib/libnvinfer.so.10" ]
	[ -L "$S/targets/$1/lib/libnvinfer.so" ]
	[ -f "$S/targets/$1/lib/libcudnn.so.9" ]
	[ -f "$S/targets/$1/include/NvInfer.h" ]
	[ -f "$S/targets/$1/include/cudnn.h" ]
	[ -e "$S/targets/$1/lib/libcublas.so.12" ]
	[ -e "$S/targets/$1/lib/libcublasLt.so.12" ]
	[ -e "$S/targets/$1/lib/libnvrtc.so.12" ]
	run readelf -d "$S/targets/$1/lib/libcudnn.so.9"
	assert_output_contains "[libcublasLt.so.12]"
	grep -q "cudnn brings cuda_nvrtc along" "$S.log"
	grep -q "unverified" "$S.log"
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
	assert_output_contains "OK"
}

# $S's serving table has every product library of $1 (TensorRT's, cuDNN's...) with verdict
# $3 for capability $2: their device code was read and checked.
assert_served() {
	local lib
	run apt_serving "$S/sysroot.json"
	assert_status 0
	for lib in $1; do
		grep -qx "$lib $2 $3" <<<"$output" || { echo "no '$lib $2 $3' in:" >&2; echo "$output" >&2; return 1; }
	done
}

@test "apt: CUDA's x86_64 and cross-linux-sbsa repositories make an sbsa sysroot with TensorRT and cuDNN" {
	start_httpd normal "$APT_FX"
	apt_sysroot sbsa
	assert_trt_cudnn sbsa-linux
	run apt_recorded "$S/sysroot.json"
	assert_output_contains "cuda-nvcc-12-4=12.4.131-1"
	assert_output_contains "cuda-cudart-cross-sbsa-12-4=12.4.127-1"
	assert_output_contains "libnvinfer10-cross-sbsa=10.0.1.6-1+cuda12.4"
	assert_output_contains "libcudnn9-cross-sbsa-cuda-12=9.1.0.70-1"
	assert_output_contains "libcublas-cross-sbsa-12-4=12.4.5.8-1"
	assert_output_contains "cuda-nvrtc-cross-sbsa-12-4=12.4.127-1"
	# The newest cuda-nvcc-12-4 the index lists, not the older build beside it.
	[ ! -e "$S/bin/OLDER-BUILD" ]
	[ -f "$S/licenses/libnvinfer10-cross-sbsa/copyright" ]
	[ -f "$S/licenses/libcudnn9-cross-sbsa-cuda-12/copyright" ]
}

@test "apt: the sbsa sysroot's TensorRT and cuDNN device code is the SBSA build's, and serves sm_90" {
	need_device_code
	start_httpd normal "$APT_FX"
	apt_sysroot sbsa
	assert_served "lib/libnvinfer.so.10.0.1.6 lib/libcudnn.so.9.1.0.70" 9.0 OK
	run python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["flavour"], m["flavour_evidence"])' "$S/sysroot.json"
	assert_output_contains "linux-sbsa"
}

@test "apt: a program linking -lnvinfer -lcudnn, built from the sbsa sysroot, starts under cuda-xcc run" {
	need_real
	start_httpd normal "$APT_FX"
	apt_sysroot sbsa
	build_and_run sm_90
}

# A CMake project of the shape real ones have: TensorRT and cuDNN found by their _ROOT hints
# alone (NO_DEFAULT_PATH, as find modules do), an executable with a CUDA kernel linking them.
trt_cmake_project() {
	mkdir -p "$1"
	apt_program "$1/prog.cu"
	cat > "$1/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(trt_use LANGUAGES CXX CUDA)
find_library(NVINFER nvinfer HINTS ${TensorRT_ROOT} PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)
find_path(TENSORRT_INCLUDE_DIR NvInfer.h HINTS ${TensorRT_ROOT} PATH_SUFFIXES include
	NO_DEFAULT_PATH)
find_library(CUDNN cudnn HINTS ${CUDNN_ROOT} PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDNN_ROOT} PATH_SUFFIXES include NO_DEFAULT_PATH)
message(STATUS "TensorRT_ROOT=${TensorRT_ROOT}")
message(STATUS "NVINFER=${NVINFER} CUDNN=${CUDNN}")
if(NOT NVINFER OR NOT TENSORRT_INCLUDE_DIR OR NOT CUDNN OR NOT CUDNN_INCLUDE_DIR)
	message(FATAL_ERROR "TensorRT or cuDNN not found")
endif()
add_executable(prog prog.cu)
target_include_directories(prog PRIVATE ${TENSORRT_INCLUDE_DIR} ${CUDNN_INCLUDE_DIR})
target_link_libraries(prog PRIVATE ${NVINFER} ${CUDNN})
EOF
}

# bats test_tags=project
@test "apt: a CMake project finds TensorRT and cuDNN in the sbsa sysroot by TensorRT_ROOT and CUDNN_ROOT, builds and runs" {
	local d=$BATS_TEST_TMPDIR l
	need cmake "configures the project"
	need_real
	start_httpd normal "$APT_FX"
	apt_sysroot sbsa
	l=$S/targets/sbsa-linux/lib
	trt_cmake_project "$d/p"
	run cmake -S "$d/p" -B "$d/b" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90
	assert_status 0
	assert_output_contains "TensorRT_ROOT=$S/targets/sbsa-linux"
	assert_output_contains "NVINFER=$l/libnvinfer.so CUDNN=$l/libcudnn.so"
	run cmake --build "$d/b"
	assert_status 0
	run readelf -d "$d/b/prog"
	assert_output_contains "Shared library: [libnvinfer.so.10]"
	assert_output_contains "Shared library: [libcudnn.so.9]"
	run "$CUDA_XCC" run --sysroot "$S" "$d/b/prog"
	assert_status 2
	assert_output_contains "cudaGetDeviceCount: err=35 (cudaErrorInsufficientDriver)"
	assert_output_contains "getInferLibVersion 100300 cudnnGetVersion 90300"
	# A project's own TensorRT_ROOT is kept: the toolchain only fills in what is unset.
	run cmake -S "$d/p" -B "$d/b2" \
		-DCMAKE_TOOLCHAIN_FILE="$XCC_SRCDIR/wrappers/cmake/cuda-xcc-toolchain.cmake" \
		-DCUDA_XCC_SYSROOT="$S" -DCUDA_XCC_EXECUTABLE="$CUDA_XCC" -DCUDA_XCC_ARCH=sm_90 \
		-DTensorRT_ROOT="$d/elsewhere"
	assert_status 1
	assert_output_contains "TensorRT_ROOT=$d/elsewhere"
	assert_output_contains "TensorRT or cuDNN not found"
}

@test "apt: CUDA's cross-linux-aarch64 repository makes a Jetson sysroot; the program runs" {
	start_httpd normal "$APT_FX"
	apt_sysroot aarch64
	assert_trt_cudnn aarch64-linux
	[ ! -e "$S/targets/sbsa-linux" ]
	run apt_recorded "$S/sysroot.json"
	assert_output_contains "libnvinfer10-cross-aarch64=10.3.0.30-1+cuda12.5"
	assert_output_contains "libcudnn9-cross-aarch64-cuda-12=9.3.0.75-1"
	assert_output_contains "libcublas-cross-aarch64-12-6=12.6.4.1-1"
	need_real
	build_and_run sm_87
}

@test "apt: Jetson's common and t234 repositories make a Jetson sysroot; the program runs" {
	local t
	start_httpd normal "$APT_FX"
	apt_sysroot l4t
	assert_trt_cudnn aarch64-linux
	t=$S/targets/aarch64-linux
	run apt_recorded "$S/sysroot.json"
	assert_output_contains "libnvinfer10=10.3.0.30-1+cuda12.5"
	assert_output_contains "cuda-cudart-12-6=12.6.68-1"
	assert_output_contains "libnvvpi3=3.2.4"
	assert_output_contains "vpi3-dev=3.2.4"
	assert_output_contains "nvidia-l4t-multimedia=36.4.0-20240912212859"
	assert_output_contains "nvidia-l4t-multimedia-utils=36.4.0-20240912212859"
	assert_output_contains "nvidia-l4t-jetson-multimedia-api=36.4.0-20240912212859"
	# what VPI's libraries NEED comes with it
	assert_output_contains "libcufft-12-6=11.3.0.4-1"
	assert_output_contains "libnpp-12-6=12.3.1.54-1"
	# the board's driver is the board's
	[[ "$output" != *"nvidia-l4t-cuda="* ]]
	# VPI from its own prefix, L4T's multimedia where the board has it, the Multimedia API's
	# headers beside the others
	[ -f "$t/lib/libnvvpi.so.3.2.4" ]
	[ -L "$t/lib/libnvvpi.so" ]
	[ -f "$t/lib/priv/libfixture_vpi_priv.so" ]
	[ -f "$t/include/vpi/VPI.h" ]
	[ -f "$t/lib/nvidia/libnvbufsurface.so.1.0.0" ]
	[ -L "$t/lib/nvidia/libnvbufsurface.so" ]
	[ -f "$t/lib/nvidia/libnvbufsurftransform.so.1.0.0" ]
	[ -f "$t/include/nvbufsurface.h" ]
	[ -e "$t/lib/libcufft.so.11" ]
	[ -e "$t/lib/libnppc.so.12" ]
	[ ! -e "$t/lib/nvidia/libcuda.so.1.1" ]
	[ ! -e "$t/samples" ]
	# their terms
	[ -f "$S/licenses/libnvvpi3/VPI_EULA.txt" ]
	[ -f "$S/licenses/libnvvpi3/LICENSE.OpenCV" ]
	[ -f "$S/licenses/nvidia-l4t-multimedia/copyright" ]
	# The host's nvcc is the x86_64 repository's; the board's own arm64 cuda-nvcc-12-6 in
	# the Jetson repository is not taken.
	run readelf -h "$S/bin/nvcc"
	assert_output_contains "X86-64"
	need_real
	build_and_run sm_87 l4t
}

@test "apt: the Jetson sysroots' product libraries carry Orin's SASS, checked with the exact-SASS rule" {
	need_device_code
	start_httpd normal "$APT_FX"
	apt_sysroot l4t
	assert_served "lib/libnvinfer.so.10.3.0.30 lib/libcudnn.so.9.3.0.75 lib/libnvvpi.so.3.2.4 lib/nvidia/libnvbufsurface.so.1.0.0
		lib/nvidia/libnvbufsurftransform.so.1.0.0" 8.7 OK
	run python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["flavour"], m["flavour_evidence"])' "$S/sysroot.json"
	assert_output_contains "linux-aarch64"
	assert_output_contains "libnvinfer.so.10.3.0.30 (sm_87)"
	apt_sysroot aarch64
	assert_served "lib/libnvinfer.so.10.3.0.30 lib/libcudnn.so.9.3.0.75" 8.7 OK
}

@test "apt: a Jetson library with SASS for sm_86 alone does not serve Orin (sm_87), and is refused" {
	need_device_code
	start_httpd normal "$APT_FX"
	run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 --dest "$D" --progress never \
		--components tensorrt,cudnn,vpi,l4t_multimedia \
		--from "$(apt_flat compute/cuda/repos/ubuntu2204/x86_64)" \
		--from "$(apt_dists jetson/common)" --from "$(apt_dists hostile/jetson/t234)"
	assert_status 2
	grep -q '^ *lib/nvidia/libnvbufsurftransform.so.1.0.0 *NOT SERVED$' <<<"$output"
	grep -q '^ *lib/libnvvpi.so.3.2.4 *OK$' <<<"$output"
	[ ! -e "$D" ]
	# taken when asked to, with the verdict recorded
	run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 --dest "$D" --progress never \
		--components tensorrt,cudnn,vpi,l4t_multimedia --allow-unserved \
		--from "$(apt_flat compute/cuda/repos/ubuntu2204/x86_64)" \
		--from "$(apt_dists jetson/common)" --from "$(apt_dists hostile/jetson/t234)"
	assert_status 0
	run apt_serving "$D/sysroot.json"
	grep -qx "lib/nvidia/libnvbufsurftransform.so.1.0.0 8.7 NOT SERVED" <<<"$output"
	grep -qx "lib/libnvinfer.so.10.3.0.30 8.7 OK" <<<"$output"
}

@test "apt: a component whose libraries' need has no package is refused, naming the need" {
	apt_hostile_copy
	rm "$SBSA"/libcublas-cross-sbsa-12-4_*.deb
	apt_hostile_serve "$SBSA"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--components cudnn "${FROM[@]}"
	assert_status 2
	assert_output_contains "is libcublas's"
	assert_output_contains "libcublas-cross-sbsa-12-4"
	[ ! -e "$D" ]
	# without cuDNN nothing needs it
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--dry-run "${FROM[@]}"
	assert_status 0
}

@test "apt: an unpinned Release is refused, naming sha256= and trusted=yes; trusted=yes takes it" {
	start_httpd normal "$APT_FX"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--from "deb $HTTPD_URL/compute/cuda/repos/ubuntu2404/x86_64/ /" \
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/cross-linux-sbsa)"
	assert_status 2
	assert_output_contains "deb [sha256=HEX]"
	assert_output_contains "deb [trusted=yes]"
	[ ! -e "$D" ]
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--from "deb [trusted=yes] $HTTPD_URL/compute/cuda/repos/ubuntu2404/x86_64/ /" \
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/cross-linux-sbsa)"
	assert_status 0
	[ -f "$D/sysroot.json" ]
}

@test "apt: signed-by: a Release its key signed is taken, checked by gpgv" {
	need gpgv "checks Release.gpg"
	[ -f "$APT_FX/keyring.gpg" ] || skip "gpg is not installed (signs the fixtures)"
	start_httpd normal "$APT_FX"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --dry-run --components cudnn \
		--from "deb [signed-by=$APT_FX/keyring.gpg] $HTTPD_URL/compute/cuda/repos/ubuntu2404/x86_64/ /" \
		--from "deb [signed-by=$APT_FX/keyring.gpg] $HTTPD_URL/compute/cuda/repos/ubuntu2404/cross-linux-sbsa/ /"
	assert_status 0
	assert_output_contains "cuda-nvcc-12-4_12.4.131-1_amd64.deb"
	assert_output_contains "libcudnn9-cross-sbsa-cuda-12"
	[ ! -e "$D" ]
}

@test "apt: signed-by another key is refused" {
	need gpgv "checks Release.gpg"
	[ -f "$APT_FX/other-keyring.gpg" ] || skip "gpg is not installed (signs the fixtures)"
	start_httpd normal "$APT_FX"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--from "deb [signed-by=$APT_FX/other-keyring.gpg] $HTTPD_URL/compute/cuda/repos/ubuntu2404/x86_64/ /" \
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/cross-linux-sbsa)"
	assert_failed
	assert_output_contains "gpgv does not accept it"
	[ ! -e "$D" ]
}

@test "apt: signed-by: a Release changed after it was signed is refused" {
	need gpgv "checks Release.gpg"
	[ -f "$APT_FX/keyring.gpg" ] || skip "gpg is not installed (signs the fixtures)"
	apt_hostile_copy
	# A new file, not the one the copy links to.
	sed -i 's/^Label: .*/Label: changed/' "$X86/Release"
	start_httpd normal "$H"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--from "deb [signed-by=$APT_FX/keyring.gpg] $HTTPD_URL/compute/cuda/repos/ubuntu2404/x86_64/ /" \
		--from "deb [trusted=yes] $HTTPD_URL/compute/cuda/repos/ubuntu2404/cross-linux-sbsa/ /"
	assert_failed
	assert_output_contains "Release.gpg"
	[ ! -e "$D" ]
}

@test "apt: an armored keyring is a usage error naming gpg --dearmor" {
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" \
		--from "deb [signed-by=/usr/share/keyrings/jetson-ota-public.asc] http://127.0.0.1:9/jetson/common r36.4 main"
	assert_status 2
	assert_output_contains "gpg --dearmor"
}

@test "apt: a Release that is not the one pinned is refused" {
	start_httpd normal "$APT_FX"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/x86_64 "$(printf '0%.0s' {1..64})")" \
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/cross-linux-sbsa)"
	assert_failed
	assert_output_contains "sha256 mismatch"
	[ ! -e "$D" ]
	no_leftovers
}

@test "apt: a .deb whose SHA256 is not the index's is refused before it is read" {
	apt_hostile_copy
	sed -i '/^Package: cuda-cudart-cross-sbsa-12-4$/,/^$/s/^SHA256: ./SHA256: 0/' "$SBSA/Packages"
	apt_hostile_serve "$SBSA" --keep-packages
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_failed
	assert_output_contains "cuda-cudart-cross-sbsa-12-4"
	assert_output_contains "sha256 mismatch"
	[ ! -e "$D" ]
	no_leftovers
}

@test "apt: a Packages index whose hash is not the Release's is refused" {
	apt_hostile_copy
	apt_hostile_serve "$SBSA"
	# The index changed after the Release was written (as a new file: the copy's links).
	sed -i 's/^Version: 12.4.127-1$/Version: 12.4.127-2/' "$SBSA/Packages"
	rm "$SBSA/Packages.gz"
	gzip -9nk "$SBSA/Packages"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_failed
	assert_output_contains "Packages"
	assert_output_contains "mismatch"
	[ ! -e "$D" ]
}

@test "apt: a package whose symlink climbs out of the tree is refused" {
	local r=$BATS_TEST_TMPDIR/evil t=usr/local/cuda-12.4/targets/sbsa-linux
	apt_hostile_copy
	rm "$SBSA"/cuda-nvtx-cross-sbsa-12-4_*.deb
	mkdir -p "$r/$t/include"
	ln -s ../../../../../../../../../../etc "$r/$t/include/nvtx3"
	apt_deb cuda-nvtx-cross-sbsa-12-4 12.4.127-1 all "$r" "$SBSA"
	apt_hostile_serve "$SBSA"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_failed
	assert_output_contains "cuda-nvtx-cross-sbsa-12-4"
	assert_output_contains "refused"
	[ ! -e "$D" ]
	no_leftovers
}

@test "apt: a package whose absolute symlink leaves the tree is refused" {
	local r=$BATS_TEST_TMPDIR/evil t=usr/local/cuda-12.4/targets/sbsa-linux
	apt_hostile_copy
	rm "$SBSA"/cuda-nvtx-cross-sbsa-12-4_*.deb
	mkdir -p "$r/$t/include"
	ln -s /etc/passwd "$r/$t/include/nvToolsExt.h"
	apt_deb cuda-nvtx-cross-sbsa-12-4 12.4.127-1 all "$r" "$SBSA"
	apt_hostile_serve "$SBSA"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_failed
	assert_output_contains "nvToolsExt.h"
	[ ! -e "$D" ]
	no_leftovers
}

@test "apt: a target package built for amd64 is refused, naming the architecture" {
	local r=$BATS_TEST_TMPDIR/evil t=usr/local/cuda-12.4/targets/sbsa-linux
	apt_hostile_copy
	rm "$SBSA"/cuda-nvtx-cross-sbsa-12-4_*.deb
	mkdir -p "$r/$t/include"
	echo '/* x86 */' > "$r/$t/include/nvToolsExt.h"
	apt_deb cuda-nvtx-cross-sbsa-12-4 12.4.127-1 amd64 "$r" "$SBSA"
	apt_hostile_serve "$SBSA"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_status 2
	assert_output_contains "cuda-nvtx-cross-sbsa-12-4 12.4.127-1 for amd64 only"
	[ ! -e "$D" ]
}

@test "apt: an index that says 'all' for a package built for amd64 is refused" {
	local r=$BATS_TEST_TMPDIR/evil t=usr/local/cuda-12.4/targets/sbsa-linux
	apt_hostile_copy
	rm "$SBSA"/cuda-nvtx-cross-sbsa-12-4_*.deb
	mkdir -p "$r/$t/include"
	echo '/* x86 */' > "$r/$t/include/nvToolsExt.h"
	apt_deb cuda-nvtx-cross-sbsa-12-4 12.4.127-1 amd64 "$r" "$SBSA"
	rm -f "$SBSA/Packages"
	(cd "$SBSA" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null > Packages)
	sed -i '/^Package: cuda-nvtx-cross-sbsa-12-4$/,/^$/s/^Architecture: amd64$/Architecture: all/' "$SBSA/Packages"
	apt_hostile_serve "$SBSA" --keep-packages
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_failed
	assert_output_contains "the repository is not consistent"
	[ ! -e "$D" ]
}

@test "apt: an index whose Filename leaves the repository is refused" {
	apt_hostile_copy
	sed -i 's|^Filename: \./cuda-nvtx-cross-sbsa|Filename: ../../cuda-nvtx-cross-sbsa|' "$SBSA/Packages"
	apt_hostile_serve "$SBSA" --keep-packages
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never "${FROM[@]}"
	assert_failed
	assert_output_contains "leaves the repository"
	[ ! -e "$D" ]
}

@test "apt: a repository without the target's packages is named with what was looked for" {
	start_httpd normal "$APT_FX"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --progress never \
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/x86_64)"
	assert_status 2
	assert_output_contains "cuda-cudart-cross-sbsa-12-4"
	[ ! -e "$D" ]
}

@test "apt: a line that is no apt source is a usage error naming the forms" {
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --dest "$D" --from "deb http://127.0.0.1:9/x"
	assert_status 2
	assert_output_contains "deb URL SUITE COMPONENT"
}
