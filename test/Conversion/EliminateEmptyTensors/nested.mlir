// RUN: nki-opt %s -split-input-file --nki-eliminate-empty-tensors | FileCheck %s

// A transposed convolution's two phases inserted into its result, which a
// concat (whose empty comes after them, as the importer writes it) inserts
// into its own tensor: both phases are computed in slices of the concat's
// tensor, so bufferization copies nothing.
// CHECK-LABEL: func.func @nested
// CHECK-NOT:   tensor.empty() : tensor<1x4x4x4xf32>
// CHECK:       %[[CAT:.*]] = tensor.empty() : tensor<1x8x4x4xf32>
// CHECK-NOT:   tensor.empty
// CHECK:       %[[Y:.*]] = tensor.extract_slice %[[CAT]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1]
// CHECK:       %[[S0:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [1, 4, 4, 2] [1, 1, 1, 2]
// CHECK:       %[[P0:.*]] = linalg.generic {{.*}} outs(%[[S0]] : tensor<1x4x4x2xf32>)
// CHECK:       %[[Y0:.*]] = tensor.insert_slice %[[P0]] into %[[Y]][0, 0, 0, 0] [1, 4, 4, 2] [1, 1, 1, 2]
// CHECK:       %[[S1:.*]] = tensor.extract_slice %[[Y0]][0, 0, 0, 1] [1, 4, 4, 2] [1, 1, 1, 2]
// CHECK:       %[[P1:.*]] = linalg.generic {{.*}} outs(%[[S1]] : tensor<1x4x4x2xf32>)
// CHECK:       %[[Y1:.*]] = tensor.insert_slice %[[P1]] into %[[Y0]][0, 0, 0, 1] [1, 4, 4, 2] [1, 1, 1, 2]
// CHECK:       %[[R:.*]] = tensor.insert_slice %[[Y1]] into %[[CAT]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1]
// CHECK:       tensor.insert_slice %{{.*}} into %[[R]][0, 4, 0, 0]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @nested(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x2xf32>,
                  %skip: tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %y = tensor.empty() : tensor<1x4x4x4xf32>
  %e0 = tensor.empty() : tensor<1x4x4x2xf32>
  %p0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : tensor<1x4x4x2xf32>) outs(%e0 : tensor<1x4x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x2xf32>
  %y0 = tensor.insert_slice %p0 into %y[0, 0, 0, 0] [1, 4, 4, 2] [1, 1, 1, 2] : tensor<1x4x4x2xf32> into tensor<1x4x4x4xf32>
  %e1 = tensor.empty() : tensor<1x4x4x2xf32>
  %p1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<1x4x4x2xf32>) outs(%e1 : tensor<1x4x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x2xf32>
  %y1 = tensor.insert_slice %p1 into %y0[0, 0, 0, 1] [1, 4, 4, 2] [1, 1, 1, 2] : tensor<1x4x4x2xf32> into tensor<1x4x4x4xf32>
  %cat = tensor.empty() : tensor<1x8x4x4xf32>
  %c0 = tensor.insert_slice %y1 into %cat[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x4x4x4xf32> into tensor<1x8x4x4xf32>
  %c1 = tensor.insert_slice %skip into %c0[0, 4, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x4x4x4xf32> into tensor<1x8x4x4xf32>
  return %c1 : tensor<1x8x4x4xf32>
}

// -----

// A single chain is what upstream elimination does alone; a tensor.empty
// that is no insert's destination stays where it is.
// CHECK-LABEL: func.func @single
// CHECK:       %[[D:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK:       %[[F:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%[[F]] : tensor<2x4xf32>)
// CHECK-NOT:   tensor.empty
// CHECK:       %[[S:.*]] = tensor.extract_slice %[[D]][2, 0] [2, 4] [1, 1]
// CHECK:       %[[P:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : tensor<2x4xf32>)
// CHECK:       tensor.insert_slice %[[P]] into %[[D]][2, 0] [2, 4] [1, 1]
func.func @single(%v: f32) -> (tensor<4x4xf32>, tensor<2x4xf32>) {
  %f = tensor.empty() : tensor<2x4xf32>
  %kept = linalg.fill ins(%v : f32) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %p = linalg.fill ins(%v : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %d = tensor.empty() : tensor<4x4xf32>
  %r = tensor.insert_slice %p into %d[2, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
  return %r, %kept : tensor<4x4xf32>, tensor<2x4xf32>
}
