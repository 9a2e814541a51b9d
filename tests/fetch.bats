#!/usr/bin/env bats
# Downloads through libcurl against a real HTTP server on 127.0.0.1, the
# content-addressed cache, and verification of local files. Driven through
# the internal `cuda-test_tool fetch|text` commands.

load lib/common
load lib/httpd

setup() {
	need python3 "the test HTTP server"
	S=$(scratch)
	mkdir -p "$S/www/sub" "$S/cache"
	head -c 300000 /dev/urandom >"$S/www/sub/pkg-archive.tar.xz"
	SHA=$(sha256sum "$S/www/sub/pkg-archive.tar.xz" | cut -d' ' -f1)
	SIZE=300000
	printf '{"release_date": "2026-01-01"}\n' >"$S/www/redistrib_1.0.json"
}

teardown() {
	stop_httpd
	if [ -n "${PLAIN_PID:-}" ]; then
		kill "$PLAIN_PID" 2>/dev/null || true
		wait "$PLAIN_PID" 2>/dev/null || true
	fi
}

fetch() {
	run test_tool fetch --cache "$S/cache" "$@"
}

cache_is_empty() {
	local left
	left=$(ls -A "$S/cache")
	[ -z "$left" ] || { echo "left in the cache: $left" >&2; return 1; }
}

@test "a download lands in the cache under its sha256, and the cache serves it next time" {
	start_httpd normal "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ ! -e "$S/cache/$SHA.part" ]
	[ "$(httpd_requests)" = 1 ]
	stop_httpd
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
}

@test "XDG_CACHE_HOME decides where the cache is" {
	start_httpd normal "$S/www"
	XDG_CACHE_HOME="$S/xdg" run test_tool fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	assert_output_equals "$S/xdg/cuda-xcc/$SHA"
}

@test "a connection dropped halfway is resumed with a Range request" {
	start_httpd drop-once "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(httpd_requests)" = 2 ]
	grep -q "range=bytes=150000-" "$HTTPD_LOG"
}

@test "a server that ignores Range on the resume still gives the right file" {
	start_httpd drop-once-norange "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
}

@test "a .part left by an earlier run is resumed, not downloaded again" {
	start_httpd normal "$S/www"
	head -c 100000 "$S/www/sub/pkg-archive.tar.xz" >"$S/cache/$SHA.part"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	grep -q "range=bytes=100000-" "$HTTPD_LOG"
	[ "$(httpd_requests)" = 1 ]
}

@test "wrong bytes: the error names the file, the expected and the actual sha256, and nothing stays" {
	start_httpd wrong "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "pkg-archive.tar.xz: sha256 mismatch: expected $SHA, got "
	actual=$(python3 -c 'import hashlib,sys; d=open(sys.argv[1],"rb").read(); print(hashlib.sha256(bytes((b+1)&255 for b in d)).hexdigest())' "$S/www/sub/pkg-archive.tar.xz")
	assert_output_contains "got $actual"
	assert_output_contains "the download was removed"
	cache_is_empty
}

@test "a size that differs from the manifest's is refused before anything is kept" {
	start_httpd normal "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" 299999
	assert_status 1
	assert_output_contains "pkg-archive.tar.xz: size mismatch: expected 299999 bytes, the server has 300000"
	cache_is_empty
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" 300001
	assert_status 1
	assert_output_contains "expected 300001 bytes, the server has 300000"
	cache_is_empty
}

@test "retries are bounded, and the message says so" {
	start_httpd drop-always "$S/www"
	fetch --retries 2 "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "download failed after 3 attempts"
	assert_output_contains "$HTTPD_URL/sub/pkg-archive.tar.xz"
	[ "$(httpd_requests)" = 3 ]
	# What did arrive is kept for the next run to resume, but never under
	# the final name.
	[ ! -e "$S/cache/$SHA" ]
	[ -s "$S/cache/$SHA.part" ]
}

@test "HTTP 404 fails at once with the status code" {
	start_httpd 404 "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "HTTP status 404"
	[ "$(httpd_requests)" = 1 ]
	[ ! -e "$S/cache/$SHA" ]
}

@test "HTTP 503 is retried" {
	start_httpd 503-once "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	[ "$(httpd_requests)" = 2 ]
}

@test "redirects are followed" {
	start_httpd redirect "$S/www"
	fetch "$HTTPD_URL/r/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
}

@test "progress is reported up to the full size" {
	start_httpd slow "$S/www"
	fetch --progress "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	assert_output_contains "progress 300000/300000"
	[ "$(grep -c '^progress ' <<<"$output")" -gt 1 ]
}

