// shlo-round-f64-constants: each f64 constant becomes the nearest f32 constant converted to
// f64 (IREE's demotion truncated 2/3 to 0.666666627 instead of rounding it to 0.666666687).
// Values past f32's range round to infinities; splats, dense arrays and resource blobs alike.
// RUN: shlo-opt %s --shlo-round-f64-constants | filecheck %s

// CHECK-LABEL: func.func @splat
// CHECK: %[[C:.*]] = stablehlo.constant dense<0.666666686> : tensor<3xf32>
// CHECK: %[[W:.*]] = stablehlo.convert %[[C]] : (tensor<3xf32>) -> tensor<3xf64>
// CHECK: return %[[W]]
func.func @splat() -> tensor<3xf64> {
  %0 = stablehlo.constant dense<0.66666666666666663> : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// CHECK-LABEL: func.func @elements
// CHECK: stablehlo.constant dense<[0.333333343, 0x7F800000, 0xFF800000, 0.000000e+00, -1.000000e-01]> : tensor<5xf32>
func.func @elements() -> tensor<5xf64> {
  %0 = stablehlo.constant dense<[0.33333333333333331, 1.0e300, -1.0e300, 1.0e-300, -0.1]> : tensor<5xf64>
  return %0 : tensor<5xf64>
}

// CHECK-LABEL: func.func @blob
// CHECK: stablehlo.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
func.func @blob() -> tensor<2xf64> {
  %0 = stablehlo.constant dense_resource<pair> : tensor<2xf64>
  return %0 : tensor<2xf64>
}

// A convert to another float type takes the f32 constant (IREE could not compile the f32 to
// f64 to bf16 chain); the f64 uses keep the widened one.
// CHECK-LABEL: func.func @narrowed
// CHECK: %[[C:.*]] = stablehlo.constant dense<-2.000000e+00> : tensor<1xf32>
// CHECK-DAG: %[[B:.*]] = stablehlo.convert %[[C]] : (tensor<1xf32>) -> tensor<1xbf16>
// CHECK-DAG: %[[W:.*]] = stablehlo.convert %[[C]] : (tensor<1xf32>) -> tensor<1xf64>
// CHECK-NOT: stablehlo.convert
// CHECK: return %[[B]], %[[C]], %[[W]]
func.func @narrowed() -> (tensor<1xbf16>, tensor<1xf32>, tensor<1xf64>) {
  %0 = stablehlo.constant dense<-2.0> : tensor<1xf64>
  %1 = stablehlo.convert %0 : (tensor<1xf64>) -> tensor<1xbf16>
  %2 = stablehlo.convert %0 : (tensor<1xf64>) -> tensor<1xf32>
  return %1, %2, %0 : tensor<1xbf16>, tensor<1xf32>, tensor<1xf64>
}

// Other element types are left alone.
// CHECK-LABEL: func.func @other
// CHECK: stablehlo.constant dense<0.333333343> : tensor<f32>
// CHECK-NOT: stablehlo.convert
func.func @other() -> tensor<f32> {
  %0 = stablehlo.constant dense<0.333333343> : tensor<f32>
  return %0 : tensor<f32>
}

{-#
  dialect_resources: {
    builtin: {
      pair: "0x080000009A9999999999B93F9A9999999999C93F"
    }
  }
#-}
