#!/usr/bin/env bats
# scripts/fetch-debian-cuda.sh without the network: a stand-in apt-get on PATH records how it
# is called and makes small real .debs, so what is checked is the script's own logic: the
# private apt configuration, the mirror taken from the machine's sources, the cache reuse.
load lib/common
bats_require_minimum_version 1.5.0

script() { echo "$XCC_SRCDIR/scripts/fetch-debian-cuda.sh"; }

# A stand-in apt-get: logs every call; 'indextargets' answers like a machine whose sources
# list a Debian mirror; 'download' builds the asked-for packages in the current directory.
fake_apt() {
	local bin=$1
	mkdir -p "$bin"
	cat > "$bin/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >> "$FAKE_APT_LOG"
cmd=
for a in "$@"; do
	case "$a" in indextargets|update|download) cmd=$a ;; esac
done
case "$cmd" in
indextargets)
	echo "http://deb.example.org/debian-security/ bookworm-security"
	echo "http://deb.example.org/debian/ bookworm" ;;
update) ;;
download)
	seen=0
	for a in "$@"; do
		[ "$a" = download ] && { seen=1; continue; }
		[ "$seen" = 1 ] || continue
		pkg=${a%%:*} rest=${a#*:} arch=${rest%%=*} ver=${rest#*=}
		d=$(mktemp -d)
		mkdir -p "$d/DEBIAN"
		printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: t <t@example.org>\nDescription: test\n' \
			"$pkg" "$ver" "$arch" > "$d/DEBIAN/control"
		# FAKE_APT_DEPENDS: "pkg=Depends value;..." for the packages that have some
		dep=$(printf '%s\n' "${FAKE_APT_DEPENDS:-}" | tr ';' '\n' | sed -n "s/^$pkg=//p")
		[ -z "$dep" ] || printf 'Depends: %s\n' "$dep" >> "$d/DEBIAN/control"
		dpkg-deb --build "$d" "${pkg}_${ver}_${arch}.deb" >/dev/null
		rm -rf "$d"
	done ;;
esac
EOF
	chmod +x "$bin/apt-get"
}

setup() {
	need dpkg-deb "builds the stand-in packages"
	d=$(scratch)
	fake_apt "$d/bin"
	export FAKE_APT_LOG=$d/apt.log
	export PATH=$d/bin:$PATH
	# apt's own configuration, pointed at sources of the test's making (none yet).
	mkdir -p "$d/etc/sources.list.d"
	echo "Dir::Etc \"$d/etc/\";" > "$d/apt.conf"
	export APT_CONFIG=$d/apt.conf
}

# A stand-in apt-get on a machine where 'apt-get update' never ran: no index targets.
no_index_targets() {
	sed -i 's|^indextargets)$|indextargets) exit 0 ;;\nnever)|' "$d/bin/apt-get"
}

@test "fetch-debian-cuda: downloads through a private apt configuration into the cache" {
	run --separate-stderr bash "$(script)" --cache "$d/cache"
	assert_status 0
	[ "${#lines[@]}" -eq 5 ]
	assert_output_contains "$d/cache/nvidia-cuda-toolkit_11.8.89~11.8.0-5~deb12u1_amd64.deb"
	# The build machine's libnvvm, which nvlink loads for -dlto's device link.
	assert_output_contains "$d/cache/libnvvm4_11.8.89~11.8.0-5~deb12u1_amd64.deb"
	assert_output_contains "$d/cache/nvidia-cuda-dev_11.8.89~11.8.0-5~deb12u1_arm64.deb"
	assert_output_contains "$d/cache/libcudart11.0_11.8.89~11.8.0-5~deb12u1_arm64.deb"
	for f in "${lines[@]}"; do
		dpkg-deb --info "$f" >/dev/null
	done
	# The machine's Debian mirror, the right suite, non-free, both architectures.
	run cat "$d/cache/apt/sources.list"
	assert_output_contains "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.example.org/debian bookworm main contrib non-free"
	# Every apt call that changes state stays in the cache, away from /etc/apt.
	run grep -E ' (update|download)( |$)' "$FAKE_APT_LOG"
	assert_status 0
	[ "${#lines[@]}" -eq 2 ]
	for l in "${lines[@]}"; do
		[[ "$l" == *"Dir::Etc::SourceList=$d/cache/apt/sources.list"* ]]
		[[ "$l" == *"Dir::Etc::SourceParts=/dev/null"* ]]
		[[ "$l" == *"Dir::State::Lists=$d/cache/apt/lists"* ]]
	done
	# No partial download is left behind.
	run find "$d/cache" -maxdepth 1 -name '.download.*'
	[ -z "$output" ]
}

