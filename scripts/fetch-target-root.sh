#!/bin/bash
# Make a minimal device root filesystem for `cuda-xcc --target-fs` from Debian's arm64
# packages of a release whose C library is no newer than the board's, with no board at hand.
#
#   scripts/fetch-target-root.sh --jetpack J [--dest DIR] [--cache DIR] [--current]
#   scripts/fetch-target-root.sh [--release bullseye|bookworm] --dest DIR [--cache DIR]
#   scripts/fetch-target-root.sh [--release R | --jetpack J] --fetch-only [--cache DIR]
#
# --jetpack J (5, 6, 7, or a release such as 5.1.2: its major version counts): the root for
#   that JetPack line, from the Debian release whose glibc is the newest not above the
#   board's (sysroots/device-roots.json, the table cuda-xcc reads too): JetPack 5 (Ubuntu
#   20.04, glibc 2.31) bullseye, exactly; JetPack 6 (Ubuntu 22.04, glibc 2.35) bullseye
#   (2.31); JetPack 7 (Ubuntu 24.04, glibc 2.39) bookworm (2.36). The default DIR is
#   $XDG_CACHE_HOME/cuda-xcc/roots/jetpack-N (or ~/.cache/...), where `cuda-xcc sysroot
#   create --jetpack J` looks for it.
# --release R: the release itself: bullseye (the default; Debian 11, glibc 2.31, GCC 10's
#   libstdc++ up to GLIBCXX_3.4.28) or bookworm (Debian 12, glibc 2.36, GLIBCXX_3.4.30).
#   About 7 MB of packages, cached in $XCC_DEB_CACHE_<RELEASE> (XCC_DEB_CACHE_BULLSEYE)
#   or /var/cache/cuda-xcc/debs-R.
# --dest DIR: where the root is made; it must not exist yet (or be empty). The packages are
#   unpacked with dpkg-deb into a directory beside it, which is renamed to DIR when complete.
# --fetch-only: only download the packages into the cache and print their paths.
# --current: take the versions the mirror serves now instead of the pinned ones, for a
#   release whose point releases still move (the script says when the pinned ones are gone).
#
# DIR/cuda-xcc-root.json describes the root: the Debian release, its glibc and libstdc++,
# the JetPack it stands for and the mismatch where the release's glibc is not the board's,
# and each package's version and sha256 (pinned or not). The root is otherwise kept exactly
# as Debian ships it, absolute symlinks included
# (usr/lib/aarch64-linux-gnu/libpthread.so -> /lib/aarch64-linux-gnu/libpthread.so.0):
# cuda-xcc resolves those inside the root itself, as it must for a board's own root.
# Prints DIR on stdout. Packages come through a private apt configuration
# (scripts/debian-fetch.bash): nothing is installed on this machine. Needs python3 to read
# the tables and write the description.
set -euo pipefail

usage="usage: $0 [--release bullseye|bookworm | --jetpack J] [--dest DIR|--fetch-only] [--cache DIR] [--current]"
release=
jetpack=
current=
cache=
dest=
fetch_only=
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/debian-fetch.bash
. "$here/debian-fetch.bash"
rest=()
while [ $# -gt 0 ]; do
	case "$1" in
	--jetpack)
		[ $# -ge 2 ] || { echo "$0: --jetpack needs a value ($usage)" >&2; exit 2; }
		jetpack=$2; shift 2 ;;
	--jetpack=*) jetpack=${1#*=}; shift ;;
	--current) current=1; shift ;;
	*) rest+=("$1"); shift ;;
	esac
done
debian_dest_options "$usage" 2,35 ${rest[@]+"${rest[@]}"}
if [ -n "$jetpack" ] && [ -n "$release" ]; then
	echo "$0: give --jetpack or --release, not both: --jetpack chooses the release" >&2
	exit 2
fi
[ -n "$jetpack" ] || [ -n "$release" ] || release=bullseye

# The tables: sysroots/ in the source tree, or beside this script where it is installed.
data=
for d in "$here/../sysroots" "$here"; do
	if [ -f "$d/device-roots.json" ] && [ -f "$d/jetpack.json" ]; then data=$d; break; fi
done
[ -n "$data" ] || { echo "$0: device-roots.json and jetpack.json are neither in $here/../sysroots nor beside this script" >&2; exit 1; }
command -v python3 >/dev/null || { echo "$0: python3 not found: it reads $data/device-roots.json (apt-get install python3)" >&2; exit 1; }

