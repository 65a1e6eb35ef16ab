// interpreter.run_parallel with collectives: shlo lowers the grid into one thread, so a grid
// larger than the machine's CPUs, or a loaded machine, cannot make a rendezvous time out.
// RUN: shlo-translate --interpret -split-input-file %s

// A 2x4 grid: more processes than a small machine has CPUs (upstream's thread pool has one
// thread per CPU, so it waits for processes that never start).  all_reduce combines in
// process-id order: subtract gives p0 - p1 - p2 - p3 within each replica's partitions.
module @grid_2x4 {
  func.func @sub(%x: tensor<2xi32>) -> tensor<2xi32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %d = stablehlo.subtract %a, %b : tensor<i32>
        stablehlo.return %d : tensor<i32>
    }) {replica_groups = dense<[[3, 1, 2, 0], [4, 5, 6, 7]]> : tensor<2x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        use_global_device_ids} : (tensor<2xi32>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[100, 1]> : tensor<2xi32>
    %b = stablehlo.constant dense<[10, 2]> : tensor<2xi32>
    %c = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
    %d = stablehlo.constant dense<[7, 4]> : tensor<2xi32>
    %r:8 = "interpreter.run_parallel"(%a, %b, %c, %d, %d, %c, %b, %a) {
      programs = [[@sub, @sub, @sub, @sub], [@sub, @sub, @sub, @sub]]
    } : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    // flattened ids 0..3 are replica 0's partitions: 100-10-1-7, 1-2-3-4
    check.expect_eq_const %r#0, dense<[82, -8]> : tensor<2xi32>
    check.expect_eq_const %r#3, dense<[82, -8]> : tensor<2xi32>
    // ids 4..7, replica 1: 7-1-10-100, 4-3-2-1
    check.expect_eq_const %r#4, dense<[-104, -2]> : tensor<2xi32>
    check.expect_eq_const %r#7, dense<[-104, -2]> : tensor<2xi32>
    func.return
  }
}

// -----

// Cross-replica groups over two partitions; all_gather in group order, then all_to_all.
module @gather_then_all_to_all {
  func.func @step(%x: tensor<1x2xi64>) -> (tensor<2x2xi64>, tensor<2x1xi64>) {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
        replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<1x2xi64>) -> tensor<2x2xi64>
    %t = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64,
        split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
        : (tensor<1x2xi64>) -> tensor<2x1xi64>
    return %g, %t : tensor<2x2xi64>, tensor<2x1xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
    %b = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
    %c = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
    %d = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
    %r:8 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@step, @step], [@step, @step]]}
      : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) -> (tensor<2x2xi64>, tensor<2x1xi64>, tensor<2x2xi64>, tensor<2x1xi64>, tensor<2x2xi64>, tensor<2x1xi64>, tensor<2x2xi64>, tensor<2x1xi64>)
    // process (0, 0) gathers replica 1 then replica 0 of partition 0
    check.expect_eq_const %r#0, dense<[[5, 6], [1, 2]]> : tensor<2x2xi64>
    check.expect_eq_const %r#2, dense<[[7, 8], [3, 4]]> : tensor<2x2xi64>
    // all_to_all: (0, 0) gets column 0 of replica 0 and of replica 1 (partition 0)
    check.expect_eq_const %r#1, dense<[[1], [5]]> : tensor<2x1xi64>
    check.expect_eq_const %r#7, dense<[[4], [8]]> : tensor<2x1xi64>
    func.return
  }
}

// -----

// reduce_scatter, collective_permute (a process nobody sends to gets zeros),
// collective_broadcast (a process outside the group gets zeros).
module @scatter_permute_broadcast {
  func.func @run(%x: tensor<3xf32>) -> (tensor<1xf32>, tensor<3xf32>, tensor<3xf32>) {
    %s = "stablehlo.reduce_scatter"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %m : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>}
        : (tensor<3xf32>) -> tensor<1xf32>
    %p = "stablehlo.collective_permute"(%x) {
        source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    %b = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}
        : (tensor<3xf32>) -> tensor<3xf32>
    return %s, %p, %b : tensor<1xf32>, tensor<3xf32>, tensor<3xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 8.0, 3.0]> : tensor<3xf32>
    %b = stablehlo.constant dense<[5.0, 2.0, 7.0]> : tensor<3xf32>
    %c = stablehlo.constant dense<[9.0, 0.0, 1.0]> : tensor<3xf32>
    %r:9 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@run], [@run], [@run]]}
      : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1xf32>, tensor<3xf32>, tensor<3xf32>)
    // the maximum is [9, 8, 7]; the group's order [2, 0, 1] says who gets which part
    check.expect_eq_const %r#6, dense<[9.0]> : tensor<1xf32>
    check.expect_eq_const %r#0, dense<[8.0]> : tensor<1xf32>
    check.expect_eq_const %r#3, dense<[7.0]> : tensor<1xf32>
    check.expect_eq_const %r#1, dense<[5.0, 2.0, 7.0]> : tensor<3xf32>
    check.expect_eq_const %r#4, dense<[1.0, 8.0, 3.0]> : tensor<3xf32>
    check.expect_eq_const %r#7, dense<0.0> : tensor<3xf32>
    check.expect_eq_const %r#2, dense<[5.0, 2.0, 7.0]> : tensor<3xf32>
    check.expect_eq_const %r#5, dense<[5.0, 2.0, 7.0]> : tensor<3xf32>
    check.expect_eq_const %r#8, dense<0.0> : tensor<3xf32>
    func.return
  }
}

