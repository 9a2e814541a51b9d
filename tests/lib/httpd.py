#!/usr/bin/env python3
"""A small HTTP server on 127.0.0.1 for the download tests.

Serves the files under --root (with Last-Modified, and 304 Not Modified for
an If-Modified-Since no older than the file, logged as "NOT-MODIFIED /path"),
and a directory as an HTML list of its entries (a mirror's index, as NVIDIA's
server gives). Picks a free port and prints it on stdout,
logs one line per request on stderr ("GET /path range=bytes=N- t=SECONDS", the
time from a monotonic clock, to see the pauses between retries), and
exits by itself after --timeout seconds, so that a failed test never leaves
it running for long.

Modes:
  normal        files with Range support (206 Partial Content)
  norange       ignores Range and always sends the whole file (200)
  drop-once     the first response for each path stops halfway and the
                connection is closed; later ones are normal
  drop-once-norange   both of the above
  drop-always   every response stops halfway through what it owes
  wrong         every byte of the body is changed (same length)
  404           every request gets 404 Not Found
  503-once      the first request for each path gets 503, later ones normal
  redirect      /r/PATH answers 302 to /PATH, the rest is normal
  redirect-file /r/PATH answers 302 to file://ROOT/PATH (a redirect off HTTP)
  redirect-ftp  /r/PATH answers 302 to ftp://127.0.0.1:PORT/PATH
  always-304    every request gets 304 Not Modified, asked for or not (a broken proxy)
  slow          the body goes out in small pieces with pauses in between
  stall-once    the first response for each path stops sending halfway and keeps
                the connection open (a stalled server); later ones are normal
  stall-always  every response stalls halfway through what it owes
  silent        every request is read and never answered, not even a header
  delay         every request waits --stall-seconds before it is answered, then
                as normal (a far server: two clients' downloads overlap)
  reset-once    the first response for each path is cut halfway by a TCP reset
                (RST, not a clean close); later ones are normal
  reset-always  every response is cut halfway by a reset
  throttle      files go out at --rate bytes per second, all responses together
                (one link shared by every connection, as a real one is)

--stall-seconds N is how long a stalled or silent response holds the
connection before it closes it (default 30).

--rate N is the throttle's rate in bytes per second (default 1000000).

--tls DIR serves HTTPS with DIR/cert.pem and DIR/key.pem.

--redirect-to BASE makes the redirect mode's /r/PATH answer 302 to BASE/PATH
(another server: an HTTPS one sending its client to plain HTTP).

--only SUFFIX applies the mode to the paths that end with SUFFIX; the others
are served as in normal mode (e.g. a mirror whose manifest is fine and whose
archives are not).
"""

import argparse
import email.utils
import http.server
import os
import re
import socket
import ssl
import struct
import sys
import threading
import time

MODES = ("normal", "norange", "drop-once", "drop-once-norange", "drop-always", "wrong", "404",
         "503-once", "redirect", "slow", "stall-once", "stall-always", "silent", "reset-once",
         "reset-always", "throttle", "delay", "redirect-file", "redirect-ftp", "always-304")
