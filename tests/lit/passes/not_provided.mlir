// Passes upstream's stablehlo-opt registers that shlo cannot provide (the TOSA conversions no
// wheel has) are named as such, with the reason, never as an unknown pass; as a flag and inside
// a pipeline alike.
// RUN: not shlo-opt %s --stablehlo-legalize-to-tosa 2>&1 | filecheck %s --check-prefix=TOSA
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(func.func(tosa-rescale-legalize-to-stablehlo))' 2>&1 | filecheck %s --check-prefix=TOSA

// TOSA: is not supported by shlo: StableHLO's TOSA conversions are built into neither wheel
// TOSA-NOT: unknown pass
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
