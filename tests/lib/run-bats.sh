#!/bin/bash
# Run one .bats file with TAP output for automake's TAP driver. A closing TAP
# comment records the file's wall and CPU time (scripts/test-times.sh lists
# the slowest), so that CI's log shows where its time goes; --timing ends each
# test's line with its own wall time ("in 1234ms"), to find the slow ones.
# XCC_BATS_FILTER_TAGS, when set, is bats' --filter-tags: the static and
# sanitizer passes leave out the tests tagged `project` (see tests/README).
start=$EPOCHREALTIME
bats --tap --timing ${XCC_BATS_FILTER_TAGS:+--filter-tags "$XCC_BATS_FILTER_TAGS"} "$1"
rc=$?
# Fields 16 and 17 of /proc/PID/stat: the CPU time of this shell's waited-for
# children (bats and everything it ran), in clock ticks. Read by this shell
# itself: a subshell's `times` would not see them.
read -r -a stat </proc/$$/stat
awk -v f="${1##*/}" -v t0="$start" -v t1="$EPOCHREALTIME" -v ticks="$((stat[15] + stat[16]))" \
	-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "# time: %s wall %.1f s, cpu %.1f s\n", f, t1 - t0, ticks / hz }'
exit "$rc"
