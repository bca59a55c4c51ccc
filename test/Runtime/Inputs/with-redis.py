"""Runs a command against a private redis-server on a free 127.0.0.1 port.

usage: with-redis.py COMMAND...   ({port} in the arguments is replaced)
The command finds the server's process id in TEST_REDIS_PID.
"""
import os, signal, socket, subprocess, sys, tempfile, time

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
        env = dict(os.environ, TEST_REDIS_PID=str(server.pid))
        sys.exit(subprocess.call(cmd, env=env))
    finally:
        os.kill(server.pid, signal.SIGCONT)  # if a test paused it
        server.terminate()
        server.wait()
