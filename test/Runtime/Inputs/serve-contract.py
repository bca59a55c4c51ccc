"""The FaaS HTTP contract of unum-serve, checked over a real socket.

usage: serve-contract.py UNUM_SERVE APPDIR STORE

Starts `unum-serve APPDIR` (all functions in one process) on a free
127.0.0.1 port and prints one line per check: the health endpoint, a
start invocation (202 with its Session), bad requests (4xx, the host still
healthy after each), the request-size limit, and SIGTERM (exit 0).
"""
import json, os, signal, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port, request as raw_request  # noqa: E402

unum_serve, app, store = sys.argv[1:4]
port = free_port()
host = subprocess.Popen([unum_serve, app, "--listen", "127.0.0.1:%d" % port,
                         "--store", store, "--max-body", "4096"],
                        stderr=subprocess.PIPE)


def request(raw):
    return raw_request(port, raw)


def post(path, body, extra=b""):
    body = body.encode() if isinstance(body, str) else body
    return request(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s\r\n%s"
                   % (path.encode(), len(body), extra, body))


def get(path):
    return request(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())


for _ in range(500):
    try:
        if get("/healthz")[0].endswith("200 OK"):
            break
    except OSError:
        pass
    time.sleep(0.01)
print("health:", *get("/healthz"))
print("health (OpenFaaS):", *get("/_/health"))
status, body = post("/fn/Square", '{"Data": {"Value": 3}}')
print("no session:", status, body)
status, body = post("/fn/Split", '{"Data": {"Value": [1, 2]}}')
print("start:", status, sorted(json.loads(body)))
status, body = post("/fn/Split", '[3, 4]')
print("bare start input:", status, sorted(json.loads(body)))
print("root with several functions:", *post("/", "{}"))
print("unknown function:", *post("/fn/Nope", "{}"))
print("bad JSON:", *post("/fn/Split", "{"))
print("bad payload:", *post("/fn/Square", '{"Data": {"Value": 1}, "Session": 7}'))
print("too large:", post("/fn/Split", "[" + "1," * 4000 + "1]")[0])
print("unknown GET:", *get("/metrics"))
print("PUT:", request(b"PUT /fn/Split HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")[0])
print("garbage:", request(b"\x00\x01 nonsense\r\n\r\n")[0])
print("still healthy:", *get("/healthz"))
time.sleep(0.5)  # the accepted invocations run
host.send_signal(signal.SIGTERM)
err = host.communicate(timeout=30)[1].decode()
print("SIGTERM: exit", host.returncode)
sys.stderr.write(err)
