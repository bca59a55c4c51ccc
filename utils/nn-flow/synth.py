#!/usr/bin/env python3
"""Synthesises a design written by `unum-translate --to-vhdl --output-dir DIR`
for a Lattice iCE40 and prints what it costs and how fast it runs:

    ghdl --synth --out=verilog -> yosys synth_ice40 -> nextpnr-ice40

    utils/nn-flow/synth.py DIR [--device up5k|hx8k] [--json OUT] [--keep WORK]

Prints one line per figure: LUTs, flip-flops, carry cells, DSP blocks
(SB_MAC16; the UP5K has 8, the HX8K none: its multipliers are LUTs), RAM
blocks (SB_RAM40_4K) and Fmax (nextpnr's timing analysis of the placed and
routed design). The design's ports are far wider than the packages have pins
(a [C] input beat is C * N bits), so the design is placed inside a small
shell: its input word comes from a shift register fed by one pin and its
output word is XOR-reduced into one register, so that nothing is optimised
away; the shell's own cost (W_in + 1 flip-flops, about W_out / 3 LUTs) is
printed and included in the figures. Exit status 1 with the tool's message
when a step fails; a design that does not fit the device prints the
synthesis figures and says so (Fmax is then absent).

Needs ghdl, yosys and nextpnr-ice40 (Debian 12: ghdl, yosys, nextpnr-ice40).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Verilog keywords that are not VHDL reserved words, so a VHDL name may be
# one; GHDL 2.0's Verilog writer prints names as they are (`buf` breaks
# yosys' parser), so they are escaped (`\buf `).
VERILOG_ONLY_KEYWORDS = (
    "buf bufif0 bufif1 notif0 notif1 nmos pmos cmos rnmos rpmos rcmos tran "
    "tranif0 tranif1 rtran rtranif0 rtranif1 pullup pulldown pull0 pull1 "
    "supply0 supply1 strong0 strong1 weak0 weak1 highz0 highz1 tri tri0 tri1 "
    "triand trior trireg wand wor primitive table endtable specify endspecify "
    "task endtask fork join event force release deassign defparam forever "
    "repeat macromodule large medium small scalared vectored edge realtime "
    "specparam endprimitive").split()

DEVICES = {
    # nextpnr flag, package, yosys synth_ice40 options
    "up5k": ("--up5k", "sg48", ["-dsp"]),
    "hx8k": ("--hx8k", "ct256", []),
}


class FlowError(Exception):
    pass


def run(cmd, cwd, log):
    """The command's stdout; its stderr goes to `log` in `cwd`."""
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    with open(os.path.join(cwd, log), "w") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        raise FlowError("%s failed (exit %d); its messages (%s):\n%s"
                        % (cmd[0], p.returncode, log, (p.stderr + p.stdout)[-3000:]))
    return p.stdout


def escape_keywords(verilog):
    pattern = re.compile(r"(?<![\\$\w])(%s)(?!\w)" % "|".join(VERILOG_ONLY_KEYWORDS))
    return pattern.sub(lambda m: "\\" + m.group(1) + " ", verilog)


def ports(verilog, top):
    """[(direction, width, name)] of module `top` in GHDL's Verilog."""
    m = re.search(r"^module %s\s*\((.*?)\);" % re.escape(top.strip()), verilog,
                  re.S | re.M)
    if not m:
        raise FlowError("ghdl's Verilog has no module %s" % top)
    result = []
    for decl in m.group(1).split(","):
        d = re.match(r"\s*(input|output)\s*(?:\[(\d+):0\])?\s*(\S+)\s*$", decl)
        if not d:
            raise FlowError("cannot read the port declaration %r" % decl)
        name = d.group(3) + (" " if d.group(3).startswith("\\") else "")
        result.append((d.group(1), int(d.group(2) or 0) + 1, name))
    return result


def shell(top, port_list):
    """A wrapper with 1-bit ports only: wide inputs from a shift register on
    pin `sin`, wide outputs XOR-reduced into the register on pin `sout`."""
    wide_in = [(w, n) for d, w, n in port_list if d == "input" and w > 1]
    wide_out = [(w, n) for d, w, n in port_list if d == "output" and w > 1]
    narrow = [(d, n) for d, w, n in port_list if w == 1]
    w_in = sum(w for w, _ in wide_in)
    lines = ["module unum_synth_shell ("]
    lines += ["  %s %s," % (d, n) for d, n in narrow]
    lines += ["  input sin,", "  output sout);"]
    conns = [".%s(%s)" % (n, n) for _, n in narrow]
    if w_in:
        lines.append("  reg [%d:0] shift_in;" % (w_in - 1))
        lines.append("  always @(posedge clk) shift_in <= %s;" % (
            "{shift_in[%d:0], sin}" % (w_in - 2) if w_in > 1 else "sin"))
        lo = 0
        for w, n in wide_in:
            conns.append(".%s(shift_in[%d:%d])" % (n, lo + w - 1, lo))
            lo += w
    xors = []
    for i, (w, n) in enumerate(wide_out):
        lines.append("  wire [%d:0] out%d_w;" % (w - 1, i))
        conns.append(".%s(out%d_w)" % (n, i))
        xors.append("^out%d_w" % i)
    lines.append("  reg sout_r;")
    lines.append("  always @(posedge clk) sout_r <= %s;" % (" ^ ".join(xors) or "sin"))
    lines.append("  assign sout = sout_r;")
    lines.append("  %s dut (%s);" % (top, ", ".join(conns)))
    lines.append("endmodule")
    w_out = sum(w for w, _ in wide_out)
    return "\n".join(lines) + "\n", w_in, w_out


