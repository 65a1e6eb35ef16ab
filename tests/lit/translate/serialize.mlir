// Portable artifacts round trip at the minimum and the current version.
// RUN: shlo-translate %s --serialize --target=minimum -o %t.min.vhlo
// RUN: shlo-translate %t.min.vhlo --deserialize | filecheck %s
// RUN: shlo-translate %s --serialize --target=current -o %t.cur.vhlo
// RUN: shlo-translate %t.cur.vhlo --deserialize | filecheck %s
// RUN: shlo-translate %s --serialize --target=1.0.0 --strip-debuginfo -o %t.v1.vhlo
// RUN: shlo-translate %t.v1.vhlo --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>]' --interpreter-print-dense | filecheck %s --check-prefix=RESULT
// RUN: od -c %t.min.vhlo | filecheck %s --check-prefix=MAGIC
// RUN: not shlo-translate %s --serialize --target=99.0.0 -o %t.bad 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not shlo-translate %s --serialize --target=latest -o %t.bad 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not shlo-translate %s --serialize --target=1.0 -o %t.bad 2>&1 | filecheck %s --check-prefix=SHORT
// RUN: shlo-translate --print-stablehlo-version | filecheck %s --check-prefix=VERSION

// CHECK-LABEL: func.func @main
// CHECK: stablehlo.exponential
// RESULT: dense<[2.71828{{[0-9]*}}, 7.38905{{[0-9]*}}]> : tensor<2xf32>
// MAGIC: 0000000   M   L 357   R 001   S   t   a   b   l   e   H   L   O   _   v
// MAGIC-NEXT: 0000020   0   .   9   .   0
// RANGE: shlo-translate: target version 99.0.0 is outside the supported range 0.9.0 to {{[0-9.]+}}
// NAME: shlo-translate: target 'latest' is not a version like 1.0.0
// SHORT: shlo-translate: target '1.0' is not a version like 1.0.0 (or current, or minimum); this StableHLO writes 0.9.0 to {{[0-9.]+$}}
// VERSION: Current version: {{[0-9]+\.[0-9]+\.[0-9]+}}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.exponential %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
