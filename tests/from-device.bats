#!/usr/bin/env bats
# sysroot create --from-device: the target side and the device root pulled over ssh from a
# running board, the host side Debian 13's x86_64 nvcc 12.4. The board is a directory
# (tests/lib/fake-board.bash: an sbsa CUDA 12.4 board made from Debian's arm64 packages,
# with a Jetson Thor's nv_tegra_release) that the suite's own sshd on 127.0.0.1
# (tests/lib/sshd.bash) serves as the board's root, through --device-root.
#
# The packages come from scripts/fetch-debian-cuda.sh --release trixie and
# scripts/fetch-target-root.sh --release bookworm --fetch-only (scripts/setup.sh runs
# both); without them the tests that need the board skip.
load lib/common
load lib/sshd
load lib/fake-board
bats_require_minimum_version 1.5.0

setup_file() {
	export XDG_CACHE_HOME=$BATS_FILE_TMPDIR/xdg
	export FD_STATE=$BATS_FILE_TMPDIR/state FD_CACHE=$BATS_FILE_TMPDIR/cache
	export FD_SYSROOT=$BATS_FILE_TMPDIR/S
	start_sshd
	# Under the sshd's directory: the sshd's user reaches it, and stop_sshd removes it.
	export FD_BOARD=$SSHD_DIR/board
	fake_board_state "$FD_BOARD" "$BATS_FILE_TMPDIR/board.log" > "$FD_STATE"
	if [ "$(cat "$FD_STATE")" = ok ]; then
		run_create "$FD_BOARD" "$FD_CACHE" --dest "$FD_SYSROOT" \
			> "$BATS_FILE_TMPDIR/create.log" 2>&1 ||
			echo "fail sysroot create --from-device failed: $(tail -5 "$BATS_FILE_TMPDIR/create.log")" > "$FD_STATE"
	fi
}

teardown_file() { stop_sshd; }

# sysroot create from the board at root $1 into the cache $2, the host side from Debian's
# packages; more options follow.
run_create() {
	local root=$1 cache=$2 from=() d
	shift 2
	while read -r d; do from+=(--from "$d"); done < <(fake_board_host_debs)
	"$CUDA_XCC" sysroot create --from-device "$SSH_DEVICE" --device-root "$root" \
		--ssh-config "$SSH_CONFIG" --cache "$cache" --progress never "${from[@]}" "$@"
}

# The board in $FD_BOARD and its sysroot in $FD_SYSROOT, or skip, or fail.
need_board() {
	local state word
	state=$(cat "$FD_STATE")
	word=${state%% *}
	case "$word" in
	ok) ;;
	skip) skip "${state#* }" ;;
	*) echo "${state#* }" >&2; return 1 ;;
	esac
}

# A copy of the board of the test's own, which it may change.
board_copy() {
	cp -a "$FD_BOARD" "$SSHD_DIR/$1"
	echo "$SSHD_DIR/$1"
}

# A directory with an ssh that stands for ssh's and does to the tar stream what $1 says.
fake_ssh() {
	local dir=$BATS_TEST_TMPDIR/bin real
	real=$(command -v ssh)
	mkdir -p "$dir"
	cat > "$dir/ssh" <<-EOF
	#!/bin/sh
	case "\$*" in
	*"tar --null"*) $1 ;;
	esac
	exec $real "\$@"
	EOF
	chmod +x "$dir/ssh"
	echo "$dir"
}

json_field() {
	python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); [v := v[k] for k in sys.argv[2:]]; print(v)' "$@"
}

