"""unum-serve's --concurrency bound with invocations that run on the
connections' threads after their 202 and on the runner's workers.

usage: serve-concurrency.py UNUM_SERVE WORKDIR N CONCURRENCY

Writes an app of one start function whose handler marks itself running (a
directory per process), records how many are marked, sleeps 0.3 s and
unmarks itself; starts `unum-serve --concurrency CONCURRENCY`, POSTs N
starts at once (each on its own connection), waits until all ran, and
prints how many ran and whether more than CONCURRENCY ever ran at once.
(The count is exact when the bound is broken: more marks than the bound
existed at the same moment; a bound that holds cannot be reported broken,
whatever the machine's load.)
"""
import json, os, signal, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port, healthy, request  # noqa: E402

unum_serve, work, n, concurrency = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
app = os.path.join(work, "app")
marks = os.path.join(work, "marks")
os.makedirs(os.path.join(app, "Slow"))
os.makedirs(marks)
with open(os.path.join(app, "Slow", "unum_config.json"), "w") as f:
    json.dump({"Name": "Slow", "Start": True}, f)
handler = os.path.join(app, "Slow", "handler")
with open(handler, "w") as f:
    f.write("""#!/bin/sh
cat >/dev/null
mkdir "$SLOW_MARKS/run.$$"
ls -d "$SLOW_MARKS"/run.* | wc -l >>"$SLOW_MARKS/seen"
sleep 0.3
rmdir "$SLOW_MARKS/run.$$"
echo '{"done": true}'
""")
os.chmod(handler, 0o755)

port = free_port()
host = subprocess.Popen([unum_serve, app, "--listen", "127.0.0.1:%d" % port,
                         "--concurrency", str(concurrency)],
                        env=dict(os.environ, SLOW_MARKS=marks),
                        stderr=subprocess.PIPE)
for _ in range(1000):
    if healthy(port):
        break
    time.sleep(0.01)

answers = []


def start(i):
    body = b'{"Data": {"Value": %d}}' % i
    answers.append(request(port, b"POST /fn/Slow HTTP/1.1\r\nHost: x\r\n"
                           b"Content-Length: %d\r\n\r\n%s" % (len(body), body), 30)[0])


threads = [threading.Thread(target=start, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("answers:", sorted(set(answers)), len(answers))
seen_path = os.path.join(marks, "seen")
deadline = time.time() + 120
while time.time() < deadline:
    if os.path.exists(seen_path):
        with open(seen_path) as f:
            seen = [int(line) for line in f if line.strip()]
        if len(seen) >= n:
            break
    time.sleep(0.05)
print("ran: %d of %d" % (len(seen), n))
print("at most %d at once: %s" % (concurrency, "yes" if max(seen) <= concurrency
                                   else "NO (%d)" % max(seen)))
host.send_signal(signal.SIGTERM)
_, err = host.communicate(timeout=60)
print("SIGTERM: exit", host.returncode)
if host.returncode:
    sys.stderr.write(err.decode())
