// Collectives inside while, if and case: the processes that meet there run the control flow
// in lock step in one thread, so no rendezvous can time out, and the values are upstream's.
// RUN: shlo-translate --interpret -split-input-file %s

// A while loop with an all_reduce in its body, three iterations, on a 2x2 grid: each
// iteration sums the values of the two replicas of a partition.
module @all_reduce_in_while {
  func.func @step(%x: tensor<2xi64>) -> tensor<2xi64> {
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i64>, tensor<2xi64>
    cond {
      %three = stablehlo.constant dense<3> : tensor<i64>
      %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i64>
      %n = stablehlo.add %i, %one : tensor<i64>
      %s = "stablehlo.all_reduce"(%v) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %d = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %d : tensor<i64>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
      stablehlo.return %n, %s : tensor<i64>, tensor<2xi64>
    }
    return %r#1 : tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %b = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %c = stablehlo.constant dense<[100, 200]> : tensor<2xi64>
    %d = stablehlo.constant dense<[1000, 2000]> : tensor<2xi64>
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@step, @step], [@step, @step]]}
      : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    // partition 0: 1+100 = 101, 202, 404; partition 1: 1010, 2020, 4040
    check.expect_eq_const %r#0, dense<[404, 808]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<[4040, 8080]> : tensor<2xi64>
    check.expect_eq_const %r#2, dense<[404, 808]> : tensor<2xi64>
    check.expect_eq_const %r#3, dense<[4040, 8080]> : tensor<2xi64>
    func.return
  }
}

// -----

// The loop's condition holds the collective: it goes on while the replicas' sum is below 100.
module @all_reduce_in_condition {
  func.func @double(%x: tensor<f32>) -> tensor<f32> {
    %r = stablehlo.while(%v = %x) : tensor<f32>
    cond {
      %s = "stablehlo.all_reduce"(%v) ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %d = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %d : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<f32>) -> tensor<f32>
      %limit = stablehlo.constant dense<100.0> : tensor<f32>
      %c = stablehlo.compare LT, %s, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %two = stablehlo.add %v, %v : tensor<f32>
      stablehlo.return %two : tensor<f32>
    }
    return %r : tensor<f32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<3.0> : tensor<f32>
    %b = stablehlo.constant dense<5.0> : tensor<f32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@double], [@double]]}
      : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    // sums 8, 16, 32, 64 go on; 128 stops
    check.expect_eq_const %r#0, dense<48.0> : tensor<f32>
    check.expect_eq_const %r#1, dense<80.0> : tensor<f32>
    func.return
  }
}

// -----

// A branch chosen by the data: replica 0 takes the false branch, replica 1 the true one, and
// their all_reduces (in different branches) meet, as upstream's threads meet.
module @all_reduce_in_branches_chosen_at_run_time {
  func.func @pick(%x: tensor<i32>) -> tensor<i32> {
    %five = stablehlo.constant dense<5> : tensor<i32>
    %big = stablehlo.compare GT, %x, %five : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = "stablehlo.if"(%big) ({
      %hundred = stablehlo.constant dense<100> : tensor<i32>
      %y = stablehlo.multiply %x, %hundred : tensor<i32>
      %s = "stablehlo.all_reduce"(%y) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %t = stablehlo.add %s, %one : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }, {
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<1> : tensor<i32>
    %b = stablehlo.constant dense<10> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@pick], [@pick]]}
      : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    // 1 + 10 * 100 = 1001 for both; replica 1 adds one
    check.expect_eq_const %r#0, dense<1001> : tensor<i32>
    check.expect_eq_const %r#1, dense<1002> : tensor<i32>
    func.return
  }
}

// -----

