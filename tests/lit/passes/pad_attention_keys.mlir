// shlo-pad-attention-keys pads attention's keys (9 here) to a multiple (4 here; 16 by default)
// with zero keys: the scores' matmul gets zero keys and its padded columns -inf, which the
// softmax's maximum, exponential and sum take as they would no key at all; the matmul with the
// values gets zeros there and zero value rows; any other use of a padded value gets its slice.
// A reduction the pass cannot show unaffected has the padded keys replaced by its init value.
// The interpreter checks the same values before and after (computed by PyTorch).
// RUN: shlo-opt %s --split-input-file --shlo-pad-attention-keys=multiple=4 | filecheck %s
// RUN: shlo-translate %s --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// RUN: shlo-opt %s --split-input-file --shlo-pad-attention-keys=multiple=4 \
// RUN:   | shlo-translate --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// VALUES-NOT: error
// RUN: not shlo-opt %s --split-input-file --shlo-pad-attention-keys=multiple=0 2>&1 | filecheck %s --check-prefix=BAD
// BAD: shlo-opt: option 'multiple': 0 is not a positive count
// BAD-NOT: Traceback

// CHECK-LABEL: func.func @attention
// CHECK: %[[K:.*]] = stablehlo.pad %arg1, %{{.*}}, low = [0, 0, 0], high = [0, 3, 0], interior = [0, 0, 0] : (tensor<2x9x4xf32>, tensor<f32>) -> tensor<2x12x4xf32>
// CHECK: %[[S:.*]] = stablehlo.dot_general %arg0, %[[K]], {{.*}} -> tensor<2x3x12xf32>
// CHECK: %[[X:.*]] = stablehlo.select %{{.*}}, %[[S]], %{{.*}} : tensor<2x3x12xi1>, tensor<2x3x12xf32>
// CHECK: %[[B:.*]] = stablehlo.pad %arg3, {{.*}} -> tensor<12xf32>
// CHECK: stablehlo.broadcast_in_dim %[[B]], dims = [2] : (tensor<12xf32>) -> tensor<2x3x12xf32>
// CHECK: %[[BIASED:.*]] = stablehlo.add
// CHECK: stablehlo.reduce(%[[BIASED]] init: {{.*}}) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x12xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: %[[E:.*]] = stablehlo.exponential {{.*}} : tensor<2x3x12xf32>
// CHECK: stablehlo.reduce(%[[E]] init: {{.*}}) applies stablehlo.add across dimensions = [2]
// CHECK: %[[P:.*]] = stablehlo.divide %[[E]], {{.*}} : tensor<2x3x12xf32>
// CHECK: %[[PZ:.*]] = stablehlo.select %{{.*}}, %[[P]], %{{.*}} : tensor<2x3x12xi1>, tensor<2x3x12xf32>
// CHECK: %[[V:.*]] = stablehlo.pad %arg2, {{.*}} high = [0, 3, 0]
// CHECK: stablehlo.dot_general %[[PZ]], %[[V]], {{.*}} : (tensor<2x3x12xf32>, tensor<2x12x2xf32>) -> tensor<2x3x2xf32>
func.func @attention(%q: tensor<2x3x4xf32>, %k: tensor<2x9x4xf32>, %v: tensor<2x9x2xf32>, %bias: tensor<9xf32>) -> tensor<2x3x2xf32> {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %half = stablehlo.constant dense<0.5> : tensor<2x3x9xf32>
  %scaled = stablehlo.multiply %s, %half : tensor<2x3x9xf32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [2] : (tensor<9xf32>) -> tensor<2x3x9xf32>
  %x = stablehlo.add %scaled, %b : tensor<2x3x9xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %d = stablehlo.subtract %x, %m : tensor<2x3x9xf32>
  %e = stablehlo.exponential %d : tensor<2x3x9xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %p = stablehlo.divide %e, %r : tensor<2x3x9xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x9xf32>, tensor<2x9x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

func.func @main() {
  %qi = stablehlo.iota dim = 0 : tensor<24xf32>
  %five = stablehlo.constant dense<5.0> : tensor<24xf32>
  %two = stablehlo.constant dense<2.0> : tensor<24xf32>
  %half = stablehlo.constant dense<0.5> : tensor<24xf32>
  %qm = stablehlo.remainder %qi, %five : tensor<24xf32>
  %qs = stablehlo.subtract %qm, %two : tensor<24xf32>
  %qh = stablehlo.multiply %qs, %half : tensor<24xf32>
  %q = stablehlo.reshape %qh : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %ki = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %three = stablehlo.constant dense<3.0> : tensor<72xf32>
  %quarter = stablehlo.constant dense<0.25> : tensor<72xf32>
  %km = stablehlo.remainder %ki, %seven : tensor<72xf32>
  %ks = stablehlo.subtract %km, %three : tensor<72xf32>
  %kq = stablehlo.multiply %ks, %quarter : tensor<72xf32>
  %k = stablehlo.reshape %kq : (tensor<72xf32>) -> tensor<2x9x4xf32>
  %vi = stablehlo.iota dim = 0 : tensor<36xf32>
  %four = stablehlo.constant dense<4.0> : tensor<36xf32>
  %one = stablehlo.constant dense<1.0> : tensor<36xf32>
  %vm = stablehlo.remainder %vi, %four : tensor<36xf32>
  %vs = stablehlo.subtract %vm, %one : tensor<36xf32>
  %v = stablehlo.reshape %vs : (tensor<36xf32>) -> tensor<2x9x2xf32>
  %bias = stablehlo.constant dense<[-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000]> : tensor<9xf32>
  %o = func.call @attention(%q, %k, %v, %bias) : (tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<2x9x2xf32>, tensor<9xf32>) -> tensor<2x3x2xf32>
  check.expect_almost_eq_const %o, dense<[[[-0.10290303826332092, 0.8970969319343567], [0.28838014602661133, 1.2883801460266113], [0.3975703716278076, 1.397570252418518]], [[0.14147154986858368, 1.1414715051651], [0.09042578935623169, 1.0904258489608765], [-0.10610833764076233, 0.8938917517662048]]]> : tensor<2x3x2xf32>
  return
}

// -----

// The probabilities are also returned: they leave as the slice of the real keys.
// CHECK-LABEL: func.func @probabilities
// CHECK: %[[P:.*]] = stablehlo.divide {{.*}} : tensor<2x3x12xf32>
// CHECK: %[[REAL:.*]] = stablehlo.slice %[[P]] [0:2, 0:3, 0:9] : (tensor<2x3x12xf32>) -> tensor<2x3x9xf32>
// CHECK: return %{{.*}}, %[[REAL]]
func.func @probabilities(%q: tensor<2x3x4xf32>, %k: tensor<2x9x4xf32>, %v: tensor<2x9x2xf32>, %bias: tensor<9xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x9xf32>) {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %half = stablehlo.constant dense<0.5> : tensor<2x3x9xf32>
  %scaled = stablehlo.multiply %s, %half : tensor<2x3x9xf32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [2] : (tensor<9xf32>) -> tensor<2x3x9xf32>
  %x = stablehlo.add %scaled, %b : tensor<2x3x9xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %d = stablehlo.subtract %x, %m : tensor<2x3x9xf32>
  %e = stablehlo.exponential %d : tensor<2x3x9xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %p = stablehlo.divide %e, %r : tensor<2x3x9xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x9xf32>, tensor<2x9x2xf32>) -> tensor<2x3x2xf32>
  return %o, %p : tensor<2x3x2xf32>, tensor<2x3x9xf32>
}

