// stablehlo-aggressive-folder: upstream StableHLO's folding patterns (7b1b157), which the
// wheels lack, with the values upstream's APInt/APFloat code computes.  Each function below
// exercises one pattern; the expected values follow from upstream's source, not from a run.
// RUN: shlo-opt %s --stablehlo-aggressive-folder | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-aggressive-folder))' | filecheck %s

// Integers wrap; i1 adds as a 1-bit APInt does (true + true = false).
// CHECK-LABEL: func.func @add_integers
// CHECK-DAG: stablehlo.constant dense<[-2147483648, -2]> : tensor<2xi32>
// CHECK-DAG: stablehlo.constant dense<[4, 3]> : tensor<2xui8>
// CHECK-DAG: stablehlo.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: stablehlo.add
func.func @add_integers() -> (tensor<2xi32>, tensor<2xui8>, tensor<2xi1>) {
  %a = stablehlo.constant dense<[2147483647, -5]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  %c = stablehlo.constant dense<[250, 1]> : tensor<2xui8>
  %d = stablehlo.constant dense<[10, 2]> : tensor<2xui8>
  %1 = stablehlo.add %c, %d : tensor<2xui8>
  %e = stablehlo.constant dense<[true, true]> : tensor<2xi1>
  %f = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %2 = stablehlo.add %e, %f : tensor<2xi1>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xui8>, tensor<2xi1>
}