@test "a corrupted cache entry is downloaded again" {
	start_httpd normal "$S/www"
	echo garbage >"$S/cache/$SHA"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
}

@test "without a promised sha256 the file is still cached under its own" {
	start_httpd normal "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
}

@test "without a promised sha256 the next download asks for the file only if it changed (If-Modified-Since)" {
	start_httpd normal "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	# unchanged: the server answers 304 and the cache serves it
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	[ "$(httpd_requests)" = 2 ]
	[ "$(grep -c '^NOT-MODIFIED /sub/pkg-archive.tar.xz' "$HTTPD_LOG")" = 1 ]
	[ -z "$(ls "$S/cache" | grep '\.part$')" ]
	# other bytes at the same URL, newer: downloaded, a new entry
	head -c 1000 /dev/urandom >"$S/www/sub/pkg-archive.tar.xz"
	touch -d '+1 hour' "$S/www/sub/pkg-archive.tar.xz"
	local new
	new=$(sha256sum "$S/www/sub/pkg-archive.tar.xz" | cut -d' ' -f1)
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz"
	assert_status 0
	assert_output_equals "$S/cache/$new"
	cmp "$S/cache/$new" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(grep -c '^NOT-MODIFIED' "$HTTPD_LOG")" = 1 ]
	# its entry removed from the cache: downloaded again, not a failure
	rm "$S/cache/$new"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz"
	assert_status 0
	assert_output_equals "$S/cache/$new"
	[ "$(httpd_requests)" = 4 ]
}

@test "nobody listening: the retries run out with the reason" {
	start_httpd normal "$S/www"
	url=$HTTPD_URL
	stop_httpd
	fetch --retries 1 "$url/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "download failed after 2 attempts"
}

@test "a local path is verified in place, not copied" {
	f="$S/www/sub/pkg-archive.tar.xz"
	fetch "$f" "$SHA" "$SIZE"
	assert_status 0
	assert_output_equals "$f"
	cache_is_empty
	fetch "file://$f" "$SHA" "$SIZE"
	assert_status 0
	assert_output_equals "$f"
}

@test "a local file that does not match is named, with both values, and left alone" {
	f="$S/www/sub/pkg-archive.tar.xz"
	bad=0000000000000000000000000000000000000000000000000000000000000000
	fetch "$f" "$bad" "$SIZE"
	assert_status 1
	assert_output_contains "$f: sha256 mismatch: expected $bad, got $SHA"
	fetch "$f" "$SHA" 12
	assert_status 1
	assert_output_contains "$f: size mismatch: expected 12 bytes, the file has 300000"
	[ -f "$f" ]
	fetch "$S/missing.tar.xz" "$SHA" "$SIZE"
	assert_status 2
	assert_output_contains "$S/missing.tar.xz: No such file or directory"
}

@test "a malformed sha256 is a usage error" {
	fetch "$S/www/sub/pkg-archive.tar.xz" abc "$SIZE"
	assert_status 2
	assert_output_contains "'abc' is not a sha256"
}

@test "texts (manifests) come from URLs, file:// URLs and paths" {
	start_httpd normal "$S/www"
	run test_tool text "$HTTPD_URL/redistrib_1.0.json"
	assert_status 0
	assert_output_equals '{"release_date": "2026-01-01"}'
	run test_tool text "file://$S/www/redistrib_1.0.json"
	assert_output_equals '{"release_date": "2026-01-01"}'
	run test_tool text "$S/www/redistrib_1.0.json"
	assert_output_equals '{"release_date": "2026-01-01"}'
	run test_tool text "$HTTPD_URL/missing.json"
	assert_status 1
	assert_output_contains "$HTTPD_URL/missing.json: the server answered HTTP status 404"
}

@test "sha256 of a file" {
	run test_tool sha256 "$S/www/sub/pkg-archive.tar.xz"
	assert_status 0
	assert_output_equals "$SHA 300000"
}

@test "a stale .part holding other bytes costs one fresh download, not a failure" {
	start_httpd normal "$S/www"
	head -c 100000 /dev/urandom >"$S/cache/$SHA.part"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(httpd_requests)" = 2 ]
	grep -q "range=bytes=100000-" "$HTTPD_LOG"
	grep -q "range=-" "$HTTPD_LOG"
}

