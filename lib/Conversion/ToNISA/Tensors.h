//===- Tensors.h - The program's HBM tensor table --------------*- C++ -*-===//
//
// Every HBM root buffer of the entry function becomes a tensor of the
// program: arguments are inputs (named by their `nki.name` argument
// attribute, else arg0, arg1, ...), returned allocations are outputs (out0,
// out1, ... in return order), other allocations scratch, and globals
// constants carrying their initial value. Placement comes from memory
// planning's `nki.hbm_offset`.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_CONVERSION_TONISA_TENSORS_H
#define NKI_LIB_CONVERSION_TONISA_TENSORS_H

#include "nki/ISA/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include <optional>
#include <vector>

namespace nki::tonisa {

/// The attribute naming an input (NKIDialect.h).
using tile::kHostTypeAttr;
using tile::kNameAttr;

struct TensorEntry {
  isa::TensorDecl decl;         // without constant data (see `data`)
  mlir::DenseElementsAttr data; // constants: the global's initial value
  mlir::Location loc;
};

/// The tensor table of `func`, or nullopt after emitting an error.
std::optional<std::vector<TensorEntry>> collectTensors(mlir::func::FuncOp func);

} // namespace nki::tonisa

#endif // NKI_LIB_CONVERSION_TONISA_TENSORS_H
