// Per-pass flags with options, in MLIR's spellings.
// RUN: shlo-opt %s --stablehlo-legalize-composite-to-call=except='a.keep,c.other' | filecheck %s --check-prefix=EXCEPT
// RUN: shlo-opt %s --stablehlo-legalize-composite-to-call | filecheck %s --check-prefix=ALL
// RUN: shlo-opt %s -stablehlo-legalize-composite-to-call=except=a.keep -inline -symbol-dce | filecheck %s --check-prefix=ORDER
// RUN: shlo-opt %s --canonicalize="max-iterations=3 top-down=false" | filecheck %s --check-prefix=ALL-KEPT
// RUN: not shlo-opt %s --canonicalize=max-iterations=lots 2>&1 | filecheck %s --check-prefix=BADVALUE
// RUN: not shlo-opt %s --canonicalize=no-such-option=1 2>&1 | filecheck %s --check-prefix=BADOPTION

// EXCEPT-LABEL: func.func @main
// EXCEPT:         stablehlo.composite "a.keep"
// EXCEPT:         call @b_impl
// ALL-LABEL:    func.func @main
// ALL:            call @a_impl
// ALL:            call @b_impl
// Flags run in command-line order: the composite calls are made, then inlined, then dropped.
// ORDER-LABEL:  func.func @main
// ORDER:          stablehlo.composite "a.keep"
// ORDER-NOT:      call
// ORDER-NOT:      @b_impl
// ALL-KEPT:       stablehlo.composite "a.keep"
// ALL-KEPT:       stablehlo.composite "b.drop"
// BADVALUE: shlo-opt: invalid pipeline element 'canonicalize{max-iterations=lots}': for the --max-iterations option: 'lots' value invalid for long argument!
// BADOPTION: shlo-opt: invalid pipeline element 'canonicalize{no-such-option=1}': <Pass-Options-Parser>: no such option no-such-option
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "a.keep" %x {decomposition = @a_impl} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "b.drop" %0 {decomposition = @b_impl} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @a_impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @b_impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
