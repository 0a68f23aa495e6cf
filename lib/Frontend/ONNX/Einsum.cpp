//===- Einsum.cpp - ONNX Einsum -------------------------------------------===//
//
// The equation is parsed into one list of labels per operand (letters, and
// the dims an ellipsis stands for, aligned from the right across operands)
// and the output's (explicit after `->`, else the ellipsis dims followed by
// the letters used once, in alphabetical order). Then, on tensors:
//
//  1. a label repeated within one operand takes the diagonal: a multiply by
//     an identity mask over the two dims and a sum over the second;
//  2. a label no other operand and not the output uses is summed away;
//  3. operands are contracted left to right, two at a time: the labels
//     both share are batch dims when a later operand or the output needs
//     them and contracted otherwise, the rest are free, so each step is a
//     transpose + reshape to [B, M, K] x [B, K, N] and one (batch) matmul
//     on the PE;
//  4. the result is transposed to the output's order.
//
// Integer operands are summed in f32 and converted back (exact up to 2^24).
// A dim of size 1 broadcast against a larger one is not supported.
//
//===----------------------------------------------------------------------===//

#include "ShapeUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <set>

using namespace mlir;
using namespace nki::onnx_import;

namespace {
/// Letters are their character codes; ellipsis dims are kEllipsis + k for
/// the k-th of the widest ellipsis, counted from its left.
constexpr int64_t kEllipsis = 256;

/// A tensor and the label of each of its dims.
struct Operand {
  Value v;
  SmallVector<int64_t> labels;
};

/// One term of the equation: its letters and where "..." stands (-1: none).
struct Term {
  SmallVector<int64_t> letters;
  int64_t ellipsisAt = -1;
};

FailureOr<Term> parseTerm(Location loc, StringRef s, StringRef eq) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (llvm::isAlpha(c)) {
      t.letters.push_back(c);
      continue;
    }
    if (s.substr(i).starts_with("...") && t.ellipsisAt < 0) {
      t.ellipsisAt = t.letters.size();
      i += 2;
      continue;
    }
    return emitError(loc) << "Einsum equation '" << eq << "': unexpected '"
                          << s.substr(i, 1) << "' in term '" << s
                          << "' (letters and one '...' per term)";
  }
  return t;
}

std::string labelName(int64_t l) {
  return l >= kEllipsis ? "... dim " + std::to_string(l - kEllipsis)
                        : std::string(1, char(l));
}

Value permute(Importer &imp, Location loc, Value v, ArrayRef<int64_t> perm) {
  for (int64_t i = 0; i < int64_t(perm.size()); ++i)
    if (perm[i] != i)
      return imp.transpose(loc, v, perm);
  return v;
}

/// Sums away the dims of `op` whose label is in `drop`.
void sumAway(Importer &imp, Location loc, Operand &op,
             const std::set<int64_t> &drop) {
  SmallVector<int64_t> keep, sum, keptShape, keptLabels;
  ArrayRef<int64_t> shape = tensorType(op.v).getShape();
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < int64_t(op.labels.size()); ++d) {
    if (drop.count(op.labels[d])) {
      sum.push_back(d);
      cols *= shape[d];
    } else {
      keep.push_back(d);
      keptShape.push_back(shape[d]);
      keptLabels.push_back(op.labels[d]);
      rows *= shape[d];
    }
  }
  if (sum.empty())
    return;
  SmallVector<int64_t> perm(keep);
  perm.append(sum);
  Value x = imp.reshape(loc, permute(imp, loc, op.v, perm), {rows, cols});
  op.v = imp.reshape(loc, imp.reduceLast(loc, x, /*isMax=*/false), keptShape);
  op.labels = keptLabels;
}

/// Takes the diagonal of every label repeated in `op`.
void diagonals(Importer &imp, Location loc, Operand &op) {
  for (;;) {
    int64_t p = -1, q = -1;
    for (int64_t i = 0; i < int64_t(op.labels.size()) && q < 0; ++i)
      for (int64_t j = i + 1; j < int64_t(op.labels.size()); ++j)
        if (op.labels[i] == op.labels[j]) {
          p = i;
          q = j;
          break;
        }
    if (q < 0)
      return;
    RankedTensorType t = tensorType(op.v);
    int64_t rank = t.getRank(), n = t.getDimSize(p);
    SmallVector<int64_t> maskShape(rank, 1);
    maskShape[p] = maskShape[q] = n;
    std::vector<double> eye(n * n, 0.0);
    for (int64_t i = 0; i < n; ++i)
      eye[i * n + i] = 1.0;
    Value mask =
        denseFloatConstant(imp, loc, maskShape, t.getElementType(), eye);
    op.v = imp.elementwise(
        loc, {op.v, mask}, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
        });
    // Sum away dim q alone: give it a label no other dim has.
    op.labels[q] = -1;
    sumAway(imp, loc, op, {-1});
  }
}

