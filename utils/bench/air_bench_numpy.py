"""Column (ii) of unum-air-bench: numpy, run by the driver as a subprocess.

Times the natural expressions, as a user writes them (fresh result arrays,
numpy's own temporaries, no out=), with time.perf_counter, and prints one line
per (expression, size) for the driver to parse:

    E1 25 <wall best> <wall median> <cpu best> <cpu median> <preempted>
          <sum of the result in f64> <16 sampled values>

(times in seconds; cpu is time.process_time, for runs on a shared core;
preempted counts runs whose cpu time was under 90% of their wall time).

The inputs are the driver's: both sides compute them from the element index
with the same integer hash and exact float32 arithmetic, so the driver can
check numpy's sampled values and sum against its naive evaluator.
"""

import argparse
import statistics
import sys
import time

import numpy as np

M64 = (1 << 64) - 1
NSAMPLES = 16


def unit(n, seed):
    """u[i] in [0, 1), a multiple of 2^-23: splitmix64 of i, top 23 bits."""
    z = np.arange(n, dtype=np.uint64)
    z *= np.uint64(0x9E3779B97F4A7C15)
    z += np.uint64(seed)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    u = (z >> np.uint64(41)).astype(np.float32)
    del z
    u *= np.float32(2.0**-23)
    return u


def inputs(n):
    # Exact in float32, so the driver's copy is bit-identical.
    a = unit(n, 1) * np.float32(2) - np.float32(1)  # [-1, 1): exp stays tame
    b = unit(n, 2)
    c = unit(n, 3)
    d = unit(n, 4) + np.float32(1)  # [1, 2): no division by ~0
    return a, b, c, d


def sample_indices(n):
    return [(k * 2654435761 + 12345) % n for k in range(NSAMPLES)]


EXPRS = {
    "E1": lambda a, b, c, d: (a * b + c) * d,
    "E2": lambda a, b, c, d: np.exp(a) * b + c / d,
    "E3": lambda a, b, c, d: np.sum((a - b) ** 2),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log2", type=int, nargs="+", required=True)
    p.add_argument("--exprs", nargs="+", default=list(EXPRS))
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=1)
    args = p.parse_args()
    print("numpy", np.__version__, flush=True)
    for lg in args.log2:
        n = 1 << lg
        a, b, c, d = inputs(n)
        for name in args.exprs:
            f = EXPRS[name]
            wall, cpu = [], []
            r = None
            for rep in range(args.warmup + args.reps):
                r = None  # free the last result outside the timed region
                c0 = time.process_time()
                t0 = time.perf_counter()
                r = f(a, b, c, d)
                t = time.perf_counter() - t0
                ct = time.process_time() - c0
                if rep >= args.warmup:
                    wall.append(t)
                    cpu.append(ct)
            if np.ndim(r) == 0:
                total = float(r)
                samples = [float(r)] * NSAMPLES
            else:
                total = float(np.sum(r, dtype=np.float64))
                samples = [float(r[i]) for i in sample_indices(n)]
            r = None
            preempted = sum(1 for w, ct in zip(wall, cpu) if ct < 0.9 * w)
            print(name, lg, repr(min(wall)), repr(statistics.median(wall)),
                  repr(min(cpu)), repr(statistics.median(cpu)), preempted,
                  repr(total), " ".join(repr(s) for s in samples), flush=True)
        del a, b, c, d
    return 0


if __name__ == "__main__":
    sys.exit(main())
