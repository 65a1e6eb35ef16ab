// Weights imported as `dense_resource` blobs (torch-mlir keeps them so) serialize: VHLO has no
// resources, so their bytes go inline, and the artifact computes the same values (f32, i1
// packed one byte per element, i64 of a quoted resource name).
// RUN: shlo-translate %s --serialize --target=current -o %t.vhlo
// RUN: shlo-translate %t.vhlo --deserialize | filecheck %s
// RUN: shlo-translate %t.vhlo --deserialize | shlo-translate --interpret | filecheck %s --check-prefix=VALUES
// CHECK-NOT: dense_resource
// CHECK: stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: stablehlo.constant dense<[-1, 1]> : tensor<2xi64>
// VALUES: tensor<2xf32> {
// VALUES-NEXT: [1.000000e+00, 2.000000e+00]
// VALUES: tensor<3xi1> {
// VALUES-NEXT: [true, false, true]
// VALUES: tensor<2xi64> {
// VALUES-NEXT: [-1, 1]
func.func @main() -> (tensor<2xf32>, tensor<3xi1>, tensor<2xi64>) {
  %0 = stablehlo.constant dense_resource<weights> : tensor<2xf32>
  %1 = stablehlo.constant dense_resource<mask> : tensor<3xi1>
  %2 = stablehlo.constant dense_resource<"big.one"> : tensor<2xi64>
  return %0, %1, %2 : tensor<2xf32>, tensor<3xi1>, tensor<2xi64>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040",
      mask: "0x01000000010001",
      "big.one": "0x08000000FFFFFFFFFFFFFFFF0100000000000000"
    }
  }
#-}
