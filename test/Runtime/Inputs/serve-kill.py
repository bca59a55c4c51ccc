"""Every function of an app in its own unum-serve process, a shared store
(Redis, DynamoDB or SQLite), and a supervisor that kills a random function process
with SIGKILL at random moments and starts it again (as a platform replaces a
container).

usage: serve-kill.py UNUM_SERVE UNUM_RUN APPDIR STORE WORKDIR [--runs N] [--width W]...
                     [--seed S] [--kills-per-run K]
STORE: a Redis port on 127.0.0.1 (with-redis.py's {port}), a
dynamodb://127.0.0.1:PORT/TABLE?... URI (with-dynalite.py's dynalite), or
a sqlite:PATH URI (one file the hosts share).

First the reference: the same input run crash-free by `unum-run` in one
process (memory store). Then, for each --width W (a Map of W items; runs
are spread over the widths in turn), N runs in all: `unum-serve --submit`
starts the workflow on the hosts and waits for it while the supervisor
kills and restarts hosts. Each run's outputs and committed effects must be
the reference's, byte for byte (so every fan-in target committed once), and
each session is deleted by the client. At the end the hosts are stopped
with SIGTERM (each must exit 0 after draining) and the store must hold
nothing (Redis: no key; DynamoDB: no item in the table; SQLite: no row).
A failure prints the seed and the command to replay it.
"""
import json, os, random, signal, socket, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netutil import free_port, healthy, request  # noqa: E402

args = sys.argv[1:]
opts = {"--runs": "20", "--seed": "1", "--kills-per-run": "2"}
widths = []
while len(args) > 5:
    if args[-2] == "--width":
        widths.insert(0, int(args[-1]))
    else:
        opts[args[-2]] = args[-1]
    args = args[:-2]
unum_serve, unum_run, app, store_arg, work = args
runs, seed, kills = int(opts["--runs"]), int(opts["--seed"]), int(opts["--kills-per-run"])
widths = widths or [50]
if store_arg.isdigit():
    store, store_name = "redis://127.0.0.1:%s" % store_arg, "Redis"
elif store_arg.startswith("sqlite:"):
    store, store_name = store_arg, "SQLite"
else:
    store, store_name = store_arg, "DynamoDB"
os.makedirs(work, exist_ok=True)
rng = random.Random(seed)
hosts = {}  # function -> [port, Popen, log file]


def fail(msg):
    print("FAIL (seed %d): %s" % (seed, msg))
    print("replay: %s %s" % (sys.executable, " ".join(sys.argv)))
    for fn, (port, p, log) in hosts.items():
        if p.poll() is None:
            p.kill()
    sys.exit(1)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def redis(*cmd):
    """One command to Redis over RESP; the reply (an int, bytes or None)."""
    s = socket.create_connection(("127.0.0.1", int(store_arg)), 5)
    req = b"*%d\r\n" % len(cmd)
    for c in cmd:
        c = c.encode() if isinstance(c, str) else c
        req += b"$%d\r\n%s\r\n" % (len(c), c)
    s.sendall(req)
    data = b""
    while not data.endswith(b"\r\n"):
        data += s.recv(65536)
    s.close()
    if data[:1] == b":":
        return int(data[1:-2])
    return data


def dynamo_items():
    """The (pk, sk) of every item in the DynamoDB table: a Scan (dynalite
    checks that a request is signed, not its signature)."""
    rest = store[len("dynamodb://"):]
    hostport, table = rest.split("/", 1)
    table = table.split("?", 1)[0]
    items, start = [], None
    while True:
        req = {"TableName": table, "ConsistentRead": True,
               "ProjectionExpression": "pk, sk"}
        if start:
            req["ExclusiveStartKey"] = start
        body = json.dumps(req).encode()
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        head = ("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: "
                "application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.Scan\r\n"
                "X-Amz-Date: %s\r\nAuthorization: AWS4-HMAC-SHA256 Credential="
                "%s/%s/%s/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;"
                "x-amz-target, Signature=%s\r\nContent-Length: %d\r\n"
                "Connection: close\r\n\r\n" % (
                    hostport, stamp, os.environ["AWS_ACCESS_KEY_ID"], stamp[:8],
                    os.environ["AWS_REGION"], "0" * 64, len(body)))
        status, answer = request(int(hostport.rsplit(":", 1)[1]),
                                 head.encode() + body, 10)
        if " 200 " not in status:
            fail("the Scan failed: %s %s" % (status, answer[:500]))
        answer = json.loads(answer)
        items += [(i["pk"]["S"], i["sk"]["S"]) for i in answer.get("Items", [])]
        start = answer.get("LastEvaluatedKey")
        if not start:
            return items


functions = sorted(d for d in os.listdir(app)
                   if os.path.isfile(os.path.join(app, d, "unum_config.json")))
for fn in functions:
    hosts[fn] = [free_port(), None, os.path.join(work, fn + ".log")]
url_map = os.path.join(work, "urls.json")
with open(url_map, "w") as f:
    json.dump({fn: "http://127.0.0.1:%d/" % hosts[fn][0] for fn in functions}, f)