@test "concurrent downloads of one file into one cache leave no .part behind" {
	start_httpd slow "$S/www"
	local i pids=()
	# the slow server keeps the first one downloading while the others
	# open the .part and wait for its lock
	for i in 1 2 3 4; do
		"$XCC_TEST_TOOL" fetch --cache "$S/cache" "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE" \
			>"$S/out$i" 2>&1 &
		pids+=($!)
	done
	# the four downloads only: a bare wait would wait for the server too,
	# which ends only at its own two-minute timeout
	wait "${pids[@]}"
	for i in 1 2 3 4; do
		[ "$(cat "$S/out$i")" = "$S/cache/$SHA" ]
	done
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(ls -A "$S/cache")" = "$SHA" ]
}

# The t= of each request the server logged, one per line.
request_times() {
	sed -n 's/^GET .* t=\([0-9.]*\)$/\1/p' "$HTTPD_LOG"
}

@test "a server that stops sending halfway: the attempt gives up after --stall-timeout and the retry resumes" {
	start_httpd stall-once "$S/www"
	fetch --stall-timeout 1 "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(httpd_requests)" = 2 ]
	grep -q "range=bytes=150000-" "$HTTPD_LOG"
	[ ! -e "$S/cache/$SHA.part" ]
}

@test "a server that always stalls: bounded retries, a clear error, and the bytes kept for the next run" {
	start_httpd stall-always "$S/www"
	fetch --retries 2 --stall-timeout 1 "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "download failed after 3 attempts"
	assert_output_contains "the server stopped sending (nothing for 1 s)"
	# each attempt resumed where the one before stalled: half, then half the rest
	grep -q "range=bytes=150000-" "$HTTPD_LOG"
	grep -q "range=bytes=225000-" "$HTTPD_LOG"
	assert_output_contains "the 262500 bytes received stay in $S/cache/$SHA.part"
	[ "$(httpd_requests)" = 3 ]
	# an attempt gives up about --stall-timeout after the last byte (curl's
	# own low-speed check took some 7 s whatever the limit): with a 1 s
	# timeout and pauses of 0.25 and 0.5 s, the requests are well under 5 s apart
	request_times | awk 'NR > 1 && $1 - prev >= 5 { exit 1 } { prev = $1 }'
	[ ! -e "$S/cache/$SHA" ]
	[ "$(stat -c %s "$S/cache/$SHA.part")" = 262500 ]
	# the next run, against a server that works, asks only for the rest
	stop_httpd
	start_httpd normal "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	[ "$(httpd_requests)" = 1 ]
	grep -q "range=bytes=262500-" "$HTTPD_LOG"
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ ! -e "$S/cache/$SHA.part" ]
}

@test "a server that never answers: bounded retries, the reason, and no empty .part left" {
	start_httpd silent "$S/www"
	fetch --retries 1 --stall-timeout 1 "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "download failed after 2 attempts"
	assert_output_contains "the server did not answer"
	[ "$(httpd_requests)" = 2 ]
	cache_is_empty
}

@test "a connection reset halfway is resumed; always reset, the retries run out with the reason" {
	start_httpd reset-once "$S/www"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(httpd_requests)" = 2 ]
	# resumed from what had arrived (the reset may drop some of it)
	grep -Eq "range=bytes=[1-9][0-9]*- " "$HTTPD_LOG"
	[ ! -e "$S/cache/$SHA.part" ]
	stop_httpd
	rm -f "$S/cache/$SHA"
	start_httpd reset-always "$S/www"
	fetch --retries 2 "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "download failed after 3 attempts"
	assert_output_contains "reset by peer"
	[ "$(httpd_requests)" = 3 ]
	[ ! -e "$S/cache/$SHA" ]
}

@test "retries back off: each pause at least twice the one before (0.25 s, 0.5 s, 1 s)" {
	start_httpd drop-always "$S/www"
	fetch --retries 3 "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	[ "$(httpd_requests)" = 4 ]
	# lower bounds only: a loaded machine makes pauses longer, never shorter
	request_times | awk 'NR > 1 { gap[NR - 1] = $1 - prev } { prev = $1 }
		END { exit !(gap[1] >= 0.25 && gap[2] >= 0.5 && gap[3] >= 1.0) }'
}

