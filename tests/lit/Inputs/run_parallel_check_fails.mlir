// A check that fails in one of the processes run_parallel starts.
func.func @positive(%x: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %gt = stablehlo.compare GT, %x, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
  check.expect_eq_const %gt, dense<true> : tensor<i1>
  return %x : tensor<i32>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<-1> : tensor<i32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@positive], [@positive]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  func.return
}
