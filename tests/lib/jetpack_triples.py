#!/usr/bin/env python3
"""Every (JetPack, Jetson GPU, CUDA) triple of sysroots/*.json through three
commands that must agree (tests/jetpack.bats, issue 37):

  flags --jetpack J --cuda V -arch sm_X --format json   accepted (0) or refused (2)
  sysroot info DIR --json                               board_needs
  doctor --sysroot DIR --jetpack J --json               the jetpack check

DIR is a sysroot of nothing but its sysroot.json (all info and doctor's
jetpack check read). A triple whose GPU and CUDA flags refuses without any
JetPack is no JetPack question and is left out. Prints one line per
disagreement and, last, "triples N accepted A refused R"; each triple's
verdict goes to WORKDIR/triples.txt ("7.2 sm_87 13.2 accepted needs=" or
"... refused"), for the test to pin single facts.

usage: jetpack_triples.py XCC SRCDIR WORKDIR
"""
import json
import os
import subprocess
import sys

xcc, srcdir, work = sys.argv[1:4]
data = os.path.join(srcdir, "sysroots")
with open(os.path.join(data, "jetpack.json")) as f:
    jetpack = json.load(f)
with open(os.path.join(data, "gpus.json")) as f:
    gpus = json.load(f)

# doctor's other checks look for tools on PATH; the jetpack check needs none.
empty = os.path.join(work, "empty-bin")
os.makedirs(empty, exist_ok=True)
env = dict(os.environ, PATH=empty, XDG_DATA_HOME=os.path.join(work, "data"))
env.pop("CUDA_XCC_SYSROOT", None)


def run(*args):
    p = subprocess.run([xcc, *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def cudas():
    never = set(gpus.get("cuda_never_released", []))
    out = ["10.2"] + ["11.%d" % i for i in range(9)] + ["12.%d" % i for i in range(10)]
    newest = gpus["newest_known_cuda"].split(".")
    out += ["13.%d" % i for i in range(int(newest[1]) + 1)]
    return [v for v in out if v not in never]


jetson_caps = [c["cap"] for c in gpus["capabilities"] if c.get("jetson") and c["variant"] == ""]
releases = []
for line in jetpack["releases"]:
    releases.append(line["jetpack"])
    releases += [p["jetpack"] for p in line["points"] if p["jetpack"] != line["jetpack"]]

bad = []
verdicts = []
n = accepted = refused = 0
for cap in jetson_caps:
    arch = "sm_" + cap.replace(".", "")
    for v in cudas():
        rc, out, _ = run("flags", "--target", "jetson", "--cuda", v, "-arch", arch,
                         "--format", "json")
        if rc != 0:
            continue
        tag = json.loads(out)["tag"]
        for jp in releases:
            n += 1
            where = "JetPack %s, %s, CUDA %s" % (jp, arch, v)
            rc, out, err = run("flags", "--target", "jetson", "--cuda", v, "-arch", arch,
                               "--jetpack", jp, "--format", "json")
            d = os.path.join(work, "sr-%s-%s-%s" % (jp, cap, v))
            os.makedirs(os.path.join(d, "bin"), exist_ok=True)
            with open(os.path.join(d, "sysroot.json"), "w") as f:
                json.dump({"format": 1, "cuda": v + ".0", "target": "jetson", "tag": tag,
                           "target_dir": "aarch64-linux" if tag == "linux-aarch64"
                           else "sbsa-linux",
                           "host_compiler": "aarch64-linux-gnu-g++-12",
                           "capabilities": [cap], "components": [], "jetpack": jp}, f)
            drc, dout, derr = run("doctor", "--sysroot", d, "--json")
            try:
                check = [c for c in json.loads(dout)["checks"] if c["check"] == "jetpack"][0]
            except (ValueError, IndexError):
                bad.append("%s: doctor gave no jetpack check (%d): %s" % (where, drc, derr))
                continue
            if rc == 2:
                refused += 1
                verdicts.append("%s %s %s refused" % (jp, arch, v))
                if check["status"] != "fail":
                    bad.append("%s: flags refuses it, doctor says %s: %s"
                               % (where, check["status"], check["detail"]))
                continue
            if rc != 0:
                bad.append("%s: flags exit %d: %s" % (where, rc, err))
                continue
            accepted += 1
            needs = [b["component"] for b in json.loads(out)["board_needs"]]
            irc, iout, ierr = run("sysroot", "info", d, "--json")
            if irc != 0:
                bad.append("%s: sysroot info exit %d: %s" % (where, irc, ierr))
                continue
            ineeds = [b["component"] for b in json.loads(iout)["board_needs"]]
            verdicts.append("%s %s %s accepted needs=%s" % (jp, arch, v, ",".join(needs)))
            if ineeds != needs:
                bad.append("%s: flags needs %s, sysroot info %s" % (where, needs, ineeds))
            # JetPack facts held unverified (not a CUDA release's own, which
            # other checks say).
            unverified = any("JetPack" in w and "unverified" in w for w in err.splitlines())
            want = "skip" if unverified else "ok"
            if check["status"] != want:
                bad.append("%s: flags accepts it%s, doctor says %s: %s"
                           % (where, " (unverified)" if unverified else "",
                              check["status"], check["detail"]))
            for c in needs:
                if c not in check["detail"]:
                    bad.append("%s: doctor does not name the need %s: %s"
                               % (where, c, check["detail"]))
with open(os.path.join(work, "triples.txt"), "w") as f:
    f.write("".join(x + "\n" for x in verdicts))
for b in bad:
    print(b)
print("triples %d accepted %d refused %d" % (n, accepted, refused))