// Floats round once to nearest even; overflow gives infinity; inf - inf the positive default
// NaN; a NaN operand comes back quieted with its sign and payload.
// CHECK-LABEL: func.func @add_floats
// CHECK-DAG: stablehlo.constant dense<3.000000e-01> : tensor<f32>
// CHECK-DAG: stablehlo.constant dense<0x7C00> : tensor<f16>
// CHECK-DAG: stablehlo.constant dense<1.000000e+00> : tensor<bf16>
// CHECK-DAG: stablehlo.constant dense<0x7FC00000> : tensor<f32>
// CHECK-DAG: stablehlo.constant dense<0xFFC00001> : tensor<f32>
// CHECK-DAG: stablehlo.constant dense<-0.000000e+00> : tensor<f32>
// CHECK-NOT: stablehlo.add
// CHECK-NOT: stablehlo.subtract
func.func @add_floats() -> (tensor<f32>, tensor<f16>, tensor<bf16>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = stablehlo.constant dense<0.1> : tensor<f32>
  %b = stablehlo.constant dense<0.2> : tensor<f32>
  %0 = stablehlo.add %a, %b : tensor<f32>
  %c = stablehlo.constant dense<65504.0> : tensor<f16>
  %1 = stablehlo.add %c, %c : tensor<f16>
  %d = stablehlo.constant dense<1.0> : tensor<bf16>
  %e = stablehlo.constant dense<0.00390625> : tensor<bf16>
  %2 = stablehlo.add %d, %e : tensor<bf16>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %3 = stablehlo.add %inf, %ninf : tensor<f32>
  %nan = stablehlo.constant dense<0xFFC00001> : tensor<f32>
  %4 = stablehlo.subtract %a, %nan : tensor<f32>
  %nz = stablehlo.constant dense<-0.0> : tensor<f32>
  %5 = stablehlo.add %nz, %nz : tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<f32>, tensor<f16>, tensor<bf16>, tensor<f32>, tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @multiply_and_subtract
// CHECK-DAG: stablehlo.constant dense<[120, -5]> : tensor<2xi8>
// CHECK-DAG: stablehlo.constant dense<[2, -6]> : tensor<2xi8>
// CHECK-DAG: stablehlo.constant dense<[0x7FC00000, -0.000000e+00]> : tensor<2xf32>
// CHECK-NOT: stablehlo.multiply
func.func @multiply_and_subtract() -> (tensor<2xi8>, tensor<2xi8>, tensor<2xf32>) {
  %a = stablehlo.constant dense<[12, -1]> : tensor<2xi8>
  %b = stablehlo.constant dense<[10, 5]> : tensor<2xi8>
  %0 = stablehlo.multiply %a, %b : tensor<2xi8>
  %1 = stablehlo.subtract %a, %b : tensor<2xi8>
  %x = stablehlo.constant dense<[0.0, -2.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[0x7F800000, 0.0]> : tensor<2xf32>
  %2 = stablehlo.multiply %x, %y : tensor<2xf32>
  return %0, %1, %2 : tensor<2xi8>, tensor<2xi8>, tensor<2xf32>
}

// Signed division truncates (INT_MIN / -1 wraps to INT_MIN); unsigned divides as unsigned; an
// integer divisor with a zero element is never folded; float x/0 is an infinity or NaN.
// CHECK-LABEL: func.func @divide
// CHECK-DAG: stablehlo.constant dense<[-3, -3, -2147483648]> : tensor<3xi32>
// CHECK-DAG: stablehlo.constant dense<[2147483647, 2]> : tensor<2xui32>
// CHECK-DAG: stablehlo.constant dense<[0x7F800000, 0x7FC00000, 0xFF800000]> : tensor<3xf32>
// CHECK: stablehlo.divide
// CHECK-NOT: stablehlo.divide
func.func @divide() -> (tensor<3xi32>, tensor<2xui32>, tensor<2xi32>, tensor<3xf32>) {
  %a = stablehlo.constant dense<[-7, 7, -2147483648]> : tensor<3xi32>
  %b = stablehlo.constant dense<[2, -2, -1]> : tensor<3xi32>
  %0 = stablehlo.divide %a, %b : tensor<3xi32>
  %c = stablehlo.constant dense<[4294967295, 9]> : tensor<2xui32>
  %d = stablehlo.constant dense<[2, 4]> : tensor<2xui32>
  %1 = stablehlo.divide %c, %d : tensor<2xui32>
  %e = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %f = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %2 = stablehlo.divide %e, %f : tensor<2xi32>
  %g = stablehlo.constant dense<[1.0, 0.0, -1.0]> : tensor<3xf32>
  %h = stablehlo.constant dense<0.0> : tensor<3xf32>
  %3 = stablehlo.divide %g, %h : tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<2xui32>, tensor<2xi32>, tensor<3xf32>
}

// The remainder takes the dividend's sign (fmod for floats; x fmod 0 is NaN).
// CHECK-LABEL: func.func @remainder
// CHECK-DAG: stablehlo.constant dense<[-1, 1, 0]> : tensor<3xi32>
// CHECK-DAG: stablehlo.constant dense<[5, 1]> : tensor<2xui8>
// CHECK-DAG: stablehlo.constant dense<[-1.500000e+00, 1.500000e+00, -0.000000e+00, 0x7FC00000]> : tensor<4xf32>
// CHECK: stablehlo.remainder
// CHECK-NOT: stablehlo.remainder
func.func @remainder() -> (tensor<3xi32>, tensor<2xui8>, tensor<4xf32>, tensor<i32>) {
  %a = stablehlo.constant dense<[-7, 7, -2147483648]> : tensor<3xi32>
  %b = stablehlo.constant dense<[2, -2, -1]> : tensor<3xi32>
  %0 = stablehlo.remainder %a, %b : tensor<3xi32>
  %c = stablehlo.constant dense<[255, 9]> : tensor<2xui8>
  %d = stablehlo.constant dense<[10, 4]> : tensor<2xui8>
  %1 = stablehlo.remainder %c, %d : tensor<2xui8>
  %e = stablehlo.constant dense<[-5.5, 5.5, -4.0, 1.0]> : tensor<4xf32>
  %f = stablehlo.constant dense<[2.0, -2.0, 2.0, 0.0]> : tensor<4xf32>
  %2 = stablehlo.remainder %e, %f : tensor<4xf32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %3 = stablehlo.remainder %one, %zero : tensor<i32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<2xui8>, tensor<4xf32>, tensor<i32>
}

// Integer compares are signed for signless types, unsigned for unsigned ones and i1 (an
// explicit type wins); float compares are IEEE's: NaN is unordered, -0 equals +0.
// CHECK-LABEL: func.func @compare
// CHECK-DAG: %[[SIGNED:.*]] = stablehlo.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[UNSIGNED:.*]] = stablehlo.constant dense<false> : tensor<3xi1>
// CHECK-DAG: %[[BOOL:.*]] = stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: %[[FLOAT:.*]] = stablehlo.constant dense<[true, false, false, true]> : tensor<4xi1>
// CHECK-DAG: %[[AS_SIGNED:.*]] = stablehlo.constant dense<false> : tensor<2xi1>
// CHECK: return %[[SIGNED]], %[[UNSIGNED]], %[[BOOL]], %[[FLOAT]], %[[BOOL]], %[[AS_SIGNED]]
func.func @compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<4xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = stablehlo.constant dense<[-1, 0, 5]> : tensor<3xi32>
  %b = stablehlo.constant dense<[1, 0, 2]> : tensor<3xi32>
  %0 = stablehlo.compare LT, %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %1 = stablehlo.compare LT, %a, %b, UNSIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %t = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %f = stablehlo.constant dense<[false, false]> : tensor<2xi1>
  %2 = stablehlo.compare GT, %t, %f : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %x = stablehlo.constant dense<[0x7FC00000, 0.0, -0.0, 1.0]> : tensor<4xf32>
  %y = stablehlo.constant dense<[0x7FC00000, -0.0, 0.0, 2.0]> : tensor<4xf32>
  %3 = stablehlo.compare NE, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %u = stablehlo.constant dense<[200, 1]> : tensor<2xui8>
  %v = stablehlo.constant dense<[100, 2]> : tensor<2xui8>
  %4 = stablehlo.compare GE, %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  %5 = stablehlo.compare GE, %u, %v, SIGNED : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<4xi1>, tensor<2xi1>, tensor<2xi1>
}

// maximum/minimum: unsigned for unsigned types and i1; floats as llvm::maximum/minimum (NaN
// propagates quieted, -0 < +0).
// CHECK-LABEL: func.func @maximum_minimum
// CHECK-DAG: stablehlo.constant dense<[1, 0, 5]> : tensor<3xi32>
// CHECK-DAG: stablehlo.constant dense<[100, 1]> : tensor<2xui8>
// CHECK-DAG: stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: stablehlo.constant dense<[0x7FC00000, 0.000000e+00, 0.000000e+00, 0x7FC00001]> : tensor<4xf32>
// CHECK-DAG: stablehlo.constant dense<[0x7FC00000, -0.000000e+00, -0.000000e+00, 0x7FC00001]> : tensor<4xf32>
// CHECK-NOT: stablehlo.maximum
// CHECK-NOT: stablehlo.minimum
func.func @maximum_minimum() -> (tensor<3xi32>, tensor<2xui8>, tensor<2xi1>, tensor<4xf32>, tensor<4xf32>) {
  %a = stablehlo.constant dense<[-1, 0, 5]> : tensor<3xi32>
  %b = stablehlo.constant dense<[1, 0, 2]> : tensor<3xi32>
  %0 = stablehlo.maximum %a, %b : tensor<3xi32>
  %u = stablehlo.constant dense<[200, 1]> : tensor<2xui8>
  %v = stablehlo.constant dense<[100, 2]> : tensor<2xui8>
  %1 = stablehlo.minimum %u, %v : tensor<2xui8>
  %t = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %f = stablehlo.constant dense<[false, false]> : tensor<2xi1>
  %2 = stablehlo.maximum %t, %f : tensor<2xi1>
  %x = stablehlo.constant dense<[0x7FC00000, 0.0, -0.0, 1.0]> : tensor<4xf32>
  %y = stablehlo.constant dense<[1.0, -0.0, 0.0, 0x7F800001]> : tensor<4xf32>
  %3 = stablehlo.maximum %x, %y : tensor<4xf32>
  %4 = stablehlo.minimum %x, %y : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<3xi32>, tensor<2xui8>, tensor<2xi1>, tensor<4xf32>, tensor<4xf32>
}

// clamp = min(max, max(min, x)), signed for i1 (true is -1); scalar bounds are not folded.
// CHECK-LABEL: func.func @clamp
// CHECK-DAG: stablehlo.constant dense<[0, 3, 10]> : tensor<3xi32>
// CHECK-DAG: stablehlo.constant dense<true> : tensor<2xi1>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 0x7FC00000, 1.000000e+00]> : tensor<3xf32>
// CHECK: stablehlo.clamp {{.*}} : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
func.func @clamp() -> (tensor<3xi32>, tensor<2xi1>, tensor<3xf32>, tensor<3xi32>) {
  %lo = stablehlo.constant dense<[0, 0, 0]> : tensor<3xi32>
  %x = stablehlo.constant dense<[-5, 3, 12]> : tensor<3xi32>
  %hi = stablehlo.constant dense<[10, 10, 10]> : tensor<3xi32>
  %0 = stablehlo.clamp %lo, %x, %hi : tensor<3xi32>
  %t = stablehlo.constant dense<true> : tensor<2xi1>
  %f = stablehlo.constant dense<[false, true]> : tensor<2xi1>
  %1 = stablehlo.clamp %t, %f, %t : tensor<2xi1>
  %flo = stablehlo.constant dense<0.0> : tensor<3xf32>
  %fx = stablehlo.constant dense<[-1.0, 0x7FC00000, 2.0]> : tensor<3xf32>
  %fhi = stablehlo.constant dense<1.0> : tensor<3xf32>
  %2 = stablehlo.clamp %flo, %fx, %fhi : tensor<3xf32>
  %slo = stablehlo.constant dense<0> : tensor<i32>
  %shi = stablehlo.constant dense<10> : tensor<i32>
  %3 = stablehlo.clamp %slo, %x, %shi : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<2xi1>, tensor<3xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @bitwise
// CHECK-DAG: stablehlo.constant dense<[8, 5]> : tensor<2xi8>
// CHECK-DAG: stablehlo.constant dense<[14, -1]> : tensor<2xi8>
// CHECK-DAG: stablehlo.constant dense<[6, -6]> : tensor<2xi8>
// CHECK-DAG: stablehlo.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: stablehlo.constant dense<[255, 240]> : tensor<2xui8>
// CHECK-DAG: stablehlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NOT: stablehlo.and
// CHECK-NOT: stablehlo.or
// CHECK-NOT: stablehlo.xor
// CHECK-NOT: stablehlo.not
func.func @bitwise() -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi1>, tensor<2xui8>, tensor<2xi1>) {
  %a = stablehlo.constant dense<[12, -1]> : tensor<2xi8>
  %b = stablehlo.constant dense<[10, 5]> : tensor<2xi8>
  %0 = stablehlo.and %a, %b : tensor<2xi8>
  %1 = stablehlo.or %a, %b : tensor<2xi8>
  %2 = stablehlo.xor %a, %b : tensor<2xi8>
  %t = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %3 = stablehlo.not %t : tensor<2xi1>
  %u = stablehlo.constant dense<[0, 15]> : tensor<2xui8>
  %4 = stablehlo.not %u : tensor<2xui8>
  %f = stablehlo.constant dense<[false, true]> : tensor<2xi1>
  %5 = stablehlo.xor %t, %f : tensor<2xi1>
  %6 = stablehlo.and %5, %t : tensor<2xi1>
  return %0, %1, %2, %3, %4, %6 : tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi1>, tensor<2xui8>, tensor<2xi1>
}

// abs and negate wrap (abs(INT_MIN) = INT_MIN); sign of an integer is -1, 0 or 1.
// CHECK-LABEL: func.func @unary_integers
// CHECK-DAG: stablehlo.constant dense<[-2147483648, 3, 4]> : tensor<3xi32>
// CHECK-DAG: stablehlo.constant dense<[0, 255]> : tensor<2xui8>
// CHECK-DAG: stablehlo.constant dense<[-2147483648, 3, -4]> : tensor<3xi32>
// CHECK-DAG: stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi32>
// CHECK-NOT: stablehlo.abs
// CHECK-NOT: stablehlo.negate
// CHECK-NOT: stablehlo.sign
func.func @unary_integers() -> (tensor<3xi32>, tensor<2xui8>, tensor<3xi32>, tensor<3xi32>) {
  %a = stablehlo.constant dense<[-2147483648, -3, 4]> : tensor<3xi32>
  %0 = stablehlo.abs %a : tensor<3xi32>
  %u = stablehlo.constant dense<[0, 1]> : tensor<2xui8>
  %1 = stablehlo.negate %u : tensor<2xui8>
  %2 = stablehlo.negate %a : tensor<3xi32>
  %b = stablehlo.constant dense<[-7, 0, 9]> : tensor<3xi32>
  %3 = stablehlo.sign %b : tensor<3xi32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<2xui8>, tensor<3xi32>, tensor<3xi32>
}

// abs/negate move the sign bit (NaN too); rounding is exact (ties away from zero, or to
// even); sign(-0) is +0 and a NaN element leaves sign unfolded.
// CHECK-LABEL: func.func @unary_floats
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 2.500000e+00, 0x7FC00000, 0x7F800000]> : tensor<4xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 2.500000e+00, 0xFFC00000, 0x7F800000]> : tensor<4xf32>
// CHECK-DAG: stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, -3.000000e+00, -0.000000e+00]> : tensor<5xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 2.000000e+00, 2.000000e+00, -2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, -1.000000e+00, 1.000000e+00, -1.000000e+00]> : tensor<4xf32>
// CHECK: stablehlo.sign
// CHECK-NOT: stablehlo.round
func.func @unary_floats() -> (tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>) {
  %x = stablehlo.constant dense<[-0.0, -2.5, 0x7FC00000, 0xFF800000]> : tensor<4xf32>
  %0 = stablehlo.abs %x : tensor<4xf32>
  %1 = stablehlo.negate %x : tensor<4xf32>
  %r = stablehlo.constant dense<[0.5, 1.5, 2.5, -2.5, -0.4]> : tensor<5xf32>
  %2 = stablehlo.round_nearest_afz %r : tensor<5xf32>
  %s = stablehlo.constant dense<[0.5, 1.5, 2.5, -2.5]> : tensor<4xf32>
  %3 = stablehlo.round_nearest_even %s : tensor<4xf32>
  %g = stablehlo.constant dense<[-0.0, -3.0, 2.0, 0xFF800000]> : tensor<4xf32>
  %4 = stablehlo.sign %g : tensor<4xf32>
  %n = stablehlo.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %5 = stablehlo.sign %n : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>
}

