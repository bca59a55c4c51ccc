"""Timing shared by the Python benchmarks (air_grad_bench.py,
air_rows_bench.py)."""
import time


def best(fn, reps, clock=time.perf_counter):
    """The shortest of `reps` timed calls of `fn`, after one untimed call
    (page faults, caches). `clock=time.process_time` measures this process's
    CPU time instead of wall time (on a busy machine)."""
    return best_and_median(fn, reps, clock)[0]

def best_and_median(fn, reps, clock=time.perf_counter):
    """(shortest, median) of `reps` timed calls of `fn`, after one untimed
    call, as `best`."""
    fn()
    times = []
    for _ in range(reps):
        t = clock()
        fn()
        times.append(clock() - t)
    times.sort()
    return times[0], times[len(times) // 2]


def alternating(fns, reps, clock=time.perf_counter):
    """[(shortest, median)] of `reps` timed calls of each of `fns`, the calls
    interleaved (rep 1 of every fn, then rep 2, ...) after one untimed call
    of each: a change of load or clock during the run hits every fn alike,
    so their ratios hold up better than those of back-to-back series."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(reps):
        for fn, ts in zip(fns, times):
            t = clock()
            fn()
            ts.append(clock() - t)
    result = []
    for ts in times:
        ts.sort()
        result.append((ts[0], ts[len(ts) // 2]))
    return result


def cpu_description():
    """'model name; vector features' of this machine (from /proc/cpuinfo)."""
    model, flags = "unknown CPU", []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model == "unknown CPU":
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = value.split()
    except OSError:
        pass
    vector = [f for f in flags if f in ("sse4_2", "avx", "avx2", "fma")
              or f.startswith("avx512")]
    return "%s; %s" % (model, " ".join(vector) or "no vector features found")
