"""A Redis paused (SIGSTOP) in the middle of a run, then resumed.

usage: with-redis.py redis-pause.py UNUM_RUN APPDIR PORT WORKDIR

Runs APPDIR against the redis-server that with-redis.py started (its pid in
TEST_REDIS_PID); APPDIR's start function pauses the server, and commands
have a time limit of 0.5 s. The run must end within 60 s with one error
saying what happened (not hang, not repeat itself). Then the server
continues (SIGCONT) and `unum-run --resume` finishes the session. Everything
is printed for FileCheck.
"""
import os, signal, subprocess, sys, time

unum_run, app, port, work = sys.argv[1:]
os.makedirs(work, exist_ok=True)
pid = int(os.environ["TEST_REDIS_PID"])
env = dict(os.environ, TEST_PAUSE_MARK=os.path.join(work, "paused"))
if os.path.exists(env["TEST_PAUSE_MARK"]):
    os.remove(env["TEST_PAUSE_MARK"])
store = "redis://127.0.0.1:%s?timeout=0.5" % port
input_path = os.path.join(work, "in.json")
with open(input_path, "w") as f:
    f.write("21\n")
t0 = time.monotonic()
try:
    r = subprocess.run([unum_run, app, "--input", input_path, "--store", store,
                        "--session", "paused"],
                       capture_output=True, text=True, env=env, timeout=60)
except subprocess.TimeoutExpired:
    print("HUNG: unum-run did not end within 60 s")
    sys.exit(1)
finally:
    took = time.monotonic() - t0
print("paused run: exit %d, %d error line(s), within 60 s: %s" %
      (r.returncode, r.stderr.count("error:"), took < 60))
sys.stdout.write(r.stdout + r.stderr)
os.kill(pid, signal.SIGCONT)
r = subprocess.run([unum_run, app, "--resume", "paused", "--store", store],
                   capture_output=True, text=True, env=env, timeout=60)
print("resumed run: exit %d" % r.returncode)
sys.stdout.write(r.stdout + r.stderr)
