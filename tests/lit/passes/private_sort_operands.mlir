// shlo-private-sort-operands: a sort operand another op also uses (two sorts' shared iota of
// indices) reaches each sort through a barrier of its own, so IREE's in-place sort cannot
// clobber what the other reads; an operand used once is left alone.  Run on IREE, before and
// after.
// RUN: shlo-opt %s --shlo-private-sort-operands | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=two_sorts --input="6xi64=3 1 4 0 5 9" --input="6xi64=2 7 1 8 3 6" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-private-sort-operands | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=two_sorts --input="6xi64=3 1 4 0 5 9" --input="6xi64=2 7 1 8 3 6" | filecheck %s

// IR-LABEL: func.func @two_sorts
// IR: %[[I:.*]] = stablehlo.iota
// IR-NEXT: %[[P:.*]] = stablehlo.optimization_barrier %[[I]]
// IR-NEXT: "stablehlo.sort"(%arg0, %[[P]])
// IR: %[[Q:.*]] = stablehlo.optimization_barrier %[[I]]
// IR-NEXT: "stablehlo.sort"(%arg1, %[[Q]])
// IR-LABEL: func.func @alone
// IR-NOT: optimization_barrier
// IR: return

// BEFORE: result[1]: hal.buffer_view
// BEFORE-NOT: 6xi64=5 4 2 0 1 3
// CHECK: result[0]: hal.buffer_view
// CHECK-NEXT: 6xi64=9 5 4 3 1 0
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: 6xi64=5 4 2 0 1 3
// CHECK-NEXT: result[2]: hal.buffer_view
// CHECK-NEXT: 6xi64=8 7 6 3 2 1
// CHECK-NEXT: result[3]: hal.buffer_view
// CHECK-NEXT: 6xi64=3 1 5 4 0 2

func.func @two_sorts(%a: tensor<6xi64>, %b: tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>) {
  %i = stablehlo.iota dim = 0 : tensor<6xi64>
  %1:2 = "stablehlo.sort"(%a, %i) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%p: tensor<i64>, %q: tensor<i64>, %r: tensor<i64>, %s: tensor<i64>):
    %c = stablehlo.compare GT, %p, %q, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<6xi64>, tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>)
  %2:2 = "stablehlo.sort"(%b, %i) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%p: tensor<i64>, %q: tensor<i64>, %r: tensor<i64>, %s: tensor<i64>):
    %c = stablehlo.compare GT, %p, %q, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<6xi64>, tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>)
  return %1#0, %1#1, %2#0, %2#1 : tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xi64>
}

func.func @alone(%a: tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>) {
  %i = stablehlo.iota dim = 0 : tensor<6xi64>
  %1:2 = "stablehlo.sort"(%a, %i) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%p: tensor<i64>, %q: tensor<i64>, %r: tensor<i64>, %s: tensor<i64>):
    %c = stablehlo.compare GT, %p, %q, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<6xi64>, tensor<6xi64>) -> (tensor<6xi64>, tensor<6xi64>)
  return %1#0, %1#1 : tensor<6xi64>, tensor<6xi64>
}
