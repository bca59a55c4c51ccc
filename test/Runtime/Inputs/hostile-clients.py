"""Runs a command that serves HTTP on a port while hostile clients hit it.

usage: hostile-clients.py [--secret-env] COMMAND...

Picks a free 127.0.0.1 port, runs COMMAND with {port} replaced by it, and as
soon as the port accepts connections opens five idle connections, one
slowloris (a byte of a request header every half second), and sends an
oversized request (a 63 MB Content-Length, no body), a garbage request and
(with --secret-env, the command then having UNUM_HTTP_SECRET) an unsigned
request. It prints the status each got, then the command's elapsed time in
whole seconds, and exits with the command's status.
"""
import os, socket, subprocess, sys, threading, time

secret = sys.argv[1] == "--secret-env"
if secret:
    del sys.argv[1]
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
cmd = [a.replace("{port}", str(port)) for a in sys.argv[1:]]
env = dict(os.environ)
if secret:
    env["UNUM_HTTP_SECRET"] = "hostile-clients-test-secret"
start = time.time()
proc = subprocess.Popen(cmd, env=env)


def connect():
    for _ in range(400):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError:
            if proc.poll() is not None:
                sys.exit("the command ended before it listened")
            time.sleep(0.025)
    sys.exit("nothing listens on port %d" % port)


def status(data):
    c = connect()
    c.sendall(data)
    reply = b""
    try:
        while True:
            chunk = c.recv(4096)
            if not chunk:
                break
            reply += chunk
    except OSError:
        pass
    c.close()
    return reply.split(b"\r\n", 1)[0].decode("latin-1")


idle = [connect() for _ in range(5)]
slow = connect()


def dribble():
    for ch in b"POST /fn/Square HTTP/1.1\r\nContent-Length: 2\r\n":
        try:
            slow.send(bytes([ch]))
        except OSError:
            return
        time.sleep(0.5)


threading.Thread(target=dribble, daemon=True).start()
results = {
    "oversized": status(b"POST /fn/Square HTTP/1.1\r\nContent-Length: %d\r\n\r\n"
                        % (63 << 20)),
    "garbage": status(b"\x16\x03\x01 nonsense\r\n\r\n"),
}
if secret:
    results["unsigned"] = status(b"POST /fn/Square HTTP/1.1\r\n"
                                 b"Content-Length: 2\r\n\r\n{}")
rc = proc.wait()
elapsed = time.time() - start
for k in sorted(results):
    print("%s: %s" % (k, results[k]))
print("elapsed: %d s" % elapsed)
sys.exit(rc)
