//===- SplitConvSlices.cpp - A convolution per channel slice its readers take //
//
//   y = conv(x, W)        W [C, KH, KW, F], F > 128 with a remainder
//   r = E(y, b, ...)      its epilogue, per channel or pixel by pixel
//   r[:, 0:128], r[:, 128:F]   the only readers (a depthwise layer's
//                              channel blocks, ConvToImplicitGemm.cpp)
//
// becomes one convolution and epilogue per slice. The slice of the
// remainder (MobileNetV2's and EfficientNet-B0's 24 -> 144 expansions:
// 16 channels) is then a kernel of its own, which may pack bands of rows
// side by side on the partitions (docs/compiler.md, "Packed bands"), where
// as the last filter block of the whole it evacuated 16 partitions at the
// cost of 128.
//
//===----------------------------------------------------------------------===//

#include "../Conv/ConvGeneric.h"
#include "ElementwiseMatch.h"

#include "nki/Conversion/Passes.h"
#include "nki/Dialect/NKI/ModuleTarget.h"
#include "nki/ISA/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace nki {
#define GEN_PASS_DEF_NKISPLITCONVSLICES
#include "nki/Conversion/Passes.h.inc"
} // namespace nki

using namespace mlir;

namespace {

/// A convolution, its epilogue (or null) and the channel slices of the
/// result that are its only readers.
struct Split {
  linalg::GenericOp conv, epilogue;
  SmallVector<tensor::ExtractSliceOp> slices;
};

/// `v`'s readers when all are whole-image slices of channels, disjoint.
std::optional<SmallVector<tensor::ExtractSliceOp>> channelSlices(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() != 4)
    return std::nullopt;
  SmallVector<tensor::ExtractSliceOp> slices;
  for (Operation *user : v.getUsers()) {
    auto s = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!s || !s.hasUnitStride() || s.getType().getRank() != 4)
      return std::nullopt;
    ArrayRef<int64_t> off = s.getStaticOffsets(), size = s.getStaticSizes();
    if (ShapedType::isDynamicShape(off) || ShapedType::isDynamicShape(size) ||
        off[0] || off[2] || off[3] || size[0] != type.getDimSize(0) ||
        size[2] != type.getDimSize(2) || size[3] != type.getDimSize(3))
      return std::nullopt;
    slices.push_back(s);
  }
  llvm::sort(slices, [](tensor::ExtractSliceOp a, tensor::ExtractSliceOp b) {
    return a.getStaticOffsets()[1] < b.getStaticOffsets()[1];
  });
  for (size_t i = 1; i < slices.size(); ++i)
    if (slices[i - 1].getStaticOffsets()[1] +
            slices[i - 1].getStaticSizes()[1] >
        slices[i].getStaticOffsets()[1])
      return std::nullopt;
  if (slices.size() < 2)
    return std::nullopt;
  return slices;
}

std::optional<Split> matchSplit(linalg::GenericOp conv, int64_t partitions) {
  std::optional<nki::conv::ConvGeneric> g = nki::conv::matchConvGeneric(conv);
  // A remainder of at most a quarter of the partitions: its kernel may pack
  // four bands or more. (With 64 channels, MobileNetV2's 192-, 576- and
  // 960-filter expansions, the split kernels took more engine time than the
  // whole: 6 to 11 us each at batch 8.)
  if (!g || g->f <= partitions || g->f % partitions == 0 ||
      g->f % partitions > partitions / 4 || !conv->getResult(0).hasOneUse())
    return std::nullopt;
  auto fill = conv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.value(), m_AnyZeroFloat()) ||
      !matchPattern(conv.getDpsInputs()[1], m_Constant()))
    return std::nullopt;
  Split s;
  s.conv = conv;
  Value result = conv->getResult(0);
  // The epilogue: elementwise, its operands the product, per-channel ones or
  // whole tensors of the result's shape.
  // (Its init's old values unread: each slice's epilogue gets a fresh one.)
  if (auto e = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
      e && nki::isElementwise(e) && !nki::conv::matchConvGeneric(e) &&
      e.getMatchingBlockArgument(e.getDpsInitOperand(0)).use_empty()) {
    for (OpOperand *in : e.getDpsInputOperands()) {
      AffineMap map = e.getMatchingIndexingMap(in);
      unsigned dim = 0;
      if (!map.isIdentity() &&
          !(nki::perChannelPosition(e, *in, dim) && dim == 1))
        return std::nullopt;
    }
    s.epilogue = e;
    result = e->getResult(0);
  }
  std::optional<SmallVector<tensor::ExtractSliceOp>> slices =
      channelSlices(result);
  if (!slices)
    return std::nullopt;
  s.slices = std::move(*slices);
  return s;
}

