// RUN: unum-opt %s --air-expand-math | FileCheck %s

// f32 exp and log, scalar or vector, become plain arithmetic (no call, no
// branch): vectorisable. f64 keeps math.exp (libm).
// CHECK-LABEL: func.func @exp_vec(
// CHECK-NOT: math.exp
// CHECK: arith.select {{.*}} : vector<8xi1>, vector<8xf32>
// k ln 2 taken off by FMAs, 2^k from the bits of x / ln 2 + magic: two
// powers of two (a shift, a subtraction, two shifts), no conversion.
// CHECK-NOT: arith.fptosi
// CHECK: math.fma
// CHECK: arith.bitcast {{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.shrui {{.*}} : vector<8xi32>
// CHECK: arith.subi {{.*}} : vector<8xi32>
// CHECK-COUNT-2: arith.shli {{.*}} : vector<8xi32>
// CHECK-NOT: arith.fptosi
// CHECK-NOT: math.exp
// CHECK: return
func.func @exp_vec(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}
// CHECK-LABEL: func.func @log_scalar(
// CHECK-NOT: math.log
// CHECK: arith.bitcast {{.*}} : f32 to i32
// CHECK: arith.select
// CHECK-NOT: math.log
// CHECK: return
func.func @log_scalar(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}
// CHECK-LABEL: func.func @exp_f64(
// CHECK: math.exp
func.func @exp_f64(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}
