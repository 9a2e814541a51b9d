# Start and stop tests/lib/httpd.py from a bats test:
#   start_httpd MODE ROOT [SUFFIX]   sets HTTPD_URL (http://127.0.0.1:PORT) and
#                           HTTPD_LOG; with SUFFIX, only paths ending in it get MODE
#   stop_httpd              (call it from teardown)
# HTTPD_STALL_S: how long the stall modes hold a connection, and the delay mode each answer
# (default 30 s);
# HTTPD_RATE: the throttle mode's bytes per second (default 1000000).
# HTTPD_TLS: a directory with cert.pem and key.pem: HTTPS (HTTPD_URL is https://127.0.0.1:PORT).
# HTTPD_REDIRECT_TO: where the redirect mode sends /r/PATH (another server's URL).
# The server exits by itself after a while even when stop_httpd never runs.

start_httpd() {
	local mode=$1 root=$2 only=${3:-} port_file="$BATS_TEST_TMPDIR/httpd.port" i
	HTTPD_LOG="$BATS_TEST_TMPDIR/httpd.log"
	: >"$port_file"
	python3 "$XCC_SRCDIR/tests/lib/httpd.py" --mode "$mode" --root "$root" --only "$only" --timeout 120 \
		--stall-seconds "${HTTPD_STALL_S:-30}" --rate "${HTTPD_RATE:-1000000}" \
		${HTTPD_TLS:+--tls "$HTTPD_TLS"} --redirect-to "${HTTPD_REDIRECT_TO:-}" \
		>"$port_file" 2>"$HTTPD_LOG" 3>&- &
	HTTPD_PID=$!
	for i in $(seq 200); do
		[ -s "$port_file" ] && break
		sleep 0.05
	done
	[ -s "$port_file" ] || { echo "httpd.py did not start" >&2; return 1; }
	HTTPD_URL="http${HTTPD_TLS:+s}://127.0.0.1:$(head -n1 "$port_file")"
}

stop_httpd() {
	if [ -n "${HTTPD_PID:-}" ]; then
		kill "$HTTPD_PID" 2>/dev/null || true
		wait "$HTTPD_PID" 2>/dev/null || true
		HTTPD_PID=
	fi
}

# How many requests the server saw.
httpd_requests() {
	grep -c '^GET ' "$HTTPD_LOG" || true
}
