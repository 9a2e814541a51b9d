#!/usr/bin/env python3
"""The body of the run.do_TASK script bitbake would write, from `bitbake -e`.

usage: bitbake_task.py ENV_OUTPUT TASK

bitbake writes a shell task's script as its exported variables (`export
VAR="..."`, `unset VAR`), then the task's function and the shell functions it
calls, all expanded. `bitbake -e RECIPE` prints the same lines for every
variable and function, so this takes the exported variables as they are and
the shell functions reachable from TASK by name (python ones are left out:
a shell task cannot call them). The caller adds what bitbake's runner adds
around it (`set -e`, the working directory, the call).
"""
import re
import sys

FUNC = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\(\) \{$')
WORD = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def parse(lines):
    exports, funcs = [], {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(('export ', 'unset ')):
            block = [line]
            # bitbake writes a newline in a value as ' \' and a new line.
            while block[-1].endswith('\\') and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            exports.append('\n'.join(block))
        else:
            m = FUNC.match(line)
            if m:
                end = lines.index('}', i + 1)
                funcs[m.group(1)] = '\n'.join(lines[i:end + 1])
                i = end
        i += 1
    return exports, funcs


def reachable(task, funcs):
    seen, todo = [], [task]
    while todo:
        name = todo.pop()
        if name in seen or name not in funcs:
            continue
        seen.append(name)
        todo.extend(w for w in WORD.findall(funcs[name]) if w in funcs)
    return seen


def main():
    env_output, task = sys.argv[1:3]
    with open(env_output, encoding='utf-8') as f:
        exports, funcs = parse(f.read().split('\n'))
    if task not in funcs:
        sys.exit('bitbake_task.py: %s has no shell function %s' % (env_output, task))
    print('\n'.join(exports))
    for name in sorted(reachable(task, funcs)):
        print(funcs[name])


if __name__ == '__main__':
    main()
