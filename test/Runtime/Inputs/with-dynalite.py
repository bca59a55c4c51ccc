"""Runs a command against a private dynalite (utils/dynalite) on a free
127.0.0.1 port.

usage: with-dynalite.py COMMAND...   ({port} in the arguments is replaced)
The command gets test AWS credentials and region in its environment (dynalite
checks that requests are signed, not the signatures).
"""
import os, signal, socket, subprocess, sys, time

src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
cli = os.path.join(src, "utils", "dynalite", "node_modules", "dynalite", "cli.js")
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
server = subprocess.Popen(
    ["node", cli, "--port", str(port), "--host", "127.0.0.1",
     "--createTableMs", "0", "--deleteTableMs", "0"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    cmd = [a.replace("{port}", str(port)) for a in sys.argv[1:]]
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDUNUMTEST",
               AWS_SECRET_ACCESS_KEY="unum-test-secret", AWS_REGION="us-east-1")
    env.pop("AWS_SESSION_TOKEN", None)
    sys.exit(subprocess.call(cmd, env=env, shell=len(cmd) == 1))
finally:
    server.terminate()
    server.wait()