/// Contracts `a` with `b`, keeping the labels in `keep`.
Operand contract(Importer &imp, Location loc, const Operand &a,
                 const Operand &b, const std::set<int64_t> &keep) {
  auto pos = [](const Operand &o, int64_t l) {
    return llvm::find(o.labels, l) - o.labels.begin();
  };
  auto has = [&](const Operand &o, int64_t l) {
    return llvm::is_contained(o.labels, l);
  };
  SmallVector<int64_t> batch, contracted, freeA, freeB;
  for (int64_t l : a.labels) {
    if (!has(b, l))
      freeA.push_back(l);
    else if (keep.count(l))
      batch.push_back(l);
    else
      contracted.push_back(l);
  }
  for (int64_t l : b.labels)
    if (!has(a, l))
      freeB.push_back(l);
  ArrayRef<int64_t> sa = tensorType(a.v).getShape();
  ArrayRef<int64_t> sb = tensorType(b.v).getShape();
  auto size = [&](int64_t l) {
    return has(a, l) ? sa[pos(a, l)] : sb[pos(b, l)];
  };
  auto prod = [&](ArrayRef<int64_t> ls) {
    int64_t p = 1;
    for (int64_t l : ls)
      p *= size(l);
    return p;
  };
  int64_t bt = prod(batch), m = prod(freeA), k = prod(contracted),
          n = prod(freeB);
  SmallVector<int64_t> permA, permB;
  for (ArrayRef<int64_t> group :
       {ArrayRef<int64_t>(batch), ArrayRef(freeA), ArrayRef(contracted)})
    for (int64_t l : group)
      permA.push_back(pos(a, l));
  for (ArrayRef<int64_t> group :
       {ArrayRef<int64_t>(batch), ArrayRef(contracted), ArrayRef(freeB)})
    for (int64_t l : group)
      permB.push_back(pos(b, l));
  Value va = permute(imp, loc, a.v, permA);
  Value vb = permute(imp, loc, b.v, permB);
  SmallVector<int64_t> shapeA = {m, k}, shapeB = {k, n};
  if (!batch.empty()) {
    shapeA.insert(shapeA.begin(), bt);
    shapeB.insert(shapeB.begin(), bt);
  }
  Value r = *imp.matmul(loc, imp.reshape(loc, va, shapeA),
                        imp.reshape(loc, vb, shapeB));
  Operand out;
  SmallVector<int64_t> outShape;
  for (ArrayRef<int64_t> group :
       {ArrayRef<int64_t>(batch), ArrayRef(freeA), ArrayRef(freeB)})
    for (int64_t l : group) {
      out.labels.push_back(l);
      outShape.push_back(size(l));
    }
  out.v = imp.reshape(loc, r, outShape);
  return out;
}