func.func @main() {
  %qi = stablehlo.iota dim = 0 : tensor<24xf32>
  %five = stablehlo.constant dense<5.0> : tensor<24xf32>
  %two = stablehlo.constant dense<2.0> : tensor<24xf32>
  %half = stablehlo.constant dense<0.5> : tensor<24xf32>
  %qm = stablehlo.remainder %qi, %five : tensor<24xf32>
  %qs = stablehlo.subtract %qm, %two : tensor<24xf32>
  %qh = stablehlo.multiply %qs, %half : tensor<24xf32>
  %q = stablehlo.reshape %qh : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %ki = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %three = stablehlo.constant dense<3.0> : tensor<72xf32>
  %quarter = stablehlo.constant dense<0.25> : tensor<72xf32>
  %km = stablehlo.remainder %ki, %seven : tensor<72xf32>
  %ks = stablehlo.subtract %km, %three : tensor<72xf32>
  %kq = stablehlo.multiply %ks, %quarter : tensor<72xf32>
  %k = stablehlo.reshape %kq : (tensor<72xf32>) -> tensor<2x9x4xf32>
  %vi = stablehlo.iota dim = 0 : tensor<36xf32>
  %four = stablehlo.constant dense<4.0> : tensor<36xf32>
  %one = stablehlo.constant dense<1.0> : tensor<36xf32>
  %vm = stablehlo.remainder %vi, %four : tensor<36xf32>
  %vs = stablehlo.subtract %vm, %one : tensor<36xf32>
  %v = stablehlo.reshape %vs : (tensor<36xf32>) -> tensor<2x9x2xf32>
  %bias = stablehlo.constant dense<[-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000]> : tensor<9xf32>
  %r:2 = func.call @probabilities(%q, %k, %v, %bias) : (tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<2x9x2xf32>, tensor<9xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x9xf32>)
  check.expect_almost_eq_const %r#0, dense<[[[-0.10290303826332092, 0.8970969319343567], [0.28838014602661133, 1.2883801460266113], [0.3975703716278076, 1.397570252418518]], [[0.14147154986858368, 1.1414715051651], [0.09042578935623169, 1.0904258489608765], [-0.10610833764076233, 0.8938917517662048]]]> : tensor<2x3x2xf32>
  check.expect_almost_eq_const %r#1, dense<[[[0.07468072324991226, 0.07949721813201904, 0.17914974689483643, 0.0701560527086258, 0.15809909999370575, 0.09589194506406784, 0.13952197134494781, 0.20300325751304626, 0.0], [0.04335973411798477, 0.09179255366325378, 0.11072295159101486, 0.13355737924575806, 0.10401459038257599, 0.3009761869907379, 0.09771265834569931, 0.1178639680147171, 0.0], [0.03290221840143204, 0.13852350413799286, 0.08943750709295273, 0.3323006331920624, 0.08943750709295273, 0.13852350413799286, 0.08943750709295273, 0.08943750709295273, 0.0]], [[0.038460783660411835, 0.13424131274223328, 0.11128996312618256, 0.0922626182436943, 0.1184675395488739, 0.09821303933858871, 0.30251747369766235, 0.10454724729061127, 0.0], [0.05913833528757095, 0.07133445143699646, 0.18215888738632202, 0.08083251118659973, 0.20641306042671204, 0.14186549186706543, 0.09750262647867203, 0.16075465083122253, 0.0], [0.06648896634578705, 0.07077714055776596, 0.15949875116348267, 0.09674087911844254, 0.14075715839862823, 0.20480044186115265, 0.08020099997520447, 0.1807357519865036, 0.0]]]> : tensor<2x3x9xf32>
  return
}

