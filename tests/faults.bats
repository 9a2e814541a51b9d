#!/usr/bin/env bats
# Faults a create must survive, made for real: a full disk (a tmpfs mounted
# small, under the destination and under the download cache), two creates
# into one destination, kill -9 whenever it lands, and downloads cut by a
# reset. Each time: a message that says what happened, the old sysroot as
# it was (or none), nothing left over, and a rerun that gives the same tree.
# (Named kill points and hanging-up servers: sysroot.bats; stalled and reset
# downloads with their retries: fetch.bats.)
load lib/common
load lib/httpd
load lib/sysroot

setup_file() {
	sysroot_fixtures
}

setup() {
	sysroot_test_env
	MOUNTS=
	BG_PID=
}

teardown() {
	local m
	stop_httpd
	if [ -n "$BG_PID" ]; then
		kill -9 "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
	for m in $MOUNTS; do umount "$m" || true; done
}

mk() { # SM [ARGS...]: create $D from the 12.6.3 manifest for that GPU
	local sm=$1
	shift
	xcc sysroot create --target jetson -arch "$sm" --cuda 12.6 --from "$M126" --dest "$D" \
		--progress never "$@"
}

# The reference tree of the sm_87 sysroot, with its own path taken out.
ref_sig() {
	local ref=$BATS_TEST_TMPDIR/ref
	[ -d "$ref" ] || xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" \
		--dest "$ref" --progress never >/dev/null
	tree_sig "$ref" | sed "s|$ref||g"
}

sig_of_d() { tree_sig "$D" | sed "s|$D||g"; }

# A tmpfs of SIZE KiB on DIR, unmounted by teardown; skipped where this
# user may not mount (CI runs as root).
small_tmpfs() { # DIR SIZE_KIB
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2k,mode=0755" tmpfs "$1" 2>/dev/null ||
		skip "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"
	MOUNTS="$1 $MOUNTS"
}

resize_tmpfs() { mount -o "remount,size=$2k" "$1"; }

# For the rest of the test, a sanitizer build (ASAN_OPTIONS set by make
# check-sanitizers) leaves out the leak check, which refuses to run under ptrace.
no_leak_check() {
	[ -z "${ASAN_OPTIONS:-}" ] || export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
}

used_kib() { df -k --output=used "$1" | tail -n1 | tr -d ' '; }

@test "faults: disk full in the destination: the error says so, the old sysroot stays, nothing is left over" {
	local mnt=$BATS_TEST_TMPDIR/small sig used
	small_tmpfs "$mnt" 16384
	D=$mnt/sr
	# no sysroot yet: none afterwards
	resize_tmpfs "$mnt" 64
	run mk sm_87
	assert_failed
	assert_output_contains "No space left on device"
	[ ! -e "$D" ]
	no_leftovers
	# an old one: room for about half of another
	resize_tmpfs "$mnt" 16384
	mk sm_72
	sig=$(tree_sig "$D")
	used=$(used_kib "$mnt")
	resize_tmpfs "$mnt" $((used + used / 2))
	run mk sm_87
	assert_failed
	assert_output_contains "No space left on device"
	[ "$(tree_sig "$D")" = "$sig" ]
	no_leftovers
	# room again: the same tree as anywhere else
	resize_tmpfs "$mnt" 16384
	mk sm_87
	[ "$(sig_of_d)" = "$(ref_sig)" ]
}

