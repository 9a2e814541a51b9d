#!/usr/bin/env bats
# sysroot create --from apt repositories shaped as NVIDIA's (tests/fixtures/make-aptrepo.sh:
# the same package names, versions and file layout, served on 127.0.0.1): CUDA's x86_64 and
# cross-linux-sbsa repositories, its cross-linux-aarch64 one, and Jetson's common and t234.
# Each makes a sysroot that verifies, with TensorRT and cuDNN, and a .cu program linking
# -lnvinfer -lcudnn built from it starts under cuda-xcc run and reaches the missing driver
# (with Debian's real CUDA 12.4 as the payload: scripts/fetch-debian-cuda.sh --release
# trixie). Hostile indexes are refused, and leave no sysroot.
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

# Build the program against sysroot $S for -arch $1 and run it.
build_and_run() {
	local p=$BATS_TEST_TMPDIR/prog
	apt_program "$p.cu"
	run "$CUDA_XCC" --sysroot "$S" -arch "$1" -o "$p" "$p.cu" -lnvinfer -lcudnn
	assert_status 0
	run "$CUDA_XCC" run --sysroot "$S" "$p"
	assert_status 2
	assert_output_contains "cudaGetDeviceCount: err=35 (cudaErrorInsufficientDriver)"
	assert_output_contains "getInferLibVersion 100300 cudnnGetVersion 90300"
}

# $S holds TensorRT and cuDNN for target directory $1, and verifies.
assert_trt_cudnn() {
	[ -f "$S/targets/$1/lib/libnvinfer.so.10" ]
	[ -L "$S/targets/$1/lib/libnvinfer.so" ]
	[ -f "$S/targets/$1/lib/libcudnn.so.9" ]
	[ -f "$S/targets/$1/include/NvInfer.h" ]
	[ -f "$S/targets/$1/include/cudnn.h" ]
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
}

@test "apt: CUDA's x86_64 and cross-linux-sbsa repositories make an sbsa sysroot with TensorRT and cuDNN" {
	start_httpd normal "$APT_FX"
	apt_sysroot sbsa
	assert_trt_cudnn sbsa-linux
	run python3 -c 'import json, sys; print(" ".join(c["name"] + "=" + c["version"] for c in json.load(open(sys.argv[1]))["components"]))' "$S/sysroot.json"
	assert_output_contains "cuda-nvcc-12-4=12.4.131-1"
	assert_output_contains "cuda-cudart-cross-sbsa-12-4=12.4.127-1"
	assert_output_contains "libnvinfer10-cross-sbsa=10.0.1.6-1+cuda12.4"
	assert_output_contains "libcudnn9-cross-sbsa-cuda-12=9.1.0.70-1"
	# The newest cuda-nvcc-12-4 the index lists, not the older build beside it.
	[ ! -e "$S/bin/OLDER-BUILD" ]
	[ -f "$S/licenses/libnvinfer10-cross-sbsa/copyright" ]
}

@test "apt: a program linking -lnvinfer -lcudnn, built from the sbsa sysroot, starts under cuda-xcc run" {
	need_real
	start_httpd normal "$APT_FX"
	apt_sysroot sbsa
	build_and_run sm_90
}

@test "apt: CUDA's cross-linux-aarch64 repository makes a Jetson sysroot; the program runs" {
	start_httpd normal "$APT_FX"
	apt_sysroot aarch64
	assert_trt_cudnn aarch64-linux
	[ ! -e "$S/targets/sbsa-linux" ]
	need_real
	build_and_run sm_87
}

@test "apt: Jetson's common and t234 repositories make a Jetson sysroot; the program runs" {
	start_httpd normal "$APT_FX"
	apt_sysroot l4t
	assert_trt_cudnn aarch64-linux
	run python3 -c 'import json, sys; print(" ".join(c["name"] + "=" + c["version"] for c in json.load(open(sys.argv[1]))["components"]))' "$S/sysroot.json"
	assert_output_contains "libnvinfer10=10.3.0.30-1+cuda12.5"
	assert_output_contains "cuda-cudart-12-6=12.6.68-1"
	# The host's nvcc is the x86_64 repository's; the board's own arm64 cuda-nvcc-12-6 in
	# the Jetson repository is not taken.
	run readelf -h "$S/bin/nvcc"
	assert_output_contains "X86-64"
	need_real
	build_and_run sm_87
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
