// shlo-round-low-precision: each bf16/f16 result that another op reads is rounded in integer ops
// on its f32 bits (bf16 at bit 16, f16 at bit 13, NaN kept), which IREE cannot fold away;
// returned results, f32, ops that only pick or move values, ops in reduction bodies and
// dynamically shaped results are left as they are.  Run after shlo-accumulate-in-f32, as a user
// names them; iree-compile takes the result.
// RUN: shlo-opt %s --shlo-accumulate-in-f32 --shlo-round-low-precision | filecheck %s
// RUN: shlo-opt %s --shlo-accumulate-in-f32 --shlo-round-low-precision | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o /dev/null

// CHECK-LABEL: func.func @chain
// CHECK: %[[M:.*]] = stablehlo.multiply %arg0, %arg1 : tensor<4xbf16>
// CHECK-NEXT: %[[W:.*]] = stablehlo.convert %[[M]] : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.bitcast_convert %[[W]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT: %[[C16:.*]] = stablehlo.constant dense<16> : tensor<4xi32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.shift_right_logical %[[B]], %[[C16]]
// CHECK-NEXT: %[[C1:.*]] = stablehlo.constant dense<1> : tensor<4xi32>
// CHECK-NEXT: %[[L:.*]] = stablehlo.and %[[S]], %[[C1]]
// CHECK-NEXT: %[[H:.*]] = stablehlo.constant dense<32767> : tensor<4xi32>
// CHECK-NEXT: %[[A1:.*]] = stablehlo.add %[[B]], %[[H]]
// CHECK-NEXT: %[[A2:.*]] = stablehlo.add %[[A1]], %[[L]]
// CHECK-NEXT: %[[K:.*]] = stablehlo.constant dense<-65536> : tensor<4xi32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.and %[[A2]], %[[K]]
// CHECK-NEXT: %[[ABS:.*]] = stablehlo.constant dense<2147483647> : tensor<4xi32>
// CHECK-NEXT: %[[MAG:.*]] = stablehlo.and %[[B]], %[[ABS]]
// CHECK-NEXT: %[[INF:.*]] = stablehlo.constant dense<2139095040> : tensor<4xi32>
// CHECK-NEXT: %[[NAN:.*]] = stablehlo.compare GT, %[[MAG]], %[[INF]], SIGNED
// CHECK-NEXT: %[[SEL:.*]] = stablehlo.select %[[NAN]], %[[B]], %[[R]]
// CHECK-NEXT: %[[F:.*]] = stablehlo.bitcast_convert %[[SEL]] : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.convert %[[F]] : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK-NEXT: %[[ADD:.*]] = stablehlo.add %[[N]], %arg1 : tensor<4xbf16>
// CHECK-NOT: stablehlo.bitcast_convert
// CHECK: return %[[ADD]]
func.func @chain(%x: tensor<4xbf16>, %y: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = stablehlo.multiply %x, %y : tensor<4xbf16>
  %1 = stablehlo.add %0, %y : tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// An f16 result read by an op, and by the return too: both read the rounded value.
// CHECK-LABEL: func.func @half
// CHECK: %[[M:.*]] = stablehlo.multiply %arg0, %arg0 : tensor<2x3xf16>
// CHECK: stablehlo.constant dense<13> : tensor<2x3xi32>
// CHECK: stablehlo.constant dense<4095> : tensor<2x3xi32>
// CHECK: stablehlo.constant dense<-8192> : tensor<2x3xi32>
// CHECK: %[[N:.*]] = stablehlo.convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK-NEXT: %[[S:.*]] = stablehlo.subtract %[[N]], %arg0 : tensor<2x3xf16>
// CHECK-NEXT: return %[[S]], %[[N]]
func.func @half(%x: tensor<2x3xf16>) -> (tensor<2x3xf16>, tensor<2x3xf16>) {
  %0 = stablehlo.multiply %x, %x : tensor<2x3xf16>
  %1 = stablehlo.subtract %0, %x : tensor<2x3xf16>
  return %1, %0 : tensor<2x3xf16>, tensor<2x3xf16>
}

// A conversion from f32 is rounded; so is the bf16 sum (shlo-accumulate-in-f32 computed it in
// f32), its body left as it is; the maximum (which picks an operand) and the f32 ops are not rounded.
// CHECK-LABEL: func.func @kept
// CHECK: %[[C:[0-9a-z_]+]] = stablehlo.convert %arg0 : (tensor<8xf32>) -> tensor<8xbf16>
// CHECK-NEXT: stablehlo.convert %[[C]] : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK: %[[R:[0-9a-z_]+]] = stablehlo.convert %{{.*}} : (tensor<8xf32>) -> tensor<8xbf16>
// CHECK-NEXT: %cst = stablehlo.constant
// CHECK-NEXT: %[[W:[0-9a-z_]+]] = stablehlo.convert %[[R]] : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK-NEXT: %[[I:[0-9a-z_]+]] = stablehlo.convert %cst : (tensor<bf16>) -> tensor<f32>
// CHECK-NEXT: %[[S:[0-9a-z_]+]] = stablehlo.reduce(%[[W]] init: %[[I]]) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[N:[0-9a-z_]+]] = stablehlo.convert %[[S]] : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT: stablehlo.convert %[[N]] : (tensor<bf16>) -> tensor<f32>
// CHECK: %[[MAX:[0-9a-z_]+]] = stablehlo.maximum
// CHECK-NEXT: %[[F:[0-9a-z_]+]] = stablehlo.multiply %arg0, %arg0 : tensor<8xf32>
// CHECK-NEXT: %[[G:[0-9a-z_]+]] = stablehlo.add %[[F]], %arg0 : tensor<8xf32>
// CHECK-NEXT: return %[[MAX]], %[[G]]
func.func @kept(%x: tensor<8xf32>) -> (tensor<bf16>, tensor<8xf32>) {
  %0 = stablehlo.convert %x : (tensor<8xf32>) -> tensor<8xbf16>
  %zero = stablehlo.constant dense<0.0> : tensor<bf16>
  %1 = stablehlo.reduce(%0 init: %zero) across dimensions = [0] : (tensor<8xbf16>, tensor<bf16>) -> tensor<bf16>
   reducer(%a: tensor<bf16>, %b: tensor<bf16>) {
    %s = stablehlo.add %a, %b : tensor<bf16>
    stablehlo.return %s : tensor<bf16>
  }
  %2 = stablehlo.maximum %1, %zero : tensor<bf16>
  %3 = stablehlo.multiply %x, %x : tensor<8xf32>
  %4 = stablehlo.add %3, %x : tensor<8xf32>
  return %2, %4 : tensor<bf16>, tensor<8xf32>
}

// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT: stablehlo.multiply
// CHECK-NEXT: stablehlo.add
// CHECK-NEXT: return
func.func @dynamic(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = stablehlo.multiply %x, %x : tensor<?xbf16>
  %1 = stablehlo.add %0, %x : tensor<?xbf16>
  return %1 : tensor<?xbf16>
}