@test "faults: disk full while writing sysroot.files says No space left on device, not a stale errno" {
	local mnt=$BATS_TEST_TMPDIR/small pay=$BATS_TEST_TMPDIR/pay bulk=$BATS_TEST_TMPDIR/bulk
	local lo=4 hi=32768 mid listing_kib i
	# 300 files with long names: a sysroot.files of about 19 pages, so that
	# a full disk cuts its write short (as on a real disk) instead of
	# refusing its first byte
	mkdir -p "$pay"
	for i in $(seq 300); do echo "int v$i;" >"$pay/$(printf 'h%03d_%0200d' "$i" 0).h"; done
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$bulk" --cuda 12.6.3 --tags linux-x86_64 \
		--payload "bulk=$pay" >/dev/null
	small_tmpfs "$mnt" "$hi"
	D=$mnt/sr
	fits_in() { # SIZE_KIB: create on a tmpfs of that size; its output in $out
		rm -rf "${mnt:?}"/*
		resize_tmpfs "$mnt" "$1"
		out=$(xcc sysroot create --target x86_64 --cuda 12.6 --from "$bulk/redistrib_12.6.3.json" \
			--components bulk --dest "$D" --progress never --allow-unserved 2>&1)
	}
	fits_in "$hi"
	listing_kib=$(($(stat -c %s "$D/sysroot.files") / 1024))
	[ "$listing_kib" -gt 40 ]
	hi=$(($(used_kib "$mnt") + 64))
	# the least size it fits in, to a page
	while [ $((hi - lo)) -gt 4 ]; do
		mid=$(((lo + hi) / 8 * 4))
		if fits_in "$mid"; then hi=$mid; else lo=$mid; fi
	done
	# half a listing less: the tree is written, the listing is not
	fits_in $((hi - listing_kib / 8 * 4)) && false
	case "$out" in *sysroot.files*"No space left on device"*) ;; *) echo "$out" >&2; false ;; esac
	[ ! -e "$D" ]
	no_leftovers
}

@test "faults: disk full in the download cache: the error says so, the destination is untouched" {
	local cache=$BATS_TEST_TMPDIR/cachefs
	small_tmpfs "$cache" 256
	export XDG_CACHE_HOME=$cache
	mkdir -p "$cache/cuda-xcc"
	dd if=/dev/zero of="$cache/fill" bs=4k 2>/dev/null || true
	[ "$(df -k --output=avail "$cache" | tail -n1 | tr -d ' ')" = 0 ]
	start_httpd normal "$FX/m126"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$HTTPD_URL/" \
		--dest "$D" --progress never
	assert_failed
	assert_output_contains "No space left on device"
	[ ! -e "$D" ]
	no_leftovers
	# nothing half-written stays in the cache under a final name
	[ -z "$(find "$cache/cuda-xcc" -type f ! -name '*.part')" ]
	rm "$cache/fill"
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$HTTPD_URL/" \
		--dest "$D" --progress never
	assert_status 0
	[ "$(sig_of_d)" = "$(ref_sig)" ]
	[ -z "$(find "$cache/cuda-xcc" -name '*.part')" ]
}

@test "faults: two creates into one destination: the second is refused while the first runs, then the tree is whole" {
	local a
	a=$(cd "$FX/m126" && ls cuda_cudart/linux-aarch64/*.tar.xz)
	# the first create's download of one archive stalls for 4 s: it
	# holds the lock meanwhile, for certain
	HTTPD_STALL_S=4 start_httpd stall-once "$FX/m126" "$(basename "$a")"
	"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$HTTPD_URL/" \
		--dest "$D" --progress never >"$BATS_TEST_TMPDIR/first.out" 2>&1 &
	BG_PID=$!
	for _ in $(seq 200); do grep -q "$(basename "$a")" "$HTTPD_LOG" && break; sleep 0.02; done
	grep -q "$(basename "$a")" "$HTTPD_LOG"
	ls -d "$D".tmp-*
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$HTTPD_URL/" \
		--dest "$D" --progress never
	assert_status 1
	assert_output_contains "another cuda-xcc is creating $D"
	wait "$BG_PID"
	BG_PID=
	[ "$(sig_of_d)" = "$(ref_sig)" ]
	no_leftovers
}

@test "faults: two creates into one destination started together: the lock serialises them, the tree is whole" {
	local s1=0 s2=0
	mk sm_72
	"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" \
		--progress never >"$BATS_TEST_TMPDIR/1.out" 2>&1 &
	BG_PID=$!
	"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" \
		--progress never >"$BATS_TEST_TMPDIR/2.out" 2>&1 || s2=$?
	wait "$BG_PID" || s1=$?
	BG_PID=
	# each one made the sysroot, found it made, or was refused by the lock
	for s in "$s1:1" "$s2:2"; do
		[ "${s%:*}" = 0 ] || grep -q "another cuda-xcc is creating $D" "$BATS_TEST_TMPDIR/${s#*:}.out"
	done
	[ "$s1" = 0 ] || [ "$s2" = 0 ]
	[ "$(sig_of_d)" = "$(ref_sig)" ]
	no_leftovers
}

@test "faults: kill -9 at any moment of a create leaves the old sysroot or the new one, and a rerun gives the same tree" {
	local t0 t1 ms i sig_old sig_now ref
	# how long a create takes here, to spread the kills over it
	t0=$(date +%s%N)
	ref=$(ref_sig)
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	mk sm_72
	sig_old=$(sig_of_d)
	for i in 1 2 3 4 5 6 7 8 9; do
		rm -rf "$D"
		if [ $((i % 2)) = 0 ]; then mk sm_72; fi
		"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" --dest "$D" \
			--progress never >/dev/null 2>&1 &
		BG_PID=$!
		sleep "$(awk -v ms="$ms" -v i="$i" 'BEGIN { printf "%.3f", ms * i / 10000 }')"
		kill -9 "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
		BG_PID=
		# none, the old one whole, or the new one whole
		if [ -e "$D" ]; then
			sig_now=$(sig_of_d)
			[ "$sig_now" = "$sig_old" ] || [ "$sig_now" = "$ref" ] || { echo "kill $i: a broken tree" >&2; false; }
		fi
		mk sm_87
		[ "$(sig_of_d)" = "$ref" ]
		no_leftovers
	done
}

@test "faults: a download reset halfway during create is resumed; reset every time, the old sysroot stays" {
	local sig
	start_httpd reset-once "$FX/m126" .tar.xz
	run xcc sysroot create --target jetson -arch sm_87 --cuda 12.6 --mirror "$HTTPD_URL/" --dest "$D" --progress never
	assert_status 0
	[ "$(sig_of_d)" = "$(ref_sig)" ]
	stop_httpd
	sig=$(tree_sig "$D")
	export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache2
	start_httpd reset-always "$FX/m126" .tar.xz
	run xcc sysroot create --target jetson -arch sm_72 --cuda 12.6 --mirror "$HTTPD_URL/" --dest "$D" --progress never
	assert_failed
	assert_output_contains "download failed after 4 attempts"
	assert_output_contains "reset by peer"
	[ "$(tree_sig "$D")" = "$sig" ]
	no_leftovers
}

@test "faults: too little free space is refused before extracting, with the numbers" {
	local mnt=$BATS_TEST_TMPDIR/small
	small_tmpfs "$mnt" 4
	D=$mnt/sr
	run mk sm_87
	assert_status 1
	assert_output_contains "not enough free space next to the destination"
	assert_output_contains "free some space or choose another --dest"
	[ ! -e "$D" ]
	no_leftovers
}

@test "faults: create removes only what interrupted creates left, never a user's DIR.old-2024, a link, or a live create's tree" {
	local holder=$BATS_TEST_TMPDIR/holder
	mkdir -p "$D.old-2024" "$D.tmp-mine" "$BATS_TEST_TMPDIR/precious"
	echo keep >"$D.old-2024/keep"
	echo keep >"$D.tmp-mine/keep"
	echo keep >"$BATS_TEST_TMPDIR/precious/keep"
	ln -s "$BATS_TEST_TMPDIR/precious" "$D.old-cuda-xcc-link"
	# what a kill leaves, and the old tree of a create without exchange
	CUDA_XCC_TEST_CRASH_AT=tree run mk sm_87
	assert_status 137
	ls -d "$D".tmp-cuda-xcc-*
	mkdir -p "$D.old-cuda-xcc-4242/bin"
	# a tree a live create holds
	mkdir "$D.tmp-cuda-xcc-live"
	python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); open(sys.argv[2], "w").close()
time.sleep(60)' "$D.tmp-cuda-xcc-live" "$holder" 3>&- &
	BG_PID=$!
	for _ in $(seq 100); do [ -e "$holder" ] && break; sleep 0.1; done
	[ -e "$holder" ]
	mk sm_87
	[ "$(cat "$D.old-2024/keep")" = keep ]
	[ "$(cat "$D.tmp-mine/keep")" = keep ]
	[ -L "$D.old-cuda-xcc-link" ]
	[ "$(cat "$BATS_TEST_TMPDIR/precious/keep")" = keep ]
	[ -d "$D.tmp-cuda-xcc-live" ]
	[ ! -e "$D.old-cuda-xcc-4242" ]
	[ "$(ls -d "$D".tmp-cuda-xcc-*)" = "$D.tmp-cuda-xcc-live" ]
	# once its create is gone, the next run cleans it
	kill "$BG_PID"
	wait "$BG_PID" 2>/dev/null || true
	BG_PID=
	mk sm_87
	[ ! -e "$D.tmp-cuda-xcc-live" ]
	[ -d "$D.old-2024" ]
}

@test "faults: the tree is synced to disk before it is put in place, and the rename after; --no-sync skips both" {
	need strace "to watch the system calls"
	# LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere
	no_leak_check
	strace -f -qq -e trace=syncfs,fsync,renameat2,rename -o "$BATS_TEST_TMPDIR/trace" \
		"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" \
		--dest "$D" --progress never
	# syncfs of the tree comes before the rename that puts it in place
	awk '/syncfs\(/ && !s { s = NR } /rename(at2)?\(.*tmp-cuda-xcc-[A-Za-z0-9]+", / && !r { r = NR }
		END { exit !(s && r && s < r) }' "$BATS_TEST_TMPDIR/trace"
	# and an fsync after it (the directory)
	awk '/rename(at2)?\(.*tmp-cuda-xcc-[A-Za-z0-9]+", / { r = NR } /fsync\(/ && r { f = NR } END { exit !(f > r) }' "$BATS_TEST_TMPDIR/trace"
	rm -rf "$D"
	strace -f -qq -e trace=syncfs -o "$BATS_TEST_TMPDIR/trace2" \
		"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" \
		--dest "$D" --progress never --no-sync
	run grep -q 'syncfs(' "$BATS_TEST_TMPDIR/trace2"
	assert_status 1
	[ "$(sig_of_d)" = "$(ref_sig)" ]
}

# The signals that stop a create, with the status a shell reports:
# SIGINT 130, SIGTERM 143, SIGHUP 129.
STOP_SIGNALS="2:130 15:143 1:129"

@test "faults: SIGINT, SIGTERM or SIGHUP at each stage of a create: exit 128+N, the old sysroot as it was, nothing left over" {
	local sig_old point s
	mk sm_72
	sig_old=$(sig_of_d)
	# the signal sent by create itself at a named point, the way one
	# from outside lands at that moment
	for point in fetch extracting extract tree meta synced; do
		for s in $STOP_SIGNALS; do
			# with_sigint: the suite may run with SIGINT ignored (a pass started
			# with `&`), which create would keep
			run with_sigint env CUDA_XCC_TEST_CRASH_AT="$point" CUDA_XCC_TEST_CRASH_SIGNAL="${s%:*}" \
				"$CUDA_XCC" sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$M126" \
				--dest "$D" --progress never
			assert_status "${s#*:}"
			assert_output_contains "interrupted by SIG"
			assert_output_contains "$D is as it was"
			no_leftovers
			[ "$(sig_of_d)" = "$sig_old" ] || { echo "at $point, signal ${s%:*}: the old sysroot changed" >&2; false; }
		done
	done
	# the lock is free: the next create runs at once
	mk sm_87
	[ "$(sig_of_d)" = "$(ref_sig)" ]
}

# Run a command with SIGINT back to its default: a script's `cmd &` starts
# it ignored, and create keeps what it was given ignored.
with_sigint() {
	exec python3 -S -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

@test "faults: a signal from outside while a create downloads and extracts: exit 128+N, the lock free, the old sysroot as it was" {
	local sig_old s delay i=0 st n0
	need flock
	local pay=$BATS_TEST_TMPDIR/pay bulk=$BATS_TEST_TMPDIR/bulk
	mk sm_72
	sig_old=$(sig_of_d)
	# 400 KB of random bytes in 400 files, served at 100 KB/s: about 4 s of
	# downloads, extracted as they come
	python3 - "$pay" <<'PY'
import os, sys
for part in "ab":
    d = os.path.join(sys.argv[1], part)
    os.makedirs(d)
    for i in range(200):
        with open(os.path.join(d, f"{part}{i:03d}.bin"), "wb") as f:
            f.write(os.urandom(1000))
PY
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$bulk" --cuda 12.6.3 --tags linux-x86_64 \
		--payload "bulk_a=$pay/a" --payload "bulk_b=$pay/b" >/dev/null
	HTTPD_RATE=100000 start_httpd throttle "$bulk"
	for delay in 0 1.5; do
		for s in $STOP_SIGNALS; do
			i=$((i + 1))
			st=0
			n0=$(httpd_requests)
			XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache-$i with_sigint "$CUDA_XCC" sysroot create --target x86_64 \
				--cuda 12.6 --from "$HTTPD_URL/redistrib_12.6.3.json" --components bulk_a,bulk_b \
				--allow-unserved --dest "$D" --progress never >"$BATS_TEST_TMPDIR/out" 2>&1 &
			BG_PID=$!
			# from the first archive's download on: the manifest, then it
			for _ in $(seq 500); do [ "$(httpd_requests)" -lt $((n0 + 2)) ] || break; sleep 0.01; done
			sleep "$delay"
			kill -s "${s%:*}" "$BG_PID"
			wait "$BG_PID" || st=$?
			BG_PID=
			[ "$st" = "${s#*:}" ] || { echo "signal ${s%:*} after $delay s: status $st" >&2; cat "$BATS_TEST_TMPDIR/out" >&2; false; }
			no_leftovers
			grep -q "interrupted by SIG" "$BATS_TEST_TMPDIR/out"
			flock -n "$D.lock" true
			[ "$(sig_of_d)" = "$sig_old" ]
		done
	done
}

# Two mirrors of one bulk component, alike but for marker.txt ($1 and $2): the genuine one in
# $BATS_TEST_TMPDIR/good, the attacker's in .../evil. The 24 MB of random bytes make hashing the
# archive take long enough for swap-on-open.py to win every time against a second open.
swap_mirrors() {
	local t=$BATS_TEST_TMPDIR m
	for m in good evil; do
		mkdir -p "$t/pay-$m"
		head -c 24000000 /dev/zero | openssl enc -aes-128-ctr -nosalt -pass pass:bulk \
			-out "$t/pay-$m/big.bin" 2>/dev/null
	done
	echo genuine >"$t/pay-good/marker.txt"
	echo EVIL >"$t/pay-evil/marker.txt"
	for m in good evil; do
		"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$t/$m" --cuda 12.6.3 --tags linux-x86_64 \
			--xz-level 0 --payload "bulk=$t/pay-$m" >/dev/null
	done
	ARCHIVE=$(cd "$t/good" && echo bulk/linux-x86_64/*.tar.xz)
}

@test "faults: an archive swapped after it is opened to be hashed: the bytes extracted are the bytes verified" {
	need openssl "the test's incompressible payload"
	swap_mirrors
	local t=$BATS_TEST_TMPDIR
	python3 "$XCC_SRCDIR/tests/lib/swap-on-open.py" "$t/good/$ARCHIVE" "$t/evil/$ARCHIVE" \
		>"$t/swap.out" 2>&1 &
	BG_PID=$!
	for _ in $(seq 100); do grep -q ready "$t/swap.out" && break; sleep 0.05; done
	grep -q ready "$t/swap.out"
	run xcc sysroot create --target x86_64 --cuda 12.6 --from "$t/good/redistrib_12.6.3.json" \
		--components bulk --dest "$D" --progress never --allow-unserved
	assert_status 0
	wait "$BG_PID"
	BG_PID=
	# the swap happened: the name holds the attacker's archive now
	grep -q swapped "$t/swap.out"
	[ ! -e "$t/evil/$ARCHIVE" ]
	[ "$(cat "$(find "$D" -name marker.txt)")" = genuine ]
	run xcc sysroot verify "$D"
	assert_status 0
}

@test "faults: a URL archive with no promised size: past the cap it is refused, and on a full cache disk its partial download is removed" {
	local t=$BATS_TEST_TMPDIR url
	mkdir -p "$t/www/sub"
	head -c 3000000 /dev/urandom >"$t/www/sub/big.tar.xz"
	start_httpd normal "$t/www"
	url=$HTTPD_URL/sub/big.tar.xz
	run test_tool fetch --cache "$t/c1" --max-size 1000000 "$url"
	assert_status 1
	assert_output_contains "big.tar.xz: larger than 1000000 bytes, the most a download with no promised size may be ($url); --max-download SIZE raises the bound"
	[ -z "$(ls -A "$t/c1")" ]
	# the same through create's option
	run xcc sysroot create --target x86_64 --cuda 12.6 --from "$url" --max-download 1M \
		--cache "$t/c2" --dest "$D" --progress never
	assert_status 1
	assert_output_contains "big.tar.xz: larger than 1048576 bytes"
	[ -z "$(ls -A "$t/c2")" ]
	[ ! -e "$D" ]
	run xcc sysroot create --target x86_64 --cuda 12.6 --from "$url" --max-download 0 --dest "$D"
	assert_status 2
	# a cache disk of 1 MB fills up: the error says so, and the partial file goes
	small_tmpfs "$t/small" 1024
	run test_tool fetch --cache "$t/small/c" "$url"
	assert_status 1
	assert_output_contains "No space left on device"
	assert_output_contains "the partial download $t/small/c/url-"
	[ -z "$(ls -A "$t/small/c")" ]
}

@test "faults: create of an up-to-date sysroot on a read-only file system says up to date, exit 0; a change is refused naming it" {
	local mnt=$BATS_TEST_TMPDIR/ro sig
	small_tmpfs "$mnt" 65536
	D=$mnt/sr
	mk sm_87
	sig=$(tree_sig "$D")
	# The file system read-only afterwards (an image, a read-only mount in CI), the lock file left.
	[ -e "$D.lock" ]
	mount -o remount,ro "$mnt"
	run touch "$mnt/x"
	assert_status 1
	run mk sm_87
	assert_status 0
	assert_output_contains "up to date"
	[ "$(tree_sig "$D")" = "$sig" ]
	# Another GPU would change it: refused, the read-only file system named.
	run mk sm_72
	assert_status 1
	assert_output_contains "cannot open the lock $D.lock: Read-only file system"
	assert_output_contains "choose a --dest on a writable file system"
	[ "$(tree_sig "$D")" = "$sig" ]
	run xcc sysroot verify "$D"
	assert_status 0
}
