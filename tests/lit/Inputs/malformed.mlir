// Shared bad input for the error-path tests: %nope is never defined.
func.func @bad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %nope : tensor<4xf32>
  return %0 : tensor<4xf32>
}
