#!/usr/bin/env python3
"""Per-transition latency through unum-serve over loopback HTTP with Redis,
against a bare HTTP round trip plus one Redis write (issue 17's goal: at
most 1.5x).

usage: utils/bench/serve_bench.py [--build build] [--transitions N] [--repeat R]
                                  [--perf stat|record --perf-dir DIR]
                                  [--perf-event E]

Starts a private redis-server and two unum-serve hosts on 127.0.0.1, writes
an app that is a chain of N built-in Pass functions (they alternate between
the hosts, so every transition is an HTTP POST) whose last continuation goes
to a sink in the bench process, runs build/bin/unum-serve-bench (R rounds,
each a floor block and a chain, which goes first alternating), and prints
per round the two per-step figures and their ratio, then the median of the
rounds' ratios with its range and quartiles, the CPU model and features and
the load average: on a busy machine the latencies are noise, the ratio less
so, and the CPU time per step (user and system, of the hosts and
redis-server against the floor's client, server and redis-server) hardly
depends on the load.

--perf stat: each host runs under `perf stat` (all its threads, from its
start to its end: the chain runs and a little idle time) and the bench
prints their task clock, context switches and migrations per transition;
--perf record: under `perf record -g`, a profile of each host in
DIR/host0.data and DIR/host1.data (`perf report -i DIR/host0.data
--no-children`).
"""
import argparse, json, os, socket, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--transitions", type=int, default=200)
ap.add_argument("--repeat", type=int, default=40)
ap.add_argument("--perf", choices=["stat", "record"])
ap.add_argument("--perf-dir", default=".")
ap.add_argument("--perf-event", help="--perf record: the event (default cycles)")
ap.add_argument("--redis-stats", action="store_true",
                help="print redis-server's INFO commandstats after the run")
args = ap.parse_args()
bin_dir = os.path.abspath(os.path.join(args.build, "bin"))


# The tests' helper: a free 127.0.0.1 port.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "test", "Runtime", "Inputs"))
from netutil import free_port  # noqa: E402


def wait_port(port):
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return
        except OSError:
            time.sleep(0.01)
    sys.exit("port %d never opened" % port)


procs = []
try:
    with tempfile.TemporaryDirectory() as d:
        rport = free_port()
        procs.append(subprocess.Popen(
            ["redis-server", "--port", str(rport), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", d], stdout=subprocess.DEVNULL))
        wait_port(rport)
        store = "redis://127.0.0.1:%d" % rport
        n = args.transitions
        # A chain of N functions written directly (unumc would merge a
        # chain of Pass states into one function): built-in Pass steps, no
        # handler process, each checkpointed.
        app = os.path.join(d, "app")
        for i in range(1, n + 1):
            cfg = {"Name": "S%d" % i, "Checkpoint": True, "Builtin": "Pass"}
            if i == 1:
                cfg["Start"] = True
            cfg["Next"] = {"Name": "S%d" % (i + 1) if i < n else "Sink",
                           "InputType": "Scalar"}
            os.makedirs(os.path.join(app, "S%d" % i))
            with open(os.path.join(app, "S%d" % i, "unum_config.json"), "w") as f:
                json.dump(cfg, f)
        # The chain's end: a function no host runs, whose URL is the bench's
        # sink (the arrival of its POST ends a chain's measurement).
        os.makedirs(os.path.join(app, "Sink"))
        with open(os.path.join(app, "Sink", "unum_config.json"), "w") as f:
            json.dump({"Name": "Sink", "Builtin": "Pass"}, f)
        ports = [free_port(), free_port()]
        sink_port = free_port()
        urls = {"S%d" % i: "http://127.0.0.1:%d/fn/S%d" % (ports[i % 2], i)
                for i in range(1, n + 1)}
        urls["Sink"] = "http://127.0.0.1:%d/fn/Sink" % sink_port
        url_map = os.path.join(d, "urls.json")
        with open(url_map, "w") as f:
            json.dump(urls, f)
        perfs, hosts = [], []
        for h in (0, 1):
            cmd = [os.path.join(bin_dir, "unum-serve"), app, "--listen",
                   "127.0.0.1:%d" % ports[h], "--store", store, "--url-map", url_map]
            for i in range(1, n + 1):
                if i % 2 == h:
                    cmd += ["--function", "S%d" % i]
            if args.perf == "stat":
                cmd = ["perf", "stat", "-x", ",", "-e",
                       "task-clock,context-switches,cpu-migrations", "-o",
                       os.path.join(args.perf_dir, "host%d.stat" % h), "--"] + cmd
            elif args.perf == "record":
                cmd = ["perf", "record", "-q", "-g"] + (
                    ["-e", args.perf_event] if args.perf_event else []) + ["-o",
                       os.path.join(args.perf_dir, "host%d.data" % h), "--"] + cmd
            p = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
            (perfs if args.perf else procs).append(p)
            hosts.append(p.pid)
        for p in ports:
            wait_port(p)
        if args.perf:
            # The hosts are perf's children: their pids for the CPU times.
            for h, pid in enumerate(hosts):
                with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                    hosts[h] = int(f.read().split()[0])
        rc = subprocess.call([os.path.join(bin_dir, "unum-serve-bench"), "--store", store,
                              "--app", app, "--url-map", url_map,
                              "--sink-port", str(sink_port),
                              "--transitions", str(n), "--repeat", str(args.repeat),
                              "--host-pids", ",".join(str(pid) for pid in hosts),
                              "--redis-pid", str(procs[0].pid)])
        if args.redis_stats:
            # Calls and server-side time per command: the floor's SET
            # against the chain's put script (EVALSHA) and outbox commands.
            out = subprocess.run(["redis-cli", "-p", str(rport), "INFO", "commandstats"],
                                 capture_output=True, text=True).stdout
            print("redis-server commandstats (floor and chains together):")
            for line in out.splitlines():
                if line.startswith("cmdstat_"):
                    name, _, fields = line.partition(":")
                    f = dict(kv.split("=") for kv in fields.split(","))
                    print("  %-16s %8s calls %8s us/call" % (
                        name[8:], f["calls"], f["usec_per_call"]))
        for pid in hosts if args.perf else []:
            os.kill(pid, 15)  # perf writes its output once its host ended
        for p in perfs:
            p.wait()
        if args.perf == "stat":
            steps = n * args.repeat
            total = {}
            for h in range(len(perfs)):
                with open(os.path.join(args.perf_dir, "host%d.stat" % h)) as f:
                    for line in f:
                        fields = line.strip().split(",")
                        if len(fields) > 2 and fields[0] and fields[0][0].isdigit():
                            total[fields[2]] = total.get(fields[2], 0) + float(fields[0])
            print("perf stat, both hosts, per transition: %.1f us task clock, "
                  "%.2f context switches, %.2f migrations" % (
                      total.get("task-clock", 0) * 1e3 / steps,
                      total.get("context-switches", 0) / steps,
                      total.get("cpu-migrations", 0) / steps))
        sys.exit(rc)
finally:
    for p in procs:
        p.terminate()
        p.wait()
