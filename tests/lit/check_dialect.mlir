// shlo-opt reads and writes the StableHLO interpreter's `check` dialect, as stablehlo-opt does,
// though no binding registers it: check ops survive passes of both worlds (they are never
// dead code), print back in their own syntax, and still run in the interpreter.
// RUN: shlo-opt %s --canonicalize --iree-stablehlo-canonicalize | filecheck %s
// RUN: shlo-opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: shlo-opt %s --mlir-print-op-generic | shlo-opt --canonicalize --iree-stablehlo-canonicalize | filecheck %s
// RUN: shlo-opt %s --canonicalize --iree-stablehlo-canonicalize | shlo-translate --interpret

// CHECK-LABEL: func.func @sums
// CHECK-NEXT:    [[C:%[a-z0-9_]+]] = stablehlo.constant dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    check.expect_almost_eq_const [[C]], dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    check.expect_eq [[C]], [[C]] : tensor<2xf32>
// CHECK-NEXT:    check.expect_close [[C]], [[C]], max_ulp_difference = 1 : tensor<2xf32>
// CHECK-NEXT:    return
// GENERIC: "check.expect_almost_eq_const"(%{{.*}}) {value = dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>} : (tensor<2xf32>) -> ()
// GENERIC: "check.expect_eq"(%{{.*}}, %{{.*}}) : (tensor<2xf32>, tensor<2xf32>) -> ()
func.func @sums() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  %unused = stablehlo.multiply %0, %0 : tensor<2xf32>
  check.expect_almost_eq_const %1, dense<[2.0, 4.0]> : tensor<2xf32>
  check.expect_eq %1, %1 : tensor<2xf32>
  check.expect_close %1, %1, max_ulp_difference = 1 : tensor<2xf32>
  func.return
}
