#!/bin/bash
# Run NixOS/patchelf's own test suite against cuda-xcc's patchelf.
#
#   scripts/patchelf-upstream-suite.sh [--xcc BINARY] [--cache DIR] [--log FILE]
#
# Debian's patchelf source package (trixie, 0.18.0) is fetched with apt-get source through a
# private apt configuration (its own sources.list with a deb-src entry and lists directory;
# /etc/apt is only read), cached in DIR (default /var/cache/cuda-xcc/patchelf-src). Nothing
# of patchelf's enters the checkout. Upstream patchelf is built from it once, its suite run,
# and the tests it passes on this machine are remembered in DIR: those are the ones that must
# pass here. Then the same suite, with the same fixtures, runs with ../src/patchelf replaced
# by a small dynamically linked launcher of BINARY (default: build/src/cuda-xcc): the tests
# read that file's PT_INTERP and resolve it with readlink -f, so it cannot be a symlink.
#
# FILE (default test-suite-patchelf-upstream.log) gets an automake-style summary
# ("# PASS: N" ...) that scripts/summarize-tests.sh adds to CI's closing line: a required
# test that fails is a FAIL, a test upstream does not pass here is a SKIP.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XCC_PATCHELF_CACHE:-/var/cache/cuda-xcc/patchelf-src}
xcc=$top/build/src/cuda-xcc
log=test-suite-patchelf-upstream.log
while [ $# -gt 0 ]; do
	case "$1" in
	--xcc|--cache|--log)
		[ $# -ge 2 ] || { echo "$0: $1 needs an argument" >&2; exit 2; }
		case "$1" in --xcc) xcc=$2 ;; --cache) cache=$2 ;; --log) log=$2 ;; esac
		shift 2 ;;
	-h|--help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "$0: unknown argument '$1' (see $0 --help)" >&2; exit 2 ;;
	esac
done

suite=trixie
version=0.18.0
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
say() { echo "patchelf-upstream-suite: $*" >&2; }

[ -x "$xcc" ] || { echo "$0: $xcc is not an executable: build cuda-xcc first or pass --xcc" >&2; exit 1; }
xcc=$(cd "$(dirname "$xcc")" && pwd)/$(basename "$xcc")
for tool in apt-get autoreconf make cc c++ sha256sum tar; do
	command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 1; }
done
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
log_dir=$(cd "$(dirname "$log")" && pwd)
log=$log_dir/$(basename "$log")