# The cache may be shared (CI runners, a restored tarball): what else writes
# there must not make a download write, or read, anywhere else.
@test "cache: a symbolic link planted as the .part is refused, named, and never written through" {
	start_httpd normal "$S/www"
	printf 'keep me\n' >"$S/victim"
	ln -s "$S/victim" "$S/cache/$SHA.part"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "$S/cache/$SHA.part: a symbolic link where a partial download belongs"
	[ "$(cat "$S/victim")" = "keep me" ]
	[ -L "$S/cache/$SHA.part" ]
	[ ! -e "$S/cache/$SHA" ]
	# a URL without a promised hash: its .part is named after the URL
	local url="$HTTPD_URL/sub/pkg-archive.tar.xz" h
	h=$(printf '%s' "$url" | sha256sum | cut -d' ' -f1)
	ln -s "$S/victim" "$S/cache/url-$h.part"
	fetch "$url"
	assert_status 1
	assert_output_contains "$S/cache/url-$h.part: a symbolic link"
	[ "$(cat "$S/victim")" = "keep me" ]
	[ "$(httpd_requests)" = 0 ]
}

@test "cache: a FIFO planted as the .part is refused at once, not read from" {
	start_httpd normal "$S/www"
	mkfifo "$S/cache/$SHA.part"
	run timeout 60 "$XCC_TEST_TOOL" fetch --cache "$S/cache" "$HTTPD_URL/sub/pkg-archive.tar.xz" \
		"$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "$S/cache/$SHA.part: a FIFO where a partial download belongs"
	[ -p "$S/cache/$SHA.part" ]
}

@test "cache: a .part of another user's is refused, named, and left as it was" {
	[ "$(id -u)" = 0 ] || skip "needs root to give the .part to another user"
	id cuda-xcc-test >/dev/null 2>&1 || skip "no user cuda-xcc-test (scripts/setup.sh makes it)"
	start_httpd normal "$S/www"
	head -c 1000 "$S/www/sub/pkg-archive.tar.xz" >"$S/cache/$SHA.part"
	chown cuda-xcc-test "$S/cache/$SHA.part"
	chmod 666 "$S/cache/$SHA.part"
	cp "$S/cache/$SHA.part" "$S/part-before"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "$S/cache/$SHA.part: a partial download owned by user $(id -u cuda-xcc-test)"
	cmp "$S/cache/$SHA.part" "$S/part-before"
	[ "$(stat -c %U "$S/cache/$SHA.part")" = cuda-xcc-test ]
	[ ! -e "$S/cache/$SHA" ]
}

@test "cache: a link planted as a finished entry is not served; the entry is downloaded, the link's target untouched" {
	start_httpd normal "$S/www"
	# the right bytes, but in a file the cache does not own
	cp "$S/www/sub/pkg-archive.tar.xz" "$S/elsewhere"
	ln -s "$S/elsewhere" "$S/cache/$SHA"
	fetch "$HTTPD_URL/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	[ ! -L "$S/cache/$SHA" ]
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	cmp "$S/elsewhere" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(httpd_requests)" = 1 ]
}

@test "cache: a link planted as a URL's record is not read or written through" {
	start_httpd normal "$S/www"
	local url="$HTTPD_URL/sub/pkg-archive.tar.xz" h
	h=$(printf '%s' "$url" | sha256sum | cut -d' ' -f1)
	printf 'sha256 %s\nlast-modified 4000000000\n' "$SHA" >"$S/record-elsewhere"
	cp "$S/www/sub/pkg-archive.tar.xz" "$S/cache/$SHA"
	ln -s "$S/record-elsewhere" "$S/cache/url-$h"
	cp "$S/record-elsewhere" "$S/record-before"
	fetch "$url"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	# asked for the whole file: the link was no record
	[ "$(grep -c '^NOT-MODIFIED' "$HTTPD_LOG" || true)" = 0 ]
	[ ! -L "$S/cache/url-$h" ]
	[ -f "$S/cache/url-$h" ]
	cmp "$S/record-elsewhere" "$S/record-before"
}

@test "a 304 to a request that was not conditional is an error naming the URL, and nothing is stored" {
	start_httpd always-304 "$S/www"
	local url="$HTTPD_URL/sub/pkg-archive.tar.xz"
	fetch "$url"
	assert_status 1
	assert_output_contains "$url: the server answered 304 Not Modified to a request that was not conditional"
	cache_is_empty
	fetch "$url" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "$url: the server answered 304 Not Modified"
	cache_is_empty
}

# The record of a URL without a promised hash, edited to name another entry of the cache: the
# attacker's archive, put there beside the genuine one.
forge_record() { # CACHE URL SHA
	local h rec mtime
	h=$(printf '%s' "$2" | sha256sum | cut -d' ' -f1)
	rec=$1/url-$h
	if [ -L "$rec" ]; then # the format before records were files
		mtime=$(stat -c %Y "$rec")
		ln -sfn "$3" "$rec"
		touch -h -d "@$mtime" "$rec"
	else
		sed -i "s/^sha256 .*/sha256 $3/" "$rec"
		grep -q "^sha256 $3\$" "$rec"
	fi
}

