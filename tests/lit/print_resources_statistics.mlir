// --mlir-elide-resource-strings-if-larger drops resource blobs longer than N characters from the
// printed file metadata, as mlir-opt does; --mlir-pass-statistics prints MLIR's report on stderr.
// RUN: shlo-opt %s --mlir-elide-resource-strings-if-larger=4 | filecheck %s --check-prefix=ELIDED
// RUN: shlo-opt %s -mlir-elide-resource-strings-if-larger=1000 | filecheck %s --check-prefix=KEPT
// RUN: shlo-opt %s --canonicalize --mlir-pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// ELIDED: stablehlo.constant dense_resource<blob> : tensor<2xf32>
// ELIDED: {-#
// ELIDED-NOT: 0x04000000
// ELIDED: #-}
// KEPT: blob: "0x040000000000803F00000040"
// STATS: ... Pass statistics report ...
func.func @f() -> tensor<2xf32> {
  %0 = stablehlo.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
