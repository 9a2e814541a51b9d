#!/usr/bin/env bats
# The file store (issue 41 §1): sysroot create shares a finished tree's files with
# <cache>/files and makes the same request again from hard links to them; sysroot gc;
# --no-file-store. From the redist-shaped fixtures of tests/fixtures/make-redist.sh, and a
# small archive made here whose library the autopatch rewrites.
load lib/common
load lib/httpd
load lib/sysroot

setup_file() {
	sysroot_fixtures
	# libq: its lib/libq.so.1 carries a build machine's run path, which the autopatch
	# drops (a patched file); the same bytes at the archive's top level land in
	# licenses/libq/, which nothing patches.
	local q=$FX/q
	mkdir -p "$q/libq-linux-aarch64-1.0-archive/lib"
	echo 'int q(void) { return 1; }' > "$q/q.c"
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-rpath,/build/nowhere -Wl,-soname,libq.so.1 \
		-o "$q/libq-linux-aarch64-1.0-archive/lib/libq.so.1" "$q/q.c"
	cp "$q/libq-linux-aarch64-1.0-archive/lib/libq.so.1" "$q/libq-linux-aarch64-1.0-archive/LICENSE.so"
	tar -C "$q" -cJf "$q/libq-linux-aarch64-1.0-archive.tar.xz" libq-linux-aarch64-1.0-archive
	# the same archive with other bytes
	mkdir -p "$q/2"
	echo 'int q(void) { return 2; }' > "$q/q.c"
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libq.so.1 \
		-o "$q/libq-linux-aarch64-1.0-archive/lib/libq.so.1" "$q/q.c"
	tar -C "$q" -cJf "$q/2/libq-linux-aarch64-1.0-archive.tar.xz" libq-linux-aarch64-1.0-archive
	cp "$q/libq-linux-aarch64-1.0-archive/LICENSE.so" "$q/libq-linux-aarch64-1.0-archive/lib/libq.so.1"
}

setup() {
	sysroot_test_env
	STORE=$XDG_CACHE_HOME/cuda-xcc/files
	Q=$FX/q/libq-linux-aarch64-1.0-archive.tar.xz
	A=$BATS_TEST_TMPDIR/a
	B=$BATS_TEST_TMPDIR/b
	LIB=targets/aarch64-linux/lib/libcudart.so.12.0.1
}

teardown() {
	stop_httpd
}

mk() { # DEST [ARGS...]: the sm_87 sysroot of the 12.6.3 fixtures at DEST
	local dest=$1
	shift
	xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$dest" \
		--progress never "$@"
}