# roots_py spec|describe ...: the tables read, or the description written, by the JSON
# rules. spec prints shell assignments (shlex-quoted) for eval; exits 2 on a bad choice.
roots_py() {
	python3 - "$@" <<'EOF'
import hashlib, json, os, shlex, sys

mode, data = sys.argv[1], sys.argv[2]
roots = json.load(open(os.path.join(data, "device-roots.json")))
lines = json.load(open(os.path.join(data, "jetpack.json")))["releases"]
releases = {r["debian"]: r for r in roots["debian"]}

def fail(msg, code=2):
    sys.stderr.write("%s: %s\n" % (os.environ.get("SCRIPT", "fetch-target-root.sh"), msg))
    sys.exit(code)

def choose(release, jetpack):
    """The Debian release, the JetPack entry and the board (None without --jetpack)."""
    if not jetpack:
        if release not in releases:
            fail("unknown release '%s': %s" % (release, ", ".join(
                "%s (Debian %s, glibc %s)" % (r["debian"], r["debian_version"], r["glibc"])
                for r in roots["debian"])))
        return releases[release], None, None
    major = jetpack.split(".")[0]
    entry = next((j for j in roots["jetpack"] if j["jetpack"] == major), None)
    of_major = [l for l in lines if l["jetpack"].split(".")[0] == major]
    if entry is None or not of_major:
        fail("unknown JetPack '%s': %s" % (jetpack, ", ".join(
            j["jetpack"] for j in roots["jetpack"] if j["debian"])))
    if entry["debian"] is None:
        fail("no Debian root fits JetPack %s: %s" % (major, entry["why"]))
    board = {k: of_major[-1][k] for k in ("ubuntu", "glibc", "glibcxx", "cxxabi")}
    for l in of_major:
        if any(l[k] != board[k] for k in board):
            fail("jetpack.json: JetPack %s's lines differ in their userland" % major, 1)
    return releases[entry["debian"]], entry, board

def vers(a):
    return [int(x) for x in a.split(".")]

def mismatch(rel, major, board):
    if board is None or (rel["glibc"] == board["glibc"] and rel["glibcxx"] == board["glibcxx"]):
        return None
    return ("JetPack %s is Ubuntu %s (glibc %s, libstdc++ up to GLIBCXX_%s); no Debian release "
            "has that glibc: %s's %s (GLIBCXX_%s) is the newest not above it. Programs linked "
            "against this root need nothing the board lacks, but do not see what the board "
            "has beyond it" % (major, board["ubuntu"], board["glibc"], board["glibcxx"],
                               rel["debian"], rel["glibc"], rel["glibcxx"]))

if mode == "spec":
    release, jetpack = sys.argv[3], sys.argv[4]
    rel, entry, board = choose(release, jetpack)
    out = {"release": rel["debian"], "suite": rel["suite"], "final": "1" if rel["final"] else "",
           "point_release": rel["point_release"], "jetpack_major": entry["jetpack"] if entry else ""}
    for k, v in out.items():
        print("%s=%s" % (k, shlex.quote(v)))
    print("packages=(%s)" % " ".join(shlex.quote(p) for p in rel["packages"]))
elif mode == "describe":
    release, jetpack, pinned, cache, dest = sys.argv[3:8]
    pkgs = sys.argv[8:]
    rel, entry, board = choose(release, jetpack)
    major = entry["jetpack"] if entry else None
    desc = {
        "format": 1,
        "made_by": "cuda-xcc scripts/fetch-target-root.sh",
        "jetpack": major,
        "board": board,
        "debian": rel["debian"], "debian_version": rel["debian_version"],
        "point_release": rel["point_release"],
        "glibc": rel["glibc"], "glibc_defines": rel["glibc_defines"],
        "libstdcxx": rel["libstdcxx"], "glibcxx": rel["glibcxx"], "cxxabi": rel["cxxabi"],
        "mismatch": mismatch(rel, major, board),
        "pinned": pinned == "1",
        "packages": [],
        "source": rel["source"] + ("; " + entry["source"] if entry else ""),
    }
    if pinned != "1":
        desc["unpinned"] = ("--current: the versions the mirror served when the root was made, "
                            "not the ones device-roots.json pins (Debian %s)" % rel["point_release"])
    for p, deb in zip(pkgs[0::2], pkgs[1::2]):
        h = hashlib.sha256()
        with open(os.path.join(cache, deb), "rb") as f:
            for b in iter(lambda: f.read(1 << 20), b""):
                h.update(b)
        name, version = p.split("=", 1)
        desc["packages"].append({"package": name, "version": version, "sha256": h.hexdigest()})
    with open(os.path.join(dest, "cuda-xcc-root.json"), "w") as f:
        json.dump(desc, f, indent=1)
        f.write("\n")
    if desc["mismatch"]:
        sys.stderr.write("%s: note: %s\n" % (os.environ.get("SCRIPT", "fetch-target-root.sh"),
                                            desc["mismatch"]))
EOF
}

