#!/usr/bin/env python3
"""Each verb's --help against its option table (src/cli/cmd_*.c): every
long option a table lists (but --help) is named in the verb's usage text,
and every --option the usage text names is in one of the file's tables or
in the file's list of hand-read words (HAND_READ below).

Usage: check_help.py FILE...   Prints FILE: problem for each mismatch and
exits 1 when there is one."""
import re
import sys

# Words a usage text names that no option table holds, on purpose.
HAND_READ = {
    # check-link reads "--compiler=CC" by hand: ccache keeps it in one word.
    "cmd_check_link.c": {"compiler"},
    # toolchain quote reads --sh or --meson by hand: every word after it is a
    # word to quote, as it is, even one that starts with '-'.
    "cmd_toolchain.c": {"sh", "meson"},
}

TABLE = re.compile(r"static const struct option \w+\[\] = \{(.*?)\n\s*\};", re.S)
ENTRY = re.compile(r'\{\s*"([a-z0-9-]+)",')
# The usage text: a static const char NAME_usage[], or the literals a
# usage() function prints.
USAGE = re.compile(r"static const char \w*usage\w*\[\] =(.*?);\n"
                   r"|static void usage\(FILE \*f\)\n\{(.*?)\n\}", re.S)
LITERAL = re.compile(r'"((?:\\.|[^"\\])*)"')
# "--name", or "-name" as nvcc spells its options (-arch); getopt_long_only
# takes both.
LONG = re.compile(r"(?<![A-Za-z0-9-])--?([a-z][a-z0-9-]*)")
NAMED_LONG = re.compile(r"(?<![A-Za-z0-9-])--([a-z][a-z0-9-]*)")


def check(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    table = {n for t in TABLE.findall(src) for n in ENTRY.findall(t)} - {"help"}
    if not table:
        return []
    usage = "".join(LITERAL.findall("".join(a + b for a, b in USAGE.findall(src))))
    if not usage:
        return [f"{path}: an option table but no usage text (static const char NAME_usage[])"]
    named = set(LONG.findall(usage))
    base = path.rsplit("/", 1)[-1]
    bad = [f"{path}: --{o} is in the option table but not in --help" for o in sorted(table - named)]
    bad += [f"{path}: --help names --{o}, which no option table of the file has"
            for o in sorted(set(NAMED_LONG.findall(usage)) - table - {"help"}
                            - HAND_READ.get(base, set()))]
    return bad


def main(argv):
    bad = [line for path in argv[1:] for line in check(path)]
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