// Transcendental functions are computed on doubles with the C library and rounded back; log
// and rsqrt of x <= 0 and sqrt of x < 0 are left unfolded (sqrt(-0) = -0 is folded).
// CHECK-LABEL: func.func @transcendental
// CHECK-DAG: stablehlo.constant dense<[1.000000e+00, 0.540302277]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 0.841470957]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 1.55740774]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 0.761594176]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[1.000000e+00, 2.71828175]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[5.000000e-01, 0.731058597]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[0.000000e+00, 0.842700779]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[2.000000e+00, 1.4142135623730951]> : tensor<2xf64>
// CHECK-DAG: stablehlo.constant dense<[2.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<[2.718750e+00, 7.390630e+00]> : tensor<2xf16>
// CHECK-DAG: stablehlo.rsqrt
// CHECK-DAG: stablehlo.log
// CHECK-NOT: stablehlo.cosine
// CHECK-NOT: chlo.erf
func.func @transcendental() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>) {
  %x = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = stablehlo.cosine %x : tensor<2xf32>
  %1 = stablehlo.sine %x : tensor<2xf32>
  %2 = stablehlo.tan %x : tensor<2xf32>
  %3 = stablehlo.tanh %x : tensor<2xf32>
  %4 = stablehlo.exponential %x : tensor<2xf32>
  %5 = stablehlo.logistic %x : tensor<2xf32>
  %6 = chlo.erf %x : tensor<2xf32> -> tensor<2xf32>
  %p = stablehlo.constant dense<[4.0, 2.0]> : tensor<2xf64>
  %7 = stablehlo.sqrt %p : tensor<2xf64>
  %q = stablehlo.constant dense<[4.0, 0.0]> : tensor<2xf32>
  %8 = stablehlo.rsqrt %q : tensor<2xf32>
  %9 = stablehlo.log %q : tensor<2xf32>
  %m = stablehlo.constant dense<[4.0, -0.0]> : tensor<2xf32>
  %10 = stablehlo.sqrt %m : tensor<2xf32>
  %h = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf16>
  %11 = stablehlo.exponential %h : tensor<2xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf64>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf16>
}

