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

// Graphs: a value with several users, add, concat along channels and length.
// CHECK-LABEL: func.func @graph(%arg0: tensor<4x2xf32> {air.name = "x"}) -> tensor<8x4xf32>
// CHECK: %[[R:.*]] = air.max %arg0
// CHECK: %[[A:.*]] = air.add %[[R]], %arg0 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK: %[[C:.*]] = tensor.concat dim(1) %[[A]], %arg0 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
// CHECK: %[[L:.*]] = tensor.concat dim(0) %[[C]], %[[C]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: return %[[L]]
nn.model @graph {
  %0 = nn.input "x" : tensor<4x2xf32>
  %1 = nn.relu "r" %0 : tensor<4x2xf32> -> tensor<4x2xf32>
  %2 = nn.add "a" %1, %0 : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  %3 = nn.concat "c" "channels" %2, %0 : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x4xf32>
  %4 = nn.concat "l" "length" %3, %3 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  nn.output "y" %4 : tensor<8x4xf32>
}

// Pooling: the input padded with -inf (max) or 0 (avg), one strided view per
// tap, combined elementwise; the average divides by K or by each window's
// positions inside the input.
// CHECK-LABEL: func.func @pool(%arg0: tensor<7x2xf32> {air.name = "x"}) -> tensor<4x2xf32>
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MP:.*]] = tensor.pad %arg0 low[1, 0] high[1, 0]
// CHECK: tensor.yield %[[NINF]]
// CHECK: } : tensor<7x2xf32> to tensor<9x2xf32>
// CHECK: %[[T0:.*]] = tensor.extract_slice %[[MP]][0, 0] [4, 2] [2, 1] : tensor<9x2xf32> to tensor<4x2xf32>
// CHECK: %[[T1:.*]] = tensor.extract_slice %[[MP]][1, 0] [4, 2] [2, 1]
// CHECK: %[[M1:.*]] = air.max %[[T0]], %[[T1]]
// CHECK: %[[T2:.*]] = tensor.extract_slice %[[MP]][2, 0] [4, 2] [2, 1]
// CHECK: %[[M:.*]] = air.max %[[M1]], %[[T2]]
// avgpool K = 2, stride 1, padding 1, count_include_pad = false: the first
// and last windows hold one position
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[AP:.*]] = tensor.pad %[[M]] low[1, 0] high[1, 0]
// CHECK: tensor.yield %[[Z]]
// CHECK: %[[A0:.*]] = tensor.extract_slice %[[AP]][0, 0] [5, 2] [1, 1] : tensor<6x2xf32> to tensor<5x2xf32>
// CHECK: %[[A1:.*]] = tensor.extract_slice %[[AP]][1, 0] [5, 2] [1, 1]
// CHECK: %[[S:.*]] = air.add %[[A0]], %[[A1]]
// CHECK: %[[D:.*]] = air.constant dense<{{\[}}[1.000000e+00], [2.000000e+00], [2.000000e+00], [2.000000e+00], [1.000000e+00]]> : tensor<5x1xf32>
// CHECK: %[[AV:.*]] = air.div %[[S]], %[[D]] : (tensor<5x2xf32>, tensor<5x1xf32>) -> tensor<5x2xf32>
// avgpool K = 2 (stride 2: the last position is dropped), no padding: / 2
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[AV]][0, 0] [2, 2] [2, 1] : tensor<5x2xf32> to tensor<2x2xf32>
// CHECK: %[[B1:.*]] = tensor.extract_slice %[[AV]][1, 0] [2, 2] [2, 1]
// CHECK: %[[BS:.*]] = air.add %[[B0]], %[[B1]]
// CHECK: %[[K:.*]] = air.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[BA:.*]] = air.div %[[BS]], %[[K]]
// CHECK: %[[L:.*]] = tensor.concat dim(0) %[[BA]], %[[BA]]
// CHECK: return %[[L]]

// The taps fuse into one loop nest with their max / sum and division.
// FUSED-LABEL: func.func @pool
// FUSED: tensor.pad
// FUSED: air.fused
// FUSED: air.max
// FUSED: air.max
// FUSED: air.yield
nn.model @pool {
  %0 = nn.input "x" : tensor<7x2xf32>
  %1 = nn.maxpool1d "m" %0 {kernel_size = 3 : i64, stride = 2 : i64, padding = 1 : i64}
      : tensor<7x2xf32> -> tensor<4x2xf32>
  %2 = nn.avgpool1d "a" %1 {kernel_size = 2 : i64, stride = 1 : i64, padding = 1 : i64,
      count_include_pad = false} : tensor<4x2xf32> -> tensor<5x2xf32>
  %3 = nn.avgpool1d "b" %2 {kernel_size = 2 : i64, stride = 2 : i64, padding = 0 : i64,
      count_include_pad = true} : tensor<5x2xf32> -> tensor<2x2xf32>
  %4 = nn.concat "c" "length" %3, %3 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  nn.output "y" %4 : tensor<4x2xf32>
}
