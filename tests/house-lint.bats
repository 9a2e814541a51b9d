#!/usr/bin/env bats
# The house rules of src/ (HACKING.md) that the compiler does not check:
# function and file sizes, and allocation only through base/xalloc.h
# (tests/lib/check_house.py). The layer rule is tests/layers.bats.
load lib/common

house() { python3 "$XCC_SRCDIR/tests/lib/check_house.py" "$@"; }

@test "house-lint: no function over 120 lines and no file over 1,000 in src/" {
	need python3 "runs the lint"
	run house size "$XCC_SRCDIR"/src/*/*.c "$XCC_SRCDIR"/src/*/*.h
	assert_status 0
	assert_output_equals ""
}

@test "house-lint: the size lint finds a long function and a long file, and counts the name's line to the '}'" {
	need python3 "runs the lint"
	f=$BATS_TEST_TMPDIR/src/use/long.c
	mkdir -p "${f%/*}"
	# 120 lines from the name to the '}': allowed.
	{ echo 'static int fits(void)'; echo '{'; for i in $(seq 117); do echo '	x();'; done; echo '}'; } > "$f"
	run house size "$f"
	assert_status 0
	# 121: refused, named with its first line.
	{ echo; echo 'int too_long(int a,'; echo '	     int b)'; echo '{'; for i in $(seq 117); do echo '	x();'; done; echo '}'; } > "$f"
	run house size "$f"
	assert_status 1
	assert_output_equals "$f:2: too_long() is 121 lines, over 120: split it"
	{ for i in $(seq 1001); do echo '/* a line */'; done; } > "$f"
	run house size "$f"
	assert_status 1
	assert_output_equals "$f:1001: 1001 lines, over 1000: split the file"
	# No file is exempt: fetch.c, the one that was, is split now.
	g=$BATS_TEST_TMPDIR/src/pkg/fetch.c
	mkdir -p "${g%/*}"
	cp "$f" "$g"
	run house size "$g"
	assert_status 1
}

@test "house-lint: no raw malloc, calloc, realloc, strdup or strndup outside base/xalloc.c" {
	need python3 "runs the lint"
	run house alloc "$XCC_SRCDIR"/src/*/*.c "$XCC_SRCDIR"/src/*/*.h
	assert_status 0
	assert_output_equals ""
}

@test "house-lint: the allocation lint finds a raw strndup, and leaves comments, strings and xalloc alone" {
	need python3 "runs the lint"
	f=$BATS_TEST_TMPDIR/src/pkg/planted.c
	mkdir -p "${f%/*}" "$BATS_TEST_TMPDIR/src/base"
	printf '%s\n' '#include <string.h>' 'char *f(const char *s)' '{' \
		'	return strndup(s, 3);' '}' > "$f"
	run house alloc "$f"
	assert_status 1
	assert_output_equals "$f:4: raw strndup(): use xstrndup() (base/xalloc.h), which checks for failure"
	printf '%s\n' '/* not malloc(3) here */' 'char *f(const char *s)' '{' \
		'	puts("calloc(1, 2)");' '	return xstrndup(s, 3);' '}' > "$f"
	run house alloc "$f"
	assert_status 0
	printf '%s\n' 'void *xmalloc(size_t n)' '{' '	return malloc(n);' '}' \
		> "$BATS_TEST_TMPDIR/src/base/xalloc.c"
	run house alloc "$BATS_TEST_TMPDIR/src/base/xalloc.c"
	assert_status 0
}

@test "house-lint: each verb's --help names every option of its table, and only those" {
	need python3 "runs the lint"
	run python3 "$XCC_SRCDIR/tests/lib/check_help.py" "$XCC_SRCDIR"/src/cli/cmd_*.c
	assert_status 0
	assert_output_equals ""
}

@test "house-lint: the --help lint finds an option --help leaves out and one it names that no table has" {
	need python3 "runs the lint"
	f=$BATS_TEST_TMPDIR/cmd_planted.c
	printf '%s\n' 'static const char planted_usage[] =' \
		'	"Usage: cuda-xcc planted [--target T] [-arch LIST] [--gone]\n";' '' \
		'int cmd_planted(int argc, char **argv)' '{' \
		'	static const struct option opts[] = {' \
		'		{ "target", required_argument, NULL, '"'t'"' },' \
		'		{ "arch", required_argument, NULL, '"'a'"' },' \
		'		{ "jobs", required_argument, NULL, '"'j'"' },' \
		'		{ "help", no_argument, NULL, '"'h'"' },' \
		'		{ NULL, 0, NULL, 0 },' '	};' '}' > "$f"
	run python3 "$XCC_SRCDIR/tests/lib/check_help.py" "$f"
	assert_status 1
	assert_output_contains "$f: --jobs is in the option table but not in --help"
	assert_output_contains "$f: --help names --gone, which no option table of the file has"
	[[ "$output" != *"--target"* ]]
	[[ "$output" != *"--arch"* ]]
}
