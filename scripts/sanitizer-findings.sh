#!/bin/bash
# Turn the sanitizer reports of a `make check-sanitizers` run (one file per
# process that reported, in LOGDIR) into an automake-style summary that
# scripts/summarize-tests.sh counts: PASS 1 when there is none, else one
# FAIL per report, each shown with its first lines.
#   usage: sanitizer-findings.sh LOGDIR > sanitizer-findings.log
set -u
dir=$1
n=0
for f in "$dir"/*; do
	[ -s "$f" ] || continue
	n=$((n + 1))
	echo "FAIL: $(basename "$f"): $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$f")"
	sed -n '1,30s/^/#   /p' "$f"
done
if [ "$n" -eq 0 ]; then
	echo "PASS: no sanitizer report"
	printf '# TOTAL: 1\n# PASS:  1\n# FAIL:  0\n'
else
	printf '# TOTAL: %d\n# PASS:  0\n# FAIL:  %d\n' "$n" "$n"
fi
