#!/bin/sh
# Lines of .bats files that cannot fail. bats runs a test under `set -e`,
# and set -e lets two kinds of failing line through:
# - a failing command on the left of && : a line such as
#       [ -f a ] && [ -f b ]
#   passes when a is missing, unless it is the test's last line. One check
#   per line. A line that goes on with || (a fallback) or that an if, while
#   or until reads is a condition, not a check, and is left alone.
# - a command negated with ! : set -e never acts on its status, so
#       ! grep -q error log
#   passes whatever log holds, unless it is the last command of the test,
#   of a function or of a ( ) subshell. Write `run cmd` and
#   `assert_status 1` (or `run ! cmd`), or `cmd && false`, which in turn
#   cannot be the last command: there it fails when cmd does.
# Here-documents are not read.
# Prints FILE:LINE: TEXT for each such line; exits 1 when there is one.
# ShellCheck, where it is installed (CI installs it), adds its reading of the same rule
# (SC2314, SC2315): it parses the shell, where the patterns here read lines.
status=0
for f in "$@"; do
	awk -v file="$f" '
		function report(n, text) { printf "%s:%d: %s\n", file, n, text; bad = 1 }
		# a here-document body is data, up to its delimiter
		heredoc != "" {
			line = $0
			if (strip) sub(/^\t+/, "", line)
			if (line == heredoc) heredoc = ""
			next
		}
		/^[ \t]*(#|$)/ { next }
		# a line that goes on from the one before starts no command
		{ start = !cont; cont = /(\\|\||&&)[ \t]*$/ }
		# a pending "! cmd" fails only as the last command of its
		# function or subshell
		start && neg {
			if (!/^(\}|[ \t]*\))/) report(neg, negtext)
			neg = 0
		}
		# "cmd && false" the other way round: as the last command it
		# fails when cmd does
		start && fls {
			if (/^(\}|[ \t]*\))/) report(fls, flstext)
			fls = 0
		}
		!cont && /&&[ \t]*false[ \t]*$/ { fls = FNR; flstext = $0 }
		/<<-?[ \t]*["\047\\]?[A-Za-z_][A-Za-z0-9_]*/ && !/<<</ {
			d = $0
			sub(/.*<</, "", d)
			strip = (d ~ /^-/)
			sub(/^-?[ \t]*["\047\\]?/, "", d)
			sub(/[^A-Za-z0-9_].*/, "", d)
			heredoc = d
		}
		start && /^[ \t]*![ \t]/ { neg = FNR; negtext = $0 }
		# the same after ; && || { then do else, outside quotes and the
		# condition of an if or a loop, but for a one-line function whose
		# only command it is
		{
			code = $0
			gsub(/\047[^\047]*\047|"[^"]*"/, "\"\"", code)
			if (code ~ /^[ \t]*(if|elif|while|until)[ \t]/ &&
			    !sub(/^.*;[ \t]*(then|do)[ \t]/, " then ", code))
				code = ""
		}
		code ~ /(;|&&|\|\||\{|[ \t](then|do|else))[ \t]+![ \t]/ &&
		    code !~ /^[ \t]*[A-Za-z_][A-Za-z0-9_]*\(\)[ \t]*\{[ \t]*![ \t][^;&|]*;?[ \t]*\}[ \t]*$/ {
			report(FNR, $0)
			next
		}
		/^[ \t]*(if|elif|while|until)[ \t]/ { next }
		/\|\|/ { next }
		/^[ \t]*(\[\[?|test)[ \t].*&&[ \t]*(\[\[?|test|!)[ \t]/ { report(FNR, $0) }
		END { exit bad }
	' "$f" || status=1
done
if command -v shellcheck >/dev/null 2>&1 && [ $# -gt 0 ]; then
	shellcheck -s bash -S error -f gcc -i SC2314,SC2315 "$@" || status=1
fi
exit $status
