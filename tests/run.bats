#!/usr/bin/env bats
# cuda-xcc run: aarch64 programs under qemu here, and x86_64 programs on a "device" that is
# this machine reached through an OpenSSH server the tests start on 127.0.0.1.
load lib/common
load lib/sshd

teardown() { stop_sshd; }

# The programs are built once per file (C++ compiles are slow on a busy machine): an
# aarch64 and an x86_64 set in $BATS_FILE_TMPDIR/<machine>/{prog,lib/}.
setup_file() {
	local m=$BATS_FILE_TMPDIR
	if command -v aarch64-linux-gnu-g++ >/dev/null; then
		mkdir -p "$m/aarch64/lib"
		cuda_like_program aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ "$m/aarch64/lib" "$m/aarch64/prog"
	fi
	if command -v g++ >/dev/null; then
		mkdir -p "$m/x86_64/lib"
		cuda_like_program gcc g++ "$m/x86_64/lib" "$m/x86_64/prog"
	fi
}

# A fake sysroot in DIR for MACHINE's program, with its libraries; prints the program.
sysroot_for() {
	local machine=$1 dir=$2
	case "$machine" in
	aarch64) fake_sysroot "$dir" sbsa sbsa-linux; cp -a "$BATS_FILE_TMPDIR/aarch64/lib/." "$dir/targets/sbsa-linux/lib/" ;;
	x86_64) fake_sysroot "$dir" x86_64 x86_64-linux; cp -a "$BATS_FILE_TMPDIR/x86_64/lib/." "$dir/targets/x86_64-linux/lib/" ;;
	esac
	echo "$BATS_FILE_TMPDIR/$machine/prog"
}

# A sysroot's skeleton: sysroot.json and the target lib dir, which is all run reads.
fake_sysroot() {
	local dir=$1 target=$2 tdir=$3
	mkdir -p "$dir/targets/$tdir/lib"
	cat > "$dir/sysroot.json" <<-EOS
	{"format": 1, "cuda": "11.8.89", "target": "$target", "tag": "linux-x",
	 "target_dir": "$tdir", "capabilities": [], "components": []}
	EOS
}

# Stand-ins for libcudart.so.11.0 and libcublas.so.11 (the real libcublas is not among the
# cached packages), built for the target with the real sonames, and a C++ program (the
# target's libstdc++) that needs both.
cuda_like_program() {
	local cc=$1 cxx=$2 lib=$3 out=$4 src=$BATS_FILE_TMPDIR/src
	mkdir -p "$src"
	echo 'int cudaRuntimeGetVersion(int *v) { *v = 11080; return 0; }' > "$src/cudart.c"
	echo 'int cublasGetVersion_v2(void *h, int *v) { (void)h; *v = 111103; return 0; }' > "$src/cublas.c"
	"$cc" -shared -fPIC -Wl,-soname,libcudart.so.11.0 -o "$lib/libcudart.so.11.0" "$src/cudart.c"
	"$cc" -shared -fPIC -Wl,-soname,libcublas.so.11 -o "$lib/libcublas.so.11" "$src/cublas.c"
	ln -sf libcudart.so.11.0 "$lib/libcudart.so"
	ln -sf libcublas.so.11 "$lib/libcublas.so"
	cat > "$src/main.cc" <<-'EOS'
	#include <csignal>
	#include <cstdlib>
	#include <iostream>
	#include <string>
	#include <unistd.h>
	extern "C" int cudaRuntimeGetVersion(int *);
	extern "C" int cublasGetVersion_v2(void *, int *);
	int main(int argc, char **argv)
	{
		int rt = 0, bl = 0;
		char cwd[4096];
		cudaRuntimeGetVersion(&rt);
		cublasGetVersion_v2(nullptr, &bl);
		std::cout << "cudart=" << rt << " cublas=" << bl << " args=" << argc - 1;
		for (int i = 1; i < argc; i++)
			std::cout << " [" << argv[i] << "]";
		std::cout << " cwd=" << (getcwd(cwd, sizeof cwd) ? cwd : "?") << std::endl;
		std::cerr << "to stderr" << std::endl;
		std::string a = argc > 1 ? argv[1] : "0";
		if (a == "segv")
			std::raise(SIGSEGV);
		if (a == "stdin") {
			std::string line;
			std::getline(std::cin, line);
			std::cout << "read:" << line << std::endl;
			return 0;
		}
		return std::atoi(a.c_str());
	}
	EOS
	"$cxx" -o "$out" "$src/main.cc" -L"$lib" -lcudart -lcublas
}

