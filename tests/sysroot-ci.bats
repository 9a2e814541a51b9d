#!/usr/bin/env bats
# The sysroot as a CI cache entry (doc/ci.md): the key a runner computes before creating it
# (sysroot create --print-fingerprint), and two runners, each with its own HOME and
# destination, creating at once from one shared download cache (--cache) against a real HTTP
# server on 127.0.0.1 that logs every request: each archive downloaded once, both succeed.
load lib/common
load lib/httpd
load lib/sysroot

setup_file() {
	sysroot_fixtures
}

setup() {
	need python3 "the test HTTP server"
	sysroot_test_env
	T=$BATS_TEST_TMPDIR
	SHARED=$T/shared-downloads
}

teardown() {
	stop_httpd
	local p
	for p in ${RUNNER_PIDS:-}; do kill -9 "$p" 2>/dev/null || true; done
}

# `sysroot create` as runner $1 (its own HOME, no XDG_CACHE_HOME, its sysroot in its
# workspace), with the rest of the arguments.
as_runner() {
	local r=$1
	shift
	mkdir -p "$T/$r/home"
	env -u XDG_CACHE_HOME -u XDG_DATA_HOME HOME="$T/$r/home" "$CUDA_XCC" sysroot create \
		--target jetson --cuda 12.6 --progress never "$@"
}

key() { as_runner "$@" --print-fingerprint 2>/dev/null; }

# The same in the background, its output in $T/RUNNER.out; its pid (the binary's own: env
# execs it) goes to RUNNER_PIDS.
start_runner() {
	local r=$1
	shift
	mkdir -p "$T/$r/home"
	env -u XDG_CACHE_HOME -u XDG_DATA_HOME HOME="$T/$r/home" "$CUDA_XCC" sysroot create \
		--target jetson --cuda 12.6 --progress never "$@" >"$T/$r.out" 2>&1 &
	RUNNER_PIDS="${RUNNER_PIDS:+$RUNNER_PIDS }$!"
}

# Wait for every runner started; fails unless all succeeded.
wait_runners() {
	local p st=0
	for p in $RUNNER_PIDS; do wait "$p" || st=$?; done
	RUNNER_PIDS=
	cat "$T"/r*.out >&2
	[ "$st" -eq 0 ]
}

# How many GETs the server saw for each archive: "COUNT PATH" lines.
archive_gets() {
	sed -n 's/^GET \([^ ]*\.tar\.xz\) .*/\1/p' "$HTTPD_LOG" | sort | uniq -c
}

# Each archive the server was asked for was asked for once, and there were $1 of them.
assert_each_archive_once() {
	local gets
	gets=$(archive_gets)
	echo "$gets" >&2
	[ "$(echo "$gets" | grep -c .)" -eq "$1" ]
	[ -z "$(echo "$gets" | awk '$1 != 1')" ]
}

