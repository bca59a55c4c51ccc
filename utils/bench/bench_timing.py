"""Timing shared by the Python benchmarks (air_grad_bench.py,
air_rows_bench.py)."""
import time


def best(fn, reps, clock=time.perf_counter):
    """The shortest of `reps` timed calls of `fn`, after one untimed call
    (page faults, caches). `clock=time.process_time` measures this process's
    CPU time instead of wall time (on a busy machine)."""
    fn()
    times = []
    for _ in range(reps):
        t = clock()
        fn()
        times.append(clock() - t)
    return min(times)