// -----

// A sum over the raw scores would add up the -inf of the padded keys, and a matmul with them
// would see -inf times zero: there they are replaced by the sum's init value, and by zeros.
// CHECK-LABEL: func.func @summed
// CHECK: %[[S:.*]] = stablehlo.select {{.*}} : tensor<2x3x12xi1>, tensor<2x3x12xf32>
// CHECK: %[[Z:.*]] = stablehlo.select %{{.*}}, %[[S]], %{{.*}} : tensor<2x3x12xi1>, tensor<2x3x12xf32>
// CHECK-NEXT: stablehlo.reduce(%[[Z]] init: {{.*}}) applies stablehlo.add across dimensions = [2]
func.func @summed(%q: tensor<2x3x4xf32>, %k: tensor<2x9x4xf32>, %v: tensor<2x9x2xf32>) -> (tensor<2x3xf32>, tensor<2x3x2xf32>) {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %o = stablehlo.dot_general %s, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x9xf32>, tensor<2x9x2xf32>) -> tensor<2x3x2xf32>
  return %sum, %o : tensor<2x3xf32>, tensor<2x3x2xf32>
}

func.func @main() {
  %qi = stablehlo.iota dim = 0 : tensor<24xf32>
  %five = stablehlo.constant dense<5.0> : tensor<24xf32>
  %two = stablehlo.constant dense<2.0> : tensor<24xf32>
  %half = stablehlo.constant dense<0.5> : tensor<24xf32>
  %qm = stablehlo.remainder %qi, %five : tensor<24xf32>
  %qs = stablehlo.subtract %qm, %two : tensor<24xf32>
  %qh = stablehlo.multiply %qs, %half : tensor<24xf32>
  %q = stablehlo.reshape %qh : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %ki = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %three = stablehlo.constant dense<3.0> : tensor<72xf32>
  %quarter = stablehlo.constant dense<0.25> : tensor<72xf32>
  %km = stablehlo.remainder %ki, %seven : tensor<72xf32>
  %ks = stablehlo.subtract %km, %three : tensor<72xf32>
  %kq = stablehlo.multiply %ks, %quarter : tensor<72xf32>
  %k = stablehlo.reshape %kq : (tensor<72xf32>) -> tensor<2x9x4xf32>
  %vi = stablehlo.iota dim = 0 : tensor<36xf32>
  %four = stablehlo.constant dense<4.0> : tensor<36xf32>
  %one = stablehlo.constant dense<1.0> : tensor<36xf32>
  %vm = stablehlo.remainder %vi, %four : tensor<36xf32>
  %vs = stablehlo.subtract %vm, %one : tensor<36xf32>
  %v = stablehlo.reshape %vs : (tensor<36xf32>) -> tensor<2x9x2xf32>
  %bias = stablehlo.constant dense<[-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000]> : tensor<9xf32>
  %r:2 = func.call @summed(%q, %k, %v) : (tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<2x9x2xf32>) -> (tensor<2x3xf32>, tensor<2x3x2xf32>)
  check.expect_almost_eq_const %r#0, dense<[[0.125, -0.75, -0.375], [-0.25, -0.625, -0.375]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %r#1, dense<[[[-3.125, -3.0], [3.0, 2.25], [4.125, 3.75]], [[2.5, 2.25], [1.875, 1.25], [-0.625, -1.0]]]> : tensor<2x3x2xf32>
  return
}

