// The printing flags of mlir-opt.
// RUN: shlo-opt %s --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: shlo-opt %s --mlir-print-debuginfo | filecheck %s --check-prefix=DEBUG
// RUN: shlo-opt %s --mlir-print-debuginfo --mlir-print-local-scope | filecheck %s --check-prefix=LOCAL
// RUN: shlo-opt %s --mlir-elide-elementsattrs-if-larger=2 | filecheck %s --check-prefix=ELIDE
// RUN: shlo-opt %s --strip-debuginfo --mlir-print-debuginfo | filecheck %s --check-prefix=STRIP

// GENERIC: "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}>
// GENERIC: "stablehlo.add"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// DEBUG: stablehlo.add %arg0, %{{.*}} : tensor<4xf32> loc(#[[LOC:loc[0-9]+]])
// DEBUG: #[[LOC]] = loc("{{.*}}print_flags.mlir":[[# @LINE + 8]]:8)
// LOCAL: stablehlo.add %arg0, %{{.*}} : tensor<4xf32> loc("{{.*}}print_flags.mlir":[[# @LINE + 7]]:8)
// ELIDE: stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
// STRIP-NOT: print_flags.mlir
// STRIP: #[[UNKNOWN:loc[0-9]*]] = loc(unknown)
// STRIP: stablehlo.add %arg0, %{{.*}} : tensor<4xf32> loc(#[[UNKNOWN]])
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = stablehlo.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
