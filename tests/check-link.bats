#!/usr/bin/env bats
# cuda-xcc check-link: what --strict does with a file it cannot check. A
# check that could not run is never a pass: a named path that does not
# exist is a usage error (2), a file that cannot be read or is no ELF file
# a failure (1); a static archive is exempt (its objects are checked in the
# link that takes them).
load lib/common

setup() {
	unset CUDA_XCC_SYSROOT
	d=$BATS_TEST_TMPDIR
}

teardown() {
	[ -z "${open_dir:-}" ] || rm -rf "$open_dir"
}

@test "check-link --strict: a named file that does not exist is exit 2, not a pass" {
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/missing"
	assert_status 2
	assert_output_contains "error: cannot check $d/missing against the device's runtime floor"
	assert_output_contains "No such file or directory"
	# Without --strict it warns and passes, as a check after a link does.
	run xcc check-link --target jetson --jetpack 6.0 "$d/missing"
	assert_status 0
	assert_output_contains "warning: cannot check $d/missing"
	# No floor known changes nothing: the file is still not there.
	run xcc check-link --target jetson --strict "$d/missing"
	assert_status 2
}

@test "check-link --strict: a file that is no ELF file is exit 1" {
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/m.c"
	assert_status 1
	assert_output_contains "error: cannot check $d/m.c against the device's runtime floor: $d/m.c: not an ELF file"
	mkdir "$d/dir"
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/dir"
	assert_status 2
	assert_output_contains "$d/dir: not a regular file"
}

@test "check-link --strict: an ELF file cut short is exit 1" {
	need aarch64-linux-gnu-gcc "links the program"
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	aarch64-linux-gnu-gcc -o "$d/prog" "$d/m.c"
	head -c 100 "$d/prog" > "$d/cut"
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/cut"
	assert_status 1
	assert_output_contains "error: cannot check $d/cut against the device's runtime floor: $d/cut: not an ELF file (the file is truncated or corrupt)"
	# The whole program passes the same check.
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/prog"
	assert_status 0
	assert_output_equals ""
}

@test "check-link --strict: a file that cannot be read is exit 1" {
	need aarch64-linux-gnu-gcc "links the program"
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	open_dir=$(mktemp -d /tmp/xcc-check-link.XXXXXX)
	chmod 755 "$open_dir"
	aarch64-linux-gnu-gcc -o "$open_dir/prog" "$d/m.c"
	chmod 000 "$open_dir/prog"
	if [ "$(id -u)" -eq 0 ]; then
		# root reads a mode-000 file: read it as nobody.
		need setpriv "runs the check as another user"
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$CUDA_XCC" check-link \
			--target jetson --jetpack 6.0 --strict "$open_dir/prog"
	else
		run xcc check-link --target jetson --jetpack 6.0 --strict "$open_dir/prog"
	fi
	assert_status 1
	assert_output_contains "error: cannot check $open_dir/prog against the device's runtime floor"
	assert_output_contains "Permission denied"
}

@test "check-link --strict: a static archive is exempt, and says so" {
	need aarch64-linux-gnu-gcc "compiles the object"
	need aarch64-linux-gnu-ar "makes the archive"
	printf 'int f(void) { return 0; }\n' > "$d/f.c"
	aarch64-linux-gnu-gcc -c -o "$d/f.o" "$d/f.c"
	aarch64-linux-gnu-ar qc "$d/libf.a" "$d/f.o"
	run xcc check-link --target jetson --jetpack 5.1 --strict "$d/libf.a"
	assert_status 0
	assert_output_contains "note: $d/libf.a is a static archive: not checked"
}

@test "check-link --strict: a good file and a missing one: the worst status, 2" {
	need aarch64-linux-gnu-gcc "links the program"
	printf 'int main(void) { return 0; }\n' > "$d/m.c"
	aarch64-linux-gnu-gcc -o "$d/prog" "$d/m.c"
	run xcc check-link --target jetson --jetpack 6.0 --strict "$d/prog" "$d/m.c" "$d/missing"
	assert_status 2
	assert_output_contains "$d/m.c: not an ELF file"
	assert_output_contains "cannot check $d/missing"
}

@test "check-link --strict: a link command whose output is missing fails, and nothing is removed" {
	# A "link" that succeeds and writes no -o file: nothing was checked.
	run xcc check-link --target jetson --jetpack 6.0 --strict -- true -o "$d/none"
	assert_status 2
	assert_output_contains "cannot check $d/none"
	[[ "$output" != *"cannot remove"* ]]
}
