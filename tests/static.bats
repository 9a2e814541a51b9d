#!/usr/bin/env bats
# The static cuda-xcc (scripts/build-static.sh) is really static: no dynamic
# loader, no shared library, and it works in an empty root that holds only
# the binary, /tmp and the test's files. Runs when $CUDA_XCC_STATIC names
# the binary (make check-static sets it).
load lib/common

# bats 1.8 cannot skip from setup_file: it finds the reason, setup skips.
setup_file() {
	local why=
	if [ -z "${CUDA_XCC_STATIC:-}" ]; then
		why="CUDA_XCC_STATIC is not set (build with scripts/build-static.sh, then make check-static CUDA_XCC_STATIC=...)"
	elif [ ! -x "$CUDA_XCC_STATIC" ]; then
		why="CUDA_XCC_STATIC=$CUDA_XCC_STATIC is not an executable file"
	elif ! command -v unshare >/dev/null; then
		why="unshare is not installed (util-linux; runs the empty root)"
	elif ! unshare --map-root-user --mount --root=/ true 2>/dev/null; then
		why="unshare cannot make a user and mount namespace here (user namespaces disabled?)"
	fi
	export STATIC_SKIP=$why CUDA_XCC_STATIC=${CUDA_XCC_STATIC:-}
}

setup() {
	[ -z "$STATIC_SKIP" ] || skip "$STATIC_SKIP"
	ROOT=$BATS_TEST_TMPDIR/root
	ROOT_ENV=()
	mkdir -p "$ROOT/tmp" "$ROOT/bin"
	cp "$CUDA_XCC_STATIC" "$ROOT/bin/cuda-xcc"
}

# Run the binary with / = $ROOT, in new user and mount namespaces, with an
# environment of three variables (and ROOT_ENV): nothing of the host is in
# sight (no /lib, /etc, /proc, /dev, /usr).
in_root() {
	env -i HOME=/tmp XDG_CACHE_HOME=/tmp/cache XDG_DATA_HOME=/tmp/data "${ROOT_ENV[@]}" \
		"$(command -v unshare)" --map-root-user --mount --root="$ROOT" --wd=/tmp \
		/bin/cuda-xcc "$@"
}

# in_root with the kernel's /proc mounted in the root (a pid namespace of its own):
# sysroot create reads each verified archive through /proc/self/fd.
in_root_proc() {
	env -i HOME=/tmp XDG_CACHE_HOME=/tmp/cache XDG_DATA_HOME=/tmp/data "${ROOT_ENV[@]}" \
		"$(command -v unshare)" --map-root-user --mount --pid --fork --mount-proc \
		--root="$ROOT" --wd=/tmp /bin/cuda-xcc "$@"
}

# A device root filesystem for --target-fs, from the cross toolchain's own
# aarch64 libraries: sysroot create resolves the target libraries'
# libstdc++ and libgcc_s there (an empty root has no cross gcc to ask).
make_target_fs() {
	local t=/usr/aarch64-linux-gnu/lib
	[ -f "$t/libstdc++.so.6" ] || skip "$t/libstdc++.so.6 is missing (libstdc++6-arm64-cross)"
	mkdir -p "$1/usr/lib/aarch64-linux-gnu"
	cp "$t"/libc.so.6 "$t"/libm.so.6 "$t"/libgcc_s.so.1 "$t"/libstdc++.so.6* \
		"$1/usr/lib/aarch64-linux-gnu/"
	ln -s usr/lib "$1/lib"
}

@test "static: file says statically linked, ldd says not a dynamic executable" {
	need file "reads the ELF headers"
	run file -L "$CUDA_XCC_STATIC"
	assert_status 0
	assert_output_contains "statically linked"
	[[ "$output" != *"dynamically linked"* ]]
	[[ "$output" != *"interpreter"* ]]
	run ldd "$CUDA_XCC_STATIC"
	assert_output_contains "not a dynamic executable"
	# no PT_INTERP and no DT_NEEDED
	run readelf -lW "$CUDA_XCC_STATIC"
	[[ "$output" != *INTERP* ]]
	run readelf -dW "$CUDA_XCC_STATIC"
	[[ "$output" != *NEEDED* ]]
}

@test "static: the root really is empty" {
	[ "$(cd "$ROOT" && find . | sort | tr '\n' ' ')" = ". ./bin ./bin/cuda-xcc ./tmp " ]
	# /bin/sh does not exist there: only a static binary can run at all
	if env -i "$(command -v unshare)" --map-root-user --mount --root="$ROOT" /bin/sh -c true \
		2>/dev/null; then
		echo "/bin/sh ran inside the empty root" >&2
		return 1
	fi
}

