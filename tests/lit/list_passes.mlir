// Every pass, with where it runs: both binding worlds, the native tools and Python passes.
// RUN: shlo-opt --list-passes | filecheck %s
// RUN: shlo-opt -list-passes | filecheck %s

// CHECK: Passes (source: stablehlo, iree, torch-mlir-opt, iree-opt, python):
// CHECK-DAG: --canonicalize {{ +}}[stablehlo] Canonicalize operations
// CHECK-DAG:     --max-iterations=<long>  - Max. iterations between applying patterns / simplifying regions
// CHECK-DAG: --stablehlo-legalize-to-vhlo {{ +}}[stablehlo] Legalize StableHLO to VHLO.
// CHECK-DAG: --iree-stablehlo-preprocessing-unfuse-batch-norm {{ +}}[iree]
// CHECK-DAG: --stablehlo-aggressive-simplification {{ +}}[torch-mlir-opt] Canonicalizes StableHLO operations
// CHECK-DAG: --shlo-op-stats {{ +}}[python] Report each function's op histogram, constant bytes and dot/convolution FLOPs.
// CHECK-DAG:     --format=<str>  - 'text' or 'json'
// CHECK-DAG: --shlo-patchify-convolutions {{ +}}[python]
// CHECK-DAG: --shlo-f64-math-in-f32 {{ +}}[python]
