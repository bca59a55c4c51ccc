"""Runs a command against a private redis-server on a free 127.0.0.1 port.

usage: with-redis.py COMMAND...   ({port} in the arguments is replaced)
"""
import os, socket, subprocess, sys, tempfile, time

s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
with tempfile.TemporaryDirectory() as d:
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
         "--save", "", "--appendonly", "no", "--dir", d],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        cmd = [a.replace("{port}", str(port)) for a in sys.argv[1:]]
        sys.exit(subprocess.call(cmd))
    finally:
        server.terminate()
        server.wait()
