#!/bin/bash
# Sum automake test-suite.log summaries into the one line CI reads:
#   N passed, M failed[, K skipped]
set -u
pass=0 fail=0 skip=0
for log in "$@"; do
	[ -f "$log" ] || { echo "missing $log" >&2; fail=$((fail + 1)); continue; }
	# Show what failed, so CI's log says why.
	grep -E '^(FAIL|ERROR|XPASS):' "$log" | sed 's/^/  /' >&2 || true
	# A count a log does not print (sanitizer-findings.log has no XFAIL
	# line) is 0, not an empty operand that would drop the log's counts.
	get() {
		local n
		n=$(sed -n "s/^# $1: *\([0-9]*\).*/\1/p" "$log" | head -n1)
		echo "${n:-0}"
	}
	pass=$((pass + $(get PASS) + $(get XFAIL)))
	fail=$((fail + $(get FAIL) + $(get ERROR) + $(get XPASS)))
	skip=$((skip + $(get SKIP)))
done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
