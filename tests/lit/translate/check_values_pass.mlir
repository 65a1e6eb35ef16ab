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
  func.return
}

