//===- ExpandInt.h - Integer arithmetic in terms of the engines' -*- C++
//-*-===//
#ifndef NKI_LIB_CONVERSION_GRAPH_EXPANDINT_H
#define NKI_LIB_CONVERSION_GRAPH_EXPANDINT_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace nki {
/// Rewrites integer ops the engines have no instruction for (divsi, divui,
/// remsi, remui, absi) into float division, fptosi and integer add/sub/mul,
/// which the body lowering covers. Exact while operands and results stay
/// below 2^24 in magnitude (the engines compute in fp32); see
/// docs/compiler.md.
void populateExpandIntPatterns(mlir::RewritePatternSet &patterns);
} // namespace nki

#endif // NKI_LIB_CONVERSION_GRAPH_EXPANDINT_H