# ---- the source ------------------------------------------------------------------------
orig=$cache/patchelf_$version.orig.tar.gz
if [ ! -s "$cache/orig.ok" ]; then
	uri=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null | awk '$1 ~ /debian\/?$/ { print $1; exit }')
	[ -n "$uri" ] || uri=http://deb.debian.org/debian/
	[ -r "$keyring" ] || { echo "$0: $keyring missing: install debian-archive-keyring" >&2; exit 1; }
	aptdir=$cache/apt
	mkdir -p "$aptdir/lists/partial"
	printf 'deb-src [signed-by=%s] %s %s main\n' "$keyring" "${uri%/}" "$suite" >"$aptdir/sources.list"
	apt_opts=(
		-o "Dir::Etc::SourceList=$aptdir/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$aptdir/lists"
		-o "Dir::Cache=$aptdir/cache"
		# apt-get source would otherwise look for the installed (bookworm) version
		-o Dir::State::status=/dev/null
		-o Debug::NoLocking=1
	)
	[ "$(id -u)" = 0 ] && apt_opts+=(-o APT::Sandbox::User=root)
	say "updating a private source index from $uri ($suite)"
	apt-get -q "${apt_opts[@]}" update >&2
	pkgver=$(apt-cache "${apt_opts[@]}" showsrc patchelf | awk '$1 == "Version:" { print $2 }' |
		grep "^$version-" | head -1)
	[ -n "$pkgver" ] || { echo "$0: Debian $suite has no patchelf $version source" >&2; exit 1; }
	# The tarball's checksum as the signed index gives it.
	want=$(apt-get -q "${apt_opts[@]}" source --print-uris "patchelf=$pkgver" 2>/dev/null |
		awk -v f="patchelf_$version.orig.tar.gz" '$2 == f { sub("^SHA256:", "", $4); print $4 }')
	[ -n "$want" ] || { echo "$0: no SHA256 for patchelf_$version.orig.tar.gz in the index" >&2; exit 1; }
	tmp=$(mktemp -d "$cache/.download.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	say "downloading patchelf $pkgver's source"
	# Only the upstream tarball is used: a mirror missing the .dsc does not matter.
	(cd "$tmp" && apt-get -q "${apt_opts[@]}" source --download-only "patchelf=$pkgver" >&2) ||
		say "apt-get source reported an error; checking the upstream tarball"
	got=$(sha256sum <"$tmp/patchelf_$version.orig.tar.gz" 2>/dev/null | cut -d' ' -f1 || true)
	[ "$got" = "$want" ] || { echo "$0: patchelf_$version.orig.tar.gz missing or its SHA256 is wrong" >&2; exit 1; }
	mv -f "$tmp/patchelf_$version.orig.tar.gz" "$orig"
	echo "$want" >"$cache/orig.ok"
	rm -rf "$tmp"
	trap - EXIT
fi

# ---- upstream, once: its fixtures and what it passes here -------------------------------
ref=$cache/upstream
passing=$cache/upstream-passes.txt
if [ ! -s "$passing" ] || [ ! -x "$ref/src/patchelf" ]; then
	say "building upstream patchelf $version and running its suite (once)"
	rm -rf "$ref" "$passing"
	mkdir -p "$ref"
	tar xzf "$orig" -C "$ref" --strip-components=1
	(cd "$ref" && ./bootstrap.sh && ./configure && make -j"$(nproc)") >"$cache/upstream-build.log" 2>&1 ||
		{ echo "$0: building upstream patchelf failed, see $cache/upstream-build.log" >&2; exit 1; }
	(cd "$ref" && make -j"$(nproc)" check) >>"$cache/upstream-build.log" 2>&1 || true
	for trs in "$ref"/tests/*.trs; do
		[ -e "$trs" ] || continue
		if grep -q '^:global-test-result: PASS' "$trs"; then
			basename "$trs" .trs
		fi
	done | sort >"$passing.tmp"
	[ -s "$passing.tmp" ] || { echo "$0: upstream passed nothing; see $cache/upstream-build.log" >&2; exit 1; }
	mv "$passing.tmp" "$passing"
	say "upstream passes $(wc -l <"$passing") tests here"
fi

# ---- the same suite, with cuda-xcc in src/patchelf ---------------------------------------
run=$(mktemp -d "${TMPDIR:-/tmp}/patchelf-upstream.XXXXXX")
trap 'rm -rf "$run"' EXIT
cp -a "$ref/." "$run/"
rm -f "$run"/tests/*.log "$run"/tests/*.trs
rm -rf "$run/tests/scratch"
rm -f "$run/src/patchelf"
cat >"$run/launcher.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
/* src/patchelf for the suite: cuda-xcc patchelf ARGS... */
int main(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 2, sizeof *args);

	if (!args)
		return 127;
	args[0] = "cuda-xcc";
	args[1] = "patchelf";
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	execv(XCC, args);
	perror(XCC);
	return 127;
}
EOF
cc -O2 -DXCC="\"$xcc\"" -o "$run/src/patchelf" "$run/launcher.c"
say "running upstream's suite against $xcc"
# Only the tests directory: its fixtures are built, src/patchelf is not rebuilt.
(cd "$run/tests" && make -j"$(nproc)" check) >"$run/suite.out" 2>&1 || true

pass=0 fail=0 skip=0
{
	echo "patchelf $version upstream suite against $xcc"
	for trs in "$run"/tests/*.trs; do
		t=$(basename "$trs" .trs)
		result=$(sed -n 's/^:global-test-result: //p' "$trs")
		if ! grep -qx "$t" "$passing"; then
			echo "SKIP: $t (upstream patchelf does not pass it here; ours: $result)"
			skip=$((skip + 1))
		elif [ "$result" = PASS ]; then
			echo "PASS: $t"
			pass=$((pass + 1))
		else
			echo "FAIL: $t"
			fail=$((fail + 1))
		fi
	done
	# A required test that did not run at all is a failure too.
	while read -r t; do
		[ -e "$run/tests/$t.trs" ] || { echo "FAIL: $t (did not run)"; fail=$((fail + 1)); }
	done <"$passing"
	echo "# TOTAL: $((pass + fail + skip))"
	echo "# PASS:  $pass"
	echo "# SKIP:  $skip"
	echo "# XFAIL: 0"
	echo "# FAIL:  $fail"
	echo "# XPASS: 0"
	echo "# ERROR: 0"
	# What failed, with its output.
	for trs in "$run"/tests/*.trs; do
		t=$(basename "$trs" .trs)
		grep -qx "$t" "$passing" && ! grep -q '^:global-test-result: PASS' "$trs" || continue
		echo "---- $t"
		tail -n 30 "$run/tests/$t.log"
	done
} >"$log"
# The suite writes --output /dev/null: make sure it is still the device.
if [ ! -c /dev/null ]; then
	echo "FAIL: /dev/null is no longer a character device after the suite" >>"$log"
	fail=$((fail + 1))
	sed -i "s/^# FAIL: .*/# FAIL:  $fail/" "$log"
fi
say "$pass passed, $fail failed, $skip not required (upstream does not pass them); summary in $log"
[ "$fail" -eq 0 ]