// A branch chosen by replica_id: replica 0 multiplies, the others add, each with its own
// computation over the same three values.
module @branch_by_replica_id {
  func.func @reduce(%x: tensor<i32>) -> tensor<i32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%first) ({
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.multiply %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %s : tensor<i32>
    }, {
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.add %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<2> : tensor<i32>
    %b = stablehlo.constant dense<3> : tensor<i32>
    %c = stablehlo.constant dense<7> : tensor<i32>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@reduce], [@reduce], [@reduce]]}
      : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<42> : tensor<i32>
    check.expect_eq_const %r#1, dense<12> : tensor<i32>
    check.expect_eq_const %r#2, dense<12> : tensor<i32>
    func.return
  }
}

// -----

// case: replica 0's index 0 takes branch 0; replica 1's index 7 is out of range and takes the
// last branch; both branches permute between the two replicas.
module @collective_permute_in_case {
  func.func @swap(%index: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.case"(%index) ({
      %p = "stablehlo.collective_permute"(%x) {
          source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
      stablehlo.return %p : tensor<2xf32>
    }, {
      %p = "stablehlo.collective_permute"(%x) {
          source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
      %n = stablehlo.negate %p : tensor<2xf32>
      stablehlo.return %n : tensor<2xf32>
    }) : (tensor<i32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @main() {
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %i1 = stablehlo.constant dense<7> : tensor<i32>
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%i0, %a, %i1, %b) {programs = [[@swap], [@swap]]}
      : (tensor<i32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[3.0, 4.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[-1.0, -2.0]> : tensor<2xf32>
    func.return
  }
}
// -----

// A loop whose body chooses at run time between two all_reduces with different computations;
// each process reduces with its own op's computation, as upstream's do.
module @branches_inside_a_loop {
  func.func @step(%x: tensor<i32>) -> tensor<i32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<i32>
    cond {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %rem = stablehlo.remainder %v, %two : tensor<i32>
      %odd = stablehlo.compare EQ, %rem, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %s = "stablehlo.if"(%odd) ({
        %t = "stablehlo.all_reduce"(%v) ({
          ^bb0(%a: tensor<i32>, %b: tensor<i32>):
            %d = stablehlo.add %a, %b : tensor<i32>
            stablehlo.return %d : tensor<i32>
        }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
        stablehlo.return %t : tensor<i32>
      }, {
        %t = "stablehlo.all_reduce"(%v) ({
          ^bb0(%a: tensor<i32>, %b: tensor<i32>):
            %d = stablehlo.maximum %a, %b : tensor<i32>
            stablehlo.return %d : tensor<i32>
        }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
        stablehlo.return %t : tensor<i32>
      }) : (tensor<i1>) -> tensor<i32>
      %next = stablehlo.add %s, %one : tensor<i32>
      stablehlo.return %n, %next : tensor<i32>, tensor<i32>
    }
    return %r#1 : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<1> : tensor<i32>
    %b = stablehlo.constant dense<2> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]}
      : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    // (1, 2): replica 0 adds (3), replica 1 takes the maximum (2), each plus one: (4, 3);
    // then replica 0 takes the maximum (4), replica 1 adds (7): (5, 8)
    check.expect_eq_const %r#0, dense<5> : tensor<i32>
    check.expect_eq_const %r#1, dense<8> : tensor<i32>
    func.return
  }
}

// -----

// send and recv in loops of two different functions meet on their channel each iteration.
module @send_recv_in_loops {
  func.func @sender(%x: tensor<i32>, %t: !stablehlo.token) -> tensor<i32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%i = %zero, %v = %x, %tok = %t) : tensor<i32>, tensor<i32>, !stablehlo.token
    cond {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %done = "stablehlo.send"(%v, %tok) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
          is_host_transfer = false} : (tensor<i32>, !stablehlo.token) -> !stablehlo.token
      %twice = stablehlo.add %v, %v : tensor<i32>
      stablehlo.return %n, %twice, %done : tensor<i32>, tensor<i32>, !stablehlo.token
    }
    return %r#1 : tensor<i32>
  }
  func.func @receiver(%x: tensor<i32>, %t: !stablehlo.token) -> tensor<i32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%i = %zero, %sum = %x, %tok = %t) : tensor<i32>, tensor<i32>, !stablehlo.token
    cond {
      %two = stablehlo.constant dense<2> : tensor<i32>
      %c = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %got:2 = "stablehlo.recv"(%tok) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
          is_host_transfer = false} : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
      %s = stablehlo.add %sum, %got#0 : tensor<i32>
      stablehlo.return %n, %s, %got#1 : tensor<i32>, tensor<i32>, !stablehlo.token
    }
    return %r#1 : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<3> : tensor<i32>
    %b = stablehlo.constant dense<100> : tensor<i32>
    %t = stablehlo.after_all : !stablehlo.token
    %r:2 = "interpreter.run_parallel"(%a, %t, %b, %t) {programs = [[@sender], [@receiver]]}
      : (tensor<i32>, !stablehlo.token, tensor<i32>, !stablehlo.token) -> (tensor<i32>, tensor<i32>)
    // the sender sends 3, then 6; the receiver adds them to 100
    check.expect_eq_const %r#0, dense<12> : tensor<i32>
    check.expect_eq_const %r#1, dense<109> : tensor<i32>
    func.return
  }
}