// -----

// A select on a scalar known only at run time: what its padded entries hold is not known, so
// the sum after it has the padded keys replaced by its init value.
// CHECK-LABEL: func.func @scalar_predicate
// CHECK: %[[PICKED:.*]] = stablehlo.select %arg3, {{.*}} : tensor<i1>, tensor<2x3x12xf32>
// CHECK: %[[Z:.*]] = stablehlo.select %{{.*}}, %[[PICKED]], %{{.*}} : tensor<2x3x12xi1>, tensor<2x3x12xf32>
// CHECK-NEXT: stablehlo.reduce(%[[Z]] init: {{.*}}) applies stablehlo.add across dimensions = [2]
func.func @scalar_predicate(%q: tensor<2x3x4xf32>, %k: tensor<2x9x4xf32>, %v: tensor<2x9x2xf32>, %flag: tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3x2xf32>) {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<2x3x9xf32>
  %picked = stablehlo.select %flag, %s, %zeros : tensor<i1>, tensor<2x3x9xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%picked init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %o = stablehlo.dot_general %picked, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x9xf32>, tensor<2x9x2xf32>) -> tensor<2x3x2xf32>
  return %sum, %o : tensor<2x3xf32>, tensor<2x3x2xf32>
}

func.func @main() {
  %qi = stablehlo.iota dim = 0 : tensor<24xf32>
  %five = stablehlo.constant dense<5.0> : tensor<24xf32>
  %two = stablehlo.constant dense<2.0> : tensor<24xf32>
  %half = stablehlo.constant dense<0.5> : tensor<24xf32>
  %qm = stablehlo.remainder %qi, %five : tensor<24xf32>
  %qs = stablehlo.subtract %qm, %two : tensor<24xf32>
  %qh = stablehlo.multiply %qs, %half : tensor<24xf32>
  %q = stablehlo.reshape %qh : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %ki = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %three = stablehlo.constant dense<3.0> : tensor<72xf32>
  %quarter = stablehlo.constant dense<0.25> : tensor<72xf32>
  %km = stablehlo.remainder %ki, %seven : tensor<72xf32>
  %ks = stablehlo.subtract %km, %three : tensor<72xf32>
  %kq = stablehlo.multiply %ks, %quarter : tensor<72xf32>
  %k = stablehlo.reshape %kq : (tensor<72xf32>) -> tensor<2x9x4xf32>
  %vi = stablehlo.iota dim = 0 : tensor<36xf32>
  %four = stablehlo.constant dense<4.0> : tensor<36xf32>
  %one = stablehlo.constant dense<1.0> : tensor<36xf32>
  %vm = stablehlo.remainder %vi, %four : tensor<36xf32>
  %vs = stablehlo.subtract %vm, %one : tensor<36xf32>
  %v = stablehlo.reshape %vs : (tensor<36xf32>) -> tensor<2x9x2xf32>
  %bias = stablehlo.constant dense<[-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000]> : tensor<9xf32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %r:2 = func.call @scalar_predicate(%q, %k, %v, %true) : (tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<2x9x2xf32>, tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3x2xf32>)
  check.expect_almost_eq_const %r#0, dense<[[0.125, -0.75, -0.375], [-0.25, -0.625, -0.375]]> : tensor<2x3xf32>
  check.expect_almost_eq_const %r#1, dense<[[[-3.125, -3.0], [3.0, 2.25], [4.125, 3.75]], [[2.5, 2.25], [1.875, 1.25], [-0.625, -1.0]]]> : tensor<2x3x2xf32>
  return
}