need_aarch64() {
	need aarch64-linux-gnu-g++ "builds the aarch64 programs (g++-aarch64-linux-gnu)"
	need qemu-aarch64 "runs them (qemu-user)"
}

need_x86_64() {
	need g++ "builds the x86_64 programs"
}

@test "run: an aarch64 program needing libcudart, libcublas and libstdc++ starts without -L or LD_LIBRARY_PATH" {
	need_aarch64
	d=$(scratch)
	prog=$(sysroot_for aarch64 "$d/S")
	# Without cuda-xcc it does not even start under qemu.
	run qemu-aarch64 "$prog"
	[ "$status" -ne 0 ]
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$d/S" "$prog" 0 "two words"
	assert_status 0
	assert_output_contains "cudart=11080 cublas=111103 args=2 [0] [two words]"
	# The sysroot also comes from the environment, as for the driver.
	CUDA_XCC_SYSROOT=$d/S run env -u LD_LIBRARY_PATH "$CUDA_XCC" run "$prog" 5
	assert_status 5
	assert_output_contains "cudart=11080"
	run "$CUDA_XCC" run --sysroot "$d/S" --dry-run "$prog" -v
	assert_status 0
	assert_output_contains "qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$d/S/targets/sbsa-linux/lib $prog -v"
}

@test "run: L4T's multimedia libraries in the sysroot's lib/nvidia are on the program's library path" {
	need_aarch64
	d=$(scratch)
	prog=$(sysroot_for aarch64 "$d/S")
	run "$CUDA_XCC" run --sysroot "$d/S" --dry-run "$prog"
	assert_status 0
	[[ "$output" != *"lib/nvidia"* ]]
	# where l4t_multimedia puts them, as the board keeps them in usr/lib/aarch64-linux-gnu/nvidia
	mkdir "$d/S/targets/sbsa-linux/lib/nvidia"
	run "$CUDA_XCC" run --sysroot "$d/S" --dry-run "$prog"
	assert_status 0
	assert_output_contains "-E LD_LIBRARY_PATH=$d/S/targets/sbsa-linux/lib:$d/S/targets/sbsa-linux/lib/nvidia $prog"
}

@test "run: stdout, stderr and exit status are the program's own" {
	need_aarch64
	d=$(scratch)
	prog=$(sysroot_for aarch64 "$d/S")
	set +e
	"$CUDA_XCC" run --sysroot "$d/S" "$prog" 42 --help > "$d/out" 2> "$d/err"
	st=$?
	set -e
	[ "$st" -eq 42 ]
	grep -q "cudart=11080 cublas=111103 args=2 \[42\] \[--help\]" "$d/out"
	[ "$(cat "$d/err")" = "to stderr" ]
	# A user's LD_LIBRARY_PATH still counts, and comes first.
	run env LD_LIBRARY_PATH=/opt/mine "$CUDA_XCC" run --sysroot "$d/S" --dry-run "$prog"
	assert_output_contains "-E LD_LIBRARY_PATH=/opt/mine:$d/S/targets/sbsa-linux/lib "
}

@test "run: a program killed by a signal kills cuda-xcc run with the same signal" {
	need_aarch64
	need python3 "tells a signal from an exit status"
	d=$(scratch)
	prog=$(sysroot_for aarch64 "$d/S")
	cd "$d"
	run python3 -c 'import subprocess, sys; print("returncode", subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode)' \
		"$CUDA_XCC" run --sysroot "$d/S" "$prog" segv
	assert_status 0
	assert_output_equals "returncode -11"
}

