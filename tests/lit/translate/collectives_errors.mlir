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

// -----

// The loop runs once in replica 0 and twice in replica 1: upstream's replica 1 waits at the
// all_reduce for a replica that has left the loop.
// CHECK: collectives_errors.mlir:54:12: error: @main: interpreter.run_parallel: the processes (0, 0), (1, 0) of a stablehlo.while that holds a collective disagree on when to stop
module @loops_of_different_lengths {
  func.func @count(%x: tensor<i32>) -> tensor<i32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %last = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<i32>
    cond {
      %c = stablehlo.compare LE, %i, %last : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %s = "stablehlo.all_reduce"(%v) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %n, %s : tensor<i32>, tensor<i32>
    }
    return %r#1 : tensor<i32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@count], [@count]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// One process meets the other's loop from an if it is known to take (its all_reduce comes to the
// top level): shlo runs control flow that holds a collective in lock step, and says so.
// CHECK: collectives_errors.mlir:86:12: error: interpreter.run_parallel: the processes do not meet: (0, 0) at stablehlo.while, (1, 0) at stablehlo.all_reduce
module @different_control_flow {
  func.func @looping(%x: tensor<i32>) -> tensor<i32> {
    %t = stablehlo.constant dense<true> : tensor<i1>
    %f = stablehlo.constant dense<false> : tensor<i1>
    %r:2 = stablehlo.while(%go = %t, %v = %x) : tensor<i1>, tensor<i32>
    cond {
      stablehlo.return %go : tensor<i1>
    } do {
      %s = "stablehlo.all_reduce"(%v) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %f, %s : tensor<i1>, tensor<i32>
    }
    return %r#1 : tensor<i32>
  }
  func.func @branching(%x: tensor<i32>) -> tensor<i32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare GT, %x, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = "stablehlo.if"(%p) ({
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %s : tensor<i32>
    }, {
      stablehlo.return %x : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@looping], [@branching]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// A collective inside a region other than while, if and case: not run, rather than run on
// threads that wait on a clock.
// CHECK: collectives_errors.mlir:131:14: error: interpreter.run_parallel: shlo cannot run the processes in one thread with stablehlo.all_reduce inside stablehlo.reduce
module @collective_in_a_reduction {
  func.func @odd(%x: tensor<2xi32>) -> tensor<i32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r = "stablehlo.reduce"(%x, %zero) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = "stablehlo.all_reduce"(%a) ({
          ^bb0(%p: tensor<i32>, %q: tensor<i32>):
            %d = stablehlo.add %p, %q : tensor<i32>
            stablehlo.return %d : tensor<i32>
        }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
        %t = stablehlo.add %s, %b : tensor<i32>
        stablehlo.return %t : tensor<i32>
    }) {dimensions = array<i64: 0>} : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@odd], [@odd]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// Replica 0 (1 >= 1 * 1) takes the branch with the all_reduce, replica 1 (-1 < -1 * -1) the
// one without, which shlo learns only at run time: the combination is written as a trap, and
// taken, it stops the run at the op that would wait forever.
// CHECK: collectives_errors.mlir:159:12: error: @main: interpreter.run_parallel: the processes wait for each other forever: (0, 0) at stablehlo.all_reduce
module @one_branch_waits {
  func.func @maybe(%x: tensor<i32>) -> tensor<i32> {
    %m = stablehlo.multiply %x, %x : tensor<i32>
    %p = stablehlo.compare GE, %x, %m : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = "stablehlo.if"(%p) ({
      %t = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %t : tensor<i32>
    }, {
      stablehlo.return %x : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<1> : tensor<i32>
    %y = stablehlo.constant dense<-1> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%x, %y) {programs = [[@maybe], [@maybe]]}
      : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}
