#!/usr/bin/env bats
# --output of cuda-xcc's own verbs (toolchain cmake|meson, patchelf): the
# file the user names is written as the user means it. A regular file is
# replaced atomically (a failure leaves it as it was), a symlink is written
# through (it stays a link), a FIFO or a device is opened and written,
# never replaced by a regular file.
load lib/common
load lib/toolchain

setup() {
	d=$(scratch)
	toolchain_sysroot "$d/sr"
	xcc toolchain cmake --sysroot "$d/sr" > "$d/expected.cmake"
}

# A character device of our own that behaves as /dev/null (or /dev/full):
# a test never risks the machine's own. Where mknod is not allowed (not
# root), the machine's /dev/null, which a correct cuda-xcc only writes to.
char_device() {
	local name=$1 minor=$2
	if mknod "$d/$name" c 1 "$minor" 2>/dev/null; then
		echo "$d/$name"
	elif [ "$name" = null ]; then
		echo /dev/null
	else
		skip "mknod is not allowed here (a private /dev/$name)"
	fi
}

# A small program for patchelf, and what --set-rpath /new makes of it.
elf_program() {
	need cc
	echo 'int main(void) { return 0; }' > "$d/prog.c"
	cc -o "$d/prog" "$d/prog.c"
	cp "$d/prog" "$d/prog.expected"
	xcc patchelf --set-rpath /new "$d/prog.expected"
}

@test "output: toolchain --output onto a FIFO writes into it and leaves it a FIFO" {
	mkfifo "$d/pipe"
	timeout 60 cat "$d/pipe" > "$d/received" &
	run timeout 60 "$CUDA_XCC" toolchain cmake --sysroot "$d/sr" --output "$d/pipe"
	wait
	assert_status 0
	[ -p "$d/pipe" ]
	cmp "$d/expected.cmake" "$d/received"
}

@test "output: toolchain meson --output onto a character device leaves it a device" {
	local dev rdev
	dev=$(char_device null 3)
	rdev=$(stat -c %t:%T "$dev")
	run xcc toolchain meson --sysroot "$d/sr" --output "$dev"
	assert_status 0
	[ -c "$dev" ]
	[ "$(stat -c %t:%T "$dev")" = "$rdev" ]
	[ -z "$(ls -A "$(dirname "$dev")" | grep '\.tmp-')" ]
}

@test "output: a device that fails the write fails the command and stays a device" {
	local dev
	dev=$(char_device full 7)
	run xcc toolchain cmake --sysroot "$d/sr" --output "$dev"
	assert_status 1
	assert_output_contains "No space left on device"
	[ -c "$dev" ]
}

@test "output: toolchain --output onto a symlink writes through it; the link stays" {
	mkdir "$d/real"
	echo old > "$d/real/tc.cmake"
	ln -s real/tc.cmake "$d/link1"
	ln -s "$d/link1" "$d/link2"
	run xcc toolchain cmake --sysroot "$d/sr" --output "$d/link2"
	assert_status 0
	[ -L "$d/link2" ]
	[ -L "$d/link1" ]
	[ "$(readlink "$d/link1")" = real/tc.cmake ]
	cmp "$d/expected.cmake" "$d/real/tc.cmake"
	# nothing left beside either
	[ "$(ls -A "$d/real")" = tc.cmake ]
}

@test "output: a dangling symlink is written through: its target is created" {
	mkdir "$d/real"
	ln -s real/new.cmake "$d/link"
	run xcc toolchain cmake --sysroot "$d/sr" --output "$d/link"
	assert_status 0
	[ -L "$d/link" ]
	cmp "$d/expected.cmake" "$d/real/new.cmake"
}

@test "output: a directory is refused" {
	mkdir "$d/dir"
	run xcc toolchain cmake --sysroot "$d/sr" --output "$d/dir"
	assert_status 1
	assert_output_contains "is a directory"
	[ -z "$(ls -A "$d/dir")" ]
}

@test "output: a regular file is replaced, and a failing write leaves the old one intact" {
	echo old > "$d/tc.cmake"
	# A file size limit of 0: the write fails (EFBIG, with SIGXFSZ ignored).
	run bash -c 'trap "" XFSZ; ulimit -f 0; exec "$0" "$@"' "$CUDA_XCC" \
		toolchain cmake --sysroot "$d/sr" --output "$d/tc.cmake"
	assert_status 1
	assert_output_contains "$d/tc.cmake"
	[ "$(cat "$d/tc.cmake")" = old ]
	[ "$(ls -A "$d" | grep -c '\.tmp-')" -eq 0 ]
	run xcc toolchain cmake --sysroot "$d/sr" --output "$d/tc.cmake"
	assert_status 0
	[ -f "$d/tc.cmake" ]
	cmp "$d/expected.cmake" "$d/tc.cmake"
}

@test "output: patchelf --output onto a symlink writes through it; the link stays" {
	elf_program
	echo old > "$d/target"
	ln -s target "$d/out"
	run xcc patchelf --set-rpath /new --output "$d/out" "$d/prog"
	assert_status 0
	[ -L "$d/out" ]
	cmp "$d/prog.expected" "$d/target"
}

@test "output: patchelf --output onto a character device leaves it a device" {
	local dev
	elf_program
	dev=$(char_device null 3)
	run xcc patchelf --set-rpath /new --output "$dev" "$d/prog"
	assert_status 0
	[ -c "$dev" ]
}

@test "output: patchelf --output with a failing write leaves the old file intact" {
	elf_program
	echo old > "$d/out"
	run bash -c 'trap "" XFSZ; ulimit -f 0; exec "$0" "$@"' "$CUDA_XCC" \
		patchelf --set-rpath /new --output "$d/out" "$d/prog"
	assert_status 1
	[ "$(cat "$d/out")" = old ]
	[ "$(ls -A "$d" | grep -c '\.out')" -eq 0 ]
}
