// RUN: shlo-translate --interpret -split-input-file %s

func.func @bitwise_and_shifts() {
  %a = stablehlo.constant dense<[12, 10, -8]> : tensor<3xi32>
  %b = stablehlo.constant dense<[10, 6, 3]> : tensor<3xi32>
  %and = stablehlo.and %a, %b : tensor<3xi32>
  check.expect_eq_const %and, dense<[8, 2, 0]> : tensor<3xi32>
  %or = stablehlo.or %a, %b : tensor<3xi32>
  check.expect_eq_const %or, dense<[14, 14, -5]> : tensor<3xi32>
  %xor = stablehlo.xor %a, %b : tensor<3xi32>
  check.expect_eq_const %xor, dense<[6, 12, -5]> : tensor<3xi32>
  %not = stablehlo.not %b : tensor<3xi32>
  check.expect_eq_const %not, dense<[-11, -7, -4]> : tensor<3xi32>
  %one = stablehlo.constant dense<1> : tensor<3xi32>
  %shl = stablehlo.shift_left %b, %one : tensor<3xi32>
  check.expect_eq_const %shl, dense<[20, 12, 6]> : tensor<3xi32>
  %sra = stablehlo.shift_right_arithmetic %a, %one : tensor<3xi32>
  check.expect_eq_const %sra, dense<[6, 5, -4]> : tensor<3xi32>
  %pop = stablehlo.popcnt %b : tensor<3xi32>
  check.expect_eq_const %pop, dense<[2, 2, 2]> : tensor<3xi32>
  %rem = stablehlo.remainder %a, %b : tensor<3xi32>
  check.expect_eq_const %rem, dense<[2, 4, -2]> : tensor<3xi32>
  func.return
}

// -----

func.func @rounding_and_signs() {
  %x = stablehlo.constant dense<[-1.5, -0.25, 0.5, 2.5]> : tensor<4xf32>
  %floor = stablehlo.floor %x : tensor<4xf32>
  check.expect_eq_const %floor, dense<[-2.0, -1.0, 0.0, 2.0]> : tensor<4xf32>
  %ceil = stablehlo.ceil %x : tensor<4xf32>
  check.expect_eq_const %ceil, dense<[-1.0, -0.0, 1.0, 3.0]> : tensor<4xf32>
  %even = stablehlo.round_nearest_even %x : tensor<4xf32>
  check.expect_eq_const %even, dense<[-2.0, -0.0, 0.0, 2.0]> : tensor<4xf32>
  %afz = stablehlo.round_nearest_afz %x : tensor<4xf32>
  check.expect_eq_const %afz, dense<[-2.0, -0.0, 1.0, 3.0]> : tensor<4xf32>
  %sign = stablehlo.sign %x : tensor<4xf32>
  check.expect_eq_const %sign, dense<[-1.0, -1.0, 1.0, 1.0]> : tensor<4xf32>
  %two = stablehlo.constant dense<2.0> : tensor<4xf32>
  %pow = stablehlo.power %x, %two : tensor<4xf32>
  check.expect_almost_eq_const %pow, dense<[2.25, 0.0625, 0.25, 6.25]> : tensor<4xf32>
  %finite = stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %finite, dense<true> : tensor<4xi1>
  func.return
}

// -----

func.func @more_transcendental() {
  %x = stablehlo.constant dense<[0.0, 0.5, 1.0]> : tensor<3xf32>
  %cos = stablehlo.cosine %x : tensor<3xf32>
  check.expect_almost_eq_const %cos, dense<[1.0, 0.87758255, 0.5403023]> : tensor<3xf32>
  %sin = stablehlo.sine %x : tensor<3xf32>
  check.expect_almost_eq_const %sin, dense<[0.0, 0.47942555, 0.84147096]> : tensor<3xf32>
  %logistic = stablehlo.logistic %x : tensor<3xf32>
  check.expect_almost_eq_const %logistic, dense<[0.5, 0.62245935, 0.7310586]> : tensor<3xf32>
  %log1p = stablehlo.log_plus_one %x : tensor<3xf32>
  check.expect_almost_eq_const %log1p, dense<[0.0, 0.4054651, 0.6931472]> : tensor<3xf32>
  %expm1 = stablehlo.exponential_minus_one %x : tensor<3xf32>
  check.expect_almost_eq_const %expm1, dense<[0.0, 0.6487213, 1.7182817]> : tensor<3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<3xf32>
  %atan2 = stablehlo.atan2 %x, %one : tensor<3xf32>
  check.expect_almost_eq_const %atan2, dense<[0.0, 0.4636476, 0.7853982]> : tensor<3xf32>
  %four = stablehlo.constant dense<[4.0, 16.0, 64.0]> : tensor<3xf32>
  %rsqrt = stablehlo.rsqrt %four : tensor<3xf32>
  check.expect_almost_eq_const %rsqrt, dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %cbrt = stablehlo.cbrt %four : tensor<3xf32>
  check.expect_almost_eq_const %cbrt, dense<[1.587401, 2.5198421, 4.0]> : tensor<3xf32>
  func.return
}