@test "run: a missing qemu is named with its Debian package" {
	need aarch64-linux-gnu-g++ "builds the aarch64 program"
	d=$(scratch)
	echo 'int main(void) { return 0; }' > "$d/p.c"
	aarch64-linux-gnu-gcc -o "$d/p" "$d/p.c"
	mkdir "$d/empty"
	PATH=$d/empty run "$CUDA_XCC" run "$d/p"
	assert_status 1
	assert_output_contains "qemu-aarch64 is not installed"
	assert_output_contains "apt-get install qemu-user"
	assert_output_contains "--device"
}

@test "run: --target-fs is the loader prefix; a sysroot made with one uses it" {
	need_aarch64
	d=$(scratch)
	# A device root with a library the cross toolchain does not have.
	r=$d/rootfs
	mkdir -p "$r/usr/lib/aarch64-linux-gnu"
	ln -s usr/lib "$r/lib"
	cp -a /usr/aarch64-linux-gnu/lib/. "$r/usr/lib/aarch64-linux-gnu/"
	ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$r/usr/lib/ld-linux-aarch64.so.1"
	echo 'int device_value(void) { return 42; }' > "$d/dev.c"
	aarch64-linux-gnu-gcc -shared -fPIC -Wl,-soname,libfromdevice.so.1 -o "$r/usr/lib/aarch64-linux-gnu/libfromdevice.so.1" "$d/dev.c"
	printf '#include <stdio.h>\nint device_value(void);\nint main(void) { printf("device_value=%%d\\n", device_value()); return 0; }\n' > "$d/p.c"
	aarch64-linux-gnu-gcc -o "$d/p" "$d/p.c" "$r/usr/lib/aarch64-linux-gnu/libfromdevice.so.1"
	# The loader's own "cannot open shared object" status.
	run -127 "$CUDA_XCC" run "$d/p"
	assert_output_contains "libfromdevice.so.1"
	run "$CUDA_XCC" run --target-fs "$r" "$d/p"
	assert_status 0
	assert_output_contains "device_value=42"
	fake_sysroot "$d/S" sbsa sbsa-linux
	sed -i "s|\"capabilities\"|\"target_fs\": \"$r\", \"capabilities\"|" "$d/S/sysroot.json"
	run "$CUDA_XCC" run --sysroot "$d/S" "$d/p"
	assert_status 0
	assert_output_contains "device_value=42"
	run "$CUDA_XCC" run --target-fs "$d/none" "$d/p"
	assert_status 2
	assert_output_contains "is not a directory"
}

@test "run: an x86_64 program runs natively with the sysroot's libraries" {
	need_x86_64
	d=$(scratch)
	prog=$(sysroot_for x86_64 "$d/S")
	run env -u LD_LIBRARY_PATH "$CUDA_XCC" run --sysroot "$d/S" "$prog" 3
	assert_status 3
	assert_output_contains "cudart=11080 cublas=111103"
	run "$CUDA_XCC" run --sysroot "$d/S" --dry-run "$prog"
	assert_output_equals "LD_LIBRARY_PATH=$d/S/targets/x86_64-linux/lib $prog"
	run "$CUDA_XCC" run --target-fs "$d" "$prog"
	assert_status 2
	assert_output_contains "cannot apply"
}

@test "run: usage errors" {
	d=$(scratch)
	run "$CUDA_XCC" run
	assert_status 2
	assert_output_contains "no program to run"
	echo '#!/bin/sh' > "$d/script"
	chmod +x "$d/script"
	run "$CUDA_XCC" run "$d/script"
	assert_status 1
	assert_output_contains "not an ELF file"
	run "$CUDA_XCC" run "$d/missing"
	assert_status 2
	assert_output_contains "No such file"
	run "$CUDA_XCC" run --keep /bin/true
	assert_status 2
	assert_output_contains "go with --device"
	for url in host ssh:// ssh://@h ssh://h:0 ssh://h:99999 ssh://h:22x ssh://-oProxyCommand=x; do
		run "$CUDA_XCC" run --device "$url" /bin/true
		assert_status 2
		assert_output_contains "ssh://[user@]host[:port]"
	done
	run "$CUDA_XCC" run --help
	assert_status 0
	assert_output_contains "--device URL"
}

