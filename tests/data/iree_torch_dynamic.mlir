// A torch-dialect program with a dynamic batch, as iree-turbine writes one: three matmuls
// and two tanh, for --dim batch=..N (tests/test_iree_arena.py).
func.func @main(%arg0: !torch.vtensor<[?,16],f32>, %arg1: !torch.vtensor<[16,16],f32>) -> !torch.vtensor<[?,16],f32> {
  %0 = torch.aten.mm %arg0, %arg1 : !torch.vtensor<[?,16],f32>, !torch.vtensor<[16,16],f32> -> !torch.vtensor<[?,16],f32>
  %1 = torch.aten.tanh %0 : !torch.vtensor<[?,16],f32> -> !torch.vtensor<[?,16],f32>
  %2 = torch.aten.mm %1, %arg1 : !torch.vtensor<[?,16],f32>, !torch.vtensor<[16,16],f32> -> !torch.vtensor<[?,16],f32>
  %3 = torch.aten.tanh %2 : !torch.vtensor<[?,16],f32> -> !torch.vtensor<[?,16],f32>
  %4 = torch.aten.mm %3, %arg1 : !torch.vtensor<[?,16],f32>, !torch.vtensor<[16,16],f32> -> !torch.vtensor<[?,16],f32>
  return %4 : !torch.vtensor<[?,16],f32>
}