// -----

// Keys already a multiple, and a softmax whose probabilities no matmul contracts: left alone.
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: stablehlo.pad
// CHECK-NOT: stablehlo.select
// CHECK-LABEL: func.func @no_values
// CHECK-NOT: stablehlo.pad
// CHECK-NOT: stablehlo.select
func.func @aligned(%q: tensor<2x3x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x2xf32>) -> tensor<2x3x2xf32> {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x8x4xf32>) -> tensor<2x3x8xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%s init: %low) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x8xf32>
  %d = stablehlo.subtract %s, %m : tensor<2x3x8xf32>
  %o = stablehlo.dot_general %d, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x8xf32>, tensor<2x8x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

func.func @no_values(%q: tensor<2x3x4xf32>, %k: tensor<2x9x4xf32>) -> tensor<2x3x9xf32> {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%s init: %low) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %m = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %d = stablehlo.subtract %s, %m : tensor<2x3x9xf32>
  return %d : tensor<2x3x9xf32>
}

func.func @main() {
  %qi = stablehlo.iota dim = 0 : tensor<24xf32>
  %five = stablehlo.constant dense<5.0> : tensor<24xf32>
  %two = stablehlo.constant dense<2.0> : tensor<24xf32>
  %half = stablehlo.constant dense<0.5> : tensor<24xf32>
  %qm = stablehlo.remainder %qi, %five : tensor<24xf32>
  %qs = stablehlo.subtract %qm, %two : tensor<24xf32>
  %qh = stablehlo.multiply %qs, %half : tensor<24xf32>
  %q = stablehlo.reshape %qh : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %ki = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %three = stablehlo.constant dense<3.0> : tensor<72xf32>
  %quarter = stablehlo.constant dense<0.25> : tensor<72xf32>
  %km = stablehlo.remainder %ki, %seven : tensor<72xf32>
  %ks = stablehlo.subtract %km, %three : tensor<72xf32>
  %kq = stablehlo.multiply %ks, %quarter : tensor<72xf32>
  %k = stablehlo.reshape %kq : (tensor<72xf32>) -> tensor<2x9x4xf32>
  %vi = stablehlo.iota dim = 0 : tensor<36xf32>
  %four = stablehlo.constant dense<4.0> : tensor<36xf32>
  %one = stablehlo.constant dense<1.0> : tensor<36xf32>
  %vm = stablehlo.remainder %vi, %four : tensor<36xf32>
  %vs = stablehlo.subtract %vm, %one : tensor<36xf32>
  %v = stablehlo.reshape %vs : (tensor<36xf32>) -> tensor<2x9x2xf32>
  %bias = stablehlo.constant dense<[-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000]> : tensor<9xf32>
  %k8 = stablehlo.slice %k [0:2, 0:8, 0:4] : (tensor<2x9x4xf32>) -> tensor<2x8x4xf32>
  %v8 = stablehlo.slice %v [0:2, 0:8, 0:2] : (tensor<2x9x2xf32>) -> tensor<2x8x2xf32>
  %o = func.call @aligned(%q, %k8, %v8) : (tensor<2x3x4xf32>, tensor<2x8x4xf32>, tensor<2x8x2xf32>) -> tensor<2x3x2xf32>
  check.expect_almost_eq_const %o, dense<[[[-4.0, -11.0], [2.375, -11.75], [4.375, -12.25]], [[2.375, -12.0], [3.0, -4.5], [0.5, -6.75]]]> : tensor<2x3x2xf32>
  %d = func.call @no_values(%q, %k) : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %top = stablehlo.reduce(%d init: %low) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  check.expect_almost_eq_const %top, dense<0.0> : tensor<2x3xf32>
  return
}

