#!/usr/bin/python3
"""f32 exp and log of AIR programs against a double-precision reference
(docs/Air.md's accuracy statement). A pytest module; run by hand for the
table: PYTHONPATH=build/python /usr/bin/python3 test/python/test_math_accuracy.py

Compiles `exp(x)` and `log(x)` for f32 with unum.jit (air-expand-math's
polynomials, vectorised) and measures the error in ulps of the f32 result
against numpy's float64 exp/log (whose own error is far below an f32 ulp):

* exp: every f32 in [80, 89] and in [-104, -87] (where the result
  overflows, or is subnormal), and every 997th bit pattern over all of f32;
* log: every 97th f32 subnormal bit pattern, every 7th f32 in
  [0.5, 2], and every 997th positive bit pattern;
* special values: +-0, +-inf, NaN, huge and tiny arguments.

An ulp is that of the reference rounded to f32 (2^-149 for subnormals).
By hand it prints the largest error per range; exit status 1 if any exceeds
--max-ulp (default 1) or a special value is wrong.
"""
import argparse
import sys

import numpy as np

import unum


@unum.jit
def air_exp(x):
    return np.exp(x)


@unum.jit
def air_log(x):
    return np.log(x)


def f32_range(lo, hi, step=1):
    """Every `step`th f32 bit pattern in [lo, hi] (same sign)."""
    a, b = np.array([lo, hi], dtype=np.float32).view(np.int32)
    if a > b:
        a, b = b, a
    return np.arange(a, b + 1, step, dtype=np.int32).view(np.float32)


def every(step, positive_only=False):
    bits = np.arange(0, 2**32, step, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[np.isfinite(x)]
    return x[x > 0] if positive_only else x


def ulp_error(got, ref):
    """|got - ref| in ulps of ref rounded to f32; inf where they disagree on
    a non-finite result."""
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    err = np.zeros(len(got))
    finite = np.isfinite(ref32)
    mag = np.abs(ref[finite])
    with np.errstate(divide="ignore"):
        exp2 = np.floor(np.log2(np.where(mag > 0, mag, 1e-300)))
    ulp = np.exp2(np.maximum(exp2 - 23, -149))
    err[finite] = np.abs(got[finite].astype(np.float64) - ref[finite]) / ulp
    bad = ~finite & (got != ref32) & ~(np.isnan(got) & np.isnan(ref32))
    err[bad] = np.inf
    return err


RANGES = [
    ("exp [80, 89]", air_exp, np.exp, lambda: f32_range(80.0, 89.0)),
    ("exp [-104, -87]", air_exp, np.exp, lambda: f32_range(-104.0, -87.0)),
    ("exp every 997th", air_exp, np.exp, lambda: every(997)),
    ("log subnormals/97", air_log, np.log,
     lambda: f32_range(np.float32(1.4e-45), np.float32(1.1754942e-38), 97)),
    ("log [0.5, 2] every 7th", air_log, np.log,
     lambda: f32_range(0.5, 2.0, 7)),
    ("log every 997th > 0", air_log, np.log, lambda: every(997, True)),
]

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-45,
                     -1e-45, 88.72283, 88.72284, -103.97208, -103.9721],
                    dtype=np.float32)


def worst_error(fn, ref_fn, x):
    """(max ulp error, argument, result, reference)."""
    got = fn(x)
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64))
        err = ulp_error(got, ref)
    i = int(np.argmax(err))
    return err[i], float(x[i]), float(got[i]), float(ref[i])


def wrong_specials(fn, ref_fn, max_ulp):
    """The special arguments whose result is neither the reference's value
    nor within max_ulp of it."""
    got = fn(SPECIALS)
    with np.errstate(all="ignore"):
        ref = ref_fn(SPECIALS.astype(np.float64))
        want = ref.astype(np.float32)
        close = ulp_error(got, ref) <= max_ulp
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    bad = ~same & ~close
    return list(zip(SPECIALS[bad].tolist(), got[bad].tolist(),
                    want[bad].tolist()))


def test_within_one_ulp():
    for name, fn, ref_fn, values in RANGES:
        err, x, got, ref = worst_error(fn, ref_fn, values())
        assert err <= 1.0, "%s: %.3f ulp at %r (got %r, want %r)" % (
            name, err, x, got, ref)


def test_special_values():
    for fn, ref_fn in ((air_exp, np.exp), (air_log, np.log)):
        assert wrong_specials(fn, ref_fn, 1.0) == []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-ulp", type=float, default=1.0)
    args = parser.parse_args()
    failed = False
    for name, fn, ref_fn, values in RANGES:
        x = values()
        err, arg, got, ref = worst_error(fn, ref_fn, x)
        ok = err <= args.max_ulp
        failed |= not ok
        print("%-22s %9d values, max %.3f ulp at %r (got %r, want %r)%s" % (
            name, len(x), err, arg, got, ref, "" if ok else "  FAIL"))
    for name, fn, ref_fn in (("exp", air_exp, np.exp), ("log", air_log, np.log)):
        bad = wrong_specials(fn, ref_fn, args.max_ulp)
        failed |= bool(bad)
        print("%s specials: %s" % (name, "ok" if not bad else
                                   "wrong (x, got, want) %r" % bad))
    print("FAILED" if failed else "all within %g ulp" % args.max_ulp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