@test "a URL's record edited or restored from elsewhere cannot choose the archive: the URL is downloaded again" {
	start_httpd normal "$S/www"
	local url="$HTTPD_URL/sub/pkg-archive.tar.xz" other
	fetch "$url"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	head -c 5000 /dev/urandom >"$S/other"
	other=$(sha256sum "$S/other" | cut -d' ' -f1)
	cp "$S/other" "$S/cache/$other"
	forge_record "$S/cache" "$url" "$other"
	# edited in place: not the file the record was written for
	fetch "$url"
	assert_status 0
	assert_output_equals "$S/cache/$SHA"
	cmp "$S/cache/$SHA" "$S/www/sub/pkg-archive.tar.xz"
	[ "$(grep -c '^NOT-MODIFIED' "$HTTPD_LOG" || true)" = 0 ]
	# forged, then restored elsewhere (a CI cache tarball): the same
	forge_record "$S/cache" "$url" "$other"
	cp -a "$S/cache" "$S/restored"
	run test_tool fetch --cache "$S/restored" "$url"
	assert_status 0
	assert_output_equals "$S/restored/$SHA"
	[ "$(grep -c '^NOT-MODIFIED' "$HTTPD_LOG" || true)" = 0 ]
	[ "$(httpd_requests)" = 3 ]
	# the record it wrote is trusted from then on: the next download is revalidated
	run test_tool fetch --cache "$S/restored" "$url"
	assert_status 0
	assert_output_equals "$S/restored/$SHA"
	[ "$(grep -c '^NOT-MODIFIED' "$HTTPD_LOG")" = 1 ]
}

@test "redirects from https to http, and to file:// or ftp://, are refused, naming where they led" {
	need openssl "the test's HTTPS certificate"
	local url plain
	mkdir -p "$S/tls"
	# Named localhost: the static build's TLS library (mbedtls 2.28) matches DNS names
	# only, not IP addresses.
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$S/tls/key.pem" -out "$S/tls/cert.pem" \
		-days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
	# a plain server with the file, and an HTTPS one that redirects to it
	start_httpd normal "$S/www"
	plain=$HTTPD_URL PLAIN_PID=$HTTPD_PID HTTPD_PID=
	mv "$HTTPD_LOG" "$S/plain.log"
	HTTPD_TLS=$S/tls HTTPD_REDIRECT_TO=$plain start_httpd redirect "$S/www"
	local tls=${HTTPD_URL/127.0.0.1/localhost}
	# HTTPS itself works: the certificate is trusted
	SSL_CERT_FILE=$S/tls/cert.pem fetch "$tls/sub/pkg-archive.tar.xz" "$SHA" "$SIZE"
	assert_status 0
	rm "$S/cache/$SHA"
	url=$tls/r/sub/pkg-archive.tar.xz
	SSL_CERT_FILE=$S/tls/cert.pem fetch "$url" "$SHA" "$SIZE"
	assert_status 1
	assert_output_contains "$url: the server redirected to $plain/sub/pkg-archive.tar.xz, which is refused"
	cache_is_empty
	[ "$(grep -c '^GET ' "$S/plain.log" || true)" = 0 ]
	stop_httpd
	start_httpd redirect-file "$S/www"
	url=$HTTPD_URL/r/sub/pkg-archive.tar.xz
	fetch "$url" "$SHA" "$SIZE"
	assert_status 1
	# named where libcurl can parse it (a libcurl built without file://, as the static
	# build's, cannot, and says another protocol)
	case "$output" in
	*"$url: the server redirected to file://"*) ;;
	*"$url: the server redirected to another protocol, which is refused"*) ;;
	*) echo "$output" >&2; false ;;
	esac
	cache_is_empty
	stop_httpd
	start_httpd redirect-ftp "$S/www"
	url=$HTTPD_URL/r/sub/pkg-archive.tar.xz
	fetch "$url" "$SHA" "$SIZE"
	assert_status 1
	case "$output" in
	*"$url: the server redirected to ftp://127.0.0.1:"*) ;;
	*"$url: the server redirected to another protocol, which is refused"*) ;;
	*) echo "$output" >&2; false ;;
	esac
	cache_is_empty
}
