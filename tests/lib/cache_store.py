#!/usr/bin/env python3
"""An HTTP store on 127.0.0.1 for ccache's remote_storage = http://... tests.

ccache 4.4 and later keep results on any server that answers PUT with 2xx
and gives the same bytes back to GET (HEAD for existence, DELETE to drop):
this one keeps each under --root at the request's path, written to a
temporary file and renamed, so a reader sees a whole entry or none. Picks a
free port and prints it on stdout, logs one line per request on stderr
("PUT /path 201"), and exits by itself after --timeout seconds, so that a
failed test never leaves it running for long.
"""

import argparse
import http.server
import os
import sys
import tempfile
import threading


class Store(http.server.BaseHTTPRequestHandler):
    # Keep-alive, as ccache's client (cpp-httplib) asks: every answer says its length.
    protocol_version = "HTTP/1.1"
    root = "."

    def log_message(self, fmt, *args):
        pass

    def file(self):
        """The file of the request's path, or None for one that leaves the root."""
        path = self.path.split("?", 1)[0]
        parts = [p for p in path.split("/") if p]
        if not parts or any(p in (".", "..") for p in parts):
            return None
        return os.path.join(self.root, *parts)

    def answer(self, code, body=b"", head=False):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)
        print(f"{self.command} {self.path} {code}", file=sys.stderr, flush=True)

    def do_GET(self, head=False):
        f = self.file()
        try:
            with open(f, "rb") as src:
                body = src.read()
        except (OSError, TypeError):
            self.answer(404, head=head)
            return
        self.answer(200, body, head)

    def do_HEAD(self):
        self.do_GET(head=True)

    def do_PUT(self):
        f = self.file()
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if f is None:
            self.answer(400)
            return
        os.makedirs(os.path.dirname(f), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(f), prefix=".put.")
        with os.fdopen(fd, "wb") as out:
            out.write(body)
        os.replace(tmp, f)
        self.answer(201)

    def do_DELETE(self):
        f = self.file()
        try:
            os.unlink(f)
        except (OSError, TypeError):
            self.answer(404)
            return
        self.answer(204)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    Store.root = args.root
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Store)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Timer(args.timeout, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
