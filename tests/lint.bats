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