// Integer converts sign-extend signless types and zero-extend unsigned ones and i1, then
// truncate; to i1 means "not zero".
// CHECK-LABEL: func.func @convert_integers
// CHECK-DAG: stablehlo.constant dense<[-1, 127]> : tensor<2xi64>
// CHECK-DAG: stablehlo.constant dense<[255, 127]> : tensor<2xi64>
// CHECK-DAG: stablehlo.constant dense<[44, 127]> : tensor<2xi8>
// CHECK-DAG: stablehlo.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-DAG: stablehlo.constant dense<true> : tensor<2xi1>
// CHECK-NOT: stablehlo.convert
func.func @convert_integers() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi8>, tensor<2xi32>, tensor<2xi1>) {
  %a = stablehlo.constant dense<[-1, 127]> : tensor<2xi8>
  %0 = stablehlo.convert %a : (tensor<2xi8>) -> tensor<2xi64>
  %u = stablehlo.constant dense<[255, 127]> : tensor<2xui8>
  %1 = stablehlo.convert %u : (tensor<2xui8>) -> tensor<2xi64>
  %w = stablehlo.constant dense<[300, -129]> : tensor<2xi32>
  %2 = stablehlo.convert %w : (tensor<2xi32>) -> tensor<2xi8>
  %t = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %3 = stablehlo.convert %t : (tensor<2xi1>) -> tensor<2xi32>
  %4 = stablehlo.convert %w : (tensor<2xi32>) -> tensor<2xi1>
  return %0, %1, %2, %3, %4 : tensor<2xi64>, tensor<2xi64>, tensor<2xi8>, tensor<2xi32>, tensor<2xi1>
}

