# apt repositories shaped as NVIDIA's (tests/fixtures/make-aptrepo.sh), built once per
# file in setup_file and served by tests/lib/httpd.py on 127.0.0.1.

# setup_file's part: the repositories in $APT_FX, their Release sha256 in $APT_FX/shas, or
# every test skipped without the tools that build them.
aptrepo_fixtures() {
	command -v aarch64-linux-gnu-gcc >/dev/null || skip "aarch64-linux-gnu-gcc is not installed (the stand-in libraries)"
	command -v dpkg-scanpackages >/dev/null || skip "dpkg-scanpackages is not installed (dpkg-dev: the indexes)"
	export APT_FX=$BATS_FILE_TMPDIR/fx
	"$XCC_SRCDIR/tests/fixtures/make-aptrepo.sh" "$APT_FX" \
		"${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}" > "$BATS_FILE_TMPDIR/shas"
	mv "$BATS_FILE_TMPDIR/shas" "$APT_FX/shas"
}

# The Release sha256 of repository PATH (as make-aptrepo.sh printed it).
apt_sha() {
	local line
	line=$(grep "^$1/\(dists/r36.4/\)\{0,1\}Release " "$APT_FX/shas")
	echo "${line##* }"
}

# The sources.list lines of repository PATH, pinned: apt_flat for NVIDIA's CUDA
# repositories ("deb URL/PATH/ /"), apt_dists for Jetson's ("deb URL/PATH r36.4 main").
apt_flat() { echo "deb [sha256=${2:-$(apt_sha "$1")}] $HTTPD_URL/$1/ /"; }
apt_dists() { echo "deb [sha256=$(apt_sha "$1")] $HTTPD_URL/$1 r36.4 main"; }

# The three shapes' --from options, into the array FROM.
apt_from_sbsa() {
	FROM=(--from "$(apt_flat compute/cuda/repos/ubuntu2404/x86_64)"
		--from "$(apt_flat compute/cuda/repos/ubuntu2404/cross-linux-sbsa)")
}
apt_from_aarch64() {
	FROM=(--from "$(apt_flat compute/cuda/repos/ubuntu2204/x86_64)"
		--from "$(apt_flat compute/cuda/repos/ubuntu2204/cross-linux-aarch64)")
}
apt_from_l4t() {
	FROM=(--from "$(apt_flat compute/cuda/repos/ubuntu2204/x86_64)"
		--from "$(apt_dists jetson/common)" --from "$(apt_dists jetson/t234)")
}

# The components each shape's sysroot is made with: TensorRT and cuDNN, and in Jetson's own
# repositories VPI and L4T's multimedia libraries too.
apt_components() {
	if [ "$1" = l4t ]; then echo tensorrt,cudnn,vpi,l4t_multimedia; else echo tensorrt,cudnn; fi
}

# The sysroot of SHAPE (sbsa, aarch64, l4t), made once per file into $BATS_FILE_TMPDIR/S-SHAPE
# (a test that finds it made reuses it); its path in $S, what create said in $S.log.
apt_sysroot() {
	local shape=$1 target=sbsa cuda=12.4 arch=()
	S=$BATS_FILE_TMPDIR/S-$shape
	[ ! -e "$S/sysroot.json" ] || return 0
	"apt_from_$shape"
	# The SBSA shape's libraries carry SASS for sm_80 and sm_90 (as a server build for the
	# GPUs of its time), not for every GPU of the target's default list.
	arch=(-arch sm_80,sm_90)
	if [ "$shape" != sbsa ]; then target=jetson cuda=12.6 arch=(-arch sm_87); fi
	"$CUDA_XCC" sysroot create --target "$target" --cuda "$cuda" "${arch[@]}" --dest "$S" \
		--progress never --components "$(apt_components "$shape")" "${FROM[@]}" \
		> "$S.log" 2>&1 || { cat "$S.log" >&2; return 1; }
}

# The packages sysroot.json $1 records, NAME=VERSION one a line.
apt_recorded() {
	python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["components"]: print(c["name"] + "=" + c["version"])' "$1"
}

# The serving table sysroot.json $1 records: "LIBRARY CAP VERDICT" one a line.
apt_serving() {
	python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["serving"]:
    for cap, v in r["serving"].items(): print(r["library"], cap, v)' "$1"
}

# A copy of the CUDA repositories a test may change: hard links, and every file the test
# changes written anew (make-aptrepo.sh --index; sed -i), so that the file's own stays.
# Served at $HTTPD_URL; the sbsa pair's lines in FROM.
apt_hostile_copy() {
	H=$BATS_TEST_TMPDIR/h
	mkdir -p "$H/compute/cuda/repos"
	cp -al "$APT_FX/compute/cuda/repos/ubuntu2404" "$H/compute/cuda/repos/"
	X86=$H/compute/cuda/repos/ubuntu2404/x86_64
	SBSA=$H/compute/cuda/repos/ubuntu2404/cross-linux-sbsa
}

# Index the copy's repository DIR again (its Packages kept with --keep-packages) and
# start serving the copy; the sbsa pair's lines pinned to what is there now in FROM.
apt_hostile_serve() {
	local sha
	sha=$("$XCC_SRCDIR/tests/fixtures/make-aptrepo.sh" --index "$@")
	start_httpd normal "$H"
	FROM=(--from "$(apt_flat compute/cuda/repos/ubuntu2404/x86_64)"
		--from "deb [sha256=$sha] $HTTPD_URL/compute/cuda/repos/ubuntu2404/cross-linux-sbsa/ /")
}

# apt_deb NAME VERSION ARCH ROOT POOL: ROOT made into POOL/NAME_VERSION_ARCH.deb.
apt_deb() {
	mkdir -p "$4/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: fixture <f@example.org>\nDescription: hostile fixture\n' \
		"$1" "$2" "$3" > "$4/DEBIAN/control"
	dpkg-deb --root-owner-group -Znone -b "$4" "$5/${1}_${2}_${3}.deb" >/dev/null
}

# The test program: cudart, TensorRT and cuDNN called from a .cu with a kernel; with a
# second argument "l4t", VPI and L4T's NvBufSurface too.
apt_program() {
	{
		if [ "${2:-}" = l4t ]; then
			printf '#define WITH_L4T 1\n#include <vpi/VPI.h>\n#include <nvbufsurface.h>\n'
		fi
		cat <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
#include <NvInfer.h>
#include <cudnn.h>
__global__ void k(int *p) { *p = 1; }
int main()
{
	int n = -1;
	cudaError_t e = cudaGetDeviceCount(&n);
	std::printf("cudaGetDeviceCount: err=%d (%s)\n", (int)e, cudaGetErrorName(e));
	std::printf("getInferLibVersion %d cudnnGetVersion %zu\n", getInferLibVersion(),
		    cudnnGetVersion());
#ifdef WITH_L4T
	std::printf("vpi %d nvbufsurface %d\n", vpiFixtureVersion(), NvBufSurfaceFixtureVersion());
#endif
	return e ? 2 : 0;
}
EOF
	} > "$1"
}