def cell_counts(stat):
    """Cell counts of yosys' `stat` of the top module (the last table)."""
    cells = {}
    for name, count in re.findall(r"^\s+(SB_\w+)\s+(\d+)\s*$", stat, re.M):
        cells[name] = int(count)
    return cells


def synthesise(vhdl_dir, device="up5k", work=None):
    with open(os.path.join(vhdl_dir, "report.json")) as f:
        report = json.load(f)
    top = report["top"]
    files = [os.path.abspath(os.path.join(vhdl_dir, n)) for n in report["files"]
             if n != report.get("testbench", "") + ".vhd"]
    own = work is None
    work = work or tempfile.mkdtemp(prefix="unum-synth-")
    os.makedirs(work, exist_ok=True)
    try:
        run(["ghdl", "-a", "--std=08"] + files, work, "ghdl-analyse.log")
        verilog = escape_keywords(run(["ghdl", "--synth", "--std=08", "--out=verilog",
                                       top], work, "ghdl-synth.log"))
        vtop = escape_keywords(top)  # the name as the Verilog spells it
        wrapper, w_in, w_out = shell(vtop, ports(verilog, vtop))
        with open(os.path.join(work, "design.v"), "w") as f:
            f.write(verilog + "\n" + wrapper)
        flag, package, synth_opts = DEVICES[device]
        run(["yosys", "-q", "-p", "read_verilog design.v; synth_ice40 %s -top "
             "unum_synth_shell -json design.json; tee -q -o stat.txt stat"
             % " ".join(synth_opts)], work, "yosys.log")
        with open(os.path.join(work, "stat.txt")) as f:
            cells = cell_counts(f.read())
        figures = {
            "device": device,
            "luts": cells.get("SB_LUT4", 0),
            "flip_flops": sum(v for k, v in cells.items() if k.startswith("SB_DFF")),
            "carries": cells.get("SB_CARRY", 0),
            "dsp_blocks": cells.get("SB_MAC16", 0),
            "ram_blocks": cells.get("SB_RAM40_4K", 0),
            "shell_flip_flops": w_in + 1,
            "shell_luts_about": (w_out + 2) // 3,
        }
        try:
            # Fmax is measured, not required: a design slower than the
            # nominal 12 MHz target is a figure, not a failure.
            run(["nextpnr-ice40", flag, "--package", package, "--json", "design.json",
                 "--pcf-allow-unconstrained", "--freq", "12", "--seed", "1",
                 "--timing-allow-fail",
                 "--report", "pnr.json"], work, "nextpnr.log")
            with open(os.path.join(work, "pnr.json")) as f:
                pnr = json.load(f)
            fmax = [v["achieved"] for v in pnr.get("fmax", {}).values()]
            figures["fmax_mhz"] = round(min(fmax), 2) if fmax else None
            lc = pnr.get("utilization", {}).get("ICESTORM_LC", {})
            figures["logic_cells"] = lc.get("used")
            figures["logic_cells_available"] = lc.get("available")
        except FlowError as e:
            if not re.search(r"no BELs remaining|Unable to place|[Uu]tili[sz]ation",
                             str(e)):
                raise
            figures["fmax_mhz"] = None
            figures["does_not_fit"] = str(e).splitlines()[-1][:200]
        return figures
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vhdl_dir", help="directory written by unum-translate --to-vhdl")
    ap.add_argument("--device", choices=sorted(DEVICES), default="up5k")
    ap.add_argument("--json", help="also write the figures as JSON to this file")
    ap.add_argument("--keep", help="work in this directory and keep it (logs)")
    args = ap.parse_args()
    for tool in ("ghdl", "yosys", "nextpnr-ice40"):
        if not shutil.which(tool):
            print("synth.py: %s is not installed (utils/bootstrap.sh installs it)" % tool,
                  file=sys.stderr)
            return 1
    try:
        f = synthesise(args.vhdl_dir, args.device, args.keep)
    except (FlowError, OSError, KeyError) as e:
        print("synth.py: %s" % e, file=sys.stderr)
        return 1
    print("device: iCE40 %s" % f["device"].upper())
    for key, label in (("luts", "LUTs"), ("flip_flops", "flip-flops"),
                       ("carries", "carry cells"), ("dsp_blocks", "DSP blocks"),
                       ("ram_blocks", "RAM blocks")):
        print("%s: %d" % (label, f[key]))
    if f.get("fmax_mhz") is not None:
        print("Fmax: %.2f MHz" % f["fmax_mhz"])
    else:
        print("Fmax: none (does not fit the device: %s)" % f.get("does_not_fit", "?"))
    print("shell (included above): %d flip-flops, about %d LUTs"
          % (f["shell_flip_flops"], f["shell_luts_about"]))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(f, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
