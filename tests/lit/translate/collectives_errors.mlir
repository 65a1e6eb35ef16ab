// A run_parallel whose processes cannot all finish is one clear error at the op, not a
// "rendezvous timed out" abort after 3 s (or a hang).
// RUN: not shlo-translate --interpret -split-input-file %s 2>&1 | filecheck %s

// Process (1, 0) returns without the all_reduce that (0, 0) waits for.
// CHECK: collectives_errors.mlir:10:10: error: interpreter.run_parallel: the processes wait for each other forever
// CHECK-SAME: (0, 0) at stablehlo.all_reduce
module @waits_forever {
  func.func @reduce(%x: tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @idle(%x: tensor<i32>) -> tensor<i32> {
    return %x : tensor<i32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@reduce], [@idle]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// Replica 1 is in no group of the all_gather: upstream aborts with the same words.
// CHECK: collectives_errors.mlir:33:10: error: stablehlo.all_gather: Failed to find process group with process_id: (1, 0)
module @no_group {
  func.func @gather(%x: tensor<1xi32>) -> tensor<1xi32> {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
        replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<1xi32>) -> tensor<1xi32>
    return %g : tensor<1xi32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1]> : tensor<1xi32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@gather], [@gather]]} : (tensor<1xi32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<1xi32>)
    func.return
  }
}