# --- on a device over ssh: an x86_64 program, the device being this machine ---

@test "run --device: copies the program and the libraries the device lacks, runs it there, cleans up" {
	need_x86_64
	start_sshd
	d=$(scratch)
	prog=$(sysroot_for x86_64 "$d/S")
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" 7 "a b" '$HOME'
	assert_status 7
	assert_output_contains "cudart=11080 cublas=111103 args=3 [7] [a b] [\$HOME] cwd=/tmp/cuda-xcc-run."
	assert_output_contains "to stderr"
	# It ran in a private directory of the device's user, which is gone now.
	dir=$(echo "$output" | sed -n 's/.* cwd=\(\/[^ ]*\).*/\1/p')
	[ -n "$dir" ]
	[ ! -e "$dir" ]

	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" --keep "$prog" 0
	assert_status 0
	assert_output_contains "cuda-xcc: kept /tmp/cuda-xcc-run."
	dir=$(echo "$output" | sed -n 's/^cuda-xcc: kept \([^ ]*\) on .*/\1/p')
	[ -x "$dir/prog" ]
	[ -f "$dir/libcudart.so.11.0" ]
	[ -f "$dir/libcublas.so.11" ]
	# What the device has (the C library, libstdc++) is not copied.
	[ "$(ls "$dir" | wc -l)" -eq 3 ]
	[ "$(stat -c %U "$dir")" = "$SSH_USER" ]
	rm -rf "$dir"
}

@test "run --device: exit status, a signal as 128+N, stdin passes through" {
	need_x86_64
	start_sshd
	d=$(scratch)
	prog=$(sysroot_for x86_64 "$d/S")
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" 3
	assert_status 3
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" segv
	assert_status 139
	run sh -c 'echo hello-from-stdin | "$@"' sh "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" stdin
	assert_status 0
	assert_output_contains "read:hello-from-stdin"
}

@test "run --device: --lib copies exactly the libraries given" {
	need_x86_64
	start_sshd
	d=$(scratch)
	prog=$BATS_FILE_TMPDIR/x86_64/prog
	cp -a "$BATS_FILE_TMPDIR/x86_64/lib" "$d/elsewhere"
	# No sysroot: nothing here knows where the libraries are, and the device lacks them.
	run -127 "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" "$prog" 0
	assert_output_contains "libcudart.so.11.0"
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
		--lib "$d/elsewhere/libcudart.so.11.0" --lib "$d/elsewhere/libcublas.so.11" "$prog" 0
	assert_status 0
	assert_output_contains "cudart=11080 cublas=111103"
}

@test "run --device: an unreachable device is an error, not the program's status" {
	need python3 "finds a free port"
	d=$(scratch)
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	run "$CUDA_XCC" run --device "ssh://nobody@127.0.0.1:$port" /bin/true
	assert_status 1
	assert_output_contains "cannot prepare a directory on ssh://nobody@127.0.0.1:$port"
}

# A Jetson sysroot's skeleton for CUDA 12.2 on JetPack 5.1, whose boards run it only with
# NVIDIA's cuda-compat package; COMPONENTS is sysroot.json's list.
compat_sysroot() {
	local dir=$1 comps=$2
	mkdir -p "$dir/targets/aarch64-linux/lib"
	cat > "$dir/sysroot.json" <<-EOS
	{"format": 1, "cuda": "12.2.2", "target": "jetson", "tag": "linux-aarch64",
	 "target_dir": "aarch64-linux", "capabilities": ["8.7"], "jetpack": "5.1",
	 "components": [$comps]}
	EOS
}

