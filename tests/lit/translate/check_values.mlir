// Check ops compare elements as upstream's CheckOps.cpp and Element.cpp (7b1b157) do:
// complex values part by part, NaN, infinities and signed zeros by their rules.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not shlo-translate --interpret -split-input-file --probe-output-dir=%t %s 2>&1 | filecheck %s

// An infinity is close to nothing but itself; a NaN never equals; zero is no infinity.
// CHECK: check_values.mlir:10:3: error: check.expect_almost_eq_const failed in @main: Element values don't match with tolerance 0.000100: inf (actual) vs 3.4028234663852886e+38 (expected) at index [0]
func.func @main() {
  %a = stablehlo.constant dense<[0x7F800000, 0.0]> : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[0x7F7FFFFF, 0.0]> : tensor<2xf32>
  %n = stablehlo.constant dense<[(0x7FC00000, 1.0)]> : tensor<1xcomplex<f32>>
  // CHECK: check_values.mlir:13:3: error: check.expect_eq failed in @main: Element values don't match: (nan, 1.0) (actual) vs (nan, 1.0) (expected)
  check.expect_eq %n, %n : tensor<1xcomplex<f32>>
  %z = stablehlo.constant dense<[(0.0, 0x7F800000)]> : tensor<1xcomplex<f32>>
  // CHECK: check_values.mlir:16:3: error: check.expect_almost_eq_const failed in @main: Element values don't match with tolerance 0.000100: (0.0, inf) (actual) vs (1.0, inf) (expected)
  check.expect_almost_eq_const %z, dense<(1.0, 0x7F800000)> : tensor<1xcomplex<f32>>
  func.return
}

// -----

// expect_close's max_ulp_difference defaults to 1 (CheckOps.td) where the generic form
// leaves it out; 1.0 and the f32 two steps above it are 2 ULPs apart.
// CHECK: check_values.mlir:28:3: error: check.expect_close failed in @main: Elements values don't match with respect to ULP difference in [0, 1]
func.func @main() {
  %a = stablehlo.constant dense<[(1.0, 1.0)]> : tensor<1xcomplex<f32>>
  %b = stablehlo.constant dense<[(1.0, 0x3F800002)]> : tensor<1xcomplex<f32>>
  "check.expect_close"(%a, %b) : (tensor<1xcomplex<f32>>, tensor<1xcomplex<f32>>) -> ()
  %c = stablehlo.constant dense<[(1.0, 0x3F800001)]> : tensor<1xcomplex<f32>>
  "check.expect_close"(%b, %c) : (tensor<1xcomplex<f32>>, tensor<1xcomplex<f32>>) -> ()
  func.return
}

// -----

// custom_call @check.eq gives true where it holds; almost-equal checks take floats only.
// CHECK: check_values.mlir:43:3: error: check.expect_almost_eq failed in @main: Unsupported element type for check.expect_almost_eq: i32
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %ok = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
  check.expect_eq_const %ok, dense<true> : tensor<i1>
  %f = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
  stablehlo.custom_call @check.expect_almost_eq(%a, %a) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
  %fine = stablehlo.custom_call @check.eq(%f, %f) : (tensor<1xcomplex<f32>>, tensor<1xcomplex<f32>>) -> tensor<i1>
  func.return
}

// -----

// expect_serialized_eq's `iter = N` reads line N of the probe index.
// CHECK: check_values.mlir:59:3: error: check.expect_serialized_eq failed in @main: Element values don't match: (1.0, 2.0) (actual) vs (3.0, 4.0) (expected)
func.func @main() {
  %a = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
  %b = stablehlo.constant dense<[(3.0, 4.0)]> : tensor<1xcomplex<f32>>
  %p0 = interpreter.probe %a, probe_id = "x" : tensor<1xcomplex<f32>>
  %p1 = interpreter.probe %b, probe_id = "x" : tensor<1xcomplex<f32>>
  check.expect_serialized_eq %b, probe_id = "x", iter = 1 : tensor<1xcomplex<f32>>
  check.expect_serialized_eq %a, probe_id = "x" : tensor<1xcomplex<f32>>
  check.expect_serialized_eq %a, probe_id = "x", iter = 1 : tensor<1xcomplex<f32>>
  func.return
}

// -----

// expect_close: equal values are 0 ULPs apart, below a min_ulp_difference of 1; an infinity
// is the maximal distance from any finite value, whatever max_ulp_difference allows.
// CHECK: check_values.mlir:71:3: error: check.expect_close failed in @main: Elements values don't match with respect to ULP difference in [1, 5]: 1.0 (actual) vs 1.0 (expected) at index [0]
// CHECK: check_values.mlir:74:3: error: check.expect_close failed in @main: Elements values don't match with respect to ULP difference in [0, 1000000]: inf (actual) vs 3.4028234663852886e+38 (expected) at index [0]
func.func @main() {
  %a = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  check.expect_close %a, %a, max_ulp_difference = 5, min_ulp_difference = 1 : tensor<1xf32>, tensor<1xf32>
  %i = stablehlo.constant dense<[0x7F800000]> : tensor<1xf32>
  %m = stablehlo.constant dense<[0x7F7FFFFF]> : tensor<1xf32>
  check.expect_close %i, %m, max_ulp_difference = 1000000 : tensor<1xf32>, tensor<1xf32>
  func.return
}
