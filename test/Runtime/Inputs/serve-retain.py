"""Sessions started by a direct POST to unum-serve are deleted once done.

usage: serve-retain.py UNUM_SERVE APPDIR DBPATH

Starts `unum-serve APPDIR` (all functions, SQLite store DBPATH, a sweep
every 0.1 s, --retain-sessions 1), POSTs two starts (a bare input, which
the host names a session for, and a payload with its own Session), and
prints: each session's output while it is retained, then that both
sessions are gone and every table of the store is empty.
"""
import json, os, signal, sqlite3, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port, request  # noqa: E402

unum_serve, app, db = sys.argv[1:4]
port = free_port()
host = subprocess.Popen([unum_serve, app, "--listen", "127.0.0.1:%d" % port,
                         "--store", "sqlite:" + db, "--sweep-interval", "0.1",
                         "--retain-sessions", "1"], stderr=subprocess.PIPE)


def post(path, body):
    body = body.encode()
    return request(port, b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                   % (path.encode(), len(body), body))


for _ in range(1000):
    try:
        if request(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")[0].endswith("200 OK"):
            break
    except OSError:
        pass
    time.sleep(0.01)

sessions = []
for body in ('[1, 2, 3]', '{"Data": {"Value": [2, 3]}, "Session": "mine"}'):
    status, answer = post("/fn/Split", body)
    print("start:", status)
    sessions.append(json.loads(answer)["Session"])
print("own session kept:", sessions[1] == "mine")


def rows(sql, *args):
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def wait(what, done, limit=60):
    deadline = time.time() + limit
    while time.time() < deadline:
        if done():
            return True
        time.sleep(0.05)
    print("timed out:", what)
    return False


# The output is journaled in the session; it stays readable while the
# session is retained (about a second after its work is done).
for s in sessions:
    out = []
    def has_output():
        out[:] = rows("SELECT value FROM unum_kv WHERE session=? AND key='out:Report'", s)
        return bool(out)
    if wait("output of a session", has_output):
        print("output:", out[0][0] if isinstance(out[0][0], str) else out[0][0].decode())

tables = ["unum_records", "unum_sets", "unum_members", "unum_effects",
          "unum_kv", "unum_outbox"]


def empty():
    return all(rows("SELECT count(*) FROM " + t)[0][0] == 0 for t in tables)


print("store empty:", wait("the sweep to delete the sessions", empty))
host.send_signal(signal.SIGTERM)
_, err = host.communicate(timeout=60)
print("exit:", host.returncode)
if host.returncode != 0 or not empty():
    sys.stderr.write(err.decode())
    for t in tables:
        sys.stderr.write("%s: %r\n" % (t, rows("SELECT * FROM " + t)))
