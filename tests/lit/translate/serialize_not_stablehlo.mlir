// An op a portable artifact cannot hold is named where it is, in the user's file (or <stdin>),
// and no artifact is written; --allow-other-dialects serializes such a module.
// RUN: not shlo-translate %s --serialize --target=current -o %t.vhlo 2>&1 | filecheck %s -DFILE=%s
// RUN: not ls %t.vhlo
// RUN: not shlo-translate --serialize -o %t.vhlo < %s 2>&1 | filecheck %s -DFILE="<stdin>"
// RUN: shlo-translate %s --serialize --allow-other-dialects -o %t.other.vhlo
// CHECK: [[FILE]]:12:8: error: 'tensor.extract' is not StableHLO: a portable artifact holds only stablehlo, func and builtin ops
// CHECK-NOT: loc(

func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %x, %x : tensor<f32>
  %1 = tensor.extract %0[] : tensor<f32>
  %2 = tensor.from_elements %1 : tensor<f32>
  return %2 : tensor<f32>
}
