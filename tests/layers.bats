#!/usr/bin/env bats
# The layer rule of src/ (HACKING.md): base < db < elf < pkg < sysroot < use < cli.
# A folder includes and links only itself and the folders below it, and no
# two objects need each other (tests/lib/check_layers.py).
load lib/common

check_layers() {
	python3 "$XCC_SRCDIR/tests/lib/check_layers.py" "$@"
}

need_objects() {
	if [ -z "${XCC_BUILDDIR:-}" ] || ! ls "$XCC_BUILDDIR"/src/base/*.o >/dev/null 2>&1; then
		skip "XCC_BUILDDIR with a built tree is needed (run through make check)"
	fi
}

@test "layers: no source file includes a header of a higher layer, every include names its folder" {
	run check_layers includes "$XCC_SRCDIR"
	assert_status 0
	[ -z "$output" ]
}

@test "layers: no object needs a symbol of a higher layer, and no two objects need each other" {
	need_objects
	run check_layers objects "$XCC_BUILDDIR"
	assert_status 0
	[ -z "$output" ]
}

@test "layers: the include check names an upward include, a bare one and a file outside the folders" {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/src/base" "$t/src/cli"
	printf '#include "cli/cmd.h"\n' >"$t/src/base/low.c"
	printf '#include "cmd.h"\n' >"$t/src/cli/cmd.c"
	printf 'int x;\n' >"$t/src/loose.c"
	run check_layers includes "$t"
	assert_status 1
	assert_output_contains "src/base/low.c:1: base/ includes cli/cmd.h from cli/, a higher layer"
	assert_output_contains 'src/cli/cmd.c:1: "cmd.h" names no layer folder'
	assert_output_contains "src/loose.c: a source file outside the layer folders"
}

@test "layers: the object check names an upward symbol and a cycle" {
	need cc "the object check is tested on objects it compiles"
	need nm "the object check reads symbols with nm"
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/src/base" "$t/src/cli"
	printf 'int high(void);\nint low(void) { return high(); }\n' >"$t/low.c"
	printf 'int low(void);\nint high(void) { return low(); }\n' >"$t/high.c"
	cc -c -o "$t/src/base/low.o" "$t/low.c"
	cc -c -o "$t/src/cli/high.o" "$t/high.c"
	run check_layers objects "$t"
	assert_status 1
	assert_output_contains "base/low.o needs high from cli/high.o, a higher layer"
	assert_output_contains "a link cycle: base/low.o <-> cli/high.o"
	run check_layers objects "$BATS_TEST_TMPDIR/none"
	assert_status 1
	assert_output_contains "no objects found"
}
