// A concat of 40 parts (the rows of %a in reverse): nki-prepare-graph
// splits it into concats of at most 32 parts before decomposing, so
// bufferization never sees one long insert_slice chain.
// RUN: nki-compile %s -o %t.nkb
// RUN: %system_python -c "import numpy as np; a = np.arange(160, dtype=np.float32).reshape(40, 4); np.save('%t.a.npy', a); np.save('%t.expected.npy', a[::-1])"
// RUN: nki-run %t.nkb --input a=%t.a.npy --expected out0=%t.expected.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: output 'out0' matches
func.func @main(%a: tensor<40x4xf32> {nki.name = "a"}) -> tensor<40x4xf32> {
  %r0 = tensor.extract_slice %a[39, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r1 = tensor.extract_slice %a[38, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r2 = tensor.extract_slice %a[37, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r3 = tensor.extract_slice %a[36, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r4 = tensor.extract_slice %a[35, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r5 = tensor.extract_slice %a[34, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r6 = tensor.extract_slice %a[33, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r7 = tensor.extract_slice %a[32, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r8 = tensor.extract_slice %a[31, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r9 = tensor.extract_slice %a[30, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r10 = tensor.extract_slice %a[29, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r11 = tensor.extract_slice %a[28, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r12 = tensor.extract_slice %a[27, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r13 = tensor.extract_slice %a[26, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r14 = tensor.extract_slice %a[25, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r15 = tensor.extract_slice %a[24, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r16 = tensor.extract_slice %a[23, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r17 = tensor.extract_slice %a[22, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r18 = tensor.extract_slice %a[21, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r19 = tensor.extract_slice %a[20, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r20 = tensor.extract_slice %a[19, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r21 = tensor.extract_slice %a[18, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r22 = tensor.extract_slice %a[17, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r23 = tensor.extract_slice %a[16, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r24 = tensor.extract_slice %a[15, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r25 = tensor.extract_slice %a[14, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r26 = tensor.extract_slice %a[13, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r27 = tensor.extract_slice %a[12, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r28 = tensor.extract_slice %a[11, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r29 = tensor.extract_slice %a[10, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r30 = tensor.extract_slice %a[9, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r31 = tensor.extract_slice %a[8, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r32 = tensor.extract_slice %a[7, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r33 = tensor.extract_slice %a[6, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r34 = tensor.extract_slice %a[5, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r35 = tensor.extract_slice %a[4, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r36 = tensor.extract_slice %a[3, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r37 = tensor.extract_slice %a[2, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r38 = tensor.extract_slice %a[1, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %r39 = tensor.extract_slice %a[0, 0] [1, 4] [1, 1] : tensor<40x4xf32> to tensor<1x4xf32>
  %c = tensor.concat dim(0) %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38, %r39 : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<40x4xf32>
  return %c : tensor<40x4xf32>
}
