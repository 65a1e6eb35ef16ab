// RUN: shlo-opt %s --shlo-scalars-to-stablehlo | filecheck %s
// RUN: shlo-opt %s --shlo-scalars-to-stablehlo | shlo-translate --interpret --args="[dense<3> : tensor<i64>, dense<-4> : tensor<i64>, dense<0x7FF8000000000000> : tensor<f64>, dense<1.0> : tensor<f64>]" | filecheck %s --check-prefix=VALUES

// torch-mlir's lowering of `int(a) < int(b)`, `float(x) > float(y)` and `float(x) != float(y)`:
// each comparison becomes stablehlo.compare, and `ugt` (what torch-mlir emits for Python's `>`)
// answers False on NaN, as Python does.
// CHECK-LABEL: func.func @main
// CHECK-NOT: arith.
// CHECK: stablehlo.compare LT, %arg0, %arg1, SIGNED
// CHECK: stablehlo.compare GT, %arg2, %arg3, FLOAT
// CHECK: stablehlo.compare NE, %arg2, %arg3, FLOAT
// VALUES: tensor<i1> {false}
// VALUES-NEXT: tensor<i1> {false}
// VALUES-NEXT: tensor<i1> {true}
func.func @main(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<f64>, %arg3: tensor<f64>) -> (tensor<i1>, tensor<i1>, tensor<i1>) {
  %a = tensor.extract %arg0[] : tensor<i64>
  %b = tensor.extract %arg1[] : tensor<i64>
  %x = tensor.extract %arg2[] : tensor<f64>
  %y = tensor.extract %arg3[] : tensor<f64>
  %lt = arith.cmpi slt, %a, %b : i64
  %gt = arith.cmpf ugt, %x, %y : f64
  %ne = arith.cmpf une, %x, %y : f64
  %0 = tensor.from_elements %lt : tensor<i1>
  %1 = tensor.from_elements %gt : tensor<i1>
  %2 = tensor.from_elements %ne : tensor<i1>
  return %0, %1, %2 : tensor<i1>, tensor<i1>, tensor<i1>
}