export SCRIPT=$0
spec=$(roots_py spec "$data" "$release" "$jetpack") || exit $?
suite='' final='' point_release='' jetpack_major='' packages=()
eval "$spec"
[ -n "$cache" ] || {
	var=XCC_DEB_CACHE_$(printf '%s' "$release" | tr '[:lower:]' '[:upper:]')
	cache=${!var:-/var/cache/cuda-xcc/debs-$release}
}
if [ -z "$dest" ] && [ -z "$fetch_only" ]; then
	if [ -z "$jetpack_major" ]; then
		echo "$0: --dest DIR is required without --jetpack ($usage)" >&2
		exit 2
	fi
	dest=${XDG_CACHE_HOME:-${HOME:?}/.cache}/cuda-xcc/roots/jetpack-$jetpack_major
fi
# Nothing is lost: an existing root (perhaps edited by hand) is never overwritten.
if [ -n "$dest" ] && [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null || echo x)" ]; then
	echo "$0: $dest exists and is not empty: remove it or choose another --dest" >&2
	exit 2
fi
command -v dpkg-deb >/dev/null || { echo "$0: dpkg-deb not found: this script needs a Debian-like system" >&2; exit 1; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
pinned=1
if [ -n "$current" ]; then
	debian_index fetch-target-root "$suite" "$cache"
	mapfile -t packages < <(debian_served fetch-target-root "$suite" "$cache" "${packages[@]%%=*}")
	pinned=
else
	# The pinned versions, when the cache lacks one, must still be on the mirror: a later
	# point release replaces them in the suite. Then say so rather than let apt fail.
	missing=()
	for p in "${packages[@]}"; do
		[ -s "$cache/$(debian_deb_name "$p")" ] || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		debian_index fetch-target-root "$suite" "$cache"
		mapfile -t served < <(debian_served fetch-target-root "$suite" "$cache" "${missing[@]%%=*}")
		for i in "${!missing[@]}"; do
			if [ "${served[$i]:-}" != "${missing[$i]}" ]; then
				last=
				[ -z "$final" ] || last=", though device-roots.json takes $point_release to be the last point release"
				echo "$0: the mirror's $suite serves ${served[$i]:-no ${missing[$i]%%=*}}," \
					"not the pinned ${missing[$i]} (Debian $point_release)$last:" \
					"run again with --current to take what it serves now" \
					"(cuda-xcc-root.json then records those versions as unpinned)" >&2
				exit 1
			fi
		done
	fi
fi
debian_fetch fetch-target-root "$suite" "$cache" "${packages[@]}"
if [ -n "$fetch_only" ]; then
	for p in "${packages[@]}"; do
		echo "$cache/$(debian_deb_name "$p")"
	done
	exit 0
fi

mkdir -p "$(dirname "$dest")"
parent=$(cd "$(dirname "$dest")" && pwd)
dest=$parent/$(basename "$dest")
work=$(mktemp -d "$parent/.target-root.XXXXXX")
trap 'rm -rf "$work"' EXIT
debs=()
for p in "${packages[@]}"; do
	dpkg-deb -x "$cache/$(debian_deb_name "$p")" "$work"
	debs+=("$p" "$(debian_deb_name "$p")")
done
roots_py describe "$data" "$release" "$jetpack" "$pinned" "$cache" "$work" "${debs[@]}"
chmod 755 "$work"
[ -d "$dest" ] && rmdir "$dest"
mv "$work" "$dest"
trap - EXIT
echo "$dest"