@test "fetch-debian-cuda: a second run reuses the cache and never calls apt-get" {
	run --separate-stderr bash "$(script)" --cache "$d/cache"
	assert_status 0
	first=$output
	rm "$FAKE_APT_LOG"
	run --separate-stderr bash "$(script)" --cache "$d/cache"
	assert_status 0
	[ "$output" = "$first" ]
	[ ! -e "$FAKE_APT_LOG" ]
}

@test "fetch-debian-cuda: a damaged cached package is fetched again, only that one" {
	run bash "$(script)" --cache "$d/cache"
	assert_status 0
	dev=$d/cache/nvidia-cuda-dev_11.8.89~11.8.0-5~deb12u1_arm64.deb
	echo "interrupted" > "$dev"
	rm "$FAKE_APT_LOG"
	run bash "$(script)" --cache "$d/cache"
	assert_status 0
	dpkg-deb --info "$dev" >/dev/null
	run grep ' download ' "$FAKE_APT_LOG"
	assert_output_contains "nvidia-cuda-dev:arm64="
	[[ "$output" != *nvidia-cuda-toolkit* ]]
}

@test "fetch-debian-cuda: XCC_DEB_CACHE is the default cache; bad arguments are usage errors" {
	XCC_DEB_CACHE=$d/envcache run bash "$(script)"
	assert_status 0
	assert_output_contains "$d/envcache/libcudart11.0_"
	run bash "$(script)" --bogus
	assert_status 2
	assert_output_contains "unknown argument '--bogus'"
	run bash "$(script)" --cache
	assert_status 2
}

