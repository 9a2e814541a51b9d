#!/usr/bin/env bats
# The test suite's own rules, checked like the product (as git's chainlint).
load lib/common

@test "lint: no bats line that cannot fail under set -e (checks chained with &&, a ! not last)" {
	run sh "$XCC_SRCDIR/tests/lib/lint-bats.sh" "$XCC_SRCDIR"/tests/*.bats "$XCC_SRCDIR"/tests/lib/*.bash
	assert_status 0
}

@test "lint: the chained-check lint finds the pattern and leaves conditions alone" {
	f=$BATS_TEST_TMPDIR/x.bats
	printf '%s\n' '@test "t" {' '	[ -f a ] && [ -f b ]' '	true' '}' >"$f"
	run sh "$XCC_SRCDIR/tests/lib/lint-bats.sh" "$f"
	assert_status 1
	assert_output_contains "x.bats:2:"
	printf '%s\n' '@test "t" {' '	[ -f a ] && [ -f b ] || skip "no a"' \
		'	if [ -f a ] && [ -f b ]; then true; fi' '	[ -f a ]' '}' >"$f"
	run sh "$XCC_SRCDIR/tests/lib/lint-bats.sh" "$f"
	assert_status 0
}

@test "lint: the negation lint finds a ! that cannot fail and leaves the last one alone" {
	f=$BATS_TEST_TMPDIR/x.bats
	printf '%s\n' '#!/usr/bin/env bats' \
		'@test "t" {' '	! grep -q a f' '	true' '}' \
		'@test "u" {' '	for x in 1; do' '		! false' '	done' '}' \
		'@test "v" {' '	true; ! false; true' '	if true; then ! false; fi' '}' \
		'@test "w" {' '	grep -q a f && false' '}' >"$f"
	run sh "$XCC_SRCDIR/tests/lib/lint-bats.sh" "$f"
	assert_status 1
	assert_output_contains "x.bats:3: "
	assert_output_contains "x.bats:8: "
	assert_output_contains "x.bats:12: "
	assert_output_contains "x.bats:13: "
	assert_output_contains "x.bats:16: "
	printf '%s\n' '#!/usr/bin/env bats' \
		'@test "t" {' '	if ! grep -q a f; then true; fi' \
		'	if [ -f a ] || ! grep -q a f; then true; fi' '	[ ! -f a ]' \
		'	run ! false' '	grep -q a f && false' '	cat <<EOF' '! not a command' 'EOF' \
		'	(' '		cd /' '		! false' '	)' '	! grep -q a f' '' '}' \
		'g() { ! grep -q a "$1"; }' >"$f"
	run sh "$XCC_SRCDIR/tests/lib/lint-bats.sh" "$f"
	assert_status 0
	assert_output_equals ""
}

@test "lint: CI's closing line counts every log, one without an XFAIL line too, and its failures fail" {
	local d=$BATS_TEST_TMPDIR
	printf '# TOTAL: 3\n# PASS:  2\n# SKIP:  1\n# XFAIL: 0\n# FAIL:  0\n# XPASS: 0\n# ERROR: 0\n' > "$d/suite.log"
	# sanitizer-findings.log's shape: PASS and FAIL only
	printf '# PASS:  1\n# FAIL:  2\n' > "$d/findings.log"
	run bash "$XCC_SRCDIR/scripts/summarize-tests.sh" "$d/suite.log" "$d/findings.log"
	assert_status 1
	assert_output_contains "3 passed, 2 failed, 1 skipped"
	[[ "$output" != *"syntax error"* ]]
	run bash "$XCC_SRCDIR/scripts/summarize-tests.sh" "$d/suite.log" "$d/missing.log"
	assert_status 1
	assert_output_contains "missing $d/missing.log"
	assert_output_contains "2 passed, 1 failed, 1 skipped"
}

# The docs (README.md, HACKING.md, tests/README, doc/*.md, the wrappers'
# READMEs): every relative link leads to a file, and every test that
# doc/reliability.md says holds a guarantee exists under that name.
docs_pages() {
	(cd "$XCC_SRCDIR" && ls README.md HACKING.md tests/README doc/*.md wrappers/*/README.md)
}

# shellcheck disable=SC2016 # the backticks are Markdown's
@test "lint: every relative link of the docs resolves, and every test they name exists" {
	local pages
	mapfile -t pages < <(docs_pages)
	run bash "$XCC_SRCDIR/tests/lib/lint-docs.sh" "$XCC_SRCDIR" "${pages[@]}"
	assert_status 0
	# The guarantees page is among them and names its tests in the checked form.
	run grep -c '^- `tests/[^`]*`: ' "$XCC_SRCDIR/doc/reliability.md"
	assert_status 0
	[ "$output" -ge 40 ]
}

# shellcheck disable=SC2016 # the backticks are Markdown's
@test "lint: the docs lint finds a link that leads nowhere and a test that does not exist" {
	local d=$BATS_TEST_TMPDIR/src
	mkdir -p "$d/doc" "$d/tests/unit"
	printf '%s\n' '@test "t: one" {' '	true' '}' >"$d/tests/t.bats"
	printf '%s\n' 'static void holds(void)' '{' '}' >"$d/tests/unit/test_x.c"
	printf '%s\n' '[up](../README.md) [same](page.md#part) [web](https://example.org/x.md)' \
		'- `tests/t.bats`: "t: one"' '- `tests/unit/test_x.c`: `holds()`' >"$d/doc/page.md"
	touch "$d/README.md"
	run bash "$XCC_SRCDIR/tests/lib/lint-docs.sh" "$d" doc/page.md
	assert_status 0
	printf '%s\n' 'see [gone](gone.md) and [code](`x`)' '- `tests/t.bats`: "t: two"' \
		'- `tests/unit/test_x.c`: `gone()`' '- `tests/t.bats`: "t: one' >"$d/doc/page.md"
	run bash "$XCC_SRCDIR/tests/lib/lint-docs.sh" "$d" doc/page.md
	assert_status 1
	assert_output_contains "doc/page.md:1: the link gone.md leads nowhere"
	assert_output_contains 'doc/page.md:2: tests/t.bats has no test "t: two"'
	assert_output_contains "doc/page.md:3: tests/unit/test_x.c has no test function gone()"
	assert_output_contains "doc/page.md:4: a held-by line names its test"
}
