#!/bin/sh
# Lines of .bats files that cannot fail. bats runs a test under `set -e`,
# which ignores a failing command on the left of && : a line such as
#     [ -f a ] && [ -f b ]
# passes when a is missing, unless it is the test's last line. One check
# per line. A line that goes on with || (a fallback) or that an if, while
# or until reads is a condition, not a check, and is left alone.
# Prints FILE:LINE: TEXT for each such line; exits 1 when there is one.
status=0
for f in "$@"; do
	awk -v file="$f" '
		/^[ \t]*(if|elif|while|until)[ \t]/ { next }
		/\|\|/ { next }
		/^[ \t]*(\[\[?|test)[ \t].*&&[ \t]*(\[\[?|test|!)[ \t]/ {
			printf "%s:%d: %s\n", file, FNR, $0; bad = 1
		}
		END { exit bad }
	' "$f" || status=1
done
exit $status