// -----

// send and recv meet on their channel; replica_id is the process's own.
module @send_recv {
  func.func @send(%x: tensor<2xui32>, %t: !stablehlo.token) -> !stablehlo.token {
    %id = stablehlo.replica_id : tensor<ui32>
    %b = stablehlo.broadcast_in_dim %id, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %y = stablehlo.add %x, %b : tensor<2xui32>
    %done = "stablehlo.send"(%y, %t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>,
        is_host_transfer = false} : (tensor<2xui32>, !stablehlo.token) -> !stablehlo.token
    return %done : !stablehlo.token
  }
  func.func @recv(%t: !stablehlo.token) -> (tensor<2xui32>, !stablehlo.token) {
    %r:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>,
        is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xui32>, !stablehlo.token)
    return %r#0, %r#1 : tensor<2xui32>, !stablehlo.token
  }
  func.func @main() {
    %x = stablehlo.constant dense<[10, 20]> : tensor<2xui32>
    %t = stablehlo.after_all : !stablehlo.token
    %r:3 = "interpreter.run_parallel"(%t, %x, %t) {programs = [[@recv], [@send]]}
      : (!stablehlo.token, tensor<2xui32>, !stablehlo.token) -> (tensor<2xui32>, !stablehlo.token, !stablehlo.token)
    check.expect_eq_const %r#0, dense<[11, 21]> : tensor<2xui32>
    func.return
  }
}

// -----

// Groups as mesh axes: upstream flattens them to dense groups (flattenReplicaGroupMeshAxes);
// shlo spells them out the same way, so this 8-process grid runs in one thread too.  On a
// 2x4 mesh the axis "x" groups devices {0,4}, {1,5}, {2,6}, {3,7}; subtract shows the order.
module @mesh_axes {
  func.func @sub(%x: tensor<i64>) -> tensor<i64> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %d = stablehlo.subtract %a, %b : tensor<i64>
        stablehlo.return %d : tensor<i64>
    }) {
      replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 4>]>, axes = [#stablehlo.axis_ref<name = "x">]>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<i64>) -> tensor<i64>
    return %r : tensor<i64>
  }
  func.func @main() {
    %p0 = stablehlo.constant dense<1> : tensor<i64>
    %p1 = stablehlo.constant dense<2> : tensor<i64>
    %p2 = stablehlo.constant dense<4> : tensor<i64>
    %p3 = stablehlo.constant dense<8> : tensor<i64>
    %p4 = stablehlo.constant dense<16> : tensor<i64>
    %p5 = stablehlo.constant dense<32> : tensor<i64>
    %p6 = stablehlo.constant dense<64> : tensor<i64>
    %p7 = stablehlo.constant dense<128> : tensor<i64>
    %r:8 = "interpreter.run_parallel"(%p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7) {
      programs = [[@sub], [@sub], [@sub], [@sub], [@sub], [@sub], [@sub], [@sub]]
    } : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
    check.expect_eq_const %r#0, dense<-15> : tensor<i64>
    check.expect_eq_const %r#4, dense<-15> : tensor<i64>
    check.expect_eq_const %r#1, dense<-30> : tensor<i64>
    check.expect_eq_const %r#3, dense<-120> : tensor<i64>
    check.expect_eq_const %r#7, dense<-120> : tensor<i64>
    func.return
  }
}

// -----

// A collective reached through a call: the calls are inlined first, so this 8-process grid runs
// in one thread as well.  Each process doubles its value before the reduce: 2 - 4 - ... - 256.
module @called {
  func.func private @reduce(%x: tensor<i64>) -> tensor<i64> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %d = stablehlo.subtract %a, %b : tensor<i64>
        stablehlo.return %d : tensor<i64>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<i64>) -> tensor<i64>
    return %r : tensor<i64>
  }
  func.func @process(%x: tensor<i64>) -> tensor<i64> {
    %twice = stablehlo.add %x, %x : tensor<i64>
    %r = func.call @reduce(%twice) : (tensor<i64>) -> tensor<i64>
    return %r : tensor<i64>
  }
  func.func @main() {
    %p0 = stablehlo.constant dense<1> : tensor<i64>
    %p1 = stablehlo.constant dense<2> : tensor<i64>
    %p2 = stablehlo.constant dense<4> : tensor<i64>
    %p3 = stablehlo.constant dense<8> : tensor<i64>
    %p4 = stablehlo.constant dense<16> : tensor<i64>
    %p5 = stablehlo.constant dense<32> : tensor<i64>
    %p6 = stablehlo.constant dense<64> : tensor<i64>
    %p7 = stablehlo.constant dense<128> : tensor<i64>
    %r:8 = "interpreter.run_parallel"(%p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7) {
      programs = [[@process], [@process], [@process], [@process], [@process], [@process], [@process], [@process]]
    } : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
    check.expect_eq_const %r#0, dense<-506> : tensor<i64>
    check.expect_eq_const %r#7, dense<-506> : tensor<i64>
    func.return
  }
}
