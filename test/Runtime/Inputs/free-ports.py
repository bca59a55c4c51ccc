"""Runs a command with environment variables set to free 127.0.0.1 ports.

usage: free-ports.py NAME... -- COMMAND...
"""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port  # noqa: E402

split = sys.argv.index("--")
env = dict(os.environ)
for name in sys.argv[1:split]:
    env[name] = str(free_port())
sys.exit(subprocess.call(sys.argv[split + 1:], env=env))