@test "run --device: the board's cuda-compat for the sysroot's CUDA is looked for, used, or sent from the sysroot" {
	need_x86_64
	start_sshd
	d=$(scratch)
	compat_sysroot "$d/S" ''
	# The board's CUDA directory, where the device's user can read it.
	dev=$(mktemp -d "${TMPDIR:-/tmp}/cuda-xcc-devcuda.XXXXXX")
	chmod 755 "$dev"
	# Neither the device nor the sysroot has it: said first, and the program still runs.
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" \
		--device-cuda "$dev" /usr/bin/env
	assert_status 0
	assert_output_contains "cuda-xcc: warning: JetPack 5.1's boards run CUDA 12.2 only with NVIDIA's cuda-compat package installed on the board (cuda-compat-12-2"
	assert_output_contains "the device lacks it, and the sysroot has no cuda_compat component: install cuda-compat-12-2 on the board"
	assert_output_contains "looked for $dev/compat/libcuda.so* on the device"
	# The device has it: on the program's library path, after the program's own directory.
	mkdir -p "$dev/compat"
	: > "$dev/compat/libcuda.so.1"
	chmod -R a+rX "$dev"
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" \
		--device-cuda "$dev" /usr/bin/env
	assert_status 0
	assert_output_contains "the device has it ($dev/compat/libcuda.so*): on the program's library path"
	echo "$output" | grep -q "^LD_LIBRARY_PATH=/tmp/cuda-xcc-run\.[^:]*:$dev/compat"
	# Only the sysroot has it: its compat libraries go with the program.
	rm -rf "$dev/compat"
	compat_sysroot "$d/S2" '{"name": "cuda_compat", "version": "12.2.1", "side": "target"}'
	mkdir -p "$d/S2/targets/aarch64-linux/compat"
	echo 'not a library' > "$d/S2/targets/aarch64-linux/compat/libcuda.so.1.1"
	ln -s libcuda.so.1.1 "$d/S2/targets/aarch64-linux/compat/libcuda.so.1"
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S2" \
		--device-cuda "$dev" --keep /usr/bin/env
	assert_status 0
	assert_output_contains "the device lacks it: the sysroot's cuda_compat goes with the program"
	kept=$(echo "$output" | sed -n 's/^cuda-xcc: kept \([^ ]*\) on .*/\1/p')
	[ -f "$kept/libcuda.so.1" ]
	[ -f "$kept/libcuda.so.1.1" ]
	rm -rf "$kept" "$dev"
}

# A program that starts a child of its own, says "pids PID CHILD CWD" and waits forever.
hang_program() {
	cat > "$1.c" <<-'EOS'
	#include <stdio.h>
	#include <unistd.h>
	int main(void)
	{
		char cwd[4096];
		pid_t child = fork();
		if (child == 0)
			for (;;)
				pause();
		printf("pids %d %d %s\n", (int)getpid(), (int)child, getcwd(cwd, sizeof cwd) ? cwd : "?");
		fflush(stdout);
		for (;;)
			pause();
	}
	EOS
	gcc -o "$1" "$1.c"
}

