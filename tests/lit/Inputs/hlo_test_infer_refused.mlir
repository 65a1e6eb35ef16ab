// hlo-test-infer's test ops the bindings cannot answer (tests/lit/passes/hlo_test_infer.mlir):
// an inferReturnTypeComponents shlo has not ported.
func.func @components(%p: tensor<i1>, %a: tensor<?x2xf32>, %b: tensor<?x2xf32>) -> tensor<2xindex> {
  %0 = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %1 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<?x2xf32>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}
