"""Kills unum-run with SIGKILL at random moments and finishes the session.

usage: kill-resume.py UNUM_RUN APPDIR INPUT WORKDIR [--runs N] [--seed S]

First a crash-free run (its outputs and --effects file are the reference).
Then N times: a run on a fresh SQLite store is killed after a random delay
(up to the reference run's time, adjusted as runs
finish before the kill or are killed before they commit anything); the session is finished by
`unum-run --resume`, or, every third time, by running the same command
again (which must say that it resumes); a resume is itself killed now and
then before the last one. Every run must end with the reference's outputs
and effects, byte for byte. The delays come from --seed (default 1), and a
failure names the seed and the run, with the commands to replay it.
"""
import os, random, signal, sqlite3, subprocess, sys, time

args = sys.argv[1:]
opts = {"--runs": "50", "--seed": "1"}
while len(args) > 4:
    opts[args[-2]] = args[-1]
    args = args[:-2]
unum_run, app, inp, work = args
runs, seed = int(opts["--runs"]), int(opts["--seed"])
os.makedirs(work, exist_ok=True)


def fail(msg):
    print("FAIL (seed %d): %s" % (seed, msg))
    print("replay: %s %s" % (sys.executable, " ".join(sys.argv)))
    sys.exit(1)


def launch(cmd, out):
    with open(out, "wb") as o, open(out + ".err", "wb") as e:
        return subprocess.Popen(cmd, stdout=o, stderr=e)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# The crash-free reference.
ref_db = os.path.join(work, "ref.db")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(ref_db + suffix):
        os.remove(ref_db + suffix)
ref_out, ref_fx = os.path.join(work, "ref.out"), os.path.join(work, "ref.fx")
t0 = time.monotonic()
p = launch([unum_run, app, "--input", inp, "--store", "sqlite:" + ref_db,
            "--effects", ref_fx], ref_out)
if p.wait() != 0:
    fail("the crash-free run failed: " + read(ref_out + ".err").decode())
span = time.monotonic() - t0
reference = (read(ref_out), read(ref_fx))

def committed(db):
    """Whether the store holds anything of the session."""
    if not os.path.exists(db):
        return False
    c = sqlite3.connect(db)
    try:
        n = 0
        for table in ("unum_records", "unum_effects", "unum_kv"):
            try:
                n += c.execute("SELECT count(*) FROM " + table).fetchone()[0]
            except sqlite3.OperationalError:
                pass  # killed before the schema was written
        return n > 0
    finally:
        c.close()


rng = random.Random(seed)
killed = resumed = killed_resumes = reruns = early = 0
for run in range(runs):
    db = os.path.join(work, "run%d.db" % run)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    session = "kill-%d" % run
    out, fx = os.path.join(work, "run%d.out" % run), db + ".fx"
    store = ["--store", "sqlite:" + db, "--effects", fx]
    first = [unum_run, app, "--input", inp, "--session", session] + store
    plain = [unum_run, app, "--input", inp] + store
    resume = [unum_run, app, "--resume", session] + store
    where = "run %d (%s)" % (run, " ".join(first))
    p = launch(first, out)
    # (The first tenth or so of a run is the process starting up.)
    time.sleep(rng.uniform(0.1 * span, span))
    if p.poll() is None:
        p.send_signal(signal.SIGKILL)
        p.wait()
        killed += 1
        # Finish it: some resumes are killed too, the last one is not.
        for attempt in range(3):
            had = committed(db)
            rerun = run % 3 == 2
            cmd = plain if rerun else resume
            p = launch(cmd, out)
            if attempt < 2 and rng.random() < 0.3:
                time.sleep(rng.uniform(0, span))
                if p.poll() is None:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    killed_resumes += 1
                    continue
            if p.wait() != 0:
                err = read(out + ".err").decode()
                if "no session '%s'" % session in err and not committed(db):
                    # Killed before anything was committed: nothing to
                    # resume, and the same run again starts afresh.
                    early += 1
                    span *= 1.1  # aim later
                    cmd = first
                    p = launch(cmd, out)
                    p.wait()
                if p.returncode != 0:
                    fail("%s: %s exited with %d: %s" % (where, " ".join(cmd),
                         p.returncode, read(out + ".err").decode()))
                break
            err = read(out + ".err").decode()
            if rerun and had and "resuming session " not in err:
                fail("%s: the rerun did not say that it resumes (%s): %r" %
                     (where, session, err))
            reruns += rerun
            resumed += 1
            break
    elif p.returncode != 0:
        fail("%s exited with %d: %s" % (where, p.returncode,
                                        read(out + ".err").decode()))
    else:
        span *= 0.9  # it finished first: aim earlier (a loaded machine)
    got = (read(out), read(fx))
    if got[0] != reference[0]:
        fail("%s: outputs differ from the crash-free run:\n%s\nvs\n%s" %
             (where, got[0].decode(), reference[0].decode()))
    if got[1] != reference[1]:
        fail("%s: effects differ from the crash-free run (%s vs %s)" %
             (where, fx, ref_fx))
    # A finished session leaves nothing behind (gc on).
    leftover = subprocess.run(
        [unum_run, app, "--resume", session, "--store", "sqlite:" + db],
        capture_output=True, text=True)
    if leftover.returncode == 0 or "no session" not in leftover.stderr:
        fail("%s: the finished session is still in the store: %s" %
             (where, leftover.stderr))

print("%d runs, %d killed mid-run (%d resumes killed too), %d finished by "
      "--resume or a rerun (%d reruns), %d killed before anything was "
      "committed: all identical to the crash-free run"
      % (runs, killed, killed_resumes, resumed, reruns, early))
# A test in which no kill lands mid-run shows nothing.
if resumed < runs // 4:
    fail("only %d of %d runs were killed mid-run and resumed" %
         (resumed, runs))