// Float converts round to nearest even (ints too: 2^24 + 1 rounds to 2^24); to integers they
// truncate, and -0, infinities, NaN or out-of-range values stay unfolded; a signaling NaN to
// another float format stays, a quiet one keeps its sign and the payload that fits.
// CHECK-LABEL: func.func @convert_floats
// CHECK-DAG: stablehlo.constant dense<[0x4B800000, 0xCB800002, 9.22337203E+18]> : tensor<3xf32>
// CHECK-DAG: stablehlo.constant dense<[1.000000e+00, 0x7C00]> : tensor<2xf16>
// CHECK-DAG: stablehlo.constant dense<[-2, 2147483647]> : tensor<2xi32>
// CHECK-DAG: stablehlo.constant dense<[0, 255]> : tensor<2xui8>
// CHECK-DAG: stablehlo.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: stablehlo.constant dense<[2.550000e+02, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: stablehlo.constant dense<0xFE09> : tensor<f16>
// CHECK-DAG: stablehlo.convert {{.*}} : (tensor<f32>) -> tensor<f16>
// CHECK-DAG: stablehlo.convert {{.*}} : (tensor<f32>) -> tensor<i32>
// CHECK-DAG: stablehlo.convert {{.*}} : (tensor<f32>) -> tensor<i32>
// CHECK-DAG: stablehlo.convert {{.*}} : (tensor<f32>) -> tensor<i32>
func.func @convert_floats() -> (tensor<3xf32>, tensor<2xf16>, tensor<2xi32>, tensor<2xui8>, tensor<3xi1>, tensor<2xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f16>, tensor<f16>) {
  %big = stablehlo.constant dense<[16777217, -16777219, 9223372036854775807]> : tensor<3xi64>
  %0 = stablehlo.convert %big : (tensor<3xi64>) -> tensor<3xf32>
  %x = stablehlo.constant dense<[1.00048828125, 70000.0]> : tensor<2xf32>
  %1 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xf16>
  %y = stablehlo.constant dense<[-2.9, 2147483647.0]> : tensor<2xf64>
  %2 = stablehlo.convert %y : (tensor<2xf64>) -> tensor<2xi32>
  %z = stablehlo.constant dense<[-0.5, 255.9]> : tensor<2xf32>
  %3 = stablehlo.convert %z : (tensor<2xf32>) -> tensor<2xui8>
  %b = stablehlo.constant dense<[0.0, 0x7FC00000, -0.0]> : tensor<3xf32>
  %4 = stablehlo.convert %b : (tensor<3xf32>) -> tensor<3xi1>
  %u = stablehlo.constant dense<[255, 1]> : tensor<2xui8>
  %5 = stablehlo.convert %u : (tensor<2xui8>) -> tensor<2xf32>
  %nz = stablehlo.constant dense<-0.0> : tensor<f32>
  %6 = stablehlo.convert %nz : (tensor<f32>) -> tensor<i32>
  %big2 = stablehlo.constant dense<2147483648.0> : tensor<f32>
  %7 = stablehlo.convert %big2 : (tensor<f32>) -> tensor<i32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %8 = stablehlo.convert %inf : (tensor<f32>) -> tensor<i32>
  %snan = stablehlo.constant dense<0x7F800001> : tensor<f32>
  %9 = stablehlo.convert %snan : (tensor<f32>) -> tensor<f16>
  %qnan = stablehlo.constant dense<0xFFC12345> : tensor<f32>
  %10 = stablehlo.convert %qnan : (tensor<f32>) -> tensor<f16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<3xf32>, tensor<2xf16>, tensor<2xi32>, tensor<2xui8>, tensor<3xi1>, tensor<2xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f16>, tensor<f16>
}

