// IR printing and timing instrumentation, as mlir-opt prints them (on stderr).
// RUN: shlo-opt %s --canonicalize --cse --mlir-print-ir-before-all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --canonicalize --cse --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: shlo-opt %s --canonicalize --cse --mlir-print-ir-after-all --mlir-print-ir-after-change 2>&1 >/dev/null | filecheck %s --check-prefix=CHANGE
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(canonicalize, shlo-op-stats{format=xml})' --mlir-print-ir-after-failure 2>&1 | filecheck %s --check-prefix=FAILURE
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(cse))' --mlir-print-ir-after-all --mlir-print-ir-module-scope --mlir-disable-threading 2>&1 >/dev/null | filecheck %s --check-prefix=SCOPE
// RUN: not shlo-opt %s --cse --mlir-print-ir-after-all --mlir-print-ir-module-scope 2>&1 | filecheck %s --check-prefix=SCOPE-THREADS
// RUN: shlo-opt %s --canonicalize --cse --shlo-op-stats --mlir-print-ir-after=cse 2>&1 >/dev/null | filecheck %s --check-prefix=ONLY-CSE
// RUN: shlo-opt %s --canonicalize --cse --shlo-op-stats --mlir-print-ir-after=cse 2>&1 >/dev/null | grep -c 'IR Dump' | filecheck %s --check-prefix=ONE
// RUN: shlo-opt %s --canonicalize --cse --shlo-op-stats -mlir-print-ir-before=canonicalize,shlo-op-stats 2>&1 >/dev/null | grep -c 'IR Dump' | filecheck %s --check-prefix=TWO
// RUN: shlo-opt %s --canonicalize --cse --shlo-op-stats -mlir-print-ir-before=canonicalize,shlo-op-stats 2>&1 >/dev/null | filecheck %s --check-prefix=NAMED
// RUN: rm -rf %t.tree && shlo-opt %s --canonicalize --cse --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t.tree -o /dev/null && cat %t.tree/builtin_module_no-symbol-name/1_cse.mlir | filecheck %s --check-prefix=TREE
// RUN: shlo-opt %s --canonicalize --shlo-op-stats --mlir-timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIMING
// RUN: shlo-opt %s --canonicalize --mlir-disable-threading --mlir-timing 2>&1 | filecheck %s --check-prefix=SERIAL

// BEFORE: // -----// IR Dump Before CanonicalizerPass: canonicalize{
// BEFORE: stablehlo.add
// BEFORE: // -----// IR Dump Before CSEPass: cse //----- //
// AFTER: // -----// IR Dump After CanonicalizerPass: canonicalize{
// AFTER: // -----// IR Dump After CSEPass: cse //----- //
// After-change (with after-all) prints only passes that changed the IR: CSE merges the adds.
// CHANGE-NOT: IR Dump After CanonicalizerPass
// CHANGE: // -----// IR Dump After CSEPass: cse //----- //
// CHANGE-NOT: IR Dump After
// FAILURE: // -----// IR Dump After shlo-op-stats Failed: shlo-op-stats //----- //
// FAILURE: error: shlo-op-stats: format must be one of text, json, not 'xml'
// SCOPE: // -----// IR Dump After CSEPass: cse ('func.func' operation: @f) //----- //
// SCOPE-NEXT: module {
// SCOPE-THREADS: shlo-opt: --mlir-print-ir-module-scope requires --mlir-disable-threading
// ONLY-CSE: // -----// IR Dump After CSEPass: cse //----- //
// ONLY-CSE-NEXT: module {
// ONE: {{^1$}}
// NAMED: // -----// IR Dump Before CanonicalizerPass: canonicalize{
// NAMED: // -----// IR Dump Before shlo-op-stats: shlo-op-stats //----- //
// TWO: {{^2$}}
// TREE: func.func @f
// TIMING: Execution time report
// TIMING: CanonicalizerPass
// TIMING: shlo-op-stats
// SERIAL: Execution time report
// SERIAL: func.func @f
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.add %x, %x : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
