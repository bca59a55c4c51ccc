"""The innermost loops of functions in an `llvm-objdump -d --no-show-raw-insn`
listing, summarised for FileCheck (avx512-loops.test).

For each function named on the command line it prints one line per
innermost loop (a backward branch containing no other one) that does
vector floating-point arithmetic:

    FUNC loop: zmm A ymm B xmm C scalar D fma F acc R loads L stack S

(A..D: arithmetic instructions -- add, sub, mul, div, max, min, FMA, sqrt,
compare, convert, blend -- by register width; F: FMAs; R: distinct FMA
destination registers, i.e. accumulators; L: instructions reading memory;
S: instructions touching the stack through %rsp, i.e. spills), then

    FUNC hottest: ...

for the loop with the most accumulators, then FMAs, then arithmetic (a
register-blocked micro-kernel: the loop a matmul or conv1d spends its time
in). With
--mca CPU the hottest loop's body is also run through llvm-mca for that CPU
and

    FUNC mca CPU: C cycles per iteration for F FMAs: R FMAs per cycle

is printed (a register-blocked kernel on a CPU with two FMA units --
Haswell, Zen 3, Skylake-SP Gold/Platinum, Sapphire Rapids -- can reach 2;
note that LLVM 22's Sapphire Rapids model gives 512-bit FMAs port 0 only,
i.e. at most 1 per cycle, where its Skylake-AVX512 model gives ports 0
and 5).
"""
import argparse
import collections
import re
import subprocess
import sys

ARITH = re.compile(r"^v(add|sub|mul|div|max|min|fn?madd\d+|fn?msub\d+|sqrt|"
                   r"cmp\w*|cvt\w*|blend\w*|rcp\w*|rsqrt\w*)")


def parse(path):
    funcs, func = collections.defaultdict(list), None
    for line in open(path):
        m = re.match(r"^[0-9a-f]+ <(.*)>:", line)
        if m:
            func = m.group(1)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*([^#\n]*)", line)
        if m and func:
            funcs[func].append((int(m.group(1), 16), m.group(2),
                                m.group(3).strip()))
    return funcs


def innermost_loops(insns):
    loops = []
    for addr, op, args in insns:
        if op.startswith("j") and "<" in args:
            target = int(args.split()[0], 16)
            if target < addr:
                loops.append((target, addr))
    return [l for l in loops
            if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]


def summary(body):
    widths = collections.Counter()
    fma, acc, loads, stack = 0, set(), 0, 0
    for _, op, args in body:
        regs = re.findall(r"%([xyz]mm\d+)", args)
        if ARITH.match(op):
            scalar = op.endswith(("ss", "sd")) and not op.startswith("vcvt")
            widths["scalar" if scalar else
                   regs[-1][:3] if regs else "scalar"] += 1
            if "fmadd" in op or "fmsub" in op:
                fma += 1
                acc.add(regs[-1])
        if "(" in args and not op.startswith(("lea", "j", "nop", "prefetch")):
            # AT&T: the destination is last; a memory operand before it
            # is read.
            operands = args.split(", ") if ", " in args else [args]
            if any("(" in o for o in operands[:-1]) or (
                    len(operands) == 1 and "(" in operands[0]):
                loads += 1
        if "%rsp" in args:
            stack += 1
    return widths, fma, len(acc), loads, stack


def line(name, widths, fma, acc, loads, stack):
    return "%s zmm %d ymm %d xmm %d scalar %d fma %d acc %d loads %d stack %d" % (
        name, widths["zmm"], widths["ymm"], widths["xmm"], widths["scalar"],
        fma, acc, loads, stack)


def mca(mca_path, cpu, body):
    text = "\n".join("%s\t%s" % (op, args) for _, op, args in body
                     if not op.startswith("j")) + "\n"
    out = subprocess.run([mca_path, "-mcpu=" + cpu, "-iterations=1000"],
                         input=text, capture_output=True, text=True, check=True)
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", out.stdout).group(1))
    return cycles / 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("listing")
    ap.add_argument("functions", nargs="+")
    ap.add_argument("--mca", help="llvm-mca's -mcpu for the hottest loop")
    ap.add_argument("--mca-path", default="llvm-mca")
    args = ap.parse_args()
    funcs = parse(args.listing)
    for name in args.functions:
        insns = funcs.get(name)
        if not insns:
            print("%s: no such function" % name)
            continue
        best, best_key = None, None
        for start, end in innermost_loops(insns):
            body = [x for x in insns if start <= x[0] <= end]
            s = summary(body)
            if not sum(s[0].values()):
                continue
            print(line(name + " loop:", *s))
            key = (s[2], s[1], sum(s[0].values()))
            if best_key is None or key > best_key:
                best, best_key = (body, s), key
        if best is None:
            print("%s: no loop with vector arithmetic" % name)
            continue
        print(line(name + " hottest:", *best[1]))
        if args.mca and best[1][1]:
            cycles = mca(args.mca_path, args.mca, best[0])
            print("%s mca %s: %.2f cycles per iteration for %d FMAs: %.2f FMAs "
                  "per cycle" % (name, args.mca, cycles, best[1][1],
                                 best[1][1] / cycles))
    return 0


if __name__ == "__main__":
    sys.exit(main())
