//===- Tensors.cpp - The program's HBM tensor table -----------------------===//

#include "Tensors.h"

#include "AccessPatterns.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <numeric>
#include <string>

using namespace mlir;

namespace nki::tonisa {

namespace {

/// Kind, name and data filled by the caller; dtype, shape and placement from
/// the buffer. Emits an error at `errorOp` on failure.
std::optional<TensorEntry> describeBuffer(Value root, Operation *errorOp,
                                          const Twine &what) {
  auto type = cast<MemRefType>(root.getType());
  if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
    errorOp->emitOpError() << what << " has type " << type
                           << "; HBM tensors must be static, row-major and "
                              "contiguous";
    return std::nullopt;
  }
  std::optional<isa::DType> dtype = getDType(type.getElementType());
  if (!dtype) {
    errorOp->emitOpError() << what << " has element type "
                           << type.getElementType()
                           << ", which the machine does not support";
    return std::nullopt;
  }
  std::optional<int64_t> offset = getHbmOffset(root);
  if (!offset) {
    errorOp->emitOpError() << what << " has no '" << kHbmOffsetAttr
                           << "' (run nki-plan-memory first)";
    return std::nullopt;
  }
  TensorEntry entry{isa::TensorDecl{}, DenseElementsAttr(), root.getLoc()};
  entry.decl.dtype = *dtype;
  entry.decl.shape.assign(type.getShape().begin(), type.getShape().end());
  if (tile::storageBits(type) == 4) {
    // Packed two values a byte along the innermost dim (HbmPlan checked
    // that it is even).
    entry.decl.dtype = isa::DType::FP4E2M1X2;
    entry.decl.shape.back() /= 2;
  }
  entry.decl.hbmOffset = *offset;
  return entry;
}

/// The host type of an input or output: i1 is a bool byte; otherwise the
/// `nki.host_type` attribute (`attr`, may be null) names it. Emits an error
/// at `errorOp` for a host type the carried dtype cannot stand for.
std::optional<isa::HostType> hostTypeOf(Type carried, TypeAttr attr,
                                        Operation *errorOp, const Twine &what) {
  if (!attr)
    return carried.isInteger(1) ? isa::HostType::Bool : isa::HostType::Device;
  Type host = attr.getValue();
  std::optional<isa::HostType> h;
  if (carried.isInteger(32)) {
    if (host.isSignlessInteger(64))
      h = isa::HostType::I64;
    else if (host.isUnsignedInteger(8))
      h = isa::HostType::U8;
    else if (host.isSignlessInteger(16))
      h = isa::HostType::I16;
    else if (host.isUnsignedInteger(16))
      h = isa::HostType::U16;
    else if (host.isUnsignedInteger(32))
      h = isa::HostType::U32;
    else if (host.isUnsignedInteger(64))
      h = isa::HostType::U64;
  } else if (carried.isF32() && host.isF64()) {
    h = isa::HostType::F64;
  }
  if (!h)
    errorOp->emitOpError() << what << " of element type " << carried
                           << " cannot carry host type " << host
                           << " (i64, ui8, i16, ui16, ui32, ui64 are "
                              "carried as i32, f64 as f32)";
  return h;
}

} // namespace

