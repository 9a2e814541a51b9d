#!/usr/bin/env bats
# Device roots per JetPack without a board: scripts/fetch-target-root.sh --jetpack J unpacks
# the Debian release whose glibc is the newest not above the board's (sysroots/
# device-roots.json, which the binary embeds too), describes it in cuda-xcc-root.json, and
# sysroot create --jetpack J with no --target-fs records it as the target fs from where the
# script puts it, fingerprinted with its description; without it, create names the command.
#
# The packages come from the caches scripts/setup.sh fills: $XCC_DEB_CACHE_BULLSEYE (default
# /var/cache/cuda-xcc/debs-bullseye) and $XCC_DEB_CACHE_BOOKWORM (debs-bookworm). Without
# them the tests that need them skip; nothing here downloads.
load lib/common
load lib/sysroot
bats_require_minimum_version 1.5.0

cache_of() { local v=XCC_DEB_CACHE_${1^^}; echo "${!v:-/var/cache/cuda-xcc/debs-$1}"; }
roots() { echo "$XDG_CACHE_HOME/cuda-xcc/roots"; }

setup_file() {
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/xdg
	XCC_DEB_CACHE_BULLSEYE=$(cache_of bullseye)
	XCC_DEB_CACHE_BOOKWORM=$(cache_of bookworm)
	export XCC_DEB_CACHE_BULLSEYE XCC_DEB_CACHE_BOOKWORM
	local j r
	for j in 5 6 7; do
		r=bullseye
		[ "$j" != 7 ] || r=bookworm
		# Unpacking only when the cache has every pinned package: nothing is downloaded.
		[ "$(ls "$(cache_of "$r")"/*_arm64.deb 2>/dev/null | wc -l)" -ge 7 ] || continue
		bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --jetpack "$j" \
			> "$BATS_FILE_TMPDIR/root-$j.log" 2>&1 || true
	done
}

# The root of JetPack $1 in $R, or skip (no packages) or fail (they are there, but it failed).
need_root() {
	R=$(roots)/jetpack-$1
	if [ ! -f "$R/cuda-xcc-root.json" ]; then
		[ ! -f "$BATS_FILE_TMPDIR/root-$1.log" ] || { cat "$BATS_FILE_TMPDIR/root-$1.log" >&2; return 1; }
		skip "the arm64 .debs of JetPack $1's Debian release are not cached (run scripts/fetch-target-root.sh --jetpack $1 --fetch-only)"
	fi
}

# Member $2 of root $1's description, as JSON (a string quoted).
desc() {
	python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1] + "/cuda-xcc-root.json"))[sys.argv[2]]))' "$1" "$2"
}

# The newest version tag $2 (GLIBC_, GLIBCXX_) file $1 defines.
defines_max() {
	readelf -V --wide "$1" | grep -o "$2[0-9][0-9.]*" | sort -uV | tail -1
}

@test "jetpack-roots: device-roots.json agrees with jetpack.json: the newest Debian glibc not above each board's, every fact sourced" {
	need python3
	run python3 - "$XCC_SRCDIR/sysroots/device-roots.json" "$XCC_SRCDIR/sysroots/jetpack.json" <<'EOF'
import json, sys
roots = json.load(open(sys.argv[1]))
lines = json.load(open(sys.argv[2]))["releases"]
v = lambda s: [int(x) for x in s.split(".")]
rel = {r["debian"]: r for r in roots["debian"]}
for r in roots["debian"]:
    assert r["source"].startswith("http"), r["debian"]
    assert isinstance(r["unverified"], list)
    assert all(p.split("=")[0].endswith(":arm64") and "=" in p for p in r["packages"]), r
for j in roots["jetpack"]:
    assert j["source"], j
    of = [l for l in lines if l["jetpack"].split(".")[0] == j["jetpack"]]
    assert of, j["jetpack"]
    assert len({(l["glibc"], l["glibcxx"]) for l in of}) == 1, j["jetpack"]
    board = of[0]["glibc"]
    fits = [r for r in roots["debian"] if v(r["glibc"]) <= v(board)]
    if j["debian"] is None:
        assert not fits and j["why"], j
        continue
    best = max(fits, key=lambda r: v(r["glibc"]))
    assert best["debian"] == j["debian"], (j, best["debian"])
    print("JetPack %s (glibc %s) -> %s (%s)%s" % (j["jetpack"], board, j["debian"],
          rel[j["debian"]]["glibc"], "" if board == rel[j["debian"]]["glibc"] else " mismatch"))
EOF
	assert_status 0
	assert_output_contains "JetPack 5 (glibc 2.31) -> bullseye (2.31)"
	assert_output_contains "bullseye (2.31)"$'\n'"JetPack 6"
	assert_output_contains "JetPack 6 (glibc 2.35) -> bullseye (2.31) mismatch"
	assert_output_contains "JetPack 7 (glibc 2.39) -> bookworm (2.36) mismatch"
}

