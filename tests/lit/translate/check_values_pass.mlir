// Comparisons that hold upstream hold here (CheckOps.cpp, Element.cpp at 7b1b157).
// RUN: shlo-translate --interpret %s

// almost_eq has no sign rule: -1e-15 is within 1e-4 of 0 (complex parts apart too).
func.func @main() {
  %a = stablehlo.constant dense<[-1.0e-15, 0x7F800000, 0x7FC00000, -0.0]> : tensor<4xf32>
  check.expect_almost_eq_const %a, dense<[0.0, 0x7F800000, 0xFFC00000, 0.0]> : tensor<4xf32>
  %c = stablehlo.constant dense<[(-1.0e-15, 20.0), (1.0, -0.0)]> : tensor<2xcomplex<f64>>
  check.expect_almost_eq_const %c, dense<[(0.0, 20.00001), (1.0, 0.0)]> : tensor<2xcomplex<f64>>
  check.expect_eq_const %c, dense<[(-1.0e-15, 20.0), (1.0, 0.0)]> : tensor<2xcomplex<f64>>
  %d = stablehlo.constant dense<[(-1.0e-15, 20.0), (1.0, 0.0)]> : tensor<2xcomplex<f64>>
  check.expect_almost_eq %c, %d : tensor<2xcomplex<f64>>
  check.expect_close %c, %d, max_ulp_difference = 0 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
  // expect_close: any two NaNs, +0 and -0, and an infinity and itself are 0 ULPs apart; the
  // smallest subnormals of opposite signs are 1 + 1 apart (ULPDifference, CheckOps.cpp).
  %s = stablehlo.constant dense<[0x7FC00000, 0.0, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  %t = stablehlo.constant dense<[0xFFC00001, -0.0, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  check.expect_close %s, %t, max_ulp_difference = 0 : tensor<4xf32>, tensor<4xf32>
  %u = stablehlo.constant dense<[0x00000001]> : tensor<1xf32>
  %v = stablehlo.constant dense<[0x80000001]> : tensor<1xf32>
  check.expect_close %u, %v, max_ulp_difference = 2, min_ulp_difference = 2 : tensor<1xf32>, tensor<1xf32>
  %w = stablehlo.constant dense<[(0x7FC00000, -0.0)]> : tensor<1xcomplex<f32>>
  %x = stablehlo.constant dense<[(0xFFC00000, 0.0)]> : tensor<1xcomplex<f32>>
  check.expect_close %w, %x, max_ulp_difference = 0 : tensor<1xcomplex<f32>>, tensor<1xcomplex<f32>>
  func.return
}

