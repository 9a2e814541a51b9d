# Sourced by scripts/fetch-debian-cuda.sh, fetch-target-root.sh and fetch-cross-toolchain.sh: download pinned
# Debian packages into a cache directory through a private apt configuration.
#
#   debian_fetch NAME SUITE CACHE PKG:ARCH=VERSION...
#   debian_served NAME SUITE CACHE PKG:ARCH...   (the versions SUITE serves now)
#
# NAME prefixes the progress messages. Copies already in CACHE that dpkg can read are
# reused, so a second run downloads nothing. apt is driven through a private configuration
# under CACHE/apt (its own sources.list and lists directory): /etc/apt is only read, to
# learn which Debian mirror this machine uses, and nothing is installed. On failure it
# prints why and exits (1), as the scripts that source it do.

# apt-get download names a file pkg_version_arch.deb, an epoch's ':' written as %3a.
debian_deb_name() {
	local pkg=${1%%:*} rest=${1#*:} version
	version=${rest#*=}
	printf '%s_%s_%s.deb\n' "$pkg" "${version//:/%3a}" "${rest%%=*}"
}

# The first URI that serves suite in the machine's apt sources: one-line .list entries
# ("deb [options] URI suite components") and deb822 .sources paragraphs (URIs:, Suites:).
# Suite '*': the first URI of the Debian archive itself (.../debian), whatever its suites.
# Where they are comes from apt's own configuration (which honours APT_CONFIG).
debian_sources_uri() {
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

# debian_index NAME SUITE CACHE: a private package index of SUITE from the machine's own
# Debian mirror under CACHE/apt, updated once per run; sets debian_apt_opts, the options
# that make apt-get and apt-cache use it.
debian_apt_opts=()
debian_index_done=
debian_index() {
	local name=$1 suite=$2 cache=$3 uri aptdir
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg

	[ "$debian_index_done" != "$suite $cache" ] || return 0
	# The machine's own Debian mirror, whatever the sources format (one-line or deb822).
	uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk -v s="$suite" '$2 == s { print $1; exit }')
	if [ -z "$uri" ]; then
		uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
			awk '$1 ~ /debian\/?$/ { print $1; exit }')
	fi
	# indextargets knows only what 'apt-get update' fetched: read the sources themselves.
	[ -n "$uri" ] || uri=$(debian_sources_uri "$suite")
	# A Debian mirror serves every release: a bookworm machine's mirror has trixie too.
	[ -n "$uri" ] || uri=$(debian_sources_uri '*')
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
	debian_apt_opts=(
		-o "Dir::Etc::SourceList=$aptdir/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$aptdir/lists"
		-o "Dir::Cache=$aptdir/cache"
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64
		-o Debug::NoLocking=1
	)
	# apt drops to _apt to download; root-owned caches would then be unwritable for it.
	[ "$(id -u)" = 0 ] && debian_apt_opts+=(-o APT::Sandbox::User=root)

	echo "$name: updating a private package index from $uri ($suite)" >&2
	apt-get -q "${debian_apt_opts[@]}" update >&2
	debian_index_done="$suite $cache"
}

# debian_served NAME SUITE CACHE PKG:ARCH...: PKG:ARCH=VERSION for each, the version SUITE
# serves now (its Packages index has one per package), or an empty line where it has none.
debian_served() {
	local name=$1 suite=$2 cache=$3 p v
	shift 3
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd)
	debian_index "$name" "$suite" "$cache"
	for p in "$@"; do
		v=$(apt-cache "${debian_apt_opts[@]}" madison "$p" 2>/dev/null |
			awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }')
		if [ -n "$v" ]; then echo "$p=$v"; else echo; fi
	done
}

debian_fetch() {
	local name=$1 suite=$2 cache=$3
	shift 3
	local packages=("$@") missing=() p f tmp

	for tool in apt-get dpkg-deb; do
		command -v "$tool" >/dev/null || { echo "$0: $tool not found: this script needs a Debian-like system with apt" >&2; exit 1; }
	done
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd)

	for p in "${packages[@]}"; do
		f=$cache/$(debian_deb_name "$p")
		# A cached copy counts only when dpkg can read it: an interrupted download is retried.
		if [ -s "$f" ] && dpkg-deb --info "$f" >/dev/null 2>&1; then
			continue
		fi
		missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0

	debian_index "$name" "$suite" "$cache"
	tmp=$(mktemp -d "$cache/.download.XXXXXX")
	# shellcheck disable=SC2064 # the directory is known now; the trap runs at exit
	trap "rm -rf '$tmp'" EXIT
	echo "$name: downloading ${missing[*]}" >&2
	(cd "$tmp" && apt-get -q "${debian_apt_opts[@]}" download "${missing[@]}" >&2)
	for p in "${missing[@]}"; do
		f=$(debian_deb_name "$p")
		if [ ! -s "$tmp/$f" ] || ! dpkg-deb --info "$tmp/$f" >/dev/null 2>&1; then
			echo "$0: apt-get download did not produce a readable $f" >&2
			exit 1
		fi
		# Same file system: the rename is atomic, so a reader never sees half a package.
		mv -f "$tmp/$f" "$cache/$f"
	done
	rm -rf "$tmp"
	trap - EXIT
}

# The options of the scripts that unpack packages into a directory (fetch-target-root.sh,
# fetch-cross-toolchain.sh): --release R, --dest DIR, --cache DIR, --fetch-only and --help,
# which prints lines HELP (a sed range, e.g. 2,21) of the script's header. Sets release, dest,
# cache and fetch_only; a bad argument exits 2 with USAGE.
# shellcheck disable=SC2034 # fetch_only is the sourcing script's
debian_dest_options() {
	local usage=$1 help=$2 key
	shift 2
	while [ $# -gt 0 ]; do
		case "$1" in
		--cache|--dest|--release)
			[ $# -ge 2 ] || { echo "$0: $1 needs a value ($usage)" >&2; exit 2; }
			printf -v "${1#--}" '%s' "$2"
			shift 2 ;;
		--cache=*|--dest=*|--release=*)
			key=${1%%=*}
			printf -v "${key#--}" '%s' "${1#*=}"
			shift ;;
		--fetch-only) fetch_only=1; shift ;;
		-h|--help) sed -n "${help}s/^# \{0,1\}//p" "$0"; exit 0 ;;
		*) echo "$0: unknown argument '$1' ($usage)" >&2; exit 2 ;;
		esac
	done
}
