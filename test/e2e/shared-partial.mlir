// Two gathers whose constant indices start alike share their first piece
// after CSE; nki-unshare-partial-tensors gives each its own chain, so no
// copy reads the unwritten half of the shared partial tensor (nki-run
// failed with an uninitialised HBM read before). Against numpy, exact.
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; a = np.arange(8, dtype=np.float32).reshape(2, 4); np.save('%t.a.npy', a); np.save('%t.y1.npy', np.ascontiguousarray(a[:, [3, 0]])); np.save('%t.y2.npy', np.ascontiguousarray(a[:, [3, 1]]))"
// RUN: nki-run %t.nkb --input a=%t.a.npy --expected y1=%t.y1.npy --expected y2=%t.y2.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK-DAG: output 'y1' matches
// CHECK-DAG: output 'y2' matches
func.func @main(%a: tensor<2x4xf32> {nki.name = "a"}) -> (tensor<2x2xf32> {nki.name = "y1"}, tensor<2x2xf32> {nki.name = "y2"}) {
  %s3 = tensor.extract_slice %a[0, 3] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
  %s0 = tensor.extract_slice %a[0, 0] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
  %s1 = tensor.extract_slice %a[0, 1] [2, 1] [1, 1] : tensor<2x4xf32> to tensor<2x1xf32>
  %e1 = tensor.empty() : tensor<2x2xf32>
  %p1 = tensor.insert_slice %s3 into %e1[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %y1 = tensor.insert_slice %s0 into %p1[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %p2 = tensor.insert_slice %s3 into %e2[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  %y2 = tensor.insert_slice %s1 into %p2[0, 1] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x2xf32>
  return %y1, %y2 : tensor<2x2xf32>, tensor<2x2xf32>
}