@test "jetpack-roots: the script refuses a JetPack without a fitting Debian release, an unknown one, and --jetpack with --release (exit 2)" {
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --jetpack 4.6 --dest "$BATS_TEST_TMPDIR/r"
	assert_status 2
	assert_output_contains "no Debian root fits JetPack 4: Ubuntu 18.04's glibc 2.27 is older than that of every Debian release the mirror serves"
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --jetpack 9 --dest "$BATS_TEST_TMPDIR/r"
	assert_status 2
	assert_output_contains "unknown JetPack '9': 5, 6, 7"
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --jetpack 7 --release bullseye
	assert_status 2
	assert_output_contains "give --jetpack or --release, not both"
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --release sid --dest "$BATS_TEST_TMPDIR/r"
	assert_status 2
	assert_output_contains "unknown release 'sid': bullseye (Debian 11, glibc 2.31), bookworm (Debian 12, glibc 2.36)"
	[ ! -e "$BATS_TEST_TMPDIR/r" ]
}

@test "jetpack-roots: JetPack 5's root is bullseye, exactly; its description's glibc and libstdc++ are what its libraries define" {
	need_root 5
	need readelf
	[ -f "$R/lib/aarch64-linux-gnu/libc-2.31.so" ]
	run desc "$R" jetpack
	assert_output_equals '"5"'
	run desc "$R" debian
	assert_output_equals '"bullseye"'
	run desc "$R" mismatch
	assert_output_equals null
	run desc "$R" pinned
	assert_output_equals true
	run desc "$R" glibc_defines
	assert_output_equals "\"$(defines_max "$R/lib/aarch64-linux-gnu/libc-2.31.so" GLIBC_ | sed 's/GLIBC_//')\""
	run desc "$R" glibcxx
	assert_output_equals "\"$(defines_max "$R/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.28" GLIBCXX_ | sed 's/GLIBCXX_//')\""
	# Each package's sha256 is the cached file's.
	run python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["packages"][0]["sha256"])' "$R/cuda-xcc-root.json"
	assert_output_equals "$(sha256sum "$XCC_DEB_CACHE_BULLSEYE/libc6_2.31-13+deb11u11_arm64.deb" | cut -d' ' -f1)"
	# The root is found where create looks; made again it is refused, as it was.
	run bash "$XCC_SRCDIR/scripts/fetch-target-root.sh" --jetpack 5.1.2
	assert_status 2
	assert_output_contains "$R exists and is not empty"
}

@test "jetpack-roots: JetPack 6's root is bullseye and JetPack 7's bookworm, each with its mismatch named" {
	need_root 6
	run desc "$R" debian
	assert_output_equals '"bullseye"'
	run desc "$R" mismatch
	assert_output_contains "JetPack 6 is Ubuntu 22.04 (glibc 2.35, libstdc++ up to GLIBCXX_3.4.30); no Debian release has that glibc: bullseye's 2.31 (GLIBCXX_3.4.28) is the newest not above it"
	need_root 7
	need readelf
	run desc "$R" debian
	assert_output_equals '"bookworm"'
	run desc "$R" mismatch
	assert_output_contains "JetPack 7 is Ubuntu 24.04 (glibc 2.39, libstdc++ up to GLIBCXX_3.4.33); no Debian release has that glibc: bookworm's 2.36 (GLIBCXX_3.4.30) is the newest not above it"
	run desc "$R" glibc_defines
	assert_output_equals "\"$(defines_max "$R/lib/aarch64-linux-gnu/libc.so.6" GLIBC_ | sed 's/GLIBC_//')\""
	run desc "$R" glibcxx
	assert_output_equals "\"$(defines_max "$R/usr/lib/aarch64-linux-gnu/libstdc++.so.6.0.30" GLIBCXX_ | sed 's/GLIBCXX_//')\""
	run desc "$R" point_release
	assert_output_equals '"12.15"'
}

@test "jetpack-roots: create --jetpack with no --target-fs records the cached root, says its release and mismatch" {
	need_root 5
	m=$XCC_SRCDIR/tests/data/manifests/cuda
	run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 --jetpack 5.1.2 \
		--from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 0
	assert_output_contains "note: target fs: the JetPack 5 device root $(roots)/jetpack-5 (Debian bullseye 11.11: glibc 2.31, libstdc++ up to GLIBCXX_3.4.28, as the board's)"
	assert_output_contains "target fs $(roots)/jetpack-5"
	need_root 6
	run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 --jetpack 6.1 \
		--from "$m/redistrib_12.6.3.json" --dry-run
	assert_status 0
	assert_output_contains "note: target fs: the JetPack 6 device root $(roots)/jetpack-6 (Debian bullseye 11.11: glibc 2.31, libstdc++ up to GLIBCXX_3.4.28; JetPack 6 is Ubuntu 22.04"
	assert_output_contains "target fs $(roots)/jetpack-6"
	need_root 7
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 13.0 -arch sm_110 --jetpack 7.0 \
		--from "$m/redistrib_13.0.2.json" --dry-run
	assert_status 0
	assert_output_contains "note: target fs: the JetPack 7 device root $(roots)/jetpack-7 (Debian bookworm 12.15: glibc 2.36"
	assert_output_contains "target fs $(roots)/jetpack-7"
}

