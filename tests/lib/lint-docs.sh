#!/bin/bash
# The docs' own checks, as lint-bats.sh is the tests':
#  - every relative Markdown link, [text](path) or [text](path#anchor),
#    names a file or directory that exists (relative to the file's folder);
#  - every test named in a held-by line,
#        - `tests/FILE.bats`: "exact test name"
#        - `tests/unit/FILE.c`: `function()`
#    exists, so that doc/reliability.md cannot promise what no test holds.
# usage: lint-docs.sh SRCDIR FILE...   (FILEs relative to SRCDIR)
# Prints FILE:LINE: what is wrong, for each; exits 1 when there is one.
# shellcheck disable=SC2016 # the backticks are Markdown's, not commands
set -u
top=$1
shift
status=0
complain() {
	echo "$1"
	status=1
}

check_links() { # FILE DIR LINENO LINE
	local rest=$4 target path
	while [[ $rest == *']('* ]]; do
		rest=${rest#*](}
		target=${rest%%)*}
		case $target in
		http://* | https://* | mailto:* | '#'* | '') continue ;;
		esac
		path=${target%%#*}
		[ -e "$top/$2/$path" ] || complain "$1:$3: the link $target leads nowhere"
	done
}

check_held_by() { # FILE LINENO LINE
	local re_bats='^- `(tests/[^`]*\.bats)`: "([^"]*)"' re_unit='^- `(tests/unit/[^`]*\.c)`: `([A-Za-z_0-9]*)\(\)`'
	if [[ $3 =~ $re_bats ]]; then
		grep -qxF "@test \"${BASH_REMATCH[2]}\" {" "$top/${BASH_REMATCH[1]}" 2>/dev/null ||
			complain "$1:$2: ${BASH_REMATCH[1]} has no test \"${BASH_REMATCH[2]}\""
	elif [[ $3 =~ $re_unit ]]; then
		grep -qE "^static [a-z ]*\b${BASH_REMATCH[2]}\(void\)" "$top/${BASH_REMATCH[1]}" 2>/dev/null ||
			complain "$1:$2: ${BASH_REMATCH[1]} has no test function ${BASH_REMATCH[2]}()"
	elif [[ $3 == '- `tests/'*'.bats`: "'* || $3 == '- `tests/unit/'*'.c`: `'* ]]; then
		complain "$1:$2: a held-by line names its test as \"NAME\" or \`function()\`"
	fi
}

for f in "$@"; do
	if [ ! -f "$top/$f" ]; then
		complain "$f: no such file"
		continue
	fi
	dir=${f%/*}
	[ "$dir" != "$f" ] || dir=.
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in *']('*) check_links "$f" "$dir" "$n" "$line" ;; esac
		case $line in '- `tests/'*) check_held_by "$f" "$n" "$line" ;; esac
	done <"$top/$f"
done
exit "$status"