std::optional<std::vector<TensorEntry>> collectTensors(func::FuncOp func) {
  std::vector<TensorEntry> tensors;
  bool ok = true;

  for (BlockArgument arg : func.getArguments()) {
    std::string what = "argument #" + std::to_string(arg.getArgNumber());
    if (!llvm::isa<MemRefType>(arg.getType())) {
      func.emitOpError() << what << " is not a memref";
      return std::nullopt;
    }
    std::optional<TensorEntry> entry = describeBuffer(arg, func, what);
    if (!entry)
      return std::nullopt;
    entry->decl.kind = isa::TensorKind::Input;
    std::optional<isa::HostType> host = hostTypeOf(
        cast<MemRefType>(arg.getType()).getElementType(),
        func.getArgAttrOfType<TypeAttr>(arg.getArgNumber(), kHostTypeAttr),
        func, what);
    if (!host)
      return std::nullopt;
    entry->decl.host = *host;
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kNameAttr);
    entry->decl.name =
        name ? name.str() : "arg" + std::to_string(arg.getArgNumber());
    tensors.push_back(std::move(*entry));
  }

  // Returned buffers, by position.
  llvm::DenseMap<Value, unsigned> outputIndex;
  func.walk([&](func::ReturnOp ret) {
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      if (!value.getDefiningOp<memref::AllocOp>()) {
        ret.emitOpError() << "returns operand #" << i
                          << ", which is not a buffer allocated in the "
                             "function; outputs must be whole, fresh HBM "
                             "allocations";
        ok = false;
      } else if (!outputIndex.try_emplace(value, unsigned(i)).second) {
        ret.emitOpError() << "returns the same buffer twice (operand #" << i
                          << ")";
        ok = false;
      }
    }
  });
  if (!ok)
    return std::nullopt;

  SymbolTable symbols(func->getParentOfType<ModuleOp>());
  // (return index, position in `tensors`) of each output.
  SmallVector<std::pair<unsigned, size_t>> outputSlots;
  llvm::StringSet<> globalsSeen;
  unsigned numScratch = 0;
  func.walk([&](Operation *op) {
    if (!ok)
      return;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (tile::getMemorySpace(alloc.getType())) {
        alloc.emitOpError() << "allocates on chip; tiles are nki.alloc ops";
        ok = false;
        return;
      }
      auto it = outputIndex.find(alloc.getResult());
      std::string name = "scratch" + std::to_string(numScratch);
      if (it == outputIndex.end())
        ++numScratch;
      else if (auto n = func.getResultAttrOfType<StringAttr>(it->second,
                                                             kNameAttr))
        name = n.str();
      else
        name = "out" + std::to_string(it->second);
      std::optional<TensorEntry> entry =
          describeBuffer(alloc.getResult(), alloc, "allocation '" + name + "'");
      if (!entry) {
        ok = false;
        return;
      }
      entry->decl.kind = it != outputIndex.end() ? isa::TensorKind::Output
                                                 : isa::TensorKind::Scratch;
      entry->decl.name = name;
      if (it != outputIndex.end()) {
        std::optional<isa::HostType> host = hostTypeOf(
            alloc.getType().getElementType(),
            func.getResultAttrOfType<TypeAttr>(it->second, kHostTypeAttr),
            alloc, "result #" + std::to_string(it->second));
        if (!host) {
          ok = false;
          return;
        }
        entry->decl.host = *host;
        outputSlots.push_back({it->second, tensors.size()});
      }
      tensors.push_back(std::move(*entry));
      return;
    }
    auto get = dyn_cast<memref::GetGlobalOp>(op);
    if (!get || !globalsSeen.insert(get.getName()).second)
      return;
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    auto init =
        global
            ? dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr())
            : DenseElementsAttr();
    if (!init) {
      get.emitOpError() << "reads global '" << get.getName()
                        << "', which has no dense initial value";
      ok = false;
      return;
    }
    std::optional<TensorEntry> entry =
        describeBuffer(get.getResult(), get, "global '" + get.getName() + "'");
    if (!entry) {
      ok = false;
      return;
    }
    entry->decl.kind = isa::TensorKind::Constant;
    entry->decl.name = get.getName().str();
    auto tensorType = RankedTensorType::get(
        entry->decl.shape,
        nisa::dataElementTypeOf(func.getContext(), entry->decl.dtype));
    if (entry->decl.dtype == isa::DType::FP4E2M1X2) {
      // The e2m1 codes two a byte, low nibble first.
      SmallVector<uint8_t> bytes(tensorType.getNumElements());
      int64_t i = 0;
      for (const APFloat &v : init.getValues<APFloat>()) {
        bytes[i / 2] |= uint8_t(v.bitcastToAPInt().getZExtValue() & 0xF)
                        << (4 * (i % 2));
        ++i;
      }
      entry->data = DenseElementsAttr::get(tensorType, ArrayRef(bytes));
    } else {
      entry->data =
          init.getType() == tensorType ? init : init.reshape(tensorType);
    }
    tensors.push_back(std::move(*entry));
  });
  if (!ok)
    return std::nullopt;
  // Outputs are listed in return order (nki-run binds positional expected
  // files in that order); their slots among the other tensors stay put.
  SmallVector<TensorEntry> outputs;
  for (auto [index, pos] : outputSlots)
    outputs.push_back(std::move(tensors[pos]));
  SmallVector<size_t> order(outputSlots.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](size_t a, size_t b) {
    return outputSlots[a].first < outputSlots[b].first;
  });
  for (size_t i = 0; i < order.size(); ++i)
    tensors[outputSlots[i].second] = std::move(outputs[order[i]]);
  // Inputs and outputs are looked up by name (nki-run --input NAME=FILE).
  llvm::StringSet<> names;
  for (const TensorEntry &t : tensors)
    if (t.decl.kind != isa::TensorKind::Scratch &&
        t.decl.kind != isa::TensorKind::Constant &&
        !names.insert(t.decl.name).second) {
      func.emitOpError() << "names two inputs or outputs '" << t.decl.name
                         << "'; nki.name attributes must be unique";
      return std::nullopt;
    }
  return tensors;
}

} // namespace nki::tonisa
