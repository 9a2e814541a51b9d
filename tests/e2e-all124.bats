#!/usr/bin/env bats
# Every CUDA library of Debian 13's CUDA 12.4.1 in one sysroot, made as a user would: the
# packages from scripts/fetch-debian-cuda.sh --release trixie --components all (from the
# network; copies already in the cache are reused), then one 'cuda-xcc sysroot create' with
# the component list the script prints. 1.8 GB of .debs, a 4.2 GB sysroot: minutes, so not
# in make check but in make check-e2e-all (the summary goes to test-suite-e2e-all.log).
#
# The cache is $XCC_DEB_CACHE_TRIXIE (default /var/cache/cuda-xcc/debs-trixie), where the
# script writes what it lacks. Without Debian's mirror and without the packages cached,
# the tests are skipped. XCC_E2E_SYSROOT_ALL=DIR keeps the sysroot there (a rerun reuses it).
load lib/common

deb_cache() { echo "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; }

setup_file() {
	local c t0 components from=() d
	export ALL_STATE=$BATS_FILE_TMPDIR/state S=${XCC_E2E_SYSROOT_ALL:-$BATS_FILE_TMPDIR/S}
	c=$(deb_cache)
	t0=$SECONDS
	if ! bash "$XCC_SRCDIR/scripts/fetch-debian-cuda.sh" --release trixie --cache "$c" \
		--components all > "$BATS_FILE_TMPDIR/debs" 2> "$BATS_FILE_TMPDIR/fetch.log"; then
		echo "skip scripts/fetch-debian-cuda.sh --components all failed (no Debian mirror?): $(tail -3 "$BATS_FILE_TMPDIR/fetch.log")" > "$ALL_STATE"
		return 0
	fi
	echo "$((SECONDS - t0))" > "$BATS_FILE_TMPDIR/fetch.seconds"
	# the script names the create command's components
	components=$(sed -n 's/.*every component: .* --components \([a-z_,]*\)$/\1/p' "$BATS_FILE_TMPDIR/fetch.log")
	echo "$components" > "$BATS_FILE_TMPDIR/components"
	if [ -f "$S/sysroot.json" ]; then
		echo "ok reused" > "$ALL_STATE"
		return 0
	fi
	while read -r d; do from+=(--from "$d"); done < "$BATS_FILE_TMPDIR/debs"
	t0=$SECONDS
	if "$CUDA_XCC" sysroot create --dest "$S" --progress never --target sbsa --cuda 12.4 \
		--components "$components" "${from[@]}" > "$BATS_FILE_TMPDIR/create.log" 2>&1; then
		echo "ok $((SECONDS - t0))" > "$ALL_STATE"
	else
		echo "fail sysroot create failed: $(tail -5 "$BATS_FILE_TMPDIR/create.log")" > "$ALL_STATE"
	fi
}

need_all() {
	local state
	state=$(cat "$ALL_STATE")
	case "$state" in
	ok*) ;;
	skip*) skip "${state#skip }" ;;
	*) echo "${state#fail }" >&2; return 1 ;;
	esac
	export L=$S/targets/sbsa-linux/lib
}

@test "e2e all 12.4: fetch-debian-cuda.sh --components all and one sysroot create make a sysroot with every library component" {
	need_all
	local secs n
	n=$(wc -l < "$BATS_FILE_TMPDIR/debs")
	# the figures, in the TAP output
	echo "# $n packages ($(xargs du -cLh < "$BATS_FILE_TMPDIR/debs" | tail -n1 | cut -f1)), fetched in $(cat "$BATS_FILE_TMPDIR/fetch.seconds") s" >&3
	secs=$(cut -d' ' -f2 "$ALL_STATE")
	echo "# sysroot create: ${secs} s, $(du -sh "$S" | cut -f1)" >&3
	[ "$n" -ge 38 ]
	# One library of each component, shared where Debian has it shared.
	local f
	for f in libcudart.so.12 libcublas.so.12 libcublasLt.so.12 libcufft.so.11 libcufftw.so.11 \
		libcurand.so.10 libcusolver.so.11 libcusolverMg.so.11 libcusparse.so.12 \
		libnvJitLink.so.12 libnvjpeg.so.12 libnppc.so.12 libnppial.so.12 libnpps.so.12 \
		libnvrtc.so.12 libnvrtc-builtins.so.12.4 libcupti.so.12 libnvToolsExt.so.1 \
		libnvfatbin.so.12 libcufile.so.0 libcufile_rdma.so.1 stubs/libnvidia-ml.so \
		cmake/cccl/cccl-config.cmake; do
		[ -e "$L/$f" ] || { echo "missing: $L/$f" >&2; false; }
	done
	for f in nvml.h cupti.h nvjpeg.h npp.h curand.h cusolverDn.h nvrtc.h cufile.h nvFatbin.h \
		thrust/version.h; do
		[ -f "$S/targets/sbsa-linux/include/$f" ] || { echo "missing: include/$f" >&2; false; }
	done
	# Every NEEDED resolves (libcufile_rdma's libibverbs is the device's, a note said so)
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
}

@test "e2e all 12.4: a program linked with ten of the libraries starts under cuda-xcc run" {
	need_all
	need aarch64-linux-gnu-g++-12 "CUDA 12.4's host compiler (g++-aarch64-linux-gnu)"
	need qemu-aarch64 "runs the program"
	d=$(scratch)
	cd "$d"
	cat > many.cu <<'CU'
#include <cstdio>
#include <cufft.h>
#include <cupti.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <nppcore.h>
#include <nvJitLink.h>
#include <nvjpeg.h>
#include <nvrtc.h>

int main()
{
	int a = -1, b = -1, v = -1;
	curandGetVersion(&v);
	std::printf("curand %d\n", v);
	cusolverGetProperty(MAJOR_VERSION, &a);
	std::printf("cusolver %d\n", a);
	cusparseGetProperty(MAJOR_VERSION, &a);
	std::printf("cusparse %d\n", a);
	cufftGetVersion(&v);
	std::printf("cufft %d\n", v);
	const NppLibraryVersion *n = nppGetLibVersion();
	std::printf("npp %d.%d\n", n->major, n->minor);
	nvjpegGetProperty(MAJOR_VERSION, &a);
	std::printf("nvjpeg %d\n", a);
	nvrtcVersion(&a, &b);
	std::printf("nvrtc %d.%d\n", a, b);
	unsigned ma = 0, mi = 0;
	nvJitLinkVersion(&ma, &mi);
	std::printf("nvJitLink %u.%u\n", ma, mi);
	uint32_t cv = 0;
	cuptiGetVersion(&cv);
	std::printf("cupti %u\n", cv);
	return 0;
}
CU
	run "$CUDA_XCC" --sysroot "$S" -arch sm_90 -cudart shared many.cu -o many -lcufft -lcupti \
		-lcurand -lcusolver -lcusparse -lnppc -lnvJitLink -lnvjpeg -lnvrtc
	assert_status 0
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$S" ./many
	[[ "$output" != *"cannot open shared object file"* ]] || { echo "$output" >&2; false; }
	assert_status 0
	assert_output_contains "curand 10305"
	assert_output_contains "cusolver 11"
	assert_output_contains "cusparse 12"
	assert_output_contains "npp 12.2"
	assert_output_contains "nvjpeg 12"
	assert_output_contains "nvrtc 12.4"
	assert_output_contains "nvJitLink 12.4"
}
