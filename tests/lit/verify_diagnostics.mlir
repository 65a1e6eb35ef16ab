// Expected diagnostics that all match: exit 0, and chunks without errors still print.
// RUN: shlo-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: func.func @valid
func.func @valid() {
  return
}

// -----

func.func @offset_forms(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{number of output elements (3) doesn't match expected number of elements (2)}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @minus(%a: tensor<2xf32>) -> tensor<3xf32> {
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32>
  // expected-error@-1 {{doesn't match expected number}}
  return %0 : tensor<3xf32>
}

// -----

// @below applies to the next line that is not itself an expected-* line.
func.func @below(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error@below {{number of output elements (3)}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-note@below {{see existing symbol definition here}}
func.func @again() {
  return
}
// expected-error@below {{redefinition of symbol named 'again'}}
func.func @again() {
  return
}

// -----

func.func @above(%a: tensor<2xf32>) -> tensor<5xf32> {
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<5xf32>
  // expected-error@above {{number of output elements (5)}}
  return %0 : tensor<5xf32>
}

// -----

func.func @regex(%a: tensor<2xf32>) -> tensor<7xf32> {
  // expected-error-re@+1 {{number of output elements ({{[0-9]+}}) doesn't match expected number of elements ({{[0-9]}})}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// Notes are matched on their own line.
// expected-note@+1 {{see existing symbol definition here}}
func.func @twice() {
  return
}
// expected-error@+1 {{redefinition of symbol named 'twice'}}
func.func @twice() {
  return
}

// -----

// A parse error can be expected too.
func.func @undeclared(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{use of undeclared SSA value name}}
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @unknown_location(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error@unknown {{number of output elements}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32> loc(unknown)
  return %0 : tensor<3xf32>
}