// -----

func.func @pad_reverse_dynamic_slices() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %pad = stablehlo.pad %x, %zero, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3x4xi32>
  check.expect_eq_const %pad, dense<[[0, 1, 2, 3], [0, 4, 5, 6], [0, 0, 0, 0]]> : tensor<3x4xi32>
  %rev = stablehlo.reverse %x, dims = [1] : tensor<2x3xi32>
  check.expect_eq_const %rev, dense<[[3, 2, 1], [6, 5, 4]]> : tensor<2x3xi32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %ds = stablehlo.dynamic_slice %x, %zero, %one, sizes = [2, 2] : (tensor<2x3xi32>, tensor<i32>, tensor<i32>) -> tensor<2x2xi32>
  check.expect_eq_const %ds, dense<[[2, 3], [5, 6]]> : tensor<2x2xi32>
  %update = stablehlo.constant dense<[[9]]> : tensor<1x1xi32>
  %dus = stablehlo.dynamic_update_slice %x, %update, %one, %zero : (tensor<2x3xi32>, tensor<1x1xi32>, tensor<i32>, tensor<i32>) -> tensor<2x3xi32>
  check.expect_eq_const %dus, dense<[[1, 2, 3], [9, 5, 6]]> : tensor<2x3xi32>
  func.return
}

// -----

func.func @gather_and_scatter() {
  %x = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %idx = stablehlo.constant dense<[[3], [0]]> : tensor<2x1xi32>
  %g = "stablehlo.gather"(%x, %idx) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>} : (tensor<4xi32>, tensor<2x1xi32>) -> tensor<2xi32>
  check.expect_eq_const %g, dense<[40, 10]> : tensor<2xi32>
  %updates = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %s = "stablehlo.scatter"(%x, %idx, %updates) ({
  ^bb0(%old: tensor<i32>, %new: tensor<i32>):
    %sum = stablehlo.add %old, %new : tensor<i32>
    stablehlo.return %sum : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<4xi32>
  check.expect_eq_const %s, dense<[12, 20, 30, 41]> : tensor<4xi32>
  func.return
}

// -----

func.func @sort_descending() {
  %x = stablehlo.constant dense<[3, 1, 2]> : tensor<3xi32>
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<3xi32>) -> tensor<3xi32>
  check.expect_eq_const %s, dense<[3, 2, 1]> : tensor<3xi32>
  func.return
}

// -----

func.func @control_flow() {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %ten = stablehlo.constant dense<10> : tensor<i32>
  %count, %total = stablehlo.while(%i = %zero, %acc = %zero) : tensor<i32>, tensor<i32>
    cond {
      %lt = stablehlo.compare LT, %i, %ten, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %sum = stablehlo.add %acc, %i : tensor<i32>
      stablehlo.return %next, %sum : tensor<i32>, tensor<i32>
    }
  check.expect_eq_const %count, dense<10> : tensor<i32>
  check.expect_eq_const %total, dense<45> : tensor<i32>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %picked = "stablehlo.if"(%true) ({
    stablehlo.return %one : tensor<i32>
  }, {
    stablehlo.return %ten : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  check.expect_eq_const %picked, dense<1> : tensor<i32>
  %case = "stablehlo.case"(%one) ({
    stablehlo.return %zero : tensor<i32>
  }, {
    stablehlo.return %ten : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  check.expect_eq_const %case, dense<10> : tensor<i32>
  func.return
}

// -----

func.func @convolution_and_windows() {
  %x = stablehlo.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %w = stablehlo.constant dense<1.0> : tensor<1x1x2x2xf32>
  %conv = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  check.expect_eq_const %conv, dense<[[[[12.0, 16.0], [24.0, 28.0]]]]> : tensor<1x1x2x2xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %pool = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>} : (tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  check.expect_eq_const %pool, dense<[[[[5.0, 6.0], [8.0, 9.0]]]]> : tensor<1x1x2x2xf32>
  func.return
}

// -----

func.func @map() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %sq = "stablehlo.map"(%x, %x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %p : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %sq, dense<[[1.0, 4.0], [9.0, 16.0]]> : tensor<2x2xf32>
  func.return
}