// -----

// collective_reduce on a 2x4 grid (more processes than a small machine has CPUs), groups of
// flattened ids, the root of each result named by each process's last operand.
module @collective_reduce_dynamic_root {
  func.func @reduce(%x: tensor<i32>, %y: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
    %roots = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
    %r:2 = "stablehlo.collective_reduce"(%x, %y, %roots) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %d = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %d : tensor<i32>
    }) {replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        use_global_device_ids, has_dynamic_root} : (tensor<i32>, tensor<i32>, tensor<2xi32>) -> (tensor<i32>, tensor<i32>)
    return %r#0, %r#1 : tensor<i32>, tensor<i32>
  }
  func.func @main() {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %c4 = stablehlo.constant dense<4> : tensor<i32>
    %c10 = stablehlo.constant dense<10> : tensor<i32>
    %c20 = stablehlo.constant dense<20> : tensor<i32>
    %r:16 = "interpreter.run_parallel"(%c1, %c10, %c2, %c10, %c3, %c10, %c4, %c10, %c10, %c1, %c20, %c1, %c10, %c1, %c20, %c2) {
      programs = [[@reduce, @reduce, @reduce, @reduce], [@reduce, @reduce, @reduce, @reduce]]
    } : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
      -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
    // group 0 is replica 0: x sums to 10 at rank 2, y to 40 at rank 0; group 1: 60 and 5
    check.expect_eq_const %r#0, dense<0> : tensor<i32>
    check.expect_eq_const %r#1, dense<40> : tensor<i32>
    check.expect_eq_const %r#4, dense<10> : tensor<i32>
    check.expect_eq_const %r#5, dense<0> : tensor<i32>
    check.expect_eq_const %r#9, dense<5> : tensor<i32>
    check.expect_eq_const %r#12, dense<60> : tensor<i32>
    check.expect_eq_const %r#15, dense<0> : tensor<i32>
    func.return
  }
}

// -----

// Both processes branch on the same reduced value, so only the combinations where they agree
// are taken; the others, where one would wait forever, are written as traps and never run.
module @branches_that_agree_at_run_time {
  func.func @again(%x: tensor<i32>) -> tensor<i32> {
    %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %d = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %d : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %p = stablehlo.compare GT, %s, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = "stablehlo.if"(%p) ({
      %t = "stablehlo.all_reduce"(%s) ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %d = stablehlo.multiply %a, %b : tensor<i32>
          stablehlo.return %d : tensor<i32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
      stablehlo.return %t : tensor<i32>
    }, {
      stablehlo.return %s : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<1> : tensor<i32>
    %b = stablehlo.constant dense<2> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@again], [@again]]}
      : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    // 1 + 2 = 3 > 0 for both: 3 * 3
    check.expect_eq_const %r#0, dense<9> : tensor<i32>
    check.expect_eq_const %r#1, dense<9> : tensor<i32>
    func.return
  }
}
