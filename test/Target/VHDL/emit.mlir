// RUN: unum-opt %s --convert-nn-to-rtl=parallelism=2 | unum-translate --to-vhdl | FileCheck %s

// Without --output-dir every file goes to stdout after a `-- file:` line:
// the package, one entity per stage, the top level, the testbench, the report.
// CHECK-LABEL: -- file: tiny_pkg.vhd
// CHECK: package tiny_pkg is
// CHECK: constant DATA_BITS : natural := 8;
// CHECK: function requantize(

// The conv1d: 2 output lanes, ROM rows per (tap, channel) step, padding value -8 (-0.5 in Q8.4),
// output position l may start once need(l) input values have arrived (computed
// from the position counter, not a table).
// CHECK-LABEL: -- file: tiny_c1.vhd
// CHECK: entity tiny_c1 is
// CHECK: in_data   : in  sample_vector(0 to 1);
// CHECK: out_data  : out sample_vector(0 to 1));
// CHECK: constant PO        : natural := 2; -- output lanes
// CHECK: constant PR        : natural := 1; -- reduction lanes (adder tree inputs)
// CHECK: constant PAD_VALUE : integer := -8;
// CHECK: constant ACC_BITS  : natural := 19;
// CHECK: constant ROUNDING  : natural := 1; -- 0 truncate, 1 nearest, 2 half_even
// CHECK: constant ROWS      : natural := 6;
// CHECK: to_samples((8, 2)),
// CHECK-NEXT: to_samples((16, -6)),
// CHECK: constant BIAS : int_vector(0 to BLOCKS * PO - 1) := (128, -230);
// CHECK: constant TERM_TAP : int_vector(0 to STEPS * PR - 1) := (0, 0, 1, 1, 2, 2);
// CHECK: constant TERM_CH : int_vector(0 to STEPS * PR - 1) := (0, 1, 0, 1, 0, 1);
// CHECK: constant KERNEL    : natural := 3;
// CHECK-NEXT: constant WRAP      : boolean := false;
// CHECK-NEXT: constant OUT_BITS  : natural := 8; -- the result format's
// CHECK-NOT: int_vector(0 to OUT_LEN
// CHECK: signal mem       : mem_t;
// CHECK: last := l + KERNEL - 1;
// CHECK: mem(wbank * ROWS2 + row_of(beats_in)) <= in_data;
// CHECK: wrow <= ROM(addr);
// CHECK: prod(i) <= x * wrow(i);

// CHECK-LABEL: -- file: tiny_r.vhd
// CHECK: entity tiny_r is
// CHECK: constant LO : integer := -8;
// CHECK: constant HI : integer := 12;

// The top level packs beats into std_logic_vector ports.
// CHECK-LABEL: -- file: tiny.vhd
// CHECK: entity tiny is
// CHECK: in_data   : in  std_logic_vector(15 downto 0);
// CHECK: u0 : entity work.tiny_c1
// CHECK: u1 : entity work.tiny_r

// CHECK-LABEL: -- file: tiny_tb.vhd
// CHECK: entity tiny_tb is
// CHECK: input_file  : string  := "input.txt";
// CHECK: dut : entity work.tiny

// 6 positions x 2 outputs x 6 products = 72 MACs on 2 lanes: 36 cycles,
// bound 36 + depth 5 + L 6 = 47; ROM 6 rows x 2 lanes x 8 bits; the window
// buffer holds the whole input (6 beats of 2 values x 8 bits; a line buffer
// would need 16 slots) in two banks of 8 rows (a power of two).
// CHECK-LABEL: -- file: report.json
// CHECK: "files": ["tiny_pkg.vhd", "tiny_c1.vhd", "tiny_r.vhd", "tiny.vhd", "tiny_tb.vhd"],
// CHECK: "multipliers": 2,
// CHECK: "tree_adders": 0,
// CHECK: "rom_bits": 96,
// CHECK: "buffer_bits": 256,
// CHECK: "constant_multipliers": 0,
// CHECK: "macs": 72,
// CHECK: "pipeline_depth": 5,
// CHECK: "cycle_bound": 47,
// Exactly 43 cycles from the first input beat to the last output beat (the
// cycle model; the GHDL suites check it against the testbench): the conv1d
// issues position 0's 6 MACs once 2 beats are in (cycles 2-7), its 4-stage
// pipeline puts the row into its output register at cycle 11, where the
// hardtanh takes it; the hardtanh's last beat leaves 32 cycles later.
// CHECK: "latency": 43,
// The conv1d issues 36 MACs per inference, the next one right behind them.
// CHECK: "initiation_interval": 36,
// CHECK: {"name": "c1", {{.*}}"initiation_interval": 36, "start": 0, "latency": 42, "format": {"accum": "ap_fixed<19, 11>", "input": "ap_fixed<8, 4>", "overflow": "saturate", "result": "ap_fixed<8, 4>", "rounding": "nearest", "weight": "ap_fixed<8, 4>"}}
// CHECK: {"name": "r", {{.*}}"initiation_interval": 6, "start": 11, "latency": 32,
!q = !nn.fixed<8, 4>
nn.model @tiny {
  %0 = nn.input "x" : tensor<6x2x!q>
  %1 = nn.conv1d "c1" %0 {acc_bits = 19 : i64, bias = dense<[128, -230]> : tensor<2xi64>, groups = 1 : i64, pad_hi = 1 : i64, pad_lo = 1 : i64, padding_value = -8 : i64, rounding = "nearest", stride = 1 : i64, weight = dense<[[[8, -4, 2], [16, 0, -16]], [[2, 3, 5], [-6, 8, -10]]]> : tensor<2x2x3xi32>} : tensor<6x2x!q> -> tensor<6x2x!q>
  %2 = nn.hardtanh "r" %1 {max_val = 12 : i64, min_val = -8 : i64} : tensor<6x2x!q> -> tensor<6x2x!q>
  nn.output "y" %2 : tensor<6x2x!q>
}
