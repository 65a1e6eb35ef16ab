// Every pass, with where it runs: both binding worlds, the native tools and Python passes.
// RUN: shlo-opt --list-passes | filecheck %s
// RUN: shlo-opt -list-passes | filecheck %s
// A Python pass that replaces a native tool's pass of the same name is its one entry.
// RUN: shlo-opt --list-passes | grep -c -- '--stablehlo-aggressive-simplification ' | filecheck %s --check-prefix=ONCE

// CHECK: Passes (source: stablehlo, iree, torch-mlir-opt, iree-opt, python):
// CHECK-DAG: --canonicalize {{ +}}[stablehlo] Canonicalize operations
// CHECK-DAG:     --max-iterations=<long>  - Max. iterations between applying patterns / simplifying regions
// CHECK-DAG: --stablehlo-legalize-to-vhlo {{ +}}[stablehlo] Legalize StableHLO to VHLO.
// CHECK-DAG: --iree-stablehlo-preprocessing-unfuse-batch-norm {{ +}}[iree]
// CHECK-DAG: --refback-generalize-tensor-concat {{ +}}[torch-mlir-opt] Convert tensor.concat to other tensor ops
// CHECK-DAG: --stablehlo-aggressive-simplification {{ +}}[python] Canonicalizes StableHLO operations (in place of torch-mlir-opt's)
// CHECK-DAG:     --fold-op-element-limit=<Int64>  - Folding an op into a constant
// CHECK-DAG: --shlo-op-stats {{ +}}[python] Report each function's op histogram, constant bytes and dot/convolution FLOPs.
// CHECK-DAG:     --format=<str>  - 'text' or 'json'
// CHECK-DAG: --shlo-patchify-convolutions {{ +}}[python]
// CHECK-DAG: --shlo-f64-math-in-f32 {{ +}}[python]
// ONCE: {{^}}1{{$}}