@test "fetch-debian-cuda: without index targets the mirror is read from the sources files" {
	no_index_targets
	{
		echo "# deb822, as Debian 12 installs it"
		echo "Types: deb"
		echo "URIs: http://security.example.net/debian-security"
		echo "Suites: bookworm-security"
		echo "Components: main"
		echo
		echo "Types: deb"
		echo "URIs: http://mirror.example.net/debian http://other.example.net/debian"
		echo "Suites: bookworm bookworm-updates"
		echo "Components: main"
	} > "$d/etc/sources.list.d/debian.sources"
	run --separate-stderr bash "$(script)" --cache "$d/cache"
	assert_status 0
	grep -q " http://mirror.example.net/debian bookworm main contrib non-free" \
		"$d/cache/apt/sources.list"

	# The one-line format too, options and all.
	rm "$d/etc/sources.list.d/debian.sources" "$d"/cache/*.deb
	echo "deb [arch=amd64 signed-by=/x.gpg] http://list.example.net/debian bookworm main" \
		> "$d/etc/sources.list"
	run --separate-stderr bash "$(script)" --cache "$d/cache"
	assert_status 0
	grep -q " http://list.example.net/debian bookworm main contrib non-free" \
		"$d/cache/apt/sources.list"
}

@test "fetch-debian-cuda: no Debian mirror in the machine's sources is a clear error" {
	no_index_targets
	echo "deb https://packages.example.com/apt stable main" > "$d/etc/sources.list"
	run bash "$(script)" --cache "$d/cache"
	assert_status 1
	assert_output_contains "no Debian bookworm mirror in this machine's apt sources"
	[ -z "$(ls "$d/cache" 2>/dev/null | grep '\.deb$')" ]
}

@test "fetch-debian-cuda: --release trixie fetches CUDA 12.4 with cuBLAS, cuFFT, cuSPARSE and nvJitLink into its own cache" {
	# The machine's sources name only bookworm: the Debian mirror serves trixie as well.
	run --separate-stderr bash "$(script)" --release trixie --cache "$d/cache"
	assert_status 0
	[ "${#lines[@]}" -eq 12 ]
	assert_output_contains "$d/cache/nvidia-cuda-toolkit_12.4.131~12.4.1-2_amd64.deb"
	# The build machine's libnvvm, which nvlink loads for -dlto's device link (the
	# driver's -dlto warning names this script for it).
	assert_output_contains "$d/cache/libnvvm4_12.4.131~12.4.1-2_amd64.deb"
	assert_output_contains "$d/cache/nvidia-cuda-dev_12.4.127~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcudart12_12.4.127~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcublas12_12.4.5.8~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcublaslt12_12.4.5.8~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcufft11_11.2.1.3~12.4.1-2_arm64.deb"
	# libcusparse12 Depends on libnvjitlink12: 12.4's libcusparse.so.12 NEEDs libnvJitLink.so.12.
	assert_output_contains "$d/cache/libcusparse12_12.3.1.170~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libnvjitlink12_12.4.127~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcu++-dev_2.3.2-2_all.deb"
	[[ "$output" != *11.8* ]]
	for f in "${lines[@]}"; do
		dpkg-deb --info "$f" >/dev/null
	done
	run cat "$d/cache/apt/sources.list"
	assert_output_contains " http://deb.example.org/debian trixie main contrib non-free"

	# Its default cache is not bookworm's, so globs over either never mix the two.
	XCC_DEB_CACHE_TRIXIE=$d/t XCC_DEB_CACHE=$d/b run --separate-stderr bash "$(script)" --release=trixie
	assert_status 0
	assert_output_contains "$d/t/libcufft11_"
	[ ! -e "$d/b" ]
	XCC_DEB_CACHE_TRIXIE=$d/t XCC_DEB_CACHE=$d/b run --separate-stderr bash "$(script)"
	assert_status 0
	assert_output_contains "$d/b/libcudart11.0_"

	run bash "$(script)" --release sid
	assert_status 2
	assert_output_contains "unknown release 'sid'"
}

@test "fetch-debian-cuda: trixie from deb822 sources that list only bookworm" {
	no_index_targets
	{
		echo "Types: deb"
		echo "URIs: http://security.example.net/debian-security"
		echo "Suites: bookworm-security"
		echo
		echo "Types: deb"
		echo "URIs: http://mirror.example.net/debian"
		echo "Suites: bookworm bookworm-updates"
	} > "$d/etc/sources.list.d/debian.sources"
	run --separate-stderr bash "$(script)" --release trixie --cache "$d/cache"
	assert_status 0
	grep -q " http://mirror.example.net/debian trixie main contrib non-free" "$d/cache/apt/sources.list"
}

@test "fetch-debian-cuda: --components fetches the components' packages and the CUDA packages they Depend on" {
	export FAKE_APT_DEPENDS="libcusolver11=libc6 (>= 2.34), libcublas12 (= 12.4.5.8~12.4.1-2), libcusparse12 (= 12.3.1.170~12.4.1-2), libnvjitlink12 (= 12.4.127~12.4.1-2);libnvrtc12=libnvrtc-builtins12.4 (= 12.4.127~12.4.1-2), libc6 (>= 2.34);libnppial12=libnppc12 (= 12.2.5.30~12.4.1-2)"
	run --separate-stderr bash "$(script)" --release trixie --cache "$d/cache" --components libcusolver,cuda_nvrtc,libcurand,libnpp
	assert_status 0
	# the release's own twelve, the components' own, nothing twice
	assert_output_contains "$d/cache/libcusolver11_11.6.1.9~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcusolvermg11_11.6.1.9~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libcurand10_11.1.1+~10.3.5.147~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libnvrtc12_12.4.127~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libnppc12_12.2.5.30~12.4.1-2_arm64.deb"
	assert_output_contains "$d/cache/libnpps12_12.2.5.30~12.4.1-2_arm64.deb"
	# nvrtc's builtins come through its Depends
	assert_output_contains "$d/cache/libnvrtc-builtins12.4_12.4.127~12.4.1-2_arm64.deb"
	[ "${#lines[@]}" -eq $((12 + 2 + 1 + 2 + 11)) ]
	[ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" -eq "${#lines[@]}" ]
	for f in "${lines[@]}"; do
		dpkg-deb --info "$f" >/dev/null
	done

	# a Depends outside the release's table (libc6) is the device's; one inside is fetched
	FAKE_APT_DEPENDS="libcurand10=libfoo-cuda12 (= 1), libcufile0 (= 1.9.1.3~12.4.1-2)" \
		run --separate-stderr bash "$(script)" --release trixie --cache "$d/c2" --components libcurand
	assert_status 0
	assert_output_contains "$d/c2/libcufile0_1.9.1.3~12.4.1-2_arm64.deb"
	[[ "$output" != *libfoo* ]]

	# the release's own packages are not followed: nvidia-cuda-dev Depends on every CUDA
	# library, and one component asked for would bring them all
	FAKE_APT_DEPENDS="nvidia-cuda-dev=libcudart12 (= 12.4.127~12.4.1-2), libnvjpeg12 (= 12.3.1.117~12.4.1-2), libnppc12 (= 12.2.5.30~12.4.1-2)" \
		run --separate-stderr bash "$(script)" --release trixie --cache "$d/c4" --components libcurand
	assert_status 0
	[ "${#lines[@]}" -eq $((12 + 1)) ]
	[[ "$output" != *libnvjpeg12* ]]

	# 'all': every component's packages, and the create command's list to match
	run --separate-stderr bash "$(script)" --release trixie --cache "$d/c3" --components all
	assert_status 0
	assert_output_contains "$d/c3/libcufile-rdma1_1.9.1.3~12.4.1-2_arm64.deb"
	assert_output_contains "$d/c3/nvidia-opencl-dev_12.4.127~12.4.1-2_arm64.deb"
	assert_output_contains "$d/c3/libnvidia-ml-dev_12.4.127~12.4.1-2_arm64.deb"
	# the release's twelve and 27 more (libnvblas12 comes only through a real Depends)
	[ "${#lines[@]}" -eq $((12 + 27)) ]
	[[ "$stderr" == *"--components cuda_cccl,cuda_cudart,cuda_cupti,cuda_nvml_dev,cuda_nvrtc,cuda_nvtx,cuda_opencl,libcublas,libcufft,libcufile,libcurand,libcusolver,libcusparse,libnpp,libnvfatbin,libnvjitlink,libnvjpeg"* ]]

	run bash "$(script)" --release trixie --cache "$d/cache" --components libcublas,nosuch
	assert_status 2
	assert_output_contains "unknown component 'nosuch'"
	assert_output_contains "libnvjitlink"
	# bookworm's CUDA 11.8 has its own packages for the same components, and no nvJitLink
	run --separate-stderr bash "$(script)" --cache "$d/c5" --components cuda_nvrtc,cuda_cccl
	assert_status 0
	assert_output_contains "$d/c5/libnvrtc11.2_11.8.89~11.8.0-5~deb12u1_arm64.deb"
	assert_output_contains "$d/c5/libnvrtc-builtins11.8_11.8.89~11.8.0-5~deb12u1_arm64.deb"
	assert_output_contains "$d/c5/libthrust-dev_1.17.2-2_all.deb"
	[ "${#lines[@]}" -eq $((5 + 2 + 3)) ]
	run bash "$(script)" --cache "$d/c5" --components libnvjitlink
	assert_status 2
	assert_output_contains "unknown component 'libnvjitlink' for --release bookworm"
}
