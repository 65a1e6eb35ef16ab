// An MLP block as an exporter writes it: nested private calls and a dead helper.
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = call @linear(%x, %w, %b) : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = call @relu(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
func.func private @linear(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = call @bias(%0, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
func.func private @bias(%y: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.add %y, %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
func.func private @relu(%y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<2x4xf32>
  %0 = stablehlo.maximum %y, %zero : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func private @unused_debug_helper(%y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  return %y : tensor<2x4xf32>
}
