// Two heads of attention in a chain under --auto-cast=matmul: the first
// one's output, rounded to bf16, is the second one's queries. The first
// kernel stores straight into that bf16 copy (it absorbs the cast); the
// second reads its queries there (the cast is the first one's, not
// absorbed twice: nki-tile freed it twice and crashed, found by the
// compile fuzzer). Against numpy with bf16 operands; the kernel rounds
// the unnormalised exponentials (it divides by the row sums at the end),
// the reference the probabilities, hence atol 1e-2 on outputs of up to 0.8.
// RUN: nki-compile %s --auto-cast=matmul -o %t.nkb
// RUN: %system_python %S/Inputs/attention_chain_ref.py %t
// RUN: nki-run %t.nkb --input q=%t.q.npy --input k1=%t.k1.npy --input v1=%t.v1.npy --input k2=%t.k2.npy --input v2=%t.v2.npy --expected out0=%t.y.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: output 'out0' matches
func.func @main(%q: tensor<16x32xf32> {nki.name = "q"}, %k1: tensor<8x32xf32> {nki.name = "k1"}, %v1: tensor<8x32xf32> {nki.name = "v1"}, %k2: tensor<8x32xf32> {nki.name = "k2"}, %v2: tensor<8x32xf32> {nki.name = "v2"}) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x8xf32>
  %k1t = linalg.transpose ins(%k1 : tensor<8x32xf32>) outs(%e1 : tensor<32x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<16x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %s1 = linalg.matmul ins(%q, %k1t : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %p1 = linalg.softmax dimension(1) ins(%s1 : tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e3 = tensor.empty() : tensor<16x32xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %o1 = linalg.matmul ins(%p1, %v1 : tensor<16x8xf32>, tensor<8x32xf32>) outs(%f3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %k2t = linalg.transpose ins(%k2 : tensor<8x32xf32>) outs(%e1 : tensor<32x8xf32>) permutation = [1, 0]
  %s2 = linalg.matmul ins(%o1, %k2t : tensor<16x32xf32>, tensor<32x8xf32>) outs(%f2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %p2 = linalg.softmax dimension(1) ins(%s2 : tensor<16x8xf32>) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o2 = linalg.matmul ins(%p2, %v2 : tensor<16x8xf32>, tensor<8x32xf32>) outs(%f3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %o2 : tensor<16x32xf32>
}
