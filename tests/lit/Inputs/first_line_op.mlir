func.func @g(%x: i32) -> i64 {
  return %x : i32
}
