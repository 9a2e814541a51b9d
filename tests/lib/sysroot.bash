# Shared by the bats files that create sysroots (sysroot.bats, faults.bats).

# Every entry of a tree with its type, mode, size, link target and content
# hash. A directory's size is the file system's business (4096 on ext4,
# the entries' count on tmpfs): left out.
tree_sig() {
	(cd "$1" && find . \( -type d -printf '%y %m - %p\n' \) -o -printf '%y %m %s %l %p\n' | sort &&
		find . -type f -exec sha256sum {} + | sort -k2)
}

# Failed (exit 1: a failure, not a usage error) with an error of its own,
# not killed or crashed.
assert_failed() {
	assert_status 1
	case "$output" in *cuda-xcc:*) ;; *) echo "no error message: $output" >&2; return 1 ;; esac
}

# No temporary or old trees of $D are left next to it.
no_leftovers() { [ -z "$(ls -d "$D".tmp-* "$D".old-* 2>/dev/null)" ]; }

# setup_file's part: the CUDA 12.6.3 redist fixtures in $FX/m126 (real ELF
# files: a cross compiler makes them), or every test skipped without one.
sysroot_fixtures() {
	command -v aarch64-linux-gnu-gcc >/dev/null || skip "aarch64-linux-gnu-gcc is not installed (fixture ELF files)"
	export FX=$BATS_FILE_TMPDIR/fx
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$FX/m126" --cuda 12.6.3 >/dev/null
}

# setup's part: caches and the store of the test's own, the 12.6.3
# manifest in $M126, the destination in $D.
sysroot_test_env() {
	export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache XDG_DATA_HOME=$BATS_TEST_TMPDIR/data
	M126=$FX/m126/redistrib_12.6.3.json
	D=$BATS_TEST_TMPDIR/sr
}