# Whether a process runs (a zombie does not count: nothing may reap it in a container).
running() {
	[ -e "/proc/$1" ] || return 1
	! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

# Waits until FILE has the "pids" line, then prints it.
wait_for_pids() {
	local i
	for i in $(seq 200); do
		if grep -q '^pids ' "$1"; then
			grep '^pids ' "$1"
			return 0
		fi
		sleep 0.1
	done
	echo "the program never started; stderr:" >&2
	cat "$2" >&2
	return 1
}

@test "run --device: SIGINT, SIGTERM and SIGHUP stop the program's process group on the device, remove its directory, exit 128+N" {
	need_x86_64
	start_sshd
	d=$(scratch)
	hang_program "$d/hang"
	for sig in INT TERM HUP; do
		num=$(kill -l "$sig")
		# A shell without job control starts '&' commands with SIGINT
		# ignored, and an ignored signal stays ignored: give it back, as
		# a terminal's foreground job has it.
		env --default-signal=INT "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
			"$d/hang" > "$d/out.$sig" 2> "$d/err.$sig" &
		pid=$!
		read -r _ prog child dir < <(wait_for_pids "$d/out.$sig" "$d/err.$sig")
		running "$prog"
		running "$child"
		[ -d "$dir" ]
		kill -"$sig" "$pid"
		set +e
		wait "$pid"
		st=$?
		set -e
		echo "SIG$sig: exit $st; $(cat "$d/err.$sig")"
		[ "$st" -eq $((128 + num)) ]
		grep -q "interrupted by signal $num (SIG$sig): stopped the program on $SSH_DEVICE and removed $dir" "$d/err.$sig"
		run running "$prog"
		assert_status 1
		run running "$child"
		assert_status 1
		[ ! -e "$dir" ]
	done
}

@test "run --device: a hangup ignored at start (trap '' HUP, nohup) stays ignored: the run goes on" {
	need_x86_64
	start_sshd
	d=$(scratch)
	prog=$(sysroot_for x86_64 "$d/S")
	mkfifo "$d/in"
	sh -c 'trap "" HUP; exec "$@"' sh "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" \
		--sysroot "$d/S" "$prog" stdin < "$d/in" > "$d/out" 2> "$d/err" &
	pid=$!
	exec 7> "$d/in"
	# The program runs on the device and waits for its line of stdin.
	for i in $(seq 200); do grep -q "cudart=" "$d/out" && break; sleep 0.1; done
	grep -q "cudart=" "$d/out"
	kill -HUP "$pid"
	echo hello-after-hup >&7
	exec 7>&-
	set +e
	wait "$pid"
	st=$?
	set -e
	cat "$d/err"
	[ "$st" -eq 0 ]
	grep -q "read:hello-after-hup" "$d/out"
	run grep -c "interrupted" "$d/err"
	assert_output_equals 0
}

@test "run --device: a killed ssh is reported as ssh's failure, and the program there is stopped; the program's own 255 is its own" {
	need_x86_64
	need pgrep "finds the run's ssh (procps)"
	start_sshd
	d=$(scratch)
	hang_program "$d/hang"
	"$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" "$d/hang" > "$d/out" 2> "$d/err" &
	pid=$!
	read -r _ prog child dir < <(wait_for_pids "$d/out" "$d/err")
	ssh_pid=$(pgrep -P "$pid" -x ssh)
	[ -n "$ssh_pid" ]
	kill -KILL "$ssh_pid"
	set +e
	wait "$pid"
	st=$?
	set -e
	cat "$d/err"
	[ "$st" -eq 1 ]
	grep -q "ssh failed: it was killed by signal 9 before the program's exit status came back from $SSH_DEVICE" "$d/err"
	run running "$prog"
	assert_status 1
	[ ! -e "$dir" ]
	# 255 from the program is not ssh's 255.
	prog=$(sysroot_for x86_64 "$d/S")
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" 255
	assert_status 255
	assert_output_contains "cudart=11080"
	[[ "$output" != *"ssh failed"* ]]
}

@test "run --device: a login that prints 'dir /...' lines neither misleads it nor gets its directory removed; its stderr is the program's own" {
	need_x86_64
	start_sshd
	d=$(scratch)
	prog=$(sysroot_for x86_64 "$d/S")
	# The victim: a directory the device's user owns, named by the login as if it were ours.
	victim=$SSHD_DIR/victim
	mkdir "$victim"
	echo precious > "$victim/file"
	[ "$(id -u)" != 0 ] || chown -R "$SSH_USER" "$victim"
	key=$(cat "$SSHD_DIR/server/authorized_keys")
	printf 'command="echo dir %s; echo have libcudart.so.11.0; eval \\"$SSH_ORIGINAL_COMMAND\\"" %s\n' "$victim" "$key" > "$SSHD_DIR/server/authorized_keys"
	"$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" 4 > "$d/out" 2> "$d/err" || st=$?
	cat "$d/out" "$d/err"
	[ "${st:-0}" -eq 4 ]
	grep -q "cudart=11080 cublas=111103 args=1 \[4\] cwd=/tmp/cuda-xcc-run\." "$d/out"
	[ "$(cat "$victim/file")" = precious ]
	# Nothing of the protocol in the program's stderr.
	[ "$(cat "$d/err")" = "to stderr" ]
}

@test "run --device: user, host and port are checked before ssh runs" {
	d=$(scratch)
	for url in 'ssh://h$(touch${IFS}x)' 'ssh://a b' 'ssh://[::1' 'ssh://[nothex]:22' 'ssh://h%0a' \
		$'ssh://h\nx' 'ssh://u;id@h' 'ssh://-oProxyCommand=x@h' 'ssh://u@-h' 'ssh://.h' \
		'ssh://h:' 'ssh://h:65536' 'ssh://h/path' 'ssh://[::1]x' 'ssh://h`id`'; do
		run "$CUDA_XCC" run --device "$url" /bin/true
		assert_status 2
		assert_output_contains "give it as ssh://[user@]host[:port]"
	done
	# Good ones get as far as ssh (nothing listens on port 1).
	for url in ssh://nobody@127.0.0.1:1 'ssh://nobody@[::1]:1' ssh://no_body.x@local-host.invalid:1/; do
		run "$CUDA_XCC" run --device "$url" /bin/true
		assert_status 1
		assert_output_contains "cannot prepare a directory on $url"
	done
}

@test "run --device: long argument lists arrive whole; those no device could take are refused first" {
	need_x86_64
	start_sshd
	d=$(scratch)
	prog=$(sysroot_for x86_64 "$d/S")
	a=$(head -c 100000 /dev/zero | tr '\0' a)
	b=$(head -c 100000 /dev/zero | tr '\0' b)
	# 200 KB of arguments: more than one shell command line may hold there.
	# (stdout alone: ssh may put stderr in the middle of a large stdout.)
	"$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" 0 "$a" "$b" "it's" "" > "$d/out" 2> "$d/err"
	out=$(cat "$d/out")
	[[ "$out" == *"args=5 [0] [$a] [$b] [it's] [] cwd=/tmp/cuda-xcc-run."* ]]
	# (One argument over 128 KiB cannot even reach cuda-xcc: Linux here has the same limit.)
	big=()
	for i in $(seq 11); do big+=("$a"); done
	run "$CUDA_XCC" run --device "$SSH_DEVICE" --ssh-config "$SSH_CONFIG" --sysroot "$d/S" "$prog" "${big[@]}"
	assert_status 2
	assert_output_contains "the program's arguments are 1100011 bytes in all"
}

@test "run: --stub-libcuda needs a sysroot and stays off device runs" {
	need_aarch64
	d=$(scratch)
	prog=$(sysroot_for aarch64 "$d/S")
	run env -u CUDA_XCC_SYSROOT "$CUDA_XCC" run --stub-libcuda "$prog"
	assert_status 2
	assert_output_contains "--stub-libcuda takes the stub libcuda.so of a sysroot"
	run "$CUDA_XCC" run --sysroot "$d/S" --stub-libcuda --device ssh://nobody@localhost "$prog"
	assert_status 2
	assert_output_contains "--stub-libcuda stands in for a driver"
	# a sysroot without lib/stubs/libcuda.so is said to lack it
	run "$CUDA_XCC" run --sysroot "$d/S" --stub-libcuda "$prog"
	if [ -e "$d/S/targets/sbsa-linux/lib/stubs/libcuda.so" ]; then
		assert_status 0
	else
		assert_status 2
		assert_output_contains "the sysroot has no $d/S/targets/sbsa-linux/lib/stubs/libcuda.so"
	fi
	# with one it lies on the library path as libcuda.so.1, after the sysroot's lib
	mkdir -p "$d/S/targets/sbsa-linux/lib/stubs"
	aarch64-linux-gnu-gcc -shared -Wl,-soname,libcuda.so.1 -o "$d/S/targets/sbsa-linux/lib/stubs/libcuda.so" -x c /dev/null
	XDG_CACHE_HOME=$d/cache run "$CUDA_XCC" run --sysroot "$d/S" --stub-libcuda --dry-run "$prog"
	assert_status 0
	assert_output_contains "LD_LIBRARY_PATH=$d/S/targets/sbsa-linux/lib:$d/cache/cuda-xcc/stub-libcuda/"
	[ "$(readlink "$d/cache/cuda-xcc/stub-libcuda/"*/libcuda.so.1)" = "$d/S/targets/sbsa-linux/lib/stubs/libcuda.so" ]
}
