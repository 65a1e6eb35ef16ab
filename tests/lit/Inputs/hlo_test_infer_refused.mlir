// hlo-test-infer's test ops the bindings cannot answer (tests/lit/passes/hlo_test_infer.mlir).
func.func @reify(%x: tensor<?x2xf32>) -> tensor<2xindex> {
  %0 = "stablehlo.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<?x2xf32>) -> tensor<2x?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<2x?xf32>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}

// -----

func.func @components(%a: tensor<?x12xf32, #stablehlo.bounds<64, ?>>, %b: tensor<12x?xf32, #stablehlo.bounds<?, 64>>) -> tensor<2xindex> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<?x12xf32, #stablehlo.bounds<64, ?>>, tensor<12x?xf32, #stablehlo.bounds<?, 64>>) -> tensor<?x?xf32, #stablehlo.bounds<64, 64>>
  %1 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<?x?xf32, #stablehlo.bounds<64, 64>>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}