THROTTLE_CHUNK = 64 * 1024


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        srv = self.server
        rng = self.headers.get("Range")
        print(f"GET {self.path} range={rng or '-'} t={time.monotonic():.3f}", file=sys.stderr,
              flush=True)
        path = self.path.split("?", 1)[0]
        mode = srv.mode if path.endswith(srv.only) else "normal"

        if mode == "silent":
            time.sleep(srv.stall_seconds)
            return
        if mode == "delay":
            time.sleep(srv.stall_seconds)
        if mode == "404":
            return self.send_error(404, "Not Found")
        if mode == "503-once" and path not in srv.seen:
            srv.seen.add(path)
            return self.send_error(503, "Service Unavailable")
        if mode == "always-304":
            print(f"NOT-MODIFIED {self.path}", file=sys.stderr, flush=True)
            self.send_response(304)
            self.end_headers()
            return
        if mode.startswith("redirect") and path.startswith("/r/"):
            target = {"redirect": srv.redirect_to + path[2:],
                      "redirect-file": "file://" + srv.root + path[2:],
                      "redirect-ftp": f"ftp://127.0.0.1:{srv.server_address[1]}{path[2:]}"}[mode]
            print(f"REDIRECT {self.path} -> {target}", file=sys.stderr, flush=True)
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return

        local = os.path.realpath(os.path.join(srv.root, path.lstrip("/")))
        if local != srv.root and not local.startswith(srv.root + os.sep):
            return self.send_error(404, "Not Found")
        if os.path.isdir(local):
            data = "".join(f'<a href="{n}">{n}</a>\n'
                           for n in sorted(os.listdir(local))).encode()
        elif os.path.isfile(local) and mode == "throttle":
            return self.send_throttled(local, rng)
        elif os.path.isfile(local):
            mtime = int(os.path.getmtime(local))
            since = self.headers.get("If-Modified-Since")
            if since and mtime <= email.utils.parsedate_to_datetime(since).timestamp():
                print(f"NOT-MODIFIED {self.path}", file=sys.stderr, flush=True)
                self.send_response(304)
                self.end_headers()
                return
            with open(local, "rb") as f:
                data = f.read()
        else:
            return self.send_error(404, "Not Found")

        start = 0
        m = re.fullmatch(r"bytes=(\d+)-", rng or "")
        if m and mode not in ("norange", "drop-once-norange"):
            start = int(m.group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        if os.path.isfile(local):
            self.send_header("Last-Modified", email.utils.formatdate(os.path.getmtime(local), usegmt=True))
        self.end_headers()

        if mode == "wrong":
            body = bytes((b + 1) & 0xFF for b in body)
        first = path not in srv.seen
        drop = mode == "drop-always" or (mode in ("drop-once", "drop-once-norange") and first)
        stall = mode == "stall-always" or (mode == "stall-once" and first)
        reset = mode == "reset-always" or (mode == "reset-once" and first)
        srv.seen.add(path)
        if stall:
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            time.sleep(srv.stall_seconds)
            return
        if reset:
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            # A reset throws away what the client has not read yet: give
            # it time to take the first half, so that there is something
            # to resume from.
            time.sleep(0.5)
            # SO_LINGER with a zero timeout: close() sends RST, not FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if drop:
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if mode == "slow":
            for i in range(0, len(body), 4096):
                self.wfile.write(body[i:i + 4096])
                self.wfile.flush()
                time.sleep(0.005)
            return
        self.wfile.write(body)

    def send_throttled(self, local, rng):
        """The file from its Range start, read as it goes out (a benchmark's
        archives are hundreds of MB), each chunk given its slot on the one
        link: the clock every response advances by its chunk's time."""
        srv = self.server
        size = os.path.getsize(local)
        start = 0
        m = re.fullmatch(r"bytes=(\d+)-", rng or "")
        if m and int(m.group(1)) < size:
            start = int(m.group(1))
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(size - start))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        with open(local, "rb") as f:
            f.seek(start)
            while True:
                chunk = f.read(THROTTLE_CHUNK)
                if not chunk:
                    break
                with srv.link_lock:
                    slot = max(time.monotonic(), srv.link_free_at)
                    srv.link_free_at = slot + len(chunk) / srv.rate
                delay = slot - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self.wfile.write(chunk)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--mode", choices=MODES, default="normal")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--only", default="")
    ap.add_argument("--stall-seconds", type=float, default=30,
                    help="how long the stall modes and silent keep a connection open")
    ap.add_argument("--rate", type=float, default=1e6,
                    help="the throttle mode's rate in bytes per second")
    ap.add_argument("--tls", help="a directory with cert.pem and key.pem: serve HTTPS")
    ap.add_argument("--redirect-to", default="", help="where the redirect mode sends /r/PATH")
    args = ap.parse_args()

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(args.tls, "cert.pem"), os.path.join(args.tls, "key.pem"))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.redirect_to = args.redirect_to.rstrip("/")
    srv.root = os.path.realpath(args.root)
    srv.mode = args.mode
    srv.only = args.only
    srv.stall_seconds = args.stall_seconds
    srv.seen = set()
    srv.rate = args.rate
    srv.link_lock = threading.Lock()
    srv.link_free_at = 0.0
    print(srv.server_address[1], flush=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    time.sleep(args.timeout)
    srv.shutdown()


if __name__ == "__main__":
    main()
