// RUN: unum-opt %s --convert-nn-to-air | FileCheck %s
// RUN: unum-opt %s --convert-nn-to-air --air-optimize | FileCheck %s --check-prefix=FUSED

// The layers of a float model become air kernels with constant weights.
// CHECK-LABEL: func.func @chain(%arg0: tensor<6x2xf32> {air.name = "x"}) -> tensor<1x3xf32>
// conv1d: padding (value 0.5) is a tensor.pad, groups a block-diagonal filter
// CHECK: %[[PV:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[1, 0] high[2, 0]
// CHECK: tensor.yield %[[PV]]
// CHECK: } : tensor<6x2xf32> to tensor<9x2xf32>
// filter[k][c][o] = weight[o][c - base][k]: k = 0 is [[1, 0], [0, 4]]
// CHECK: %[[W:.*]] = air.constant dense<{{\[\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 4.000000e+00]], {{\[\[}}2.000000e+00, 0.000000e+00], [0.000000e+00, 5.000000e+00]], {{\[\[}}3.000000e+00, 0.000000e+00], [0.000000e+00, 6.000000e+00]]]> : tensor<3x2x2xf32>
// CHECK: %[[C:.*]] = air.conv1d %[[P]], %[[W]] {stride = 2 : i64} : (tensor<9x2xf32>, tensor<3x2x2xf32>) -> tensor<4x2xf32>
// CHECK: %[[B:.*]] = air.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK: %[[CB:.*]] = air.add %[[C]], %[[B]]
// batchnorm: x * gamma / sqrt(var + eps) + (beta - mean * scale), eps 0
// CHECK: %[[S:.*]] = air.constant dense<[2.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK: %[[M:.*]] = air.mul %[[CB]], %[[S]]
// CHECK: %[[T:.*]] = air.constant dense<[-1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK: %[[BN:.*]] = air.add %[[M]], %[[T]]
// hardtanh
// CHECK: %[[LO:.*]] = air.constant dense<-5.000000e-01> : tensor<f32>
// CHECK: %[[A:.*]] = air.max %[[BN]], %[[LO]]
// CHECK: %[[HI:.*]] = air.constant dense<1.500000e+00> : tensor<f32>
// CHECK: %[[H:.*]] = air.min %[[A]], %[[HI]]
// hardsigmoid: x * (1/6) + 0.5 clamped to [0, 1]
// CHECK: air.constant dense<0.166666672> : tensor<f32>
// CHECK: air.mul
// CHECK: air.constant dense<5.000000e-01> : tensor<f32>
// CHECK: air.add
// CHECK: air.max
// CHECK: %[[HS:.*]] = air.min
// relu
// CHECK: %[[Z:.*]] = air.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = air.max %[[HS]], %[[Z]]
// flatten: position-major rows
// CHECK: %[[F:.*]] = air.reshape %[[R]] {shape = array<i64: 1, 8>} : tensor<4x2xf32> -> tensor<1x8xf32>
// linear: the transposed weight, no bias
// CHECK: %[[LW:.*]] = air.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00]
// CHECK-SAME: tensor<8x3xf32>
// CHECK: %[[L:.*]] = air.matmul %[[F]], %[[LW]] : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
// CHECK: return %[[L]] : tensor<1x3xf32>
// CHECK-NOT: nn.

// air-optimize fuses the conv1d with its bias, batchnorm and activations.
// FUSED: air.fused
// FUSED: air.conv1d
// FUSED-NOT: air.fused
// FUSED: air.min
// FUSED: air.yield
// FUSED: air.reshape
nn.model @chain {
  %0 = nn.input "x" : tensor<6x2xf32>
  %1 = nn.conv1d "c" %0 {weight = dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf64>,
      bias = dense<[0.5, -1.0]> : tensor<2xf64>, stride = 2 : i64, pad_lo = 1 : i64,
      pad_hi = 2 : i64, padding_value = 0.5 : f64, groups = 2 : i64}
      : tensor<6x2xf32> -> tensor<4x2xf32>
  %2 = nn.batchnorm "bn" %1 {gamma = dense<[2.0, 0.5]> : tensor<2xf64>,
      beta = dense<[0.0, 1.0]> : tensor<2xf64>, mean = dense<[0.5, 0.5]> : tensor<2xf64>,
      variance = dense<[1.0, 0.25]> : tensor<2xf64>, eps = 0.0 : f64}
      : tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = nn.hardtanh "ht" %2 {min_val = -0.5 : f64, max_val = 1.5 : f64}
      : tensor<4x2xf32> -> tensor<4x2xf32>
  %4 = nn.hardsigmoid "hs" %3 : tensor<4x2xf32> -> tensor<4x2xf32>
  %5 = nn.relu "r" %4 : tensor<4x2xf32> -> tensor<4x2xf32>
  %6 = nn.flatten "f" %5 : tensor<4x2xf32> -> tensor<1x8xf32>
  %7 = nn.linear "l" %6 {weight = dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]>
      : tensor<3x8xf64>} : tensor<1x8xf32> -> tensor<1x3xf32>
  nn.output "y" %7 : tensor<1x3xf32>
}
