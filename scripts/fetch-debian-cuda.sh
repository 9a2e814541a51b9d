#!/bin/bash
# Download the Debian packages (non-free) that make an sbsa CUDA sysroot: the amd64 toolkit
# (host nvcc) and the arm64 development files and runtime (target side).
#
#   scripts/fetch-debian-cuda.sh [--release bookworm|trixie] [--cache DIR]
#
# --release bookworm (the default): Debian 12's CUDA 11.8, 751 MB, cached in $XCC_DEB_CACHE
#   or /var/cache/cuda-xcc/debs.
# --release trixie: Debian 13's CUDA 12.4.1 with cuBLAS (and cuBLASLt), cuFFT and CCCL's
#   headers, 1.42 GB, cached in $XCC_DEB_CACHE_TRIXIE or /var/cache/cuda-xcc/debs-trixie.
#
# Prints the path of each .deb, one per line, on stdout. Copies already in DIR are reused, so
# a second run downloads nothing. apt is driven through a private configuration under
# DIR/apt (its own sources.list and lists directory): /etc/apt is only read, to learn which
# Debian mirror this machine uses, and nothing is installed.
set -euo pipefail

usage="usage: $0 [--release bookworm|trixie] [--cache DIR]"
release=bookworm
cache=
while [ $# -gt 0 ]; do
	case "$1" in
	--cache) [ $# -ge 2 ] || { echo "$0: --cache needs a directory" >&2; exit 2; }
		cache=$2; shift 2 ;;
	--cache=*) cache=${1#--cache=}; shift ;;
	--release) [ $# -ge 2 ] || { echo "$0: --release needs bookworm or trixie" >&2; exit 2; }
		release=$2; shift 2 ;;
	--release=*) release=${1#--release=}; shift ;;
	-h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "$0: unknown argument '$1' ($usage)" >&2; exit 2 ;;
	esac
done

# Pinned versions: the host and target halves must come from the same CUDA build (one source
# package). The suite is the release's own, not its -updates or -security.
case "$release" in
bookworm)
	suite=bookworm
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE:-/var/cache/cuda-xcc/debs}
	# All from source nvidia-cuda-toolkit 11.8.0-5~deb12u1. libnvtoolsext1 (32 kB) is a
	# small aarch64 library that NEEDs libstdc++ and libgcc_s, which no CUDA package
	# provides: it shows what the sysroot's ELF autopatch has to resolve.
	packages=(
		nvidia-cuda-toolkit:amd64=11.8.89~11.8.0-5~deb12u1
		nvidia-cuda-dev:arm64=11.8.89~11.8.0-5~deb12u1
		libcudart11.0:arm64=11.8.89~11.8.0-5~deb12u1
		libnvtoolsext1:arm64=11.8.86~11.8.0-5~deb12u1
	)
	;;
trixie)
	suite=trixie
	[ -n "$cache" ] || cache=${XCC_DEB_CACHE_TRIXIE:-/var/cache/cuda-xcc/debs-trixie}
	# From source nvidia-cuda-toolkit 12.4.1-2: the toolkit (87 MB), the headers and static
	# libraries (929 MB), and the shared cudart, cuBLAS, cuBLASLt (which libcublas NEEDs) and
	# cuFFT. From source cccl 2.3.2-2 (arch all, 1.5 MB): libcu++, CUB and Thrust, which
	# 12.4's own headers include (cuda_fp16.h includes <nv/target>).
	packages=(
		nvidia-cuda-toolkit:amd64=12.4.131~12.4.1-2
		nvidia-cuda-dev:arm64=12.4.127~12.4.1-2
		libcudart12:arm64=12.4.127~12.4.1-2
		libcublas12:arm64=12.4.5.8~12.4.1-2
		libcublaslt12:arm64=12.4.5.8~12.4.1-2
		libcufft11:arm64=11.2.1.3~12.4.1-2
		libcu++-dev:all=2.3.2-2
		libcub-dev:all=2.3.2-2
		libthrust-dev:all=2.3.2-2
	)
	;;
*) echo "$0: unknown release '$release': bookworm (CUDA 11.8) or trixie (CUDA 12.4)" >&2; exit 2 ;;
esac
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

for tool in apt-get dpkg-deb; do
	command -v "$tool" >/dev/null || { echo "$0: $tool not found: this script needs a Debian-like system with apt" >&2; exit 1; }
done