// -----

// A softmax whose scores are shifted by something other than their row maximum (here the
// maximum where it is finite, else 0, as eager's flash kernel's skipped rows take it) is still
// padded; the pass asked whether that shift is a row maximum without crashing.
// CHECK-LABEL: func.func @shifted_by_a_select
// CHECK: stablehlo.dot_general %arg0, %{{.*}} -> tensor<2x3x12xf32>
func.func @shifted_by_a_select(%q: tensor<2x3x4xf32>, %k: tensor<2x9x4xf32>, %v: tensor<2x9x2xf32>) -> tensor<2x3x2xf32> {
  %x = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x9x4xf32>) -> tensor<2x3x9xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%x init: %low) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %lowest = stablehlo.constant dense<0xFF800000> : tensor<2x3xf32>
  %none = stablehlo.compare EQ, %max, %lowest : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %zeros = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  %shift = stablehlo.select %none, %zeros, %max : tensor<2x3xi1>, tensor<2x3xf32>
  %m = stablehlo.broadcast_in_dim %shift, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %d = stablehlo.subtract %x, %m : tensor<2x3x9xf32>
  %e = stablehlo.exponential %d : tensor<2x3x9xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x9xf32>, tensor<f32>) -> tensor<2x3xf32>
  %r = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x9xf32>
  %p = stablehlo.divide %e, %r : tensor<2x3x9xf32>
  %o = stablehlo.dot_general %p, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x9xf32>, tensor<2x9x2xf32>) -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}

func.func @main() {
  %qi = stablehlo.iota dim = 0 : tensor<24xf32>
  %five = stablehlo.constant dense<5.0> : tensor<24xf32>
  %two = stablehlo.constant dense<2.0> : tensor<24xf32>
  %half = stablehlo.constant dense<0.5> : tensor<24xf32>
  %qm = stablehlo.remainder %qi, %five : tensor<24xf32>
  %qs = stablehlo.subtract %qm, %two : tensor<24xf32>
  %qh = stablehlo.multiply %qs, %half : tensor<24xf32>
  %q = stablehlo.reshape %qh : (tensor<24xf32>) -> tensor<2x3x4xf32>
  %ki = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %three = stablehlo.constant dense<3.0> : tensor<72xf32>
  %quarter = stablehlo.constant dense<0.25> : tensor<72xf32>
  %km = stablehlo.remainder %ki, %seven : tensor<72xf32>
  %ks = stablehlo.subtract %km, %three : tensor<72xf32>
  %kq = stablehlo.multiply %ks, %quarter : tensor<72xf32>
  %k = stablehlo.reshape %kq : (tensor<72xf32>) -> tensor<2x9x4xf32>
  %vi = stablehlo.iota dim = 0 : tensor<36xf32>
  %four = stablehlo.constant dense<4.0> : tensor<36xf32>
  %one = stablehlo.constant dense<1.0> : tensor<36xf32>
  %vm = stablehlo.remainder %vi, %four : tensor<36xf32>
  %vs = stablehlo.subtract %vm, %one : tensor<36xf32>
  %v = stablehlo.reshape %vs : (tensor<36xf32>) -> tensor<2x9x2xf32>
  %o = func.call @shifted_by_a_select(%q, %k, %v) : (tensor<2x3x4xf32>, tensor<2x9x4xf32>, tensor<2x9x2xf32>) -> tensor<2x3x2xf32>
  check.expect_almost_eq_const %o, dense<[[[-0.33617583, 0.6638241], [0.40820414, 1.4082042], [0.50780153, 1.5078017]], [[0.5143316, 1.5143316], [0.33734095, 1.3373408], [0.00214543, 1.0021454]]]> : tensor<2x3x2xf32>
  return
}
