// RUN: shlo-opt %s --shlo-flatten | filecheck %s --check-prefix=SURVIVE
// RUN: shlo-opt %s --shlo-flatten=decompose | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(shlo-flatten{decompose=true keep=a.keep})' | filecheck %s --check-prefix=KEEP
// RUN: shlo-opt %s --shlo-flatten="profile=iree decompose" --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=EXPANDED
// RUN: not shlo-opt %s --shlo-flatten=keep=a.keep 2>&1 | filecheck %s --check-prefix=KEEPALONE
// RUN: not shlo-opt %s --shlo-flatten=profile=tpu 2>&1 | filecheck %s --check-prefix=PROFILE
// RUN: not shlo-opt %inputs/not_flat.mlir --split-input-file --shlo-flatten=profile=luminal 2>&1 | filecheck %s --check-prefix=NOTFLAT

// The Python pass pipeline `shlo-flatten` (passes/flatten.py); the plain upstream flatten
// pipeline is tested in tests/lit/upstream_flatten_pipeline.mlir.
// EXPANDED: [stablehlo] builtin.module(func.func(stablehlo-legalize-composite-to-call{}), inline{default-pipeline=canonicalize {{.*}}}, symbol-dce, canonicalize{cse-between-iterations=false {{.*}}}, shlo-verify-flat{profile=iree})
// PROFILE: shlo-opt: shlo-flatten: profile must be one of default, luminal, iree
// KEEPALONE: shlo-opt: shlo-flatten: keep names composites to spare from decompose; add decompose=true
// Recursion cannot be inlined: every problem is named, then the summary; then the next chunk.
// NOTFLAT-DAG: not_flat.mlir:6:1: error: not flat: function @countdown is left over
// NOTFLAT-DAG: not_flat.mlir:3:8: error: not flat: a call is left (recursion, or a callee that cannot inline)
// NOTFLAT-DAG: not_flat.mlir:3:8: error: not flat: dynamic shape: this profile needs static shapes
// NOTFLAT: error: shlo-verify-flat: module is not flat for profile 'luminal' (5 problems)
// NOTFLAT: error: not flat: expected one public function, found 2
// NOTFLAT: error: shlo-verify-flat: module is not flat for profile 'luminal' (1 problem)

// Composites survive by default, with their decompositions; decompose inlines them (bar keep).
// SURVIVE-LABEL: func.func @main
// SURVIVE:         stablehlo.composite "a.keep"
// SURVIVE:         stablehlo.composite "b.drop"
// SURVIVE:       func.func private @a_impl
// SURVIVE:       func.func private @b_impl
// CHECK-LABEL: func.func @main
// CHECK-NOT:     stablehlo.composite
// CHECK:         stablehlo.negate
// CHECK-NOT:   func.func
// KEEP-LABEL:  func.func @main
// KEEP:          stablehlo.composite "a.keep"
// KEEP-NOT:      stablehlo.composite "b.drop"
// KEEP:        func.func private @a_impl
// KEEP-NOT:    func.func private @b_impl
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "a.keep" %x {decomposition = @a_impl} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "b.drop" %0 {decomposition = @b_impl} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @a_impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @b_impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