# apt-get download names a file pkg_version_arch.deb (an epoch's ':' would be %3a; none here).
deb_name() {
	local pkg=${1%%:*} rest=${1#*:}
	printf '%s_%s_%s.deb\n' "$pkg" "${rest#*=}" "${rest%%=*}"
}

# The first URI that serves suite in the machine's apt sources: one-line .list entries
# ("deb [options] URI suite components") and deb822 .sources paragraphs (URIs:, Suites:).
# Suite '*': the first URI of the Debian archive itself (.../debian), whatever its suites.
# Where they are comes from apt's own configuration (which honours APT_CONFIG).
sources_uri() {
	local suite=$1 f list=/etc/apt/sources.list parts=/etc/apt/sources.list.d/
	eval "$(apt-config shell list Dir::Etc::sourcelist/f parts Dir::Etc::sourceparts/d 2>/dev/null)"
	for f in "$list" "${parts%/}"/*.list; do
		[ -r "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk -v s="$suite" '$1 == "deb" && ($3 == s || (s == "*" && $2 ~ /\/debian\/?$/)) {
				print $2; exit
			}'
	done
	for f in "${parts%/}"/*.sources; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '
			function flush() {
				split(uris, u, " ")
				if (uris != "" && enabled && (index(" " suites " ", " " s " ") ||
				    (s == "*" && u[1] ~ /\/debian\/?$/))) {
					print u[1]; found = 1; exit
				}
				uris = ""; suites = ""; enabled = 1
			}
			BEGIN { enabled = 1 }
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "uris:" { $1 = ""; uris = $0 }
			tolower($1) == "suites:" { $1 = ""; suites = $0 }
			tolower($1) == "enabled:" { enabled = (tolower($2) != "no") }
			END { if (!found) flush() }' "$f"
	done | head -1
}

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

missing=()
for p in "${packages[@]}"; do
	f=$cache/$(deb_name "$p")
	# A cached copy counts only when dpkg can read it: an interrupted download is retried.
	if [ -s "$f" ] && dpkg-deb --info "$f" >/dev/null 2>&1; then
		continue
	fi
	missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	# The machine's own Debian mirror, whatever the sources format (one-line or deb822).
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk -v s="$suite" '$2 == s { print $1; exit }')
	if [ -z "$uri" ]; then
		uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
			awk '$1 ~ /debian\/?$/ { print $1; exit }')
	fi
	# indextargets knows only what 'apt-get update' fetched: read the sources themselves.
	[ -n "$uri" ] || uri=$(sources_uri "$suite")
	# A Debian mirror serves every release: a bookworm machine's mirror has trixie too.
	[ -n "$uri" ] || uri=$(sources_uri '*')
	if [ -z "$uri" ]; then
		echo "$0: no Debian $suite mirror in this machine's apt sources;" \
			"add one, e.g. http://deb.debian.org/debian, to /etc/apt/sources.list.d" >&2
		exit 1
	fi
	[ -r "$keyring" ] || { echo "$0: $keyring missing: install debian-archive-keyring" >&2; exit 1; }

	aptdir=$cache/apt
	mkdir -p "$aptdir/lists/partial"
	printf 'deb [arch=amd64,arm64 signed-by=%s] %s %s main contrib non-free\n' \
		"$keyring" "${uri%/}" "$suite" > "$aptdir/sources.list"
	apt_opts=(
		-o "Dir::Etc::SourceList=$aptdir/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$aptdir/lists"
		-o "Dir::Cache=$aptdir/cache"
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64
		-o Debug::NoLocking=1
	)
	# apt drops to _apt to download; root-owned caches would then be unwritable for it.
	[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)

	echo "fetch-debian-cuda: updating a private package index from $uri ($suite non-free)" >&2
	apt-get -q "${apt_opts[@]}" update >&2

	tmp=$(mktemp -d "$cache/.download.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "fetch-debian-cuda: downloading ${missing[*]}" >&2
	(cd "$tmp" && apt-get -q "${apt_opts[@]}" download "${missing[@]}" >&2)
	for p in "${missing[@]}"; do
		f=$(deb_name "$p")
		if [ ! -s "$tmp/$f" ] || ! dpkg-deb --info "$tmp/$f" >/dev/null 2>&1; then
			echo "$0: apt-get download did not produce a readable $f" >&2
			exit 1
		fi
		# Same file system: the rename is atomic, so a reader never sees half a package.
		mv -f "$tmp/$f" "$cache/$f"
	done
fi

for p in "${packages[@]}"; do
	echo "$cache/$(deb_name "$p")"
done
