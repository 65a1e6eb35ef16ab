// shlo-stable-sort: a sort marked is_stable orders equivalent elements by position, so IREE's
// sort (which ignores is_stable) keeps equal keys in their order.  Before the pass, IREE
// reorders them; after it, the positions of equal keys come back in increasing order.
// RUN: shlo-opt %s --shlo-stable-sort | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=keys_and_positions --input="24xi32=2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-stable-sort | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=keys_and_positions --input="24xi32=2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1 2 0 1" | filecheck %s --check-prefix=STABLE
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=keys_and_values --input="2x6xi32=[1 1 0 1 0 1][3 3 3 3 3 3]" --input="2x6xf32=[0 1 2 3 4 5][0 1 2 3 4 5]" | filecheck %s --check-prefix=VALUES

// A sort that carries positions (an iota along its dimension) breaks ties on them.
// IR-LABEL: func.func @keys_and_positions
// IR: ^bb0(%[[A:.*]]: tensor<i32>, %[[B:.*]]: tensor<i32>, %[[PA:.*]]: tensor<i32>, %[[PB:.*]]: tensor<i32>):
// IR-NEXT: %[[LESS:.*]] = stablehlo.compare GT, %[[A]], %[[B]], SIGNED
// IR-NEXT: %[[MORE:.*]] = stablehlo.compare GT, %[[B]], %[[A]], SIGNED
// IR-NEXT: %[[EARLIER:.*]] = stablehlo.compare LT, %[[PA]], %[[PB]], SIGNED
// IR-NEXT: %[[NOT_MORE:.*]] = stablehlo.not %[[MORE]]
// IR-NEXT: %[[TIE:.*]] = stablehlo.and %[[NOT_MORE]], %[[EARLIER]]
// IR-NEXT: %[[ORDER:.*]] = stablehlo.or %[[LESS]], %[[TIE]]
// IR-NEXT: stablehlo.return %[[ORDER]]
// IREE turns a sort whose results are sliced into its top-k kernel, which drops the order of
// equal keys again: the results are read through a barrier.
// IR: %[[FENCED:.*]]:2 = stablehlo.optimization_barrier %[[SORTED:.*]]#0, %[[SORTED]]#1
// IR: return %[[FENCED]]#1
// BEFORE-NOT: 24xi32=0 3 6 9 12 15 18 21 2 5 8 11 14 17 20 23 1 4 7 10 13 16 19 22
// STABLE: 24xi32=0 3 6 9 12 15 18 21 2 5 8 11 14 17 20 23 1 4 7 10 13 16 19 22
func.func @keys_and_positions(%k: tensor<24xi32>) -> tensor<24xi32> {
  %i = stablehlo.iota dim = 0 : tensor<24xi32>
  %s:2 = "stablehlo.sort"(%k, %i) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) : (tensor<24xi32>, tensor<24xi32>) -> (tensor<24xi32>, tensor<24xi32>)
  return %s#1 : tensor<24xi32>
}

// Without positions, the pass sorts an iota of its own beside the operands and drops it.
// IR-LABEL: func.func @keys_and_values
// IR: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<2x6xi32>
// IR: %[[SORT:.*]]:3 = "stablehlo.sort"(%arg0, %arg1, %[[IOTA]]) <{dimension = 1 : i64, is_stable = true}>
// IR: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %[[PA:.*]]: tensor<i32>, %[[PB:.*]]: tensor<i32>):
// IR: stablehlo.compare LT, %[[PA]], %[[PB]], SIGNED
// IR: %[[FENCED:.*]]:3 = stablehlo.optimization_barrier %[[SORT]]#0, %[[SORT]]#1, %[[SORT]]#2
// IR: return %[[FENCED]]#1 : tensor<2x6xf32>
// VALUES: 2x6xf32=[2 4 0 1 3 5][0 1 2 3 4 5]
func.func @keys_and_values(%k: tensor<2x6xi32>, %v: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %s:2 = "stablehlo.sort"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x6xi32>, tensor<2x6xf32>) -> (tensor<2x6xi32>, tensor<2x6xf32>)
  return %s#1 : tensor<2x6xf32>
}

// A stable descending sort whose results are sliced from the front (top-k as upstream writes
// it): equal values keep their index order on IREE too.
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=top_two --input="5x3xi16=[1 1 1][2 1 2][0 0 3][3 0 0][1 2 2]" | filecheck %s --check-prefix=TOP
// TOP: 5x2xi32=[0 1][0 2][2 0][0 1][1 2]
func.func @top_two(%x: tensor<5x3xi16>) -> tensor<5x2xi32> {
  %i = stablehlo.iota dim = 1 : tensor<5x3xi32>
  %s:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i16>, %b: tensor<i16>, %c: tensor<i32>, %d: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i16>, tensor<i16>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) : (tensor<5x3xi16>, tensor<5x3xi32>) -> (tensor<5x3xi16>, tensor<5x3xi32>)
  %top = stablehlo.slice %s#1 [0:5, 0:2] : (tensor<5x3xi32>) -> tensor<5x2xi32>
  return %top : tensor<5x2xi32>
}

// A sort not marked stable is left as it is.
// IR-LABEL: func.func @unstable
// IR: ^bb0
// IR-NEXT: stablehlo.compare LT
// IR-NEXT: stablehlo.return
func.func @unstable(%k: tensor<8xf32>) -> tensor<8xf32> {
  %s = "stablehlo.sort"(%k) <{dimension = 0 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
