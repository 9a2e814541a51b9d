# A board for sysroot create --from-device without a board: a directory that the suite's
# sshd (sshd.bash) serves as the board's root (--device-root), made from Debian's arm64
# packages. It stands for an sbsa CUDA 12.4 board, a Jetson Thor-like JetPack 7 one:
#   - Debian 12's arm64 C and C++ runtime as scripts/fetch-target-root.sh --release
#     bookworm unpacks it (JetPack 7's device root: sysroots/device-roots.json);
#   - usr/local/cuda-12.4/targets/sbsa-linux/{include,lib}: the headers and libcudart of
#     Debian 13's CUDA 12.4.1 arm64 packages (and CCCL's headers), in NVIDIA's layout, with
#     a version.json in NVIDIA's format (Debian ships none) and usr/local/cuda -> cuda-12.4;
#   - etc/nv_tegra_release: the first line of a Jetson Thor's L4T R38.2.0 (JetPack 7.0),
#     and the TARGET_USERSPACE_LIB_DIR_PATH line such a file has (unverified: from a
#     published copy, not read from a board here), naming usr/lib/aarch64-linux-gnu/nvidia;
#   - there a stand-in for L4T's libraries (libnvfakel4t.so.1, built here), and
#     proc/device-tree/compatible with Thor's SoC (nvidia,tegra264).
# No real board pairs JetPack 7 with CUDA 12.4 (JetPack 7 ships CUDA 13.0): the fake says
# so by being what Debian's packages make possible, and the tests read it as such.
#
#   fake_board_state DIR LOG   makes it in DIR, or says why not: prints "ok", "skip WHY" or
#                              "fail WHY" (the e2e.bash convention)
#   fake_board_host_debs       the x86_64 nvcc 12.4 (Debian 13's amd64 packages), one a line

fake_board_trixie() { echo "${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}"; }
fake_board_bookworm() { echo "${XCC_DEB_CACHE_BOOKWORM:-/var/cache/cuda-xcc/debs-bookworm}"; }

fake_board_host_debs() {
	ls "$(fake_board_trixie)"/nvidia-cuda-toolkit_12.4.*_amd64.deb \
		"$(fake_board_trixie)"/libnvvm4_12.4.*_amd64.deb 2>/dev/null
}

fake_board_cuda_debs() {
	local c
	c=$(fake_board_trixie)
	ls "$c"/nvidia-cuda-dev_12.4.*_arm64.deb "$c"/libcudart12_12.4.*_arm64.deb \
		"$c"/libcu++-dev_*_all.deb 2>/dev/null
}

# One .deb's members matching the patterns into DIR.
fake_board_unpack() {
	local deb=$1 dir=$2
	shift 2
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" --wildcards "$@"
}

fake_board_make() {
	local dir=$1 top=$2 tmp=$1.debs cuda t
	bash "$top/scripts/fetch-target-root.sh" --release bookworm --cache "$(fake_board_bookworm)" \
		--dest "$dir" >/dev/null || return 1
	mkdir -p "$tmp"
	for d in $(fake_board_cuda_debs); do
		case "$d" in
		*/nvidia-cuda-dev_*)
			fake_board_unpack "$d" "$tmp" './usr/include/*' \
				'./usr/lib/aarch64-linux-gnu/libcudart*' \
				'./usr/lib/aarch64-linux-gnu/libcudadevrt*' \
				'./usr/lib/aarch64-linux-gnu/stubs/libcuda.so' ;;
		*/libcudart12_*) fake_board_unpack "$d" "$tmp" './usr/lib/aarch64-linux-gnu/libcudart*' ;;
		*) fake_board_unpack "$d" "$tmp" './usr/include/*' ;;
		esac || return 1
	done
	cuda=$dir/usr/local/cuda-12.4
	t=$cuda/targets/sbsa-linux
	mkdir -p "$t/lib" "$t/include"
	cp -a "$tmp/usr/include/." "$t/include/"
	cp -a "$tmp/usr/lib/aarch64-linux-gnu/." "$t/lib/"
	rm -rf "$tmp"
	ln -s cuda-12.4 "$dir/usr/local/cuda"
	cat > "$cuda/version.json" <<-'EOF'
	{
	   "cuda" : {
	      "name" : "CUDA SDK",
	      "version" : "12.4.1"
	   },
	   "cuda_cudart" : {
	      "name" : "CUDA Runtime (cudart)",
	      "version" : "12.4.127"
	   }
	}
	EOF
	mkdir -p "$dir/etc" "$dir/proc/device-tree" "$dir/usr/lib/aarch64-linux-gnu/nvidia"
	cat > "$dir/etc/nv_tegra_release" <<-'EOF'
	# R38 (release), REVISION: 2.0, GCID: 41844464, BOARD: generic, EABI: aarch64, DATE: Fri Aug 22 00:55:42 UTC 2025
	# KERNEL_VARIANT: oot
	TARGET_USERSPACE_LIB_DIR=nvidia
	TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia
	EOF
	printf 'nvidia,p3834-0008+p4071-0000\0nvidia,tegra264\0' > "$dir/proc/device-tree/compatible"
	echo 'int nvfake_l4t(void) { return 38; }' > "$dir.c"
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libnvfakel4t.so.1 -o \
		"$dir/usr/lib/aarch64-linux-gnu/nvidia/libnvfakel4t.so.1" "$dir.c" || return 1
	rm -f "$dir.c"
	# The sshd's user reads it.
	chmod -R a+rX "$dir"
}

fake_board_state() {
	local dir=$1 log=$2 top=${XCC_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
	if [ "$(fake_board_cuda_debs | wc -l)" -lt 3 ] || [ -z "$(fake_board_host_debs)" ]; then
		echo "skip Debian 13's CUDA 12.4 packages are not in $(fake_board_trixie) (run scripts/fetch-debian-cuda.sh --release trixie)"
		return 0
	fi
	if [ -z "$(ls "$(fake_board_bookworm)"/libc6_*_arm64.deb 2>/dev/null)" ]; then
		echo "skip Debian 12's arm64 C runtime is not in $(fake_board_bookworm) (run scripts/fetch-target-root.sh --release bookworm --fetch-only)"
		return 0
	fi
	if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
		echo "skip aarch64-linux-gnu-gcc builds the board's stand-in L4T library (gcc-aarch64-linux-gnu)"
		return 0
	fi
	if fake_board_make "$dir" "$top" > "$log" 2>&1; then
		echo ok
	else
		echo "fail the fake board could not be made: $(tail -5 "$log")"
	fi
}