ino() { stat -c %i "$1"; }
links() { stat -c %h "$1"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
# The store's object of the file at $1: its sha256 and mode.
object_of() { local s; s=$(sha "$1"); echo "$STORE/objects/${s:0:2}/$s-$(stat -c %04a "$1")"; }
sig() { tree_sig "$1" | sed "s|$1||g"; }

@test "store: a second create of the same request is hard links to the first one's files and downloads nothing" {
	start_httpd normal "$FX/m126"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6.3 --mirror "$HTTPD_URL/" \
		--dest "$A" --progress never
	assert_status 0
	[ "$(ino "$A/$LIB")" = "$(ino "$(object_of "$A/$LIB")")" ]
	# the downloads leave the cache: only the file store could give the files now
	find "$XDG_CACHE_HOME/cuda-xcc" -maxdepth 1 -type f -regex '.*/[0-9a-f]\{64\}' -delete
	: > "$HTTPD_LOG"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6.3 --mirror "$HTTPD_URL/" \
		--dest "$B" --progress never
	assert_status 0
	assert_output_contains "sysroot ready: $B (made from the file store"
	# the manifest, and no archive
	[ "$(grep -c '^GET .*\.tar\.xz' "$HTTPD_LOG")" = 0 ]
	grep -q '^GET /redistrib_12.6.3.json' "$HTTPD_LOG"
	[ "$(ino "$B/$LIB")" = "$(ino "$A/$LIB")" ]
	[ "$(links "$A/$LIB")" -ge 3 ]
	[ "$(sig "$B")" = "$(sig "$A")" ]
	run xcc sysroot verify "$B"
	assert_status 0
	assert_output_contains "$B: OK"
	# its own records: the same fingerprint and files, its own digest
	[ "$(xcc sysroot info "$B" --fingerprint)" = "$(xcc sysroot info "$A" --fingerprint)" ]
	cmp "$A/sysroot.files" "$B/sysroot.files"
}

@test "store: a request whose archives are gone is made from the store; kill -9 while linking leaves none" {
	local m=$BATS_TEST_TMPDIR/m
	cp -r "$FX/m126" "$m"
	xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$m/redistrib_12.6.3.json" \
		--dest "$A" --progress never
	find "$m" -name '*.tar.xz' -delete
	CUDA_XCC_TEST_CRASH_AT=linked run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 \
		--from "$m/redistrib_12.6.3.json" --dest "$B" --progress never
	assert_status 137
	[ ! -e "$B" ]
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 \
		--from "$m/redistrib_12.6.3.json" --dest "$B" --progress never
	assert_status 0
	assert_output_contains "made from the file store"
	[ -z "$(ls -d "$B".tmp-* 2>/dev/null)" ]
	run xcc sysroot verify "$B"
	assert_status 0
}

@test "store: kill -9 after the files were shared, before the swap: no sysroot, and the store serves the rerun" {
	CUDA_XCC_TEST_CRASH_AT=synced run mk "$A"
	assert_status 137
	[ ! -e "$A" ]
	# the killed create's files are in the store, and nothing records them
	[ -z "$(ls "$STORE/trees")" ]
	run mk "$A"
	assert_status 0
	[[ "$output" != *"made from the file store"* ]]
	[ -z "$(ls -d "$A".tmp-* 2>/dev/null)" ]
	[ "$(ino "$A/$LIB")" = "$(ino "$(object_of "$A/$LIB")")" ]
	run mk "$B"
	assert_status 0
	assert_output_contains "made from the file store"
	run xcc sysroot verify "$B"
	assert_status 0
}

@test "store: a patched ELF file is an object of its own; the unpatched bytes' object is untouched" {
	local raw=$FX/q/libq-linux-aarch64-1.0-archive/lib/libq.so.1 patched copy
	mk "$A" --from "$Q"
	patched=$A/targets/aarch64-linux/lib/libq.so.1
	copy=$A/licenses/libq/LICENSE.so
	# the autopatch rewrote the library; the copy nothing patches keeps the archive's bytes
	[ "$(sha "$copy")" = "$(sha "$raw")" ]
	[ "$(sha "$patched")" != "$(sha "$raw")" ]
	[ "$(ino "$patched")" = "$(ino "$(object_of "$patched")")" ]
	[ "$(ino "$copy")" = "$(ino "$(object_of "$copy")")" ]
	[ "$(ino "$patched")" != "$(ino "$copy")" ]
	# patchelf on a file of a linked tree writes a new file: the object and the other
	# tree keep their bytes
	mk "$B" --from "$Q"
	[ "$(ino "$B/licenses/libq/LICENSE.so")" = "$(ino "$copy")" ]
	xcc patchelf --set-soname libz.so.1 "$B/licenses/libq/LICENSE.so"
	[ "$(ino "$B/licenses/libq/LICENSE.so")" != "$(ino "$copy")" ]
	[ "$(sha "$copy")" = "$(sha "$raw")" ]
	[ "$(links "$B/licenses/libq/LICENSE.so")" = 1 ]
	run xcc sysroot verify "$A"
	assert_status 0
	run xcc sysroot verify "$B"
	assert_status 1
	assert_output_contains "changed: licenses/libq/LICENSE.so"
}

@test "store: verify of a linked tree checks each file: an object changed in place fails both trees" {
	local obj
	mk "$A"
	mk "$B"
	obj=$(object_of "$A/$LIB")
	[ "$(ino "$B/$LIB")" = "$(ino "$obj")" ]
	run xcc sysroot verify "$B"
	assert_status 0
	# written in place, through the store's name: every tree linking it changes
	printf 'x' >> "$obj"
	run xcc sysroot verify "$A"
	assert_status 1
	assert_output_contains "changed: $LIB"
	run xcc sysroot verify "$B"
	assert_status 1
	assert_output_contains "changed: $LIB"
	# the next create sees the object is not as recorded: made afresh, and right
	run mk "$BATS_TEST_TMPDIR/c"
	assert_status 0
	[[ "$output" != *"made from the file store"* ]]
	run xcc sysroot verify "$BATS_TEST_TMPDIR/c"
	assert_status 0
	# the changed object was replaced by the good bytes, which the new tree links
	[ "$(ino "$BATS_TEST_TMPDIR/c/$LIB")" = "$(ino "$obj")" ]
	[ "$(ino "$A/$LIB")" != "$(ino "$obj")" ]
}

@test "store: gc removes the files no sysroot links and their records, and a used tree stays verifiable" {
	local libq_obj
	mk "$A"
	mk "$B" --from "$Q"
	libq_obj=$(object_of "$B/targets/aarch64-linux/lib/libq.so.1")
	rm -rf "$B"
	[ "$(links "$libq_obj")" = 1 ]
	run xcc sysroot gc
	assert_status 0
	assert_output_contains "$STORE: removed 2 files no sysroot links"
	assert_output_contains "and 1 record;"
	[ ! -e "$libq_obj" ]
	[ "$(ino "$A/$LIB")" = "$(ino "$(object_of "$A/$LIB")")" ]
	run xcc sysroot verify "$A"
	assert_status 0
	# A's record stays: its request is still made from links; B's is made afresh
	run mk "$BATS_TEST_TMPDIR/a2"
	assert_status 0
	assert_output_contains "made from the file store"
	run mk "$B" --from "$Q"
	assert_status 0
	[[ "$output" != *"made from the file store"* ]]
	# with every sysroot gone, nothing but the lock is left
	rm -rf "$A" "$B" "$BATS_TEST_TMPDIR/a2"
	run xcc sysroot gc --cache "$XDG_CACHE_HOME/cuda-xcc"
	assert_status 0
	assert_output_contains "and 2 records; kept 0 files (0.0 MiB) and 0 records"
	[ -z "$(find "$STORE" -type f ! -name lock)" ]
	run xcc sysroot gc --cache ''
	assert_status 2
	run xcc sysroot gc extra
	assert_status 2
}

@test "store: two creates of the same request at once both succeed" {
	local pa pb
	mk "$A" > "$BATS_TEST_TMPDIR/a.log" 2>&1 &
	pa=$!
	mk "$B" > "$BATS_TEST_TMPDIR/b.log" 2>&1 &
	pb=$!
	wait "$pa"
	wait "$pb"
	run xcc sysroot verify "$A"
	assert_status 0
	run xcc sysroot verify "$B"
	assert_status 0
	[ "$(sig "$A")" = "$(sig "$B")" ]
	# and the next is made from whichever record was written last
	run mk "$BATS_TEST_TMPDIR/c"
	assert_status 0
	assert_output_contains "made from the file store"
}

@test "store: a planted symbolic link in the store is refused, never followed" {
	local obj victim=$BATS_TEST_TMPDIR/victim key
	echo "not a library" > "$victim"
	mk "$A"
	obj=$(object_of "$A/$LIB")
	rm -rf "$A"
	# an object's name: removed, and the good bytes put there
	ln -sf "$victim" "$obj"
	run mk "$B"
	assert_status 0
	[[ "$output" != *"made from the file store"* ]]
	[ "$(cat "$victim")" = "not a library" ]
	[ ! -L "$obj" ]
	[ "$(ino "$B/$LIB")" = "$(ino "$obj")" ]
	run xcc sysroot verify "$B"
	assert_status 0
	# a record's name: not read
	key=$(ls "$STORE/trees")
	cp "$STORE/trees/$key" "$BATS_TEST_TMPDIR/record"
	ln -sf "$BATS_TEST_TMPDIR/record" "$STORE/trees/$key"
	run mk "$BATS_TEST_TMPDIR/c"
	assert_status 0
	[[ "$output" != *"made from the file store"* ]]
	[ ! -L "$STORE/trees/$key" ]
	# the lock: not followed, the store left alone
	rm "$STORE/lock"
	ln -s "$victim" "$STORE/lock"
	run mk "$BATS_TEST_TMPDIR/c2"
	assert_status 0
	assert_output_contains "not using the file store: $STORE/lock"
	[ "$(cat "$victim")" = "not a library" ]
	rm "$STORE/lock"
	# the store's own directory: not used at all, and a note says so
	rm -rf "$STORE"
	mkdir "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$STORE"
	run mk "$BATS_TEST_TMPDIR/d"
	assert_status 0
	assert_output_contains "not using the file store: $XDG_CACHE_HOME/cuda-xcc/files is not a directory"
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
	run xcc sysroot gc
	assert_status 1
	assert_output_contains "files is not a directory (a symbolic link?)"
}

@test "store: --no-file-store neither reads nor fills the store" {
	mk "$A" --no-file-store
	[ ! -e "$STORE" ]
	[ "$(links "$A/$LIB")" = 1 ]
	mk "$B"
	run mk "$BATS_TEST_TMPDIR/c" --no-file-store
	assert_status 0
	[[ "$output" != *"made from the file store"* ]]
	[ "$(links "$BATS_TEST_TMPDIR/c/$LIB")" = 1 ]
	[ "$(sig "$A")" = "$(sig "$BATS_TEST_TMPDIR/c")" ]
	[ "$(sig "$A")" = "$(sig "$B")" ]
}

@test "store: a local archive's sha256 is recorded once it has settled; a rewritten archive is hashed again" {
	local q=$BATS_TEST_TMPDIR/libq-linux-aarch64-1.0-archive.tar.xz f1 f2 rec
	cp "$Q" "$q"
	# a file changed within the last seconds is hashed, not recorded
	f1=$(mk "$A" --from "$q" --print-fingerprint)
	[ -z "$(ls "$XDG_CACHE_HOME"/cuda-xcc/local-* 2>/dev/null)" ]
	sleep 3
	[ "$(mk "$A" --from "$q" --print-fingerprint)" = "$f1" ]
	rec=$(ls "$XDG_CACHE_HOME"/cuda-xcc/local-*)
	grep -q "^sha256 $(sha "$q")$" "$rec"
	# the record is what a second create reads (not the archive): one that says
	# other bytes gives another fingerprint
	[ "$(mk "$A" --from "$q" --print-fingerprint)" = "$f1" ]
	cp "$rec" "$BATS_TEST_TMPDIR/rec"
	sed -i "s/^sha256 .*/sha256 $(printf '%064d' 0)/" "$rec"
	[ "$(mk "$A" --from "$q" --print-fingerprint)" != "$f1" ]
	cp "$BATS_TEST_TMPDIR/rec" "$rec"
	[ "$(mk "$A" --from "$q" --print-fingerprint)" = "$f1" ]
	# other bytes at the same path: hashed again, the fingerprint a fresh cache gives
	cp "$FX/q/2/libq-linux-aarch64-1.0-archive.tar.xz" "$q"
	f2=$(mk "$A" --from "$q" --print-fingerprint)
	[ "$f2" != "$f1" ]
	[ "$f2" = "$(mk "$A" --from "$q" --print-fingerprint --cache "$BATS_TEST_TMPDIR/fresh")" ]
	[ "$(grep -c "^sha256 $(sha "$q")$" "$rec")" = 0 ]
}
