// hlo-test-infer's test ops the bindings cannot answer (tests/lit/passes/hlo_test_infer.mlir):
// an inferReturnTypeComponents shlo has not ported.
func.func @components(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %group_sizes: tensor<3xi64>) -> tensor<3xindex> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %group_sizes) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [1],
      lhs_contracting_dimensions = [2],
      rhs_contracting_dimensions = [2],
      lhs_ragged_dimensions = [1],
      rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>
  %1 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<2x11x7xf32>) -> tensor<3xindex>
  func.return %1 : tensor<3xindex>
}