@test "static: --version and --help in an empty root" {
	run in_root --version
	assert_status 0
	[[ "$output" =~ ^cuda-xcc\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	run in_root --help
	assert_status 0
	assert_output_contains "Commands:"
}

@test "static: --version --verbose names the Debian sources it embeds" {
	run in_root --version --verbose
	assert_status 0
	assert_output_contains "libraries (as linked into this static binary):"
	[[ "$output" =~ libcurl\ [0-9.]+\ \(TLS:\ mbedTLS/[0-9] ]]
	assert_output_contains "built from Debian source packages:"
	local pkg
	for pkg in musl mbedtls curl zlib xz-utils libzstd libarchive elfutils nettle cjson; do
		[[ "$output" =~ $'\n'\ \ $pkg\ [0-9] ]] || { echo "no $pkg in: $output" >&2; return 1; }
	done
	# liblzma 5.6 or later, whose decoder is about twice as fast as Debian 12's 5.4
	# (build-static.sh takes xz-utils from Debian 13 on an older release).
	lzma=$(sed -n 's/^  liblzma \([0-9.]*\)$/\1/p' <<<"$output")
	[ -n "$lzma" ]
	[ "$(printf '%s\n' 5.6 "$lzma" | sort -V | head -n 1)" = 5.6 ]
}

@test "static: flags in an empty root agree with the host's run" {
	run "$CUDA_XCC_STATIC" flags --target jetson --cuda 12.6 -arch sm_72,sm_87
	assert_status 0
	local want=$output
	assert_output_contains "arch=compute_87,code=sm_87"
	run in_root flags --target jetson --cuda 12.6 -arch sm_72,sm_87
	assert_status 0
	assert_output_equals "$want"
	# validation errors keep their exit status
	run in_root flags --target jetson --cuda 12.6 -arch sm_999
	assert_status 2
}

@test "static: fatbin in an empty root" {
	local nvcc=/usr/local/cuda/bin/nvcc
	[ -x "$nvcc" ] || skip "$nvcc is missing (builds the object whose fatbin is read)"
	printf '__global__ void k(int *a) { a[0] = 1; }\n' >"$BATS_TEST_TMPDIR/k.cu"
	"$nvcc" -c -gencode arch=compute_87,code=sm_87 -gencode arch=compute_90,code=compute_90 \
		-o "$ROOT/tmp/k.o" "$BATS_TEST_TMPDIR/k.cu"
	run in_root fatbin --summary /tmp/k.o
	assert_status 0
	assert_output_equals "/tmp/k.o: sass sm_87 ptx sm_90"
	run in_root fatbin /tmp/k.o
	assert_status 0
	assert_output_contains "sass   sm_87"
	run in_root fatbin /tmp/missing.o
	assert_status 2
	assert_output_contains "/tmp/missing.o"
}

@test "static: patchelf in an empty root edits a program that still runs" {
	need gcc "builds the program to patch"
	printf 'int main(void) { return 0; }\n' >"$BATS_TEST_TMPDIR/p.c"
	gcc -o "$ROOT/tmp/p" "$BATS_TEST_TMPDIR/p.c"
	run in_root patchelf --print-interpreter /tmp/p
	assert_status 0
	[ "$output" = "$(readelf -lW "$ROOT/tmp/p" | sed -n 's/.*interpreter: \(.*\)]/\1/p')" ]
	run in_root patchelf --set-rpath /opt/static-test/lib /tmp/p
	assert_status 0
	run in_root patchelf --print-rpath /tmp/p
	assert_output_equals /opt/static-test/lib
	readelf -dW "$ROOT/tmp/p" | grep -q 'R.*PATH.*\[/opt/static-test/lib\]'
	"$ROOT/tmp/p"
}

@test "static: sysroot create from a local mirror in an empty root" {
	need aarch64-linux-gnu-gcc "builds the mirror's ELF files"
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$ROOT/mirror" --cuda 12.6.3 >/dev/null
	make_target_fs "$ROOT/device"
	mkdir -p "$ROOT/proc"
	# Without /proc it says so before fetching anything, and leaves nothing.
	run in_root sysroot create --target jetson -arch sm_87 --cuda 12.6 \
		--from /mirror/redistrib_12.6.3.json --dest /tmp/sr --progress never --target-fs /device
	assert_status 1
	assert_output_contains "and /proc is not mounted here: mount it (mount -t proc proc /proc)"
	[ ! -e "$ROOT/tmp/sr" ]
	run in_root_proc sysroot create --target jetson -arch sm_87 --cuda 12.6 \
		--from /mirror/redistrib_12.6.3.json --dest /tmp/sr --progress never --target-fs /device
	assert_status 0
	assert_output_contains "sysroot ready: /tmp/sr"
	[ -f "$ROOT/tmp/sr/sysroot.json" ]
	[ -x "$ROOT/tmp/sr/bin/nvcc" ]
	[ "$(readlink "$ROOT/tmp/sr/targets/aarch64-linux/lib/libcudart.so")" = libcudart.so.12 ]
	run in_root sysroot verify /tmp/sr
	assert_status 0
}

@test "static: sysroot create over HTTP (libcurl, static) in an empty root" {
	need python3 "serves the mirror"
	need aarch64-linux-gnu-gcc "builds the mirror's ELF files"
	load lib/httpd
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$BATS_TEST_TMPDIR/mirror" --cuda 12.6.3 >/dev/null
	start_httpd normal "$BATS_TEST_TMPDIR/mirror"
	# 127.0.0.1 by number: the empty root has no /etc/hosts
	run in_root sysroot create --target jetson -arch sm_87 --cuda 12.6 \
		--from "$HTTPD_URL/redistrib_12.6.3.json" --dest /tmp/sr --progress never --dry-run
	assert_status 0
	assert_output_contains "tag linux-aarch64, targets/aarch64-linux"
	make_target_fs "$ROOT/device"
	mkdir -p "$ROOT/proc"
	run in_root_proc sysroot create --target jetson -arch sm_87 --cuda 12.6 \
		--from "$HTTPD_URL/redistrib_12.6.3.json" --dest /tmp/sr --progress never \
		--target-fs /device
	stop_httpd
	# the manifest and every archive came over HTTP into the cache inside
	# the root, checked against their sha256, whatever happens next
	[ "$(httpd_requests)" -ge 7 ]
	local f n=0
	while read -r f; do
		[ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$(basename "$f")" ]
		n=$((n + 1))
	done < <(find "$ROOT/tmp/cache" -type f -regextype egrep -regex '.*/[0-9a-f]{64}')
	[ "$n" -eq 6 ]
	assert_status 0
	[ -x "$ROOT/tmp/sr/bin/nvcc" ]
	[ -f "$ROOT/tmp/sr/targets/aarch64-linux/lib/libcudart.so.12.0.1" ]
}

# A TLS server for DIR on 127.0.0.1 with the certificate in $2; sets TLS_PORT.
start_tls_server() {
	local portfile=$BATS_TEST_TMPDIR/tls.port
	python3 - "$1" "$2" "$portfile" <<-'EOF' 3>&- &
	import functools, http.server, os, ssl, sys, threading
	root, tls, portfile = sys.argv[1:4]
	class H(http.server.SimpleHTTPRequestHandler):
	    def log_message(self, *a):
	        pass
	s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=root))
	ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
	ctx.load_cert_chain(tls + "/cert.pem", tls + "/key.pem")
	s.socket = ctx.wrap_socket(s.socket, server_side=True)
	threading.Timer(120, s.shutdown).start()  # never outlives a test run
	open(portfile + ".tmp", "w").write(str(s.server_address[1]))
	os.rename(portfile + ".tmp", portfile)
	s.serve_forever()
	EOF
	TLS_PID=$!
	for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.1; done
	TLS_PORT=$(cat "$portfile")
}

@test "static: HTTPS in an empty root trusts the system's CA places only" {
	need openssl "makes the test certificate"
	need python3 "serves the mirror over TLS"
	need aarch64-linux-gnu-gcc "builds the mirror's ELF files"
	local tls=$BATS_TEST_TMPDIR/tls url hash
	mkdir -p "$tls"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:127.0.0.1 \
		-keyout "$tls/key.pem" -out "$tls/cert.pem" 2>/dev/null
	"$XCC_SRCDIR/tests/fixtures/make-redist.sh" "$BATS_TEST_TMPDIR/mirror" --cuda 12.6.3 >/dev/null
	start_tls_server "$BATS_TEST_TMPDIR/mirror" "$tls"
	url=https://127.0.0.1:$TLS_PORT/redistrib_12.6.3.json
	# nothing trusted in the root: the server is refused
	run in_root sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$url" --dry-run
	assert_status 1
	assert_output_contains "$url"
	assert_output_contains "certificate"
	# the certificate where Debian keeps CAs, /etc/ssl/certs/<hash>.0
	hash=$(openssl x509 -noout -hash -in "$tls/cert.pem")
	mkdir -p "$ROOT/etc/ssl/certs"
	cp "$tls/cert.pem" "$ROOT/etc/ssl/certs/$hash.0"
	run in_root sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$url" --dry-run
	assert_status 0
	assert_output_contains "tag linux-aarch64, targets/aarch64-linux"
	# or a bundle named by SSL_CERT_FILE
	rm -r "$ROOT/etc"
	cp "$tls/cert.pem" "$ROOT/tmp/ca.pem"
	ROOT_ENV=(SSL_CERT_FILE=/tmp/ca.pem)
	run in_root sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$url" --dry-run
	assert_status 0
	# or the bundle where Debian keeps it
	ROOT_ENV=()
	mkdir -p "$ROOT/etc/ssl/certs"
	cp "$tls/cert.pem" "$ROOT/etc/ssl/certs/ca-certificates.crt"
	run in_root sysroot create --target jetson -arch sm_87 --cuda 12.6 --from "$url" --dry-run
	assert_status 0
}

teardown() {
	if declare -F stop_httpd >/dev/null; then stop_httpd; fi
	if [ -n "${TLS_PID:-}" ]; then kill "$TLS_PID" 2>/dev/null || true; fi
}
