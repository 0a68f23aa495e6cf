//===- ISAConversion.cpp - nisa ops <-> isa::Instruction ------------------===//
//
// fillInstruction (op -> fields) and buildInstructionOp (fields -> op) for
// every opcode, side by side. Operand roles follow Instruction.h.
//
//===----------------------------------------------------------------------===//

#include "nki/Dialect/NISA/ISAConversion.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace nki;
using namespace nki::nisa;

//===----------------------------------------------------------------------===//
// Scalars, locations, element types
//===----------------------------------------------------------------------===//

static isa::ScalarOperand toScalar(Attribute attr) {
  isa::ScalarOperand scalar;
  if (auto ap = dyn_cast<AccessPatternAttr>(attr)) {
    scalar.isImmediate = false;
    scalar.ap = ap.toISA();
  } else {
    scalar.imm = cast<FloatAttr>(attr).getValue().convertToFloat();
  }
  return scalar;
}

static isa::ScalarOperand immediate(FloatAttr attr) {
  isa::ScalarOperand scalar;
  scalar.imm = attr.getValue().convertToFloat();
  return scalar;
}

/// Bit-exact (NaN payloads included), so binaries round-trip.
static FloatAttr floatAttr(MLIRContext *context, float value) {
  APFloat f(APFloat::IEEEsingle(), APInt(32, llvm::bit_cast<uint32_t>(value)));
  return FloatAttr::get(Float32Type::get(context), f);
}

static Attribute fromScalar(MLIRContext *context,
                            const isa::ScalarOperand &scalar) {
  if (scalar.isImmediate)
    return floatAttr(context, scalar.imm);
  return AccessPatternAttr::fromISA(context, scalar.ap);
}

std::string nki::nisa::locationToString(Location loc) {
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getStartLine()) +
            ":" + Twine(file.getStartColumn()))
        .str();
  // A named location is a source op (an ONNX node): its name is what a
  // user looks for in a profile or a diagnostic.
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (!name.getName().getValue().empty())
      return name.getName().str();
    return locationToString(name.getChildLoc());
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return locationToString(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string text = locationToString(inner); !text.empty())
        return text;
  if (auto opaque = dyn_cast<OpaqueLoc>(loc))
    return locationToString(opaque.getFallbackLocation());
  return "";
}

Location nki::nisa::locationFromString(MLIRContext *context, StringRef text) {
  if (text.empty())
    return UnknownLoc::get(context);
  auto [rest, colText] = text.rsplit(':');
  auto [file, lineText] = rest.rsplit(':');
  unsigned line, col;
  // Only a canonical "file:line:col" becomes a file location, so that
  // locationToString gives back exactly `text`.
  if (!file.empty() && !lineText.getAsInteger(10, line) &&
      !colText.getAsInteger(10, col) &&
      (file + ":" + Twine(line) + ":" + Twine(col)).str() == text)
    return FileLineColLoc::get(context, file, line, col);
  return NameLoc::get(StringAttr::get(context, text));
}

Type nki::nisa::elementTypeOf(MLIRContext *context, isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F32:
    return Float32Type::get(context);
  case isa::DType::BF16:
    return BFloat16Type::get(context);
  case isa::DType::F16:
    return Float16Type::get(context);
  case isa::DType::FP8E4M3:
    return Float8E4M3FNType::get(context);
  case isa::DType::FP8E5M2:
    return Float8E5M2Type::get(context);
  case isa::DType::FP4E2M1:
    return Float4E2M1FNType::get(context);
  case isa::DType::FP4E2M1X2: // two values a byte: no scalar MLIR type
    return VectorType::get({2}, Float4E2M1FNType::get(context));
  case isa::DType::E8M0:
    return Float8E8M0FNUType::get(context);
  case isa::DType::I32:
    return IntegerType::get(context, 32);
  case isa::DType::I8:
    return IntegerType::get(context, 8);
  case isa::DType::U8:
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  }
  llvm_unreachable("unknown dtype");
}

Type nki::nisa::dataElementTypeOf(MLIRContext *context, isa::DType dtype) {
  if (dtype == isa::DType::FP4E2M1X2)
    return IntegerType::get(context, 8, IntegerType::Unsigned);
  return elementTypeOf(context, dtype);
}