// concatenate, reverse, transpose, reshape and slice of constants; splats (complex ones too)
// broadcast and transpose to splats.
// CHECK-LABEL: func.func @data_movement
// CHECK-DAG: stablehlo.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>
// CHECK-DAG: stablehlo.constant dense<{{\[\[}}6, 5, 4], [3, 2, 1]]> : tensor<2x3xi32>
// CHECK-DAG: stablehlo.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: stablehlo.constant dense<[3, 6]> : tensor<2xi32>
// CHECK-DAG: stablehlo.constant dense<(1.000000e+00,2.000000e+00)> : tensor<2x2xcomplex<f32>>
// CHECK-DAG: stablehlo.constant dense<(0.000000e+00,-1.000000e+00)> : tensor<3x2xcomplex<f32>>
// CHECK-DAG: stablehlo.constant dense<(3.000000e+00,4.000000e+00)> : tensor<4xcomplex<f32>>
// CHECK-NOT: stablehlo.concatenate
// CHECK-NOT: stablehlo.reverse
// CHECK-NOT: stablehlo.transpose
// CHECK-NOT: stablehlo.slice
// CHECK-NOT: stablehlo.reshape
// CHECK-NOT: stablehlo.broadcast_in_dim
func.func @data_movement() -> (tensor<5xi32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<2xi32>, tensor<2x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<4xcomplex<f32>>) {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[3, 4, 5]> : tensor<3xi32>
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xi32>, tensor<3xi32>) -> tensor<5xi32>
  %m = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = stablehlo.reverse %m, dims = [0, 1] : tensor<2x3xi32>
  %2 = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %4 = stablehlo.slice %m [0:2, 0:3:2] : (tensor<2x3xi32>) -> tensor<2x2xi32>
  %5 = stablehlo.reshape %4 : (tensor<2x2xi32>) -> tensor<4xi32>
  %6 = stablehlo.slice %5 [1:4:2] : (tensor<4xi32>) -> tensor<2xi32>
  %c = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>
  %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<complex<f32>>) -> tensor<2x2xcomplex<f32>>
  %cc = stablehlo.constant dense<(0.0, -1.0)> : tensor<2x3xcomplex<f32>>
  %8 = stablehlo.transpose %cc, dims = [1, 0] : (tensor<2x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %cs = stablehlo.constant dense<(3.0, 4.0)> : tensor<2x2xcomplex<f32>>
  %9 = stablehlo.reshape %cs : (tensor<2x2xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0, %1, %2, %6, %7, %8, %9 : tensor<5xi32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<2xi32>, tensor<2x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<4xcomplex<f32>>
}

// Runs of equal splats in a concatenate become one splat.
// CHECK-LABEL: func.func @concatenate_adjacent_splats
// CHECK: %[[SPLAT:.*]] = stablehlo.constant dense<1.500000e+00> : tensor<6xf32>
// CHECK: stablehlo.concatenate %[[SPLAT]], %arg0, dim = 0 : (tensor<6xf32>, tensor<2xf32>) -> tensor<8xf32>
func.func @concatenate_adjacent_splats(%arg0: tensor<2xf32>) -> tensor<8xf32> {
  %h = stablehlo.constant dense<1.5> : tensor<2xf32>
  %0 = stablehlo.concatenate %h, %h, %h, %arg0, dim = 0 : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// select of constants: a splat predicate picks an operand, others fold element by element for
// integers only; get_dimension_size of a static dimension; dynamic_slice of a splat; iotas of
// no element or one; set_dimension_size to the static size.
// CHECK-LABEL: func.func @select_and_shapes
// CHECK-DAG: %[[SELECTED:.*]] = stablehlo.constant dense<[1, 8, 3]> : tensor<3xi32>
// CHECK-DAG: %[[FOUR:.*]] = stablehlo.constant dense<4> : tensor<i32>
// CHECK-DAG: %[[SLICE:.*]] = stablehlo.constant dense<5> : tensor<2xi32>
// CHECK-DAG: %[[IOTA1:.*]] = stablehlo.constant dense<0> : tensor<1x1xi64>
// CHECK-DAG: %[[IOTA0:.*]] = stablehlo.constant dense<> : tensor<0xi32>
// CHECK-DAG: %[[FLOATS:.*]] = stablehlo.select
// CHECK-DAG: %[[DYNAMIC:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK-DAG: %[[IOTA2:.*]] = stablehlo.iota dim = 0 : tensor<2xi32>
// CHECK-DAG: %[[PICKED:.*]] = stablehlo.constant dense<[7.000000e+00, 8.000000e+00, 9.000000e+00]> : tensor<3xf32>
// CHECK: return %[[SELECTED]], %[[FLOATS]], %[[FOUR]], %[[DYNAMIC]], %[[SLICE]], %[[IOTA1]], %[[IOTA0]], %[[IOTA2]], %[[PICKED]], %arg1
func.func @select_and_shapes(%arg0: tensor<?x4xf32>, %arg1: tensor<2xf32>) -> (tensor<3xi32>, tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<2xi32>, tensor<1x1xi64>, tensor<0xi32>, tensor<2xi32>, tensor<3xf32>, tensor<2xf32>) {
  %p = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %t = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %f = stablehlo.constant dense<[7, 8, 9]> : tensor<3xi32>
  %0 = stablehlo.select %p, %t, %f : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %ft = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %ff = stablehlo.constant dense<[7.0, 8.0, 9.0]> : tensor<3xf32>
  %1 = stablehlo.select %p, %ft, %ff : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x4xf32>) -> tensor<i32>
  %3 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %sp = stablehlo.constant dense<5> : tensor<8xi32>
  %i = stablehlo.constant dense<3> : tensor<i32>
  %4 = stablehlo.dynamic_slice %sp, %i, sizes = [2] : (tensor<8xi32>, tensor<i32>) -> tensor<2xi32>
  %5 = stablehlo.iota dim = 0 : tensor<1x1xi64>
  %6 = stablehlo.iota dim = 0 : tensor<0xi32>
  %7 = stablehlo.iota dim = 0 : tensor<2xi32>
  %no = stablehlo.constant dense<false> : tensor<i1>
  %8 = stablehlo.select %no, %ft, %ff : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %9 = stablehlo.set_dimension_size %arg1, %two, dim = 0 : (tensor<2xf32>, tensor<i32>) -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<3xi32>, tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<2xi32>, tensor<1x1xi64>, tensor<0xi32>, tensor<2xi32>, tensor<3xf32>, tensor<2xf32>
}

// reduce over no dimensions, a body returning a constant or a value from outside, and an
// and/or reduction of splats.
// CHECK-LABEL: func.func @reduce
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[TRUE:.*]] = stablehlo.constant dense<true> : tensor<i1>
// CHECK-NOT: stablehlo.reduce
// CHECK: return %arg0, %[[ZERO]], %arg1, %[[TRUE]]
func.func @reduce(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i1>) {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.add across dimensions = [] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.reduce(%arg0 init: %init) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      stablehlo.return %init : tensor<f32>
    }
  %2 = stablehlo.reduce(%arg0 init: %init) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      stablehlo.return %arg1 : tensor<f32>
    }
  %t = stablehlo.constant dense<true> : tensor<8xi1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %3 = stablehlo.reduce(%t init: %f) applies stablehlo.or across dimensions = [0] : (tensor<8xi1>, tensor<i1>) -> tensor<i1>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<i1>
}

