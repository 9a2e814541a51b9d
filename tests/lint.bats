#!/usr/bin/env bats
# The test suite's own rules, checked like the product (as git's chainlint).
load lib/common

@test "lint: no bats line chains checks with && (under set -e it cannot fail)" {
	run sh "$XCC_SRCDIR/tests/lib/lint-bats.sh" "$XCC_SRCDIR"/tests/*.bats
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
