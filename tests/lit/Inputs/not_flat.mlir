// Modules shlo-flatten cannot make flat, for the failure messages.
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = call @countdown(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func private @countdown(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = call @countdown(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
// -----
func.func @first() {
  return
}
func.func @second() {
  return
}