@test "sysroot ci: --print-fingerprint is the same at any destination and HOME, changes with the GPUs, components and manifest, and is what the sysroot records" {
	local k1 k2 m=$T/m126-other
	k1=$(key r1 -arch sm_87 --from "$M126" --dest "$T/r1/ws/sysroot")
	k2=$(key r2 -arch sm_87 --from "$M126" --dest "$T/r2/elsewhere/sysroot")
	[ "${#k1}" -eq 64 ]
	[ "$k1" = "$k2" ]
	# nothing was made or downloaded to tell it
	[ ! -e "$T/r1/ws" ]
	[ ! -e "$T/r1/home/.cache" ]
	# the same GPUs spelled otherwise, and -arch in another order, are the same request
	[ "$(key r2 -arch sm_87 -arch sm_72 --from "$M126" --dest "$T/x")" = "$(key r1 -arch sm_72,sm_87 --from "$M126" --dest "$T/y")" ]
	# any input that changes the tree changes it
	[ "$(key r1 -arch sm_72 --from "$M126" --dest "$T/x")" != "$k1" ]
	[ "$(key r1 -arch sm_87 --components libcublas --from "$M126" --dest "$T/x")" != "$k1" ]
	[ "$(key r1 -arch sm_87 --jetpack 6.1 --from "$M126" --dest "$T/x")" != "$k1" ]
	cp -r "$FX/m126" "$m"
	# one archive's promised sha256 changed: another manifest content, another key
	python3 - "$m/redistrib_12.6.3.json" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["cuda_cudart"]["linux-aarch64"]["sha256"] = "0" * 64
json.dump(d, open(p, "w"), indent=2)
EOF
	[ "$(key r1 -arch sm_87 --from "$m/redistrib_12.6.3.json" --dest "$T/x")" != "$k1" ]
	# what --dry-run says it would record
	run as_runner r1 -arch sm_87 --from "$M126" --dest "$T/x" --dry-run
	assert_status 0
	assert_output_contains "fingerprint $k1"
	# and what the finished sysroots record, made by either runner
	as_runner r1 -arch sm_87 --from "$M126" --dest "$T/r1/ws/sysroot"
	run xcc sysroot info "$T/r1/ws/sysroot" --fingerprint
	assert_status 0
	assert_output_equals "$k1"
	as_runner r2 -arch sm_87 --from "$M126" --dest "$T/r2/elsewhere/sysroot"
	run xcc sysroot info "$T/r2/elsewhere/sysroot" --fingerprint
	assert_output_equals "$k1"
	# the key of a restored sysroot says it is up to date: nothing is done
	run as_runner r2 -arch sm_87 --from "$M126" --dest "$T/r2/elsewhere/sysroot"
	assert_status 0
	assert_output_contains "up to date"
	run as_runner r1 -arch sm_87 --from "$M126" --dest "$T/x" --dry-run --print-fingerprint
	assert_status 2
	assert_output_contains "not both"
}

@test "sysroot ci: two runners at once with one --cache download each archive once, and both sysroots verify" {
	# a slow link, so that the two overlap: each waits for the other's download of an
	# archive instead of making its own
	HTTPD_STALL_S=1 start_httpd delay "$FX/m126" .tar.xz
	start_runner r1 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r1/ws/sysroot" --cache "$SHARED"
	start_runner r2 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r2/ws/sysroot" --cache "$SHARED"
	wait_runners
	grep -q "sysroot ready: $T/r1/ws/sysroot" "$T/r1.out"
	grep -q "sysroot ready: $T/r2/ws/sysroot" "$T/r2.out"
	assert_each_archive_once 6
	# the downloads are in the shared cache, complete, and nothing else is but the file
	# store of the sysroots' files (doc/sysroots.md)
	[ -z "$(ls "$SHARED" | grep -v '^[0-9a-f]\{64\}$' | grep -vx files)" ]
	[ "$(ls "$SHARED" | grep -c '^[0-9a-f]\{64\}$')" -eq 6 ]
	[ ! -e "$T/r1/home/.cache/cuda-xcc" ]
	[ ! -e "$T/r2/home/.cache/cuda-xcc" ]
	run xcc sysroot verify "$T/r1/ws/sysroot"
	assert_status 0
	run xcc sysroot verify "$T/r2/ws/sysroot"
	assert_status 0
	[ "$(xcc sysroot info "$T/r1/ws/sysroot" --fingerprint)" = "$(xcc sysroot info "$T/r2/ws/sysroot" --fingerprint)" ]
	# a third runner later: everything from the cache, no archive asked for again
	as_runner r3 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r3/ws/sysroot" --cache "$SHARED"
	assert_each_archive_once 6
}

