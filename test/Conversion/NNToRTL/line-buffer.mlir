// RUN: unum-opt %s --convert-nn-to-rtl | FileCheck %s
// RUN: unum-opt %s --convert-nn-to-rtl | unum-translate --to-vhdl | FileCheck %s --check-prefix=VHDL

// A long input gets a line buffer: the smallest power of two holding the
// rows of a window and of the next stride plus a beat, (3 + 2) * 2 + 2 = 12
// -> 16 values instead of 64 * 2 = 128. A short one keeps the whole input.
// CHECK-LABEL: rtl.mac_unit @long
// CHECK-NEXT: rtl.input_buffer {bits = 8 : i64, elements = 16 : i64}
// CHECK-LABEL: rtl.mac_unit @short
// CHECK-NEXT: rtl.input_buffer {bits = 8 : i64, elements = 62 : i64}

// The line buffer is used circularly (16 values = 8 rows of one beat, per
// bank) and takes a beat only when it overwrites nothing the current position
// (first element first(l), kept in a register that follows the position
// counter: no table that grows with the length) reads. The short one holds
// its 31 beats (rows 32 apart in the memory: a power of two).
// VHDL-LABEL: entity lines_long is
// VHDL: constant ROWS      : natural := 8; -- window buffer rows (beats) per bank
// VHDL: constant ROWS2     : natural := 8;
// VHDL-NOT: int_vector(0 to OUT_LEN
// VHDL: return l * IN_CH;
// VHDL: return b mod ROWS;
// VHDL: (issued = '1' or loaded <= limit_r)
// VHDL: limit_r <= first_u + (STRIDE * IN_CH + CAP - IN_W);
// VHDL-LABEL: entity lines_short is
// VHDL: constant ROWS      : natural := 31; -- window buffer rows (beats) per bank
// VHDL: constant ROWS2     : natural := 32;
// VHDL: return b;
!q = !nn.fixed<8, 4>
nn.model @lines {
  %0 = nn.input "x" : tensor<64x2x!q>
  %1 = nn.conv1d "long" %0 {weight = dense<1> : tensor<2x2x3xi32>, stride = 2, pad_lo = 0, pad_hi = 0, padding_value = 0, groups = 1, acc_bits = 19, rounding = "nearest"} : tensor<64x2x!q> -> tensor<31x2x!q>
  %2 = nn.conv1d "short" %1 {weight = dense<1> : tensor<1x2x30xi32>, stride = 1, pad_lo = 0, pad_hi = 0, padding_value = 0, groups = 1, acc_bits = 22, rounding = "nearest"} : tensor<31x2x!q> -> tensor<2x1x!q>
  nn.output "y" %2 : tensor<2x1x!q>
}
