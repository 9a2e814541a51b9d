#!/usr/bin/env python3
"""The house rules of src/ that a compiler does not check (HACKING.md):

  size:  no function over 120 lines, no file over 1,000 lines;
  alloc: no raw malloc, calloc, realloc, strdup or strndup outside
         src/base/xalloc.c (xalloc's versions check for failure).

Usage: check_house.py size|alloc FILE...   Prints FILE:LINE: problem for
each breach and exits 1 when there is one.

A function is what the project's style writes: its body opens with a '{'
alone at column 0 and closes with the next '}' at column 0; its length
counts the lines from its name to that '}'."""
import os
import re
import sys

MAX_FUNCTION = 120
MAX_FILE = 1000

# Files allowed over MAX_FILE, each with the reason and the day it goes.
FILE_ALLOWLIST = set()

ALLOC_OWNER = "src/base/xalloc.c"
RAW_ALLOC = re.compile(r"\b(malloc|calloc|realloc|strdup|strndup)\s*\(")
NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def rel(path):
    """The path from the top of the source tree, as the allowlists name it."""
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[parts.index("src"):]) if "src" in parts else path


def strip_comments_and_strings(text):
    """The code alone: comments and string and character literals blanked
    out, newlines kept, so that line numbers stay right."""
    pattern = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions(lines):
    """(name, first line, length) of each function definition."""
    start = None
    for i, line in enumerate(lines):
        if line.rstrip("\n") == "{":
            start = i
        elif start is not None and line.startswith("}"):
            head = start - 1
            # The signature may span lines: go up to the line with the name.
            while head > 0 and not NAME.search(lines[head]) and lines[head - 1].strip():
                head -= 1
            while head > 0 and lines[head].startswith(("\t", " ")) and lines[head - 1].strip():
                head -= 1
            m = NAME.search(lines[head])
            yield (m.group(1) if m else "?"), head + 1, i - head + 1
            start = None


def check_size(path):
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    bad = []
    if len(lines) > MAX_FILE and rel(path) not in FILE_ALLOWLIST:
        bad.append(f"{path}:{len(lines)}: {len(lines)} lines, over {MAX_FILE}: split the file")
    for name, first, length in functions(lines):
        if length > MAX_FUNCTION:
            bad.append(f"{path}:{first}: {name}() is {length} lines, over {MAX_FUNCTION}: "
                       "split it")
    return bad


def check_alloc(path):
    if rel(path) == ALLOC_OWNER:
        return []
    with open(path, encoding="utf-8") as f:
        code = strip_comments_and_strings(f.read())
    bad = []
    for n, line in enumerate(code.split("\n"), 1):
        for m in RAW_ALLOC.finditer(line):
            bad.append(f"{path}:{n}: raw {m.group(1)}(): use x{m.group(1)}() "
                       "(base/xalloc.h), which checks for failure")
    return bad


def main(argv):
    if len(argv) < 2 or argv[1] not in ("size", "alloc"):
        print(__doc__, file=sys.stderr)
        return 2
    check = check_size if argv[1] == "size" else check_alloc
    bad = [line for path in argv[2:] for line in check(path)]
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