//===----------------------------------------------------------------------===//
// Op -> Instruction
//===----------------------------------------------------------------------===//

isa::Instruction nki::nisa::toInstruction(InstructionOpInterface op) {
  isa::Instruction inst;
  std::optional<isa::Opcode> opcode =
      isa::parseOpcode(op->getName().stripDialect().str());
  assert(opcode && "nisa instruction op without an ISA mnemonic");
  inst.opcode = *opcode;
  op.fillInstruction(inst);
  if (DenseI64ArrayAttr waits = op.getWaitsAttr())
    for (int64_t i = 0; i + 1 < waits.size(); i += 2)
      inst.waits.push_back({uint32_t(waits[i]), uint32_t(waits[i + 1])});
  if (DenseI64ArrayAttr signal = op.getSignalAttr();
      signal && signal.size() == 2) {
    inst.hasSignal = true;
    inst.signal = {uint32_t(signal[0]), uint32_t(signal[1])};
  }
  inst.loc = locationToString(op->getLoc());
  return inst;
}

void MatmulOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getStationary().toISA();
  inst.src1 = getMoving().toISA();
  inst.start = getStart();
  inst.rows = uint8_t(getRows()); // 1..255 (the op's attribute constraint)
}

void MatmulMxOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getStationary().toISA();
  inst.src1 = getMoving().toISA();
  inst.src2 = getStationaryScale().toISA();
  inst.src3 = getMovingScale().toISA();
  inst.start = getStart();
}

void TransposeOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
}

void ActivationOp::fillInstruction(isa::Instruction &inst) {
  inst.func = getFunc().getValue();
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
  inst.scalar0 = toScalar(getScale());
  inst.scalar1 = toScalar(getBias());
  if (AccessPatternAttr accum = getAccumAttr()) {
    inst.hasAccum = true;
    inst.accum = accum.toISA();
  }
}

void TensorTensorOp::fillInstruction(isa::Instruction &inst) {
  inst.alu0 = getOp().getValue();
  inst.dst = getDst().toISA();
  inst.src0 = getLhs().toISA();
  inst.src1 = getRhs().toISA();
}

void TensorScalarOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
  inst.alu0 = getOp0().getValue();
  inst.scalar0 = toScalar(getScalar0());
  inst.reverse0 = getReverse0();
  inst.alu1 = getOp1().getValue();
  inst.scalar1 = toScalar(getScalar1());
  inst.reverse1 = getReverse1();
}

void TensorReduceOp::fillInstruction(isa::Instruction &inst) {
  inst.alu0 = getOp().getValue();
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
  inst.reduceAxes = uint8_t(getAxesAttr().getInt());
}

void TensorCopyOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
}

void MemsetOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.scalar0 = immediate(getValueAttr());
}

void SelectOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getPredicate().toISA();
  inst.src1 = getOnTrue().toISA();
  inst.src2 = getOnFalse().toISA();
}

void Transpose32Op::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
}

static isa::AffineExpr toISA(AffineExprAttr attr) {
  isa::AffineExpr expr;
  expr.offset = attr.getOffset();
  expr.partitionCoef = attr.getPartitionCoef();
  for (auto [i, coef] : llvm::enumerate(attr.getFreeCoefs()))
    if (i < expr.freeCoefs.size())
      expr.freeCoefs[i] = coef;
  return expr;
}

static AffineExprAttr fromISA(MLIRContext *context,
                              const isa::AffineExpr &expr) {
  return AffineExprAttr::get(context, expr.offset, expr.partitionCoef,
                             expr.freeCoefs);
}

void IotaOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.affine = toISA(getExpr());
}

void AffineSelectOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
  inst.affine = toISA(getExpr());
  inst.alu0 = getCmp().getValue();
  inst.scalar0 = immediate(getFillAttr());
}

void DmaCopyOp::fillInstruction(isa::Instruction &inst) {
  inst.dst = getDst().toISA();
  inst.src0 = getSrc().toISA();
}

//===----------------------------------------------------------------------===//
// Instruction -> op
//===----------------------------------------------------------------------===//