@test "jetpack-roots: without the root create names the command, which works pasted; then the same create records it" {
	[ "$(ls "$XCC_DEB_CACHE_BULLSEYE"/*_arm64.deb 2>/dev/null | wc -l)" -ge 7 ] ||
		skip "the bullseye arm64 .debs are not in $XCC_DEB_CACHE_BULLSEYE"
	m=$XCC_SRCDIR/tests/data/manifests/cuda
	x=$BATS_TEST_TMPDIR/xdg
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 \
		--jetpack 6.1 --from "$m/redistrib_12.6.3.json" --dry-run
	assert_status 0
	assert_output_contains "note: no device root for JetPack 6 in $x/cuda-xcc/roots/jetpack-6: bash "
	assert_output_contains "fetch-target-root.sh --jetpack 6 makes it from Debian bullseye's arm64 packages (glibc 2.31, the newest Debian's not above JetPack 6.1's 2.35, libstdc++ up to GLIBCXX_3.4.28)"
	[[ "$output" != *"target fs /"* ]]
	cmd=$(printf '%s\n' "$output" | grep -o 'bash [^ ]*fetch-target-root.sh --jetpack 6')
	XDG_CACHE_HOME=$x run eval "$cmd"
	assert_status 0
	assert_output_contains "$x/cuda-xcc/roots/jetpack-6"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 \
		--jetpack 6.1 --from "$m/redistrib_12.6.3.json" --dry-run
	assert_status 0
	assert_output_contains "target fs $x/cuda-xcc/roots/jetpack-6"
}

@test "jetpack-roots: the root's description is fingerprinted, and a root made for another JetPack is refused (exit 2)" {
	need_root 5
	m=$XCC_SRCDIR/tests/data/manifests/cuda
	x=$BATS_TEST_TMPDIR/xdg
	mkdir -p "$x/cuda-xcc/roots"
	cp -a "$R" "$x/cuda-xcc/roots/jetpack-5"
	r=$x/cuda-xcc/roots/jetpack-5
	fp() {
		XDG_CACHE_HOME=$x "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
			--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run "$@" 2>/dev/null | grep '^fingerprint '
	}
	a=$(fp)
	[ -n "$a" ]
	# The same root given as --target-fs is the same request.
	[ "$(fp --target-fs "$r")" = "$a" ]
	# Made again from other packages (--current): another request.
	python3 -c 'import json, sys; p = sys.argv[1] + "/cuda-xcc-root.json"; d = json.load(open(p)); d["pinned"] = False; d["packages"][0]["version"] = "2.31-13+deb11u12"; json.dump(d, open(p, "w"))' "$r"
	b=$(fp)
	[ -n "$b" ]
	[ "$a" != "$b" ]
	# A root without a description is a root made by hand: recorded, its path fingerprinted.
	rm "$r/cuda-xcc-root.json"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 0
	assert_output_contains "note: target fs: the JetPack 5 device root $r (made by hand: it has no cuda-xcc-root.json)"
	need_root 6
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run --target-fs "$R"
	assert_status 2
	assert_output_contains "the target fs $R was made for JetPack 6 (its cuda-xcc-root.json), not JetPack 5.1.2: give the root of JetPack 5 (bash "
	assert_output_contains "fetch-target-root.sh --jetpack 5 makes it), or the --jetpack it was made for"
	printf '{"jetpack": ' > "$r/cuda-xcc-root.json"
	XDG_CACHE_HOME=$x run "$CUDA_XCC" sysroot create --target jetson --cuda 11.8 -arch sm_87 \
		--jetpack 5.1.2 --from "$m/redistrib_11.8.0.json" --dry-run
	assert_status 2
	assert_output_contains "$r/cuda-xcc-root.json is no JSON object"
}

@test "jetpack-roots: one request made: the sysroot records the cached root, sysroot info says what it stands for, the same create is up to date" {
	need_root 6
	need aarch64-linux-gnu-gcc "the fixture's ELF files"
	fx=$BATS_TEST_TMPDIR/fx
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$fx" --cuda 12.6.3 >/dev/null
	d=$BATS_TEST_TMPDIR/sr
	run "$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 --jetpack 6.1 \
		--from "$fx/redistrib_12.6.3.json" --dest "$d" --progress never
	assert_status 0
	assert_output_contains "note: target fs: the JetPack 6 device root $R"
	run python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["target_fs"], m["jetpack"])' "$d/sysroot.json"
	assert_output_equals "$R 6.1"
	run "$CUDA_XCC" sysroot info "$d"
	assert_status 0
	assert_output_contains "target fs      $R (JetPack 6's root: Debian bullseye 11.11: glibc 2.31, libstdc++ up to GLIBCXX_3.4.28; JetPack 6 is Ubuntu 22.04"
	# Asked again, it is the same request (the notes go to stderr).
	fp=$("$CUDA_XCC" sysroot create --target jetson --cuda 12.6 -arch sm_87 --jetpack 6.1 \
		--from "$fx/redistrib_12.6.3.json" --dest "$d" --progress never --print-fingerprint 2>/dev/null)
	[ "$fp" = "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["fingerprint"])' "$d/sysroot.json")" ]
}