@test "from-device: the board's CUDA is the target side, its files the device root, its identity recorded; verify passes" {
	need_board
	need python3 "reads sysroot.json"
	S=$FD_SYSROOT
	grep -q "files copied" "$BATS_FILE_TMPDIR/create.log"
	[ "$(json_field "$S/sysroot.json" target)" = sbsa ]
	[ "$(json_field "$S/sysroot.json" cuda)" = 12.4 ]
	[ "$(json_field "$S/sysroot.json" board l4t)" = 38.2.0 ]
	[ "$(json_field "$S/sysroot.json" board jetpack)" = 7.0 ]
	[ "$(json_field "$S/sysroot.json" board cuda)" = 12.4.1 ]
	[ "$(json_field "$S/sysroot.json" board gpu)" = 11.0 ]
	[ "$(json_field "$S/sysroot.json" board cuda_dir)" = /usr/local/cuda-12.4 ]
	# The target side is the board's own libcudart, byte for byte.
	cmp "$S/targets/sbsa-linux/lib/libcudart.so.12.4.127" \
		"$FD_BOARD/usr/local/cuda-12.4/targets/sbsa-linux/lib/libcudart.so.12.4.127"
	[ -f "$S/targets/sbsa-linux/include/cuda_runtime.h" ]
	[ -x "$S/bin/nvcc" ]
	# The device root: what a cross build needs, and nothing else of the board.
	R=$(json_field "$S/sysroot.json" target_fs)
	case "$R" in "$FD_CACHE"/boards/*/roots/*) ;; *) echo "target_fs $R" >&2; false ;; esac
	[ -f "$R/etc/nv_tegra_release" ]
	[ -f "$R/usr/lib/aarch64-linux-gnu/nvidia/libnvfakel4t.so.1" ]
	[ -e "$R/lib/aarch64-linux-gnu/libc.so.6" ]
	[ -f "$R/usr/lib/aarch64-linux-gnu/libc.so" ]
	[ -e "$R/usr/lib/aarch64-linux-gnu/libstdc++.so.6" ]
	[ -f "$R/usr/include/stdio.h" ]
	[ ! -e "$R/usr/share" ]
	[ ! -e "$R/cuda-xcc-root.json" ]
	[ ! -e "$R/proc" ]
	run "$CUDA_XCC" sysroot info "$S"
	assert_status 0
	assert_output_contains "board          $SSH_DEVICE root $FD_BOARD: L4T 38.2.0, JetPack 7.0, CUDA 12.4.1 (/usr/local/cuda-12.4), GPU 11.0 of nvidia,p3834-0008+p4071-0000 nvidia,tegra264"
	assert_output_contains "target cuda_board             12.4.1"
	run "$CUDA_XCC" sysroot verify "$S"
	assert_status 0
	assert_output_contains ": OK: every file's contents match"
}

@test "from-device: a CUDA C++ program built with the board's sysroot runs against the board's root and reaches the runtime's error 35" {
	need_board
	need aarch64-linux-gnu-g++-12 "CUDA 12.4's host compiler (g++-aarch64-linux-gnu)"
	need qemu-aarch64 "runs the aarch64 program"
	d=$(scratch)
	cat > "$d/prog.cu" <<-'EOF'
	#include <iostream>
	#include <string>
	#include <cuda_runtime.h>
	__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }
	int main()
	{
		int n = -1;
		cudaError_t e = cudaGetDeviceCount(&n);
		std::string name = cudaGetErrorName(e);
		std::cout << "cudaGetDeviceCount: err=" << (int)e << " (" << name << ") count=" << n
			  << std::endl;
		return e == cudaSuccess ? 0 : 2;
	}
	EOF
	run "$CUDA_XCC" --sysroot "$FD_SYSROOT" -arch sm_90 -o "$d/prog" "$d/prog.cu"
	assert_status 0
	run "$CUDA_XCC" run --sysroot "$FD_SYSROOT" "$d/prog"
	assert_status 2
	assert_output_contains "cudaGetDeviceCount: err=35 (cudaErrorInsufficientDriver) count=-1"
	# It ran on the board's own loader and C library.
	run "$CUDA_XCC" run --sysroot "$FD_SYSROOT" --dry-run "$d/prog"
	assert_status 0
	assert_output_contains "-L $(json_field "$FD_SYSROOT/sysroot.json" target_fs) "
}

@test "from-device: a second pull copies only what changed, drops what the board lost, and leaves the last snapshot as it was" {
	need_board
	B=$(board_copy inc)
	C=$BATS_TEST_TMPDIR/cache
	run run_create "$B" "$C" --dry-run
	assert_status 0
	n=$(find "$B/usr/include" -type f | wc -l)
	[ "$n" -gt 100 ]
	assert_output_contains "files copied"
	first=$(echo "$output" | grep -o 'roots/[0-9a-f]*' | head -1)
	# Nothing changed: nothing copied, the same snapshot.
	run run_create "$B" "$C" --dry-run
	assert_status 0
	assert_output_contains ": 0 of "
	assert_output_contains "$first"
	# One header rewritten, one gone.
	echo '/* from-device-marker */' >> "$B/usr/include/stdio.h"
	rm "$B/usr/include/fcntl.h"
	run run_create "$B" "$C" --dry-run
	assert_status 0
	assert_output_contains ": 1 of "
	assert_output_contains "files copied (0.0 MiB), 1 removed"
	second=$(echo "$output" | grep -o 'roots/[0-9a-f]*' | head -1)
	[ "$first" != "$second" ]
	grep -q from-device-marker "$C/boards/"*/"$second/usr/include/stdio.h"
	[ ! -e "$C/boards/"*/"$second/usr/include/fcntl.h" ]
	# What an older sysroot records is still there, unchanged.
	[ -f "$C/boards/"*/"$first/usr/include/fcntl.h" ]
	run grep -c from-device-marker "$C/boards/"*/"$first/usr/include/stdio.h"
	assert_output_equals 0
}