InstructionOpInterface
nki::nisa::buildInstructionOp(OpBuilder &builder, Location loc,
                              const isa::Instruction &inst) {
  MLIRContext *ctx = builder.getContext();
  auto ap = [&](const isa::AccessPattern &p) {
    return AccessPatternAttr::fromISA(ctx, p);
  };
  auto alu = [&](isa::AluOp op) { return AluOpAttr::get(ctx, op); };
  auto unit = [&](bool flag) {
    return flag ? builder.getUnitAttr() : UnitAttr();
  };
  DenseI64ArrayAttr waits, signal;
  if (!inst.waits.empty()) {
    SmallVector<int64_t> pairs;
    for (const isa::SemWait &wait : inst.waits)
      pairs.append({int64_t(wait.semaphore), int64_t(wait.value)});
    waits = builder.getDenseI64ArrayAttr(pairs);
  }
  if (inst.hasSignal)
    signal = builder.getDenseI64ArrayAttr(
        {int64_t(inst.signal.semaphore), int64_t(inst.signal.increment)});

  switch (inst.opcode) {
  case isa::Opcode::Matmul:
    return MatmulOp::create(
        builder, loc, ap(inst.dst), ap(inst.src0), ap(inst.src1),
        unit(inst.start), builder.getI64IntegerAttr(inst.rows), waits, signal);
  case isa::Opcode::MatmulMx:
    return MatmulMxOp::create(builder, loc, ap(inst.dst), ap(inst.src0),
                              ap(inst.src1), ap(inst.src2), ap(inst.src3),
                              unit(inst.start), waits, signal);
  case isa::Opcode::Transpose:
    return TransposeOp::create(builder, loc, ap(inst.dst), ap(inst.src0), waits,
                               signal);
  case isa::Opcode::Activation:
    return ActivationOp::create(
        builder, loc, ActFuncAttr::get(ctx, inst.func), ap(inst.dst),
        ap(inst.src0), fromScalar(ctx, inst.scalar0),
        fromScalar(ctx, inst.scalar1),
        inst.hasAccum ? ap(inst.accum) : AccessPatternAttr(), waits, signal);
  case isa::Opcode::TensorTensor:
    return TensorTensorOp::create(builder, loc, alu(inst.alu0), ap(inst.dst),
                                  ap(inst.src0), ap(inst.src1), waits, signal);
  case isa::Opcode::TensorScalar:
    return TensorScalarOp::create(
        builder, loc, ap(inst.dst), ap(inst.src0), alu(inst.alu0),
        fromScalar(ctx, inst.scalar0), unit(inst.reverse0), alu(inst.alu1),
        fromScalar(ctx, inst.scalar1), unit(inst.reverse1), waits, signal);
  case isa::Opcode::TensorReduce:
    return TensorReduceOp::create(
        builder, loc, alu(inst.alu0), ap(inst.dst), ap(inst.src0),
        builder.getI64IntegerAttr(inst.reduceAxes), waits, signal);
  case isa::Opcode::TensorCopy:
    return TensorCopyOp::create(builder, loc, ap(inst.dst), ap(inst.src0),
                                waits, signal);
  case isa::Opcode::Memset:
    return MemsetOp::create(builder, loc, ap(inst.dst),
                            floatAttr(ctx, inst.scalar0.imm), waits, signal);
  case isa::Opcode::Select:
    return SelectOp::create(builder, loc, ap(inst.dst), ap(inst.src0),
                            ap(inst.src1), ap(inst.src2), waits, signal);
  case isa::Opcode::Transpose32:
    return Transpose32Op::create(builder, loc, ap(inst.dst), ap(inst.src0),
                                 waits, signal);
  case isa::Opcode::Iota:
    return IotaOp::create(builder, loc, ap(inst.dst), fromISA(ctx, inst.affine),
                          waits, signal);
  case isa::Opcode::AffineSelect:
    return AffineSelectOp::create(
        builder, loc, ap(inst.dst), ap(inst.src0), fromISA(ctx, inst.affine),
        alu(inst.alu0), floatAttr(ctx, inst.scalar0.imm), waits, signal);
  case isa::Opcode::DmaCopy:
    return DmaCopyOp::create(builder, loc, ap(inst.dst), ap(inst.src0), waits,
                             signal);
  }
  llvm_unreachable("unknown opcode");
}