@test "sysroot ci: single archives by URL (no promised sha256), two runners at once with one --cache: each downloaded once, and revalidated later" {
	local f rels=() froms=()
	for f in cuda_nvcc/linux-x86_64 cuda_cudart/linux-aarch64 cuda_cccl/linux-aarch64 cuda_nvtx/linux-aarch64; do
		rels+=("$(cd "$FX/m126" && echo "$f"/*.tar.xz)")
	done
	# each archive's answer comes 2 s late: the runners' downloads overlap, and the second
	# waits for the first's instead of making its own
	HTTPD_STALL_S=2 start_httpd delay "$FX/m126" .tar.xz
	for f in "${rels[@]}"; do froms+=(--from "$HTTPD_URL/$f"); done
	start_runner r1 -arch sm_87 "${froms[@]}" --dest "$T/r1/ws/sysroot" --cache "$SHARED"
	start_runner r2 -arch sm_87 "${froms[@]}" --dest "$T/r2/ws/sysroot" --cache "$SHARED"
	wait_runners
	assert_each_archive_once 4
	# no .part left, and each URL's entry points at its download
	[ -z "$(ls "$SHARED" | grep '\.part$\|\.new-')" ]
	[ "$(find "$SHARED" -name 'url-*' -type f | wc -l)" -eq 4 ]
	run xcc sysroot verify "$T/r1/ws/sysroot"
	assert_status 0
	run xcc sysroot verify "$T/r2/ws/sysroot"
	assert_status 0
	# a URL that promises no hash may change: a later runner asks for each only if it
	# changed since (If-Modified-Since), and the server's 304 leaves it to the cache
	as_runner r3 -arch sm_87 "${froms[@]}" --dest "$T/r3/ws/sysroot" --cache "$SHARED"
	[ -z "$(archive_gets | awk '$1 != 2')" ]
	[ "$(archive_gets | grep -c .)" -eq 4 ]
	[ "$(grep -c '^NOT-MODIFIED .*\.tar\.xz' "$HTTPD_LOG")" -eq 4 ]
	[ "$(xcc sysroot info "$T/r3/ws/sysroot" --fingerprint)" = "$(xcc sysroot info "$T/r1/ws/sysroot" --fingerprint)" ]
}

@test "sysroot ci: a runner stopped while it waits for another's download ends at once; a killed download leaves only its .part, which the next run resumes" {
	# the first response for each archive stops halfway and holds the connection: r1 keeps
	# the lock of its first download (and half its bytes in the .part) for 30 s
	HTTPD_STALL_S=30 start_httpd stall-once "$FX/m126" .tar.xz
	start_runner r1 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r1/ws/sysroot" --cache "$SHARED"
	local a=$RUNNER_PIDS b i f st=0 t0 t1
	for i in $(seq 100); do
		[ -n "$(find "$SHARED" -name '*.part' -size +0 2>/dev/null)" ] && break
		sleep 0.1
	done
	[ -n "$(find "$SHARED" -name '*.part' -size +0)" ]
	start_runner r2 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r2/ws/sysroot" --cache "$SHARED"
	b=${RUNNER_PIDS#* }
	# r2 is waiting for r1's download of the same archive: a CI cancel stops it within a
	# second, not when r1's download ends
	sleep 1
	t0=$EPOCHREALTIME
	kill -TERM "$b"
	wait "$b" || st=$?
	t1=$EPOCHREALTIME
	cat "$T/r2.out" >&2
	[ "$st" -eq 143 ]
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 1.5) }'
	grep -q "interrupted by SIGTERM" "$T/r2.out"
	[ ! -e "$T/r2/ws/sysroot" ]
	# r1 killed halfway through its download: nothing under an entry's final name but
	# complete files, its bytes kept in the .part
	kill -9 "$a"
	wait "$a" 2>/dev/null || true
	RUNNER_PIDS=
	[ -n "$(find "$SHARED" -name '*.part' -size +0)" ]
	for f in "$SHARED"/*; do
		case $f in *.part) continue ;; esac
		grep -q "$(basename "$f")" "$FX/m126/redistrib_12.6.3.json"
		[ "$(sha256sum "$f" | cut -d' ' -f1)" = "$(basename "$f")" ]
	done
	# the next runner resumes it with a Range request and succeeds
	stop_httpd
	start_httpd normal "$FX/m126"
	as_runner r2 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r2/ws/sysroot" --cache "$SHARED"
	grep -q 'tar.xz range=bytes=[1-9][0-9]*-' "$HTTPD_LOG"
	[ -z "$(ls "$SHARED" | grep '\.part$')" ]
	run xcc sysroot verify "$T/r2/ws/sysroot"
	assert_status 0
}

# Every file of the shared cache under an entry's final name holds the bytes that name says.
assert_entries_whole() {
	local f
	for f in "$SHARED"/*; do
		[ -e "$f" ] || continue
		# the file store (doc/sysroots.md) is tests/store.bats' business
		case ${f##*/} in *.part | files) continue ;; esac
		[ -f "$f" ]
		[ ! -L "$f" ]
		[ "$(sha256sum "$f" | cut -d' ' -f1)" = "${f##*/}" ]
	done
}