// A loop whose condition is false is its operands; a dead one goes, unless its body declares
// side effects.
// CHECK-LABEL: func.func @while_false
// CHECK-NOT: stablehlo.while
// CHECK: return %arg0
func.func @while_false(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64>
    cond {
    %false = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %false : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %iterArg : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }
  return %0 : tensor<i64>
}

// CHECK-LABEL: func.func @while_false_with_side_effects
// CHECK: stablehlo.while
// CHECK: stablehlo.custom_call @print
// CHECK: return %arg0
func.func @while_false_with_side_effects(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64>
    cond {
    %false = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %false : tensor<i1>
  } do {
    %1 = stablehlo.custom_call @print(%iterArg) {has_side_effect = true} : (tensor<i64>) -> tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }
  return %0 : tensor<i64>
}

// A constant case index inlines its branch (out of range: the last one).
// CHECK-LABEL: func.func @case_index_out_of_range
// CHECK-DAG: %[[TWO:.*]] = stablehlo.constant dense<2> : tensor<i32>
// CHECK-DAG: %[[NEG:.*]] = stablehlo.negate %arg0
// CHECK-NOT: stablehlo.case
// CHECK: return %[[NEG]], %[[TWO]]
func.func @case_index_out_of_range(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {
  %idx = stablehlo.constant dense<7> : tensor<i32>
  %0:2 = "stablehlo.case"(%idx) ({
    %a = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %arg0, %a : tensor<2xf32>, tensor<i32>
  }, {
    %b = stablehlo.negate %arg0 : tensor<2xf32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    stablehlo.return %b, %c : tensor<2xf32>, tensor<i32>
  }) : (tensor<i32>) -> (tensor<2xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<2xf32>, tensor<i32>
}

// A case kept for the side effects of another branch: the inlined branch now returns
// placeholders (a complex zero, a token).
// CHECK-LABEL: func.func @case_kept_for_side_effects
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<2xcomplex<f32>>
// CHECK: "stablehlo.case"
// CHECK-NEXT: %[[TOKEN:.*]] = stablehlo.after_all  : !stablehlo.token
// CHECK-NEXT: stablehlo.return %[[ZERO]], %[[TOKEN]]
// CHECK: "stablehlo.outfeed"
// CHECK: return %arg0, %arg1
func.func @case_kept_for_side_effects(%arg0: tensor<2xcomplex<f32>>, %arg1: !stablehlo.token) -> (tensor<2xcomplex<f32>>, !stablehlo.token) {
  %idx = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = "stablehlo.case"(%idx) ({
    stablehlo.return %arg0, %arg1 : tensor<2xcomplex<f32>>, !stablehlo.token
  }, {
    %u = "stablehlo.outfeed"(%arg0, %arg1) <{outfeed_config = ""}> : (tensor<2xcomplex<f32>>, !stablehlo.token) -> !stablehlo.token
    stablehlo.return %arg0, %u : tensor<2xcomplex<f32>>, !stablehlo.token
  }) : (tensor<i32>) -> (tensor<2xcomplex<f32>>, !stablehlo.token)
  return %0#0, %0#1 : tensor<2xcomplex<f32>>, !stablehlo.token
}

// Narrow types: i4 wraps at 4 bits, f8E5M2 (IEEE-like) overflows to infinity; formats whose
// arithmetic is not IEEE's (f8E4M3FN, f4E2M1FN) are moved but not computed on.
// CHECK-LABEL: func.func @narrow_types
// CHECK-DAG: %[[I4:.*]] = stablehlo.constant dense<[-2, 0]> : tensor<2xi4>
// CHECK-DAG: %[[E5M2:.*]] = stablehlo.constant dense<[3.000000e+00, 0x7C]> : tensor<2xf8E5M2>
// CHECK-DAG: %[[F8:.*]] = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 5.000000e-01]> : tensor<3xf8E4M3FN>
// CHECK-DAG: %[[REVERSED:.*]] = stablehlo.constant dense<[5.000000e-01, 2.000000e+00, 1.000000e+00]> : tensor<3xf8E4M3FN>
// CHECK-DAG: %[[F4:.*]] = stablehlo.constant dense<[-6.000000e+00, 1.000000e+00]> : tensor<2xf4E2M1FN>
// CHECK-DAG: %[[SUM:.*]] = stablehlo.add %[[F8]], %[[F8]] : tensor<3xf8E4M3FN>
// CHECK: return %[[REVERSED]], %[[SUM]], %[[E5M2]], %[[I4]], %[[F4]]
func.func @narrow_types() -> (tensor<3xf8E4M3FN>, tensor<3xf8E4M3FN>, tensor<2xf8E5M2>, tensor<2xi4>, tensor<2xf4E2M1FN>) {
  %a = stablehlo.constant dense<[1.0, 2.0, 0.5]> : tensor<3xf8E4M3FN>
  %0 = stablehlo.reverse %a, dims = [0] : tensor<3xf8E4M3FN>
  %1 = stablehlo.add %a, %a : tensor<3xf8E4M3FN>
  %b = stablehlo.constant dense<[1.5, 57344.0]> : tensor<2xf8E5M2>
  %2 = stablehlo.add %b, %b : tensor<2xf8E5M2>
  %c = stablehlo.constant dense<[7, -8]> : tensor<2xi4>
  %3 = stablehlo.add %c, %c : tensor<2xi4>
  %d = stablehlo.constant dense<[1.0, -6.0]> : tensor<2xf4E2M1FN>
  %4 = stablehlo.reverse %d, dims = [0] : tensor<2xf4E2M1FN>
  return %0, %1, %2, %3, %4 : tensor<3xf8E4M3FN>, tensor<3xf8E4M3FN>, tensor<2xf8E5M2>, tensor<2xi4>, tensor<2xf4E2M1FN>
}

// More than 100 elements print as hex data; they fold the same.
// CHECK-LABEL: func.func @large_constants
// CHECK: stablehlo.constant dense<"0x00000000020000000400000006000000
// CHECK-NOT: stablehlo.add
func.func @large_constants() -> tensor<128xi32> {
  %1 = stablehlo.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : tensor<128xi32>
  %2 = stablehlo.add %1, %1 : tensor<128xi32>
  return %2 : tensor<128xi32>
}

// Constants in dense_resource blobs are never folded, as upstream's patterns cannot read them.
// CHECK-LABEL: func.func @resource_constant
// CHECK: stablehlo.add
func.func @resource_constant() -> tensor<2xi32> {
  %0 = stablehlo.constant dense_resource<blob> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  return %1 : tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000100000002000000"
    }
  }
#-}