def start(fn):
    port, _, log = hosts[fn]
    deadline = time.monotonic() + 10
    while True:
        size = os.path.getsize(log) if os.path.exists(log) else 0
        with open(log, "ab") as logf:
            hosts[fn][1] = subprocess.Popen(
                [unum_serve, app, "--function", fn, "--listen", "127.0.0.1:%d" % port,
                 "--store", store, "--url-map", url_map, "--concurrency", "8",
                 "--sweep-interval", "0.3"],
                stdout=logf, stderr=logf, env=dict(os.environ, SERVE_TEST_RUNS=log_runs))
        while not healthy(port):
            if hosts[fn][1].poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        else:
            return
        # The killed host's port may be held for a moment still (by a
        # handler process it was starting, until that one's exec closes
        # it): the platform starts the container again.
        if (hosts[fn][1].poll() is not None and time.monotonic() < deadline
                and b"Address already in use" in read(log)[size:]):
            time.sleep(0.1)
            continue
        fail("%s did not start: %s" % (fn, read(log).decode()[-2000:]))


log_runs = os.path.join(work, "total-runs.log")
for fn in functions:
    start(fn)

inputs = {}
for w in widths:
    inputs[w] = os.path.join(work, "in%d.json" % w)
    with open(inputs[w], "w") as f:
        json.dump({"items": list(range(1, w + 1))}, f)

# The crash-free references, in one process.
reference = {}
for w in widths:
    out, fx = os.path.join(work, "ref%d.out" % w), os.path.join(work, "ref%d.fx" % w)
    with open(out, "wb") as o:
        if subprocess.call([unum_run, app, "--input", inputs[w], "--effects", fx],
                           stdout=o) != 0:
            fail("the crash-free run failed")
    reference[w] = (read(out), read(fx))

killed = 0
runs_of = {}
times = []  # (width, seconds) per run
for run in range(runs):
    w = widths[run % len(widths)]
    runs_of[w] = runs_of.get(w, 0) + 1
    out, fx = os.path.join(work, "run%d.out" % run), os.path.join(work, "run%d.fx" % run)
    t0 = time.monotonic()
    with open(out, "wb") as o, open(out + ".err", "wb") as e:
        client = subprocess.Popen(
            [unum_serve, app, "--submit", inputs[w], "--store", store,
             "--url-map", url_map, "--effects", fx, "--timeout", "60"],
            stdout=o, stderr=e)
    # The kills: at random moments of the run (a reference span of 0.05 s
    # plus 2 ms per item), each of a random host, started again at once.
    span = 0.05 + 0.002 * w
    moments = sorted(rng.uniform(0, span) for _ in range(kills))
    for at in moments:
        delay = t0 + at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        if client.poll() is not None:
            break
        fn = rng.choice(functions)
        hosts[fn][1].kill()
        hosts[fn][1].wait()
        killed += 1
        start(fn)
    try:
        rc = client.wait(timeout=90)
    except subprocess.TimeoutExpired:
        client.kill()
        fail("run %d (width %d) did not finish" % (run, w))
    if rc != 0:
        fail("run %d (width %d) failed: %s" % (run, w, read(out + ".err").decode()[-3000:]))
    if read(out) != reference[w][0]:
        fail("run %d (width %d): outputs differ from the crash-free run" % (run, w))
    if read(fx) != reference[w][1]:
        fail("run %d (width %d): effects differ from the crash-free run (see %s)" % (run, w, fx))
    times.append((w, time.monotonic() - t0))

# Graceful shutdown: SIGTERM, every host drains and exits 0.
for fn in functions:
    hosts[fn][1].send_signal(signal.SIGTERM)
for fn in functions:
    try:
        rc = hosts[fn][1].wait(timeout=30)
    except subprocess.TimeoutExpired:
        fail("%s did not stop on SIGTERM" % fn)
    if rc != 0:
        fail("%s exited %d on SIGTERM: %s" % (fn, rc, read(hosts[fn][2]).decode()[-2000:]))
if store_name == "Redis":
    left = redis("DBSIZE")
    if left != 0:
        keys = redis("KEYS", "*")
        fail("Redis holds %s key(s) after the runs: %r" % (left, keys[:500]))
elif store_name == "SQLite":
    import sqlite3
    con = sqlite3.connect(store[len("sqlite:"):].split("?")[0], timeout=30)
    tables = [t for (t,) in con.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'unum%'")]
    left = {t: n for t in tables
            for (n,) in [con.execute('SELECT count(*) FROM "%s"' % t).fetchone()] if n}
    con.close()
    if not tables or left:
        fail("the SQLite file holds rows after the runs: %r (tables %r)" % (left, tables))
else:
    # (the store's layout marker stays: lib/Runtime/DynamoStore.cpp)
    left = [i for i in dynamo_items() if i[0] != "unum-layout"]
    if left:
        fail("the table holds %d item(s) after the runs: %r" % (len(left), left[:50]))
# How often the fan-in target's user code really ran (outside the store):
# once per session, more only where a kill landed between its run and its
# checkpoint (its effect is still committed once: checked above).
ran = {}
if os.path.exists(log_runs):
    for line in open(log_runs):
        ran[line.split()[0]] = ran.get(line.split()[0], 0) + 1
if len(ran) != runs:
    fail("the fan-in target ran in %d sessions, not %d" % (len(ran), runs))
print("%d runs (%s) on %d unum-serve processes, %s store, %d hosts killed "
      "with SIGKILL and restarted: outputs and effects identical to the "
      "crash-free run, store empty" % (
          runs, ", ".join("%d of width %d" % (runs_of[w], w)
                          for w in sorted(set(widths), reverse=True)),
          len(functions), store_name, killed))
sys.stderr.write("per-run wall times: %s\n" % " ".join(
    "%d:%.2fs" % (w, t) for w, t in times))
print("the fan-in target's user code ran %d times in %d sessions (its effect "
      "committed once in each)" % (sum(ran.values()), runs))
