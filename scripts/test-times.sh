#!/bin/sh
# Where a pass of the suite spent its time: the slowest bats files of a build
# directory's last run, from the "# time:" line tests/lib/run-bats.sh ends
# each log with, then its slowest tests.
#   scripts/test-times.sh BUILDDIR [N]   (N slowest, default 10)
dir=${1:?usage: test-times.sh BUILDDIR [N]}
n=${2:-10}
cat "$dir"/tests/*.log 2>/dev/null | sed -n 's/^# time: \([^ ]*\) wall \([0-9.]*\) s, cpu \([0-9.]*\) s$/\2 \3 \1/p' |
	sort -rn | awk -v n="$n" '
	{ wall += $1; cpu += $2 }
	NR <= n { printf "  %7.1f s wall %7.1f s cpu  %s\n", $1, $2, $3 }
	END { printf "  %7.1f s wall %7.1f s cpu  all %d bats files\n", wall, cpu, NR }'
# And the N slowest tests, from the "in 1234ms" bats --timing ends each line with.
for log in "$dir"/tests/*.log; do
	[ -f "$log" ] || continue
	sed -n "s|^\(not \)\{0,1\}ok [0-9]* \(.*\) in \([0-9]*\)ms\$|\3 $(basename "$log" .log): \2|p" "$log"
done | sort -rn | awk -v n="$n" 'NR <= n { printf "  %7.1f s  %s\n", $1 / 1000, substr($0, index($0, " ") + 1) }'