LogicalResult einsum(Importer &imp, const onnx::NodeProto &node) {
  Location loc = imp.nodeLoc(node);
  std::string eq;
  for (char c : stringAttr(node, "equation", ""))
    if (!llvm::isSpace(c))
      eq.push_back(c);
  if (eq.empty())
    return emitError(loc) << "Einsum needs an equation";
  int64_t nIn = node.input_size();
  FailureOr<SmallVector<Value>> ins = imp.inputs(node, nIn);
  if (failed(ins))
    return failure();

  // --- Parse. ---
  StringRef lhs = eq, rhs;
  bool explicitOut = false;
  if (size_t arrow = StringRef(eq).find("->"); arrow != StringRef::npos) {
    lhs = StringRef(eq).take_front(arrow);
    rhs = StringRef(eq).drop_front(arrow + 2);
    explicitOut = true;
    if (rhs.contains("->"))
      return emitError(loc)
             << "Einsum equation '" << eq << "' has more than one '->'";
  }
  SmallVector<StringRef> termStrs;
  lhs.split(termStrs, ',');
  if (int64_t(termStrs.size()) != nIn)
    return emitError(loc) << "Einsum equation '" << eq << "' has "
                          << termStrs.size() << " input terms for " << nIn
                          << " inputs";
  SmallVector<Term> terms;
  for (StringRef s : termStrs) {
    FailureOr<Term> t = parseTerm(loc, s, eq);
    if (failed(t))
      return failure();
    terms.push_back(*t);
  }
  int64_t widest = 0;
  SmallVector<Operand> ops;
  for (int64_t i = 0; i < nIn; ++i) {
    RankedTensorType t = tensorType((*ins)[i]);
    int64_t letters = terms[i].letters.size();
    int64_t ell = t.getRank() - letters;
    if (ell < 0 || (ell > 0 && terms[i].ellipsisAt < 0))
      return emitError(loc)
             << "Einsum equation '" << eq << "': term '" << termStrs[i]
             << "' does not match input " << i << " of rank " << t.getRank();
    widest = std::max(widest, ell);
    if (t.getNumElements() == 0)
      return emitError(loc) << "Einsum of an empty tensor " << t;
  }
  for (int64_t i = 0; i < nIn; ++i) {
    RankedTensorType t = tensorType((*ins)[i]);
    const Term &term = terms[i];
    int64_t ell = t.getRank() - int64_t(term.letters.size());
    Operand op{(*ins)[i], {}};
    for (int64_t j = 0; j <= int64_t(term.letters.size()); ++j) {
      if (j == term.ellipsisAt)
        for (int64_t k = 0; k < ell; ++k)
          op.labels.push_back(kEllipsis + widest - ell + k);
      if (j < int64_t(term.letters.size()))
        op.labels.push_back(term.letters[j]);
    }
    ops.push_back(op);
  }
  // Every label's size; a size-1 dim against a larger one would broadcast.
  std::map<int64_t, int64_t> sizes;
  std::map<int64_t, int64_t> uses;
  for (int64_t i = 0; i < nIn; ++i)
    for (auto [d, l] : llvm::enumerate(ops[i].labels)) {
      int64_t s = tensorType(ops[i].v).getDimSize(d);
      auto [it, fresh] = sizes.insert({l, s});
      if (!fresh && it->second != s)
        return emitError(loc)
               << "Einsum equation '" << eq << "': label " << labelName(l)
               << " has sizes " << it->second << " and " << s
               << (it->second == 1 || s == 1
                       ? " (broadcasting a size-1 dim is not supported)"
                       : "");
      ++uses[l];
    }
  SmallVector<int64_t> outLabels;
  if (explicitOut) {
    FailureOr<Term> t = parseTerm(loc, rhs, eq);
    if (failed(t))
      return failure();
    for (int64_t j = 0; j <= int64_t(t->letters.size()); ++j) {
      if (j == t->ellipsisAt)
        for (int64_t k = 0; k < widest; ++k)
          outLabels.push_back(kEllipsis + k);
      if (j < int64_t(t->letters.size()))
        outLabels.push_back(t->letters[j]);
    }
    if (widest > 0 && t->ellipsisAt < 0)
      return emitError(loc) << "Einsum equation '" << eq
                            << "': the output must keep the '...' dims";
    std::set<int64_t> seen;
    for (int64_t l : outLabels) {
      if (!sizes.count(l))
        return emitError(loc) << "Einsum equation '" << eq << "': output label "
                              << labelName(l) << " is not an input's";
      if (!seen.insert(l).second)
        return emitError(loc) << "Einsum equation '" << eq << "': output label "
                              << labelName(l) << " is repeated";
    }
  } else {
    for (int64_t k = 0; k < widest; ++k)
      outLabels.push_back(kEllipsis + k);
    for (auto [l, n] : uses)
      if (l < kEllipsis && n == 1)
        outLabels.push_back(l);
  }

  // --- Build. ---
  Type elt = tensorType(ops[0].v).getElementType();
  for (Operand &op : ops)
    if (tensorType(op.v).getElementType() != elt)
      return emitError(loc) << "Einsum inputs have different element types";
  auto intElt = dyn_cast<IntegerType>(elt);
  if (intElt && intElt.getWidth() < 8)
    return emitError(loc) << "Einsum of " << elt << " tensors is not supported";
  Type f32 = imp.b.getF32Type();
  if (intElt)
    for (Operand &op : ops)
      op.v = imp.elementwise(
          loc, {op.v},
          [&](OpBuilder &nb, Location l, ValueRange a) {
            return castScalar(nb, l, a[0], f32);
          },
          f32);

  std::set<int64_t> outSet(outLabels.begin(), outLabels.end());
  // Labels needed by the output or by operands from `from` on.
  auto neededFrom = [&](size_t from) {
    std::set<int64_t> need = outSet;
    for (size_t i = from; i < ops.size(); ++i)
      need.insert(ops[i].labels.begin(), ops[i].labels.end());
    return need;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    diagonals(imp, loc, ops[i]);
    std::set<int64_t> others = outSet;
    for (size_t j = 0; j < ops.size(); ++j)
      if (j != i)
        others.insert(ops[j].labels.begin(), ops[j].labels.end());
    std::set<int64_t> drop;
    for (int64_t l : ops[i].labels)
      if (!others.count(l))
        drop.insert(l);
    sumAway(imp, loc, ops[i], drop);
  }
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i)
    acc = contract(imp, loc, acc, ops[i], neededFrom(i + 1));
  SmallVector<int64_t> perm;
  for (int64_t l : outLabels)
    perm.push_back(llvm::find(acc.labels, l) - acc.labels.begin());
  Value y = permute(imp, loc, acc.v, perm);
  if (intElt)
    y = imp.elementwise(
        loc, {y},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return castScalar(nb, l, a[0], elt);
        },
        elt);
  return imp.define(node, y);
}
} // namespace

void nki::onnx_import::registerEinsumOps(OpTable &t) { t["Einsum"] = einsum; }
