// A custom_call check that fails.
func.func @main() {
  %a = stablehlo.constant dense<3> : tensor<i32>
  %b = stablehlo.constant dense<4> : tensor<i32>
  stablehlo.custom_call @check.expect_eq(%a, %b) : (tensor<i32>, tensor<i32>) -> ()
  func.return
}