@test "from-device: a board's links that climb out or are absolute are kept as links inside the copy; a stream that writes through one is refused" {
	need_board
	B=$(board_copy links)
	C=$BATS_TEST_TMPDIR/cache
	ln -s ../../../../../../../../../.. "$B/usr/include/climb"
	ln -s /etc/passwd "$B/usr/include/abs.h"
	run run_create "$B" "$C" --dry-run
	assert_status 0
	R=$(ls -d "$C"/boards/*/roots/*)
	[ "$(readlink "$R/usr/include/climb")" = ../../../../../../../../../.. ]
	[ "$(readlink "$R/usr/include/abs.h")" = /etc/passwd ]
	[ ! -e "$R/etc/passwd" ]
	# A hostile board: it lists a file below the link, and its stream holds it. The
	# member is refused, and nothing is written outside.
	need python3 "writes the hostile stream"
	python3 - "$BATS_TEST_TMPDIR/evil.tar" <<-'EOF'
	import io, sys, tarfile
	with tarfile.open(sys.argv[1], "w") as t:
	    data = b"pwned\n"
	    i = tarfile.TarInfo("usr/include/climb/tmp/pwned-from-device")
	    i.size, i.mtime = len(data), 1700000000
	    t.addfile(i, io.BytesIO(data))
	EOF
	bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	cat > "$bin/ssh" <<-EOF
	#!/bin/bash
	case "\$*" in
	*"exec find"*)
		grep -o 'cuda-xcc-pull-[0-9a-f]*' <<< "\$*" | head -1
		printf 'f 6 1700000000 usr/include/climb/tmp/pwned-from-device\\0\\0'
		exit 0 ;;
	*"tar --null"*) cat "$BATS_TEST_TMPDIR/evil.tar"; exit 0 ;;
	esac
	exec $(command -v ssh) "\$@"
	EOF
	chmod +x "$bin/ssh"
	PATH=$bin:$PATH run run_create "$B" "$C" --dry-run
	assert_status 1
	assert_output_contains "member usr/include/climb/tmp/pwned-from-device refused"
	[ ! -e /tmp/pwned-from-device ]
	run find "$BATS_TEST_TMPDIR" "$SSHD_DIR" -name pwned-from-device -print -quit
	assert_output_equals ""
}

# A copy $B of the board named $1, pulled into the sysroot $D (cache $C, its tree digest in
# $before); then every header on the board newer, so that the next pull copies them all.
pulled_then_newer() {
	B=$(board_copy "$1")
	C=$BATS_TEST_TMPDIR/cache
	D=$BATS_TEST_TMPDIR/D
	run run_create "$B" "$C" --dest "$D"
	assert_status 0
	before=$("$CUDA_XCC" sysroot info "$D" --tree-digest)
	find "$B/usr/include" -type f -exec touch -d '2030-01-01 00:00:00' {} +
}

@test "from-device: an interrupted pull leaves no sysroot and the one made before as it was; the next pull copies only what is left" {
	need_board
	pulled_then_newer cut
	# The next pull's stream is cut short.
	total=$(find "$B/usr/include" -type f | wc -l)
	bin=$(fake_ssh "$(command -v ssh) \"\$@\" | head -c 2000000; exit 1")
	PATH=$bin:$PATH run run_create "$B" "$C" --dest "$D"
	assert_status 1
	PATH=$bin:$PATH run run_create "$B" "$C" --dest "$BATS_TEST_TMPDIR/new"
	assert_status 1
	[ ! -e "$BATS_TEST_TMPDIR/new" ]
	[ "$(ls "$BATS_TEST_TMPDIR" | grep -c '^new')" -eq 0 ]
	[ "$("$CUDA_XCC" sysroot info "$D" --tree-digest)" = "$before" ]
	run "$CUDA_XCC" sysroot verify "$D"
	assert_status 0
	# What came before the cut is not copied again.
	run run_create "$B" "$C" --dest "$D"
	assert_status 0
	copied=$(echo "$output" | sed -n 's/.*: \([0-9]*\) of [0-9]* files copied.*/\1/p')
	[ "$copied" -gt 0 ]
	[ "$copied" -lt "$total" ]
	[ "$("$CUDA_XCC" sysroot info "$D" --tree-digest)" != "$before" ]
}

# Run a command with SIGINT and SIGTERM at their defaults: a script's `cmd &` starts it with
# SIGINT ignored, and create keeps what it was given ignored.
with_default_signals() {
	exec python3 -S -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

@test "from-device: SIGINT or SIGTERM while the files stream in: exit 128+N, the board's ssh stopped, no sysroot, the old one as it was" {
	need_board
	local s st
	pulled_then_newer sig
	# The stream's first 300 kB, then a stall: the process create started stands for ssh,
	# and only its end closes the stream, as ssh's own would.
	stream=$BATS_TEST_TMPDIR/stream mark=$BATS_TEST_TMPDIR/mark
	bin=$(fake_ssh "$(command -v ssh) \"\$@\" > $stream || exit 1; exec python3 -S -c 'import sys, time
d = open(sys.argv[1], \"rb\").read(); o = sys.stdout.buffer
o.write(d[:300000]); o.flush(); open(sys.argv[2], \"w\").close(); time.sleep(120); o.write(d[300000:])' $stream $mark")
	# SIGINT while it would replace the sysroot, SIGTERM while it would make a new one
	for s in INT:130:D TERM:143:new; do
		rm -f "$mark"
		st=0
		PATH=$bin:$PATH with_default_signals "$CUDA_XCC" sysroot create --from-device "$SSH_DEVICE" \
			--device-root "$B" --ssh-config "$SSH_CONFIG" --cache "$C" --progress never \
			$(fake_board_host_debs | sed 's/^/--from /') --dest "$BATS_TEST_TMPDIR/${s##*:}" \
			> "$BATS_TEST_TMPDIR/out" 2>&1 &
		pid=$!
		for _ in $(seq 600); do [ ! -e "$mark" ] || break; sleep 0.1; done
		[ -e "$mark" ]
		kill -s "${s%%:*}" "$pid"
		# at once, not when the stalled stream would have ended
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		run kill -0 "$pid"
		assert_status 1
		wait "$pid" || st=$?
		code=${s#*:}
		[ "$st" = "${code%:*}" ] || { echo "SIG${s%%:*}: status $st" >&2; cat "$BATS_TEST_TMPDIR/out" >&2; false; }
		grep -q "interrupted by SIG${s%%:*}" "$BATS_TEST_TMPDIR/out"
		run pgrep -f "$mark"
		assert_status 1
		[ ! -e "$BATS_TEST_TMPDIR/new" ]
		[ "$(ls "$BATS_TEST_TMPDIR" | grep -c '^new')" -eq 0 ]
	done
	[ "$("$CUDA_XCC" sysroot info "$D" --tree-digest)" = "$before" ]
}

@test "from-device: a device URL that fails run --device's checks is refused with exit 2 before ssh runs" {
	bin=$(fake_ssh "true")
	cat > "$bin/ssh" <<-EOF
	#!/bin/sh
	touch "$BATS_TEST_TMPDIR/ssh-ran"
	exit 255
	EOF
	for url in 'ssh://-oProxyCommand=touch%20x/' 'ssh://user@host/path' 'http://host' \
		'ssh://host:99999' 'ssh://us;er@host'; do
		PATH=$bin:$PATH run "$CUDA_XCC" sysroot create --from-device "$url" --dest "$BATS_TEST_TMPDIR/S"
		assert_status 2
		assert_output_contains "--from-device $url: "
		assert_output_contains "give it as ssh://[user@]host[:port]"
	done
	[ ! -e "$BATS_TEST_TMPDIR/ssh-ran" ]
	PATH=$bin:$PATH run "$CUDA_XCC" sysroot create --from-device ssh://board --device-root rel
	assert_status 2
	assert_output_contains "--device-root rel: give the board's root as an absolute path"
	run "$CUDA_XCC" sysroot create --from-device ssh://board --target-fs /
	assert_status 2
	assert_output_contains "--from-device or --target-fs, not both"
	run "$CUDA_XCC" sysroot create --target sbsa --cuda 12.4 --device-root /
	assert_status 2
	assert_output_contains "--device-root and --ssh-config go with --from-device"
	[ ! -e "$BATS_TEST_TMPDIR/ssh-ran" ]
	[ ! -e "$BATS_TEST_TMPDIR/S" ]
}

@test "from-device: a board without CUDA, with two and no --cuda, or of another target is refused (exit 2); an unreachable one fails (exit 1)" {
	C=$BATS_TEST_TMPDIR/cache
	B=$SSHD_DIR/bare
	mkdir -p "$B/etc"
	run "$CUDA_XCC" sysroot create --from-device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
		--device-root "$B" --cache "$C" --dry-run
	assert_status 2
	assert_output_contains "has no CUDA toolkit for the target"
	mkdir -p "$B/usr/local/cuda-12.4/targets/sbsa-linux" "$B/usr/local/cuda-12.6/targets/sbsa-linux"
	chmod -R a+rX "$B"
	run "$CUDA_XCC" sysroot create --from-device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
		--device-root "$B" --cache "$C" --dry-run
	assert_status 2
	assert_output_contains "has CUDA 12.4 (targets/sbsa-linux), 12.6 (targets/sbsa-linux): name the one to use with --cuda X.Y"
	run "$CUDA_XCC" sysroot create --from-device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
		--device-root "$B" --cache "$C" --cuda 12.8 --dry-run
	assert_status 2
	assert_output_contains "not the one --cuda asks for"
	run "$CUDA_XCC" sysroot create --from-device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
		--device-root "$SSHD_DIR/nonexistent" --cache "$C" --dry-run
	assert_status 2
	assert_output_contains "has no directory $SSHD_DIR/nonexistent"
	need_board
	run run_create "$FD_BOARD" "$BATS_TEST_TMPDIR/c2" --target jetson --dry-run
	assert_status 2
	assert_output_contains "--target jetson, but the board's CUDA is for sbsa"
	port=$(free_port)
	run "$CUDA_XCC" sysroot create --from-device "ssh://$SSH_USER@127.0.0.1:$port" \
		--ssh-config "$SSH_CONFIG" --cache "$C" --dry-run
	assert_status 1
	assert_output_contains "ssh could not connect or log in"
}
