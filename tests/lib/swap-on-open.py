#!/usr/bin/env python3
"""Swap a file the moment someone opens it: the attacker of a check-then-use race.

usage: swap-on-open.py FILE REPLACEMENT

Watches FILE's directory with inotify (through libc: Python has no binding of
its own) and, at the first open of FILE, renames REPLACEMENT over it, so that
whoever opened FILE reads the old bytes through that descriptor and whoever
opens the name again gets REPLACEMENT's. Prints "ready" once it watches, and
"swapped" after the swap; gives up after --timeout seconds.
"""
import argparse
import ctypes
import os
import select
import struct
import sys

IN_OPEN = 0x00000020
EVENT = struct.Struct("iIII")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("replacement")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        sys.exit("inotify_init1: " + os.strerror(ctypes.get_errno()))
    directory = os.path.dirname(os.path.abspath(args.file)).encode()
    name = os.path.basename(args.file).encode()
    if libc.inotify_add_watch(fd, directory, IN_OPEN) < 0:
        sys.exit("inotify_add_watch: " + os.strerror(ctypes.get_errno()))
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select([fd], [], [], args.timeout)
        if not ready:
            sys.exit("nobody opened " + args.file)
        buf = os.read(fd, 65536)
        pos = 0
        while pos < len(buf):
            _, mask, _, length = EVENT.unpack_from(buf, pos)
            ev_name = buf[pos + EVENT.size:pos + EVENT.size + length].rstrip(b"\0")
            pos += EVENT.size + length
            if mask & IN_OPEN and ev_name == name:
                os.rename(args.replacement, args.file)
                print("swapped", flush=True)
                return


if __name__ == "__main__":
    main()
