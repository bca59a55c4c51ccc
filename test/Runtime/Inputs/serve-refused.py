"""A journaled continuation that its receiver refuses fails the session.

usage: serve-refused.py UNUM_SERVE APPDIR INPUT WORKDIR

APPDIR is the squares app (Split -> Square map -> Sum -> Report). One
unum-serve host runs Split, Sum and Report on a SQLite store, which
journals Split's continuations (one per item of the Map over Square) with
Split's checkpoint, so that their POSTs are not waited for; Square's URL
leads to a host that refuses them for good:

  wrong-url: the host itself, which does not run Square (404: a wrong URL
             map);
  old-host:  a host of an older Unum that does not know the payload's
             "Outbox" field (400), played by a small HTTP server that
             answers as such a host did.

For each, `unum-serve --submit` must fail at once with the refusal (not
wait for its --timeout), the host's stderr must say it, and the refused
entry must be out of the outbox (no sweep delivers it again) while the
session is kept with its failure. Prints one line per fact.
"""
import http.server
import os
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port, healthy  # noqa: E402

unum_serve, app, start_input, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)


class OldHost(http.server.BaseHTTPRequestHandler):
    """Answers as a host of an older Unum: a payload with a field it does
    not know is a bad request."""
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"] or 0))
        status, text = (400, b"payload: unknown field 'Outbox'\n") \
            if b'"Outbox"' in body else (202, b"{}\n")
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, *args):
        pass


def wait_healthy(port, proc):
    for _ in range(1000):
        if healthy(port):
            return
        if proc.poll() is not None:
            sys.exit("a host exited: %s" % proc.stderr.read().decode())
        time.sleep(0.01)
    sys.exit("a host never became healthy")


def case(name, square_url, other_port=None):
    db = os.path.join(work, name + ".db")
    port = free_port()
    host = subprocess.Popen(
        [unum_serve, app, "--listen", "127.0.0.1:%d" % port,
         "--store", "sqlite:" + db, "--sweep-interval", "0.1",
         "--function", "Split", "--function", "Sum", "--function", "Report",
         "--peer", "Square=" + square_url.format(port=port)],
        stderr=subprocess.PIPE)
    try:
        wait_healthy(port, host)
        began = time.time()
        client = subprocess.run(
            [unum_serve, app, "--store", "sqlite:" + db, "--peer",
             "Split=http://127.0.0.1:%d/fn/Split" % port,
             "--submit", start_input, "--timeout", "20"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        took = time.time() - began
        err = client.stderr.decode()
        print("%s: exit %d" % (name, client.returncode))
        errors = sorted(line.replace(str(other_port or port), "PORT")
                        for line in err.splitlines() if "error:" in line)
        for line in errors:
            print("%s: %s" % (name, line))
        print("%s: failed before its timeout: %s" % (name, took < 15))
        # Several sweeps later: the refused entry is not in the outbox (no
        # host delivers it again), the failure is kept in the session.
        time.sleep(0.5)
        con = sqlite3.connect(db, timeout=30)
        left = con.execute("SELECT count(*) FROM unum_outbox WHERE "
                           "function='Square'").fetchone()[0]
        errs = con.execute("SELECT key FROM unum_kv WHERE key LIKE "
                           "'err:%'").fetchall()
        con.close()
        print("%s: Square entries left in the outbox: %d" % (name, left))
        print("%s: failures kept: %s" % (name, sorted(k for (k,) in errs)))
    finally:
        host.terminate()
        _, host_err = host.communicate(timeout=60)
    said = [line for line in host_err.decode().splitlines()
            if "refused after the sender's step" in line]
    print("%s: the host said so %d times" % (name, len(said)))


case("wrong-url", "http://127.0.0.1:{port}/fn/Square")
old = http.server.ThreadingHTTPServer(("127.0.0.1", 0), OldHost)
threading.Thread(target=old.serve_forever, daemon=True).start()
case("old-host", "http://127.0.0.1:%d/fn/Square" % old.server_address[1],
     old.server_address[1])
old.shutdown()
