#!/usr/bin/env python3
"""Differential check of `cuda-xcc patchelf` against Debian's patchelf.

Random sequences of --set-rpath, --add-rpath, --shrink-rpath,
--replace-needed, --add-needed, --remove-needed and --set-soname (one
operation per call, as a build script would run them) are applied to a copy
of each input by both tools. After every step both must agree on success or
failure; after the sequence they must give the same --print-rpath,
--print-needed and --print-soname answers (read by both tools) and the same
`nm -D`. Programs marked runnable get only operations that keep them
loadable, and must print the same after patching by either tool.

usage: patchelf_diff.py --xcc BIN --work DIR --seed N --rounds N
                        [--run FILE=CMD]... FILE...
Exit status 0 when they agree everywhere; otherwise every difference is
printed, with the sequence that led to it.
"""
import argparse
import os
import random
import shlex
import shutil
import subprocess
import sys

RPATHS = ["$ORIGIN", "$ORIGIN/../lib", "/opt/x", "/usr/local/cuda/lib64:/opt/y",
          "/a/rather/long/path/that/will/not/fit/in/the/old/string/table/" + "z" * 40,
          "$ORIGIN/lib:$ORIGIN/../lib64:/usr/lib/aarch64-linux-gnu"]
NAMES = ["libfoo.so.1", "libm.so.6", "libbar-with-a-long-name-for-growth.so.12.3.4"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def answers(tool, path):
    out = {}
    for what in ("--print-rpath", "--print-needed", "--print-soname"):
        r = run(tool + [what, path])
        # the messages differ between the tools; the verdict must not
        out[what] = (r.returncode == 0, r.stdout if r.returncode == 0 else "")
    return out


def needed(path):
    r = run(["patchelf", "--print-needed", path])
    return r.stdout.split() if r.returncode == 0 else []


def choose_op(rng, path, runnable):
    kinds = ["--set-rpath", "--add-rpath", "--shrink-rpath", "--set-soname"]
    if not runnable:
        kinds += ["--replace-needed", "--add-needed", "--remove-needed"]
    else:
        kinds += ["--add-needed-libm"]
    k = rng.choice(kinds)
    if k in ("--set-rpath", "--add-rpath"):
        return [k, rng.choice(RPATHS)]
    if k == "--shrink-rpath":
        return [k]
    if k == "--set-soname":
        return [k, rng.choice(NAMES)]
    if k == "--add-needed-libm":
        return ["--add-needed", "libm.so.6"] if "libm.so.6" not in needed(path) else ["--shrink-rpath"]
    have = needed(path)
    if k == "--add-needed":
        # Debian's patchelf 0.14 adds a name that is already needed a second
        # time; cuda-xcc does not (a deliberate difference): not compared.
        return [k, rng.choice([n for n in NAMES if n not in have] or ["libnew.so.1"])]
    if k == "--replace-needed":
        old = rng.choice(have) if have and rng.random() < 0.8 else "libabsent.so.9"
        return [k, old, rng.choice(NAMES)]
    return [k, rng.choice(have) if have else "libabsent.so.9"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xcc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--run", action="append", default=[])
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    runners = dict(r.split("=", 1) for r in a.run)
    xcc = [a.xcc, "patchelf"]
    ref = ["patchelf"]
    diffs = 0
    steps = 0
    for n in range(a.rounds):
        src = a.files[n % len(a.files)]
        runnable = src in runners
        d = os.path.join(a.work, str(n))
        os.makedirs(d + "/x")
        os.makedirs(d + "/p")
        fx, fp = d + "/x/" + os.path.basename(src), d + "/p/" + os.path.basename(src)
        shutil.copy2(src, fx)
        shutil.copy2(src, fp)
        seq = []
        for _ in range(rng.randint(1, 4)):
            op = choose_op(rng, fp, runnable)
            seq.append(op)
            steps += 1
            rx, rp = run(xcc + op + [fx]), run(ref + op + [fp])
            if (rx.returncode == 0) != (rp.returncode == 0):
                print(f"DIFF {src}: {shlex.join(op)}: cuda-xcc exit {rx.returncode} "
                      f"({rx.stderr.strip()[:200]}), patchelf exit {rp.returncode} "
                      f"({rp.stderr.strip()[:200]}); sequence: {seq}")
                diffs += 1
                break
        else:
            for reader in (ref, xcc):
                ax, ap_ = answers(reader, fx), answers(reader, fp)
                if ax != ap_:
                    print(f"DIFF {src}: read by {reader[-1]}: cuda-xcc's output {ax} != "
                          f"patchelf's {ap_}; sequence: {seq}")
                    diffs += 1
            nx, np_ = run(["nm", "-D", fx]), run(["nm", "-D", fp])
            if (nx.returncode, nx.stdout) != (np_.returncode, np_.stdout):
                print(f"DIFF {src}: nm -D differs; sequence: {seq}")
                diffs += 1
            if runnable:
                cmd = runners[src]
                ox = run(shlex.split(cmd.replace("{}", fx)))
                op_ = run(shlex.split(cmd.replace("{}", fp)))
                if ox.returncode != 0 or (ox.returncode, ox.stdout) != (op_.returncode, op_.stdout):
                    print(f"DIFF {src}: patched program: cuda-xcc's exits {ox.returncode} "
                          f"printing {ox.stdout!r} {ox.stderr[:200]!r}, patchelf's exits "
                          f"{op_.returncode} printing {op_.stdout!r}; sequence: {seq}")
                    diffs += 1
        shutil.rmtree(d)
    print(f"{a.rounds} sequences, {steps} operations, {diffs} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
