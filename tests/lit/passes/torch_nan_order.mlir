// shlo-torch-nan-order: sorts put NaN last (and are stable) and compare-select reductions let
// NaN win, the first one, as PyTorch's sort/argsort and max/min/argmax/argmin along a
// dimension do.  Before the pass, IREE follows IEEE compares: NaN stays put and loses.
// RUN: shlo-opt %s --shlo-torch-nan-order | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main --input="2x4xf32=[1 nan 3 -1][nan 2 nan -inf]" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-torch-nan-order --shlo-stable-sort | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="2x4xf32=[1 nan 3 -1][nan 2 nan -inf]" | filecheck %s

// IR-LABEL: func.func @main
// IR: "stablehlo.sort"{{.*}}is_stable = true
// IR: %[[NAN:.*]] = stablehlo.compare NE, %[[B:.*]], %[[B]], FLOAT
// IR: %[[OTHER:.*]] = stablehlo.compare EQ, %[[A:.*]], %[[A]], FLOAT
// IR: %[[ONLY:.*]] = stablehlo.and %[[NAN]], %[[OTHER]]
// IR: %[[LT:.*]] = stablehlo.compare LT, %[[A]], %[[B]], FLOAT
// IR: stablehlo.or %[[LT]], %[[ONLY]]
// IR: stablehlo.reduce
// IR: stablehlo.compare GE
// IR: stablehlo.or
// Max pooling with indices (a reduce_window over values and positions): NaN wins there too.
// IR-LABEL: func.func @pooling
// IR: "stablehlo.reduce_window"
// IR: %[[NAN:.*]] = stablehlo.compare NE, %[[A:.*]], %[[A]], FLOAT
// IR: %[[GE:.*]] = stablehlo.compare GE, %[[A]], %{{.*}}, FLOAT
// IR: stablehlo.or %[[GE]], %[[NAN]]
// Integer keys keep their compare (the sort is marked stable; shlo-stable-sort orders ties).
// IR-LABEL: func.func @integers
// IR: is_stable = true
// IR: ^bb0(%[[A:.*]]: tensor<i32>, %[[B:.*]]: tensor<i32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>)
// IR-NEXT: %[[LESS:.*]] = stablehlo.compare LT, %[[A]], %[[B]], SIGNED
// IR-NEXT: stablehlo.return %[[LESS]]

// BEFORE: 2x4xf32=[-1 NAN 1 3][NAN -INF NAN 2]
// BEFORE: 2x4xi64=[3 1 0 2][0 3 2 1]
// BEFORE: 2xf32=3 -INF
// BEFORE: 2xi64=2 3
// CHECK: 2x4xf32=[-1 1 3 NAN][-INF 2 NAN NAN]
// CHECK: 2x4xi64=[3 0 2 1][3 1 0 2]
// CHECK: 2xf32=NAN NAN
// CHECK: 2xi64=1 0
// CHECK: 2xf32=NAN NAN
// CHECK: 2xi64=1 0
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xi64>) {
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %high = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i64>
  %i = stablehlo.iota dim = 1 : tensor<2x4xi64>
  %s:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %ia: tensor<i64>, %ib: tensor<i64>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x4xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %max:2 = stablehlo.reduce(%x init: %low), (%i init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi64>, tensor<f32>, tensor<i64>) -> (tensor<2xf32>, tensor<2xi64>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i64>, %ib: tensor<i64>)  {
    %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %ge, %a, %b : tensor<i1>, tensor<f32>
    %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %first = stablehlo.minimum %ia, %ib : tensor<i64>
    %picked = stablehlo.select %ge, %ia, %ib : tensor<i1>, tensor<i64>
    %index = stablehlo.select %eq, %first, %picked : tensor<i1>, tensor<i64>
    stablehlo.return %v, %index : tensor<f32>, tensor<i64>
  }
  %min:2 = stablehlo.reduce(%x init: %high), (%i init: %c) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi64>, tensor<f32>, tensor<i64>) -> (tensor<2xf32>, tensor<2xi64>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i64>, %ib: tensor<i64>)  {
    %le = stablehlo.compare LE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %le, %a, %b : tensor<i1>, tensor<f32>
    %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %first = stablehlo.minimum %ia, %ib : tensor<i64>
    %picked = stablehlo.select %le, %ia, %ib : tensor<i1>, tensor<i64>
    %index = stablehlo.select %eq, %first, %picked : tensor<i1>, tensor<i64>
    stablehlo.return %v, %index : tensor<f32>, tensor<i64>
  }
  return %s#0, %s#1, %max#0, %max#1, %min#0, %min#1 : tensor<2x4xf32>, tensor<2x4xi64>, tensor<2xf32>, tensor<2xi64>, tensor<2xf32>, tensor<2xi64>
}

func.func @pooling(%x: tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x2xi64>) {
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i64>
  %i = stablehlo.iota dim = 1 : tensor<1x4xi64>
  %r:2 = "stablehlo.reduce_window"(%x, %i, %low, %c) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<f32>, %ia: tensor<i64>, %b: tensor<f32>, %ib: tensor<i64>):
    %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %ge, %a, %b : tensor<i1>, tensor<f32>
    %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %first = stablehlo.minimum %ia, %ib : tensor<i64>
    %picked = stablehlo.select %ge, %ia, %ib : tensor<i1>, tensor<i64>
    %index = stablehlo.select %eq, %first, %picked : tensor<i1>, tensor<i64>
    stablehlo.return %v, %index : tensor<f32>, tensor<i64>
  }) : (tensor<1x4xf32>, tensor<1x4xi64>, tensor<f32>, tensor<i64>) -> (tensor<1x2xf32>, tensor<1x2xi64>)
  return %r#0, %r#1 : tensor<1x2xf32>, tensor<1x2xi64>
}

func.func @integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<0> : tensor<4xi32>
  %i = stablehlo.iota dim = 0 : tensor<4xi32>
  %s:2 = "stablehlo.sort"(%x, %i) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %ia: tensor<i32>, %ib: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  %r = stablehlo.add %s#0, %c : tensor<4xi32>
  return %r : tensor<4xi32>
}
