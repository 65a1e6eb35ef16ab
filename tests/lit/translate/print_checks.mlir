// Check ops print back in their own syntax, and the printed file interprets the same.
// RUN: shlo-translate %s | filecheck %s
// RUN: shlo-translate %s | shlo-translate --interpret

// CHECK-LABEL: func.func @checks
// CHECK: check.expect_eq_const %{{.*}}, dense<[2, 4]> : tensor<2xi32>
// CHECK: check.expect_eq %{{.*}}, %{{.*}} : tensor<2xi32>
// CHECK: check.expect_close %{{.*}}, %{{.*}}, max_ulp_difference = 2 : tensor<2xf32>
// CHECK-NOT: "check.
func.func @checks() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  check.expect_eq %1, %1 : tensor<2xi32>
  %f = stablehlo.constant dense<[0.5, 0.25]> : tensor<2xf32>
  check.expect_close %f, %f, max_ulp_difference = 2 : tensor<2xf32>, tensor<2xf32>
  func.return
}
