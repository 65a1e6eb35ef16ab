// shlo-own-sort-operands: two sorts that read one iota each get an index tensor of their own,
// offset for the second sort and made at run time from the sort's keys, and the second
// sort's indices have the offset taken off again; a sort alone keeps its iota.  IREE sorted
// the shared iota in place for both sorts: run on IREE, before and after.
// RUN: shlo-opt %s --shlo-own-sort-operands | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=two --input="2x4xi64=[3 1 2 0][0 0 1 1]" --input="2x4xi64=[0 1 2 3][9 8 7 6]" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-own-sort-operands | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=two --input="2x4xi64=[3 1 2 0][0 0 1 1]" --input="2x4xi64=[0 1 2 3][9 8 7 6]" | filecheck %s

// IR-LABEL: func.func @two
// IR: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<2x4xi64>
// IR: %[[LOW:.*]] = stablehlo.minimum %[[IOTA]], %arg0
// IR: %[[OWN:.*]] = stablehlo.maximum %[[IOTA]], %[[LOW]]
// IR: "stablehlo.sort"(%arg0, %[[OWN]])
// IR: %[[FOUR:.*]] = stablehlo.constant dense<4> : tensor<2x4xi64>
// IR: %[[SHIFTED:.*]] = stablehlo.add %[[IOTA]], %[[FOUR]]
// IR: %[[LOW2:.*]] = stablehlo.minimum %[[SHIFTED]], %arg1
// IR: %[[OWN2:.*]] = stablehlo.maximum %[[SHIFTED]], %[[LOW2]]
// IR: %[[SORTED:.*]]:2 = "stablehlo.sort"(%arg1, %[[OWN2]])
// IR: %[[BACK:.*]] = stablehlo.constant dense<-4> : tensor<2x4xi64>
// IR: %[[INDICES:.*]] = stablehlo.add %[[SORTED]]#1, %[[BACK]]
// IR: return %{{.*}}#1, %[[INDICES]]
// IR-LABEL: func.func @float_keys
// IR: %[[BITS:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<2x4xf32>) -> tensor<2x4xi32>
// IR: %[[WIDE:.*]] = stablehlo.convert %[[BITS]] : (tensor<2x4xi32>) -> tensor<2x4xi64>
// IR: stablehlo.minimum %{{.*}}, %[[WIDE]]
// IR-LABEL: func.func @alone
// IR-NOT: stablehlo.maximum
// IR: "stablehlo.sort"(%arg0, %0)

// BEFORE: result[0]: hal.buffer_view
// BEFORE-NOT: 2x4xi64=[3 1 2 0][0 1 2 3]
// BEFORE: result[1]
// CHECK: result[0]: hal.buffer_view
// CHECK-NEXT: 2x4xi64=[3 1 2 0][0 1 2 3]
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: 2x4xi64=[0 1 2 3][3 2 1 0]
func.func @two(%x: tensor<2x4xi64>, %y: tensor<2x4xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>) {
  %iota = stablehlo.iota dim = 1 : tensor<2x4xi64>
  %0:2 = "stablehlo.sort"(%x, %iota) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  %1:2 = "stablehlo.sort"(%y, %iota) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  return %0#1, %1#1 : tensor<2x4xi64>, tensor<2x4xi64>
}

func.func @float_keys(%x: tensor<2x4xf32>) -> (tensor<2x4xi64>, tensor<2x4xi64>) {
  %iota = stablehlo.iota dim = 1 : tensor<2x4xi64>
  %0:2 = "stablehlo.sort"(%x, %iota) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x4xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %1:2 = "stablehlo.sort"(%x, %iota) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
    %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) : (tensor<2x4xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return %0#1, %1#1 : tensor<2x4xi64>, tensor<2x4xi64>
}

func.func @alone(%x: tensor<2x5xi64>) -> tensor<2x5xi64> {
  %iota = stablehlo.iota dim = 1 : tensor<2x5xi64>
  %0:2 = "stablehlo.sort"(%x, %iota) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x5xi64>, tensor<2x5xi64>) -> (tensor<2x5xi64>, tensor<2x5xi64>)
  return %0#1 : tensor<2x5xi64>
}