@test "sysroot ci: two runners on one --cache, killed at random points 24 times: the cache stays usable, each archive is asked for at most once more, and both sysroots verify" {
	local round i a b
	RANDOM=35
	# four rounds from an empty cache, each of six kills of both runners and then a run of both
	# to the end; a slow link (12 KB of archives at 1.5 KB/s, shared), so that the kills land
	# in downloads as much as in extraction; the points come from a fixed seed
	for round in 1 2 3 4; do
		rm -rf "$SHARED" "$T/r1/ws" "$T/r2/ws"
		HTTPD_RATE=1500 start_httpd throttle "$FX/m126" .tar.xz
		for i in 1 2 3 4 5 6; do
			start_runner r1 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r1/ws/sysroot" --cache "$SHARED"
			start_runner r2 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r2/ws/sysroot" --cache "$SHARED"
			a=${RUNNER_PIDS%% *} b=${RUNNER_PIDS#* }
			sleep "$((RANDOM % 2)).$((RANDOM % 10))"
			kill -9 "$a" 2>/dev/null || true
			sleep "0.$((RANDOM % 10))"
			kill -9 "$b" 2>/dev/null || true
			wait "$a" "$b" 2>/dev/null || true
			RUNNER_PIDS=
			assert_entries_whole
		done
		# the two run to the end from what the kills left: nothing in the cache is in their
		# way, and no archive is asked for more than once more
		stop_httpd
		start_httpd normal "$FX/m126"
		start_runner r1 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r1/ws/sysroot" --cache "$SHARED"
		start_runner r2 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r2/ws/sysroot" --cache "$SHARED"
		wait_runners
		echo "round $round, asked for after the kills:" >&2
		archive_gets >&2
		[ -z "$(archive_gets | awk '$1 > 1')" ]
		assert_entries_whole
		[ "$(ls "$SHARED" | grep -c '^[0-9a-f]\{64\}$')" -eq 6 ]
		run xcc sysroot verify "$T/r1/ws/sysroot"
		assert_status 0
		run xcc sysroot verify "$T/r2/ws/sysroot"
		assert_status 0
		[ "$(xcc sysroot info "$T/r1/ws/sysroot" --fingerprint)" = "$(xcc sysroot info "$T/r2/ws/sysroot" --fingerprint)" ]
		stop_httpd
	done
}

@test "sysroot ci: a symbolic link planted as a .part in the shared --cache is refused by create, and what it points to is untouched" {
	local sha
	sha=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda_cudart"]["linux-aarch64"]["sha256"])' "$M126")
	mkdir -p "$SHARED"
	printf 'a file of someone else\n' >"$T/victim"
	ln -s "$T/victim" "$SHARED/$sha.part"
	start_httpd normal "$FX/m126"
	run as_runner r1 -arch sm_87 --mirror "$HTTPD_URL/" --dest "$T/r1/ws/sysroot" --cache "$SHARED"
	assert_status 1
	assert_output_contains "$SHARED/$sha.part: a symbolic link where a partial download belongs"
	[ "$(cat "$T/victim")" = "a file of someone else" ]
	[ ! -e "$T/r1/ws/sysroot" ]
}