/// Channels [c0, c0 + cs) of `v`, whose dims `channelDims` index channels:
/// a constant of its own for a float constant (a kernel reads its filter
/// rows contiguous), else a slice.
Value sliceChannels(OpBuilder &b, Location loc, Value v,
                    ArrayRef<unsigned> channelDims, int64_t c0, int64_t cs) {
  auto type = cast<RankedTensorType>(v.getType());
  DenseElementsAttr value;
  if (matchPattern(v, m_Constant(&value)) &&
      isa<FloatType>(type.getElementType())) {
    SmallVector<int64_t> shape(type.getShape());
    for (unsigned d : channelDims)
      shape[d] = cs;
    auto sliced = RankedTensorType::get(shape, type.getElementType());
    SmallVector<APFloat> out;
    if (value.isSplat()) {
      out.assign(1, value.getSplatValue<APFloat>());
      return arith::ConstantOp::create(b, loc, sliced,
                                       DenseElementsAttr::get(sliced, out[0]));
    }
    auto in = llvm::to_vector(value.getValues<APFloat>());
    int64_t rank = type.getRank(), count = sliced.getNumElements();
    out.reserve(count);
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < count; ++i) {
      // idx: position in the slice; its source offset in `in`.
      int64_t src = 0;
      for (int64_t d = 0; d < rank; ++d)
        src = src * type.getDimSize(d) + idx[d] +
              (llvm::is_contained(channelDims, unsigned(d)) ? c0 : 0);
      out.push_back(in[src]);
      for (int64_t d = rank - 1; d >= 0 && ++idx[d] == shape[d]; --d)
        idx[d] = 0;
    }
    return arith::ConstantOp::create(b, loc, sliced,
                                     DenseElementsAttr::get(sliced, out));
  }
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool channel = llvm::is_contained(channelDims, unsigned(d));
    offsets.push_back(b.getIndexAttr(channel ? c0 : 0));
    sizes.push_back(b.getIndexAttr(channel ? cs : type.getDimSize(d)));
    strides.push_back(b.getIndexAttr(1));
  }
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

/// The dims of `operand` that its map sends loop dim 1 (channels) to.
SmallVector<unsigned> channelDimsOf(linalg::GenericOp op, OpOperand *operand,
                                    unsigned loopDim) {
  SmallVector<unsigned> dims;
  for (auto [i, e] :
       llvm::enumerate(op.getMatchingIndexingMap(operand).getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == loopDim)
      dims.push_back(unsigned(i));
  return dims;
}

void split(Split s) {
  linalg::GenericOp conv = s.conv;
  Location loc = conv.getLoc();
  OpBuilder b(s.epilogue ? s.epilogue.getOperation() : conv.getOperation());
  Value filter = conv.getDpsInputs()[1];
  auto fill = conv.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  // The conv's loop dim of its filters (the result's channel dim).
  unsigned fDim = 1;
  for (tensor::ExtractSliceOp slice : s.slices) {
    int64_t c0 = slice.getStaticOffsets()[1], cs = slice.getStaticSizes()[1];
    // The convolution over the slice's filters.
    auto yType = cast<RankedTensorType>(conv->getResult(0).getType());
    SmallVector<int64_t> shape(yType.getShape());
    shape[1] = cs;
    Value empty =
        tensor::EmptyOp::create(b, loc, shape, yType.getElementType());
    Value zero =
        linalg::FillOp::create(b, loc, fill.value(), empty).getResult(0);
    IRMapping map;
    map.map(filter,
            sliceChannels(b, loc, filter,
                          channelDimsOf(conv, conv.getDpsInputOperand(1), fDim),
                          c0, cs));
    map.map(conv.getDpsInits()[0], zero);
    Operation *part = b.clone(*conv, map);
    part->getResult(0).setType(cast<RankedTensorType>(zero.getType()));
    Value result = part->getResult(0);
    if (linalg::GenericOp e = s.epilogue) {
      IRMapping emap;
      for (OpOperand *in : e.getDpsInputOperands()) {
        if (in->get() == conv->getResult(0)) {
          emap.map(in->get(), result);
          continue;
        }
        if (!emap.contains(in->get()))
          emap.map(in->get(), sliceChannels(b, loc, in->get(),
                                            channelDimsOf(e, in, 1), c0, cs));
      }
      auto outType = cast<RankedTensorType>(e->getResult(0).getType());
      SmallVector<int64_t> outShape(outType.getShape());
      outShape[1] = cs;
      Value out =
          tensor::EmptyOp::create(b, loc, outShape, outType.getElementType());
      emap.map(e.getDpsInits()[0], out);
      Operation *epart = b.clone(*e, emap);
      epart->getResult(0).setType(cast<RankedTensorType>(out.getType()));
      result = epart->getResult(0);
    }
    slice.getResult().replaceAllUsesWith(result);
    slice.erase();
  }
  if (s.epilogue)
    s.epilogue.erase();
  conv.erase();
}

struct SplitConvSlices : nki::impl::NKISplitConvSlicesBase<SplitConvSlices> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<const nki::isa::TargetDesc *> target = nki::tile::getTarget(func);
    if (failed(target))
      return signalPassFailure();
    SmallVector<Split> splits;
    func.walk([&](linalg::GenericOp op) {
      if (std::optional<Split> s = matchSplit(op, (*target)->numPartitions))
        splits.push_back(std::move(*s));
    });
    for (const Split &s : splits)
      split(s);
  }
};

} // namespace
