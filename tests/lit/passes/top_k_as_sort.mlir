// shlo-top-k-as-sort: chlo.top_k as upstream's stable descending sort and slices, so equal
// values come back in index order (IREE's own top-k kernel orders them otherwise).
// RUN: shlo-opt %s --shlo-top-k-as-sort | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main --input="5x3xi16=[1 1 1][2 1 2][0 0 3][3 0 0][1 2 2]" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-top-k-as-sort --shlo-stable-sort | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="5x3xi16=[1 1 1][2 1 2][0 0 3][3 0 0][1 2 2]" | filecheck %s
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=floats --input="6xf32=1 nan -0 0 inf nan" | filecheck %s --check-prefix=FLOATS

// IR-LABEL: func.func @main
// IR: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<5x3xi32>
// IR: %[[SORT:.*]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]]) <{dimension = 1 : i64, is_stable = true}>
// IR: stablehlo.compare GT, %{{.*}}, %{{.*}}, SIGNED
// IR: stablehlo.slice %[[SORT]]#0 [0:5, 0:2]
// IR: stablehlo.slice %[[SORT]]#1 [0:5, 0:2]
// IR-NOT: chlo.top_k
// IR-LABEL: func.func @floats
// IR: stablehlo.compare GT, %{{.*}}, %{{.*}}, TOTALORDER
// BEFORE: 5x2xi16=[1 1][2 2][3 0][3 0][2 2]
// BEFORE-NOT: 5x2xi32=[0 1][0 2][2 0][0 1][1 2]
// CHECK: 5x2xi16=[1 1][2 2][3 0][3 0][2 2]
// CHECK: 5x2xi32=[0 1][0 2][2 0][0 1][1 2]
// Total order: NaN above infinity, 0 above -0, ties by index.
// FLOATS: 6xf32=NAN NAN INF 1 0 -0
// FLOATS: 6xi32=1 5 4 0 3 2
func.func @main(%x: tensor<5x3xi16>) -> (tensor<5x2xi16>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%x, k = 2) : tensor<5x3xi16> -> (tensor<5x2xi16>, tensor<5x2xi32>)
  return %values, %indices : tensor<5x2xi16>, tensor<5x2xi32>
}

func.func @floats(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi32>) {
  %values, %indices = chlo.top_k(%x, k = 6) : tensor<6xf32> -> (tensor<6xf32>, tensor<6xi32>)
  return %values, %indices : tensor<6xf32>, tensor<6xi32>
}
