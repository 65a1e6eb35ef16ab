// stablehlo-translate's options beyond the translations themselves, as StablehloTranslateMain.cpp
// and MlirTranslateMain.cpp define them.

// --print-stablehlo-version modifies --deserialize: the artifact's version, on stdout, first.
// RUN: shlo-translate --serialize --target=1.1.0 %s -o %t.bc
// RUN: shlo-translate --deserialize --print-stablehlo-version %t.bc | filecheck %s --check-prefix=VERSION
// RUN: shlo-translate --serialize --target=current %s | shlo-translate --deserialize --print-stablehlo-version | filecheck %s --check-prefix=LATEST
// RUN: shlo-translate --deserialize --print-stablehlo-version %s | filecheck %s --check-prefix=NOT-BYTECODE
// RUN: shlo-translate --print-stablehlo-version | filecheck %s --check-prefix=ALONE
// VERSION: // Reading portable artifact with StableHLO version: 1.1.0
// VERSION-NEXT: module {
// LATEST: // Reading portable artifact with StableHLO version: {{[0-9]+\.[0-9]+\.[0-9]+}}
// NOT-BYTECODE: // Failed parsing StableHLO version from portable artifact
// NOT-BYTECODE-NEXT: module {
// ALONE: Current version: {{[0-9]+\.[0-9]+\.[0-9]+}}

// Printing flags apply to the printed IR; locations name the input file through an artifact.
// RUN: shlo-translate --serialize --target=current %s | shlo-translate -deserialize -mlir-print-debuginfo | filecheck %s --check-prefix=DEBUGINFO
// RUN: shlo-translate %s --mlir-print-op-generic --allow-unregistered-dialect | filecheck %s --check-prefix=GENERIC
// RUN: shlo-translate %s -mlir-elide-elementsattrs-if-larger=2 | filecheck %s --check-prefix=ELIDE
// RUN: shlo-translate %s --mlir-print-skip-regions | filecheck %s --check-prefix=SKIP
// RUN: not shlo-translate %s --mlir-elide-elementsattrs-if-larger=x 2>&1 | filecheck %s --check-prefix=UINT
// DEBUGINFO: stablehlo.add {{.*}} loc(#[[LOC:loc[0-9]*]])
// DEBUGINFO: #[[LOC]] = loc("{{.*}}translate_flags.mlir":[[# @LINE + 29]]:8)
// GENERIC: "stablehlo.add"(%{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// ELIDE: dense_resource<__elided__> : tensor<3xf32>
// SKIP: module {...}
// UINT: shlo-translate: for the --mlir-elide-elementsattrs-if-larger option: 'x' value invalid for uint argument!

// --split-input-file[=MARKER] splits for every translation; --output-split-marker (default: none)
// goes on its own line between the outputs.
// RUN: shlo-translate %S/../split_input_file.mlir --split-input-file --output-split-marker='// =====' | filecheck %s --check-prefix=SPLIT
// RUN: shlo-translate %S/../split_input_file.mlir -split-input-file= | filecheck %s --check-prefix=SPLIT-DEFAULT
// SPLIT: func.func @first
// SPLIT: // =====
// SPLIT-NEXT: module {
// SPLIT-NEXT: func.func @second
// SPLIT-DEFAULT: func.func @first
// SPLIT-DEFAULT-NOT: {{//}} -----
// SPLIT-DEFAULT: module {
// SPLIT-DEFAULT-NEXT: func.func @second

// --verify-diagnostics is MLIR's enum option: bare, =all, = or =only-expected.
// RUN: shlo-translate --interpret --verify-diagnostics=only-expected %s | filecheck %s --check-prefix=RUNS
// RUN: shlo-translate --interpret -verify-diagnostics=all --mlir-disable-threading %s | filecheck %s --check-prefix=RUNS
// RUN: not shlo-translate --interpret --verify-diagnostics=true %s 2>&1 | filecheck %s --check-prefix=LEVEL
// RUNS: tensor<3xf32>
// RUNS-NEXT: [2.000000e+00, 4.000000e+00, 6.000000e+00]
// LEVEL: shlo-translate: for the --verify-diagnostics option: Cannot find option named 'true'!

func.func @main() -> tensor<3xf32> {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = stablehlo.add %x, %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}
