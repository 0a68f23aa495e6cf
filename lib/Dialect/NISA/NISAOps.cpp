//===- NISAOps.cpp - Structure ops, assembly directives, verifiers --------===//
//
// Structural checks (known target, stream names, tensor table) are here;
// every instruction constraint is isa::verifyInstruction's, reached through
// the InstructionOpInterface verifier so that it is written exactly once.
//
//===----------------------------------------------------------------------===//

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/ISA/Verify.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::nisa;

static constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();

//===----------------------------------------------------------------------===//
// Assembly directives
//===----------------------------------------------------------------------===//

/// custom<Bare>($attr): a nisa attribute without `#nisa.mnemonic<...>`.
template <typename AttrT>
static ParseResult parseBare(OpAsmParser &parser, AttrT &attr) {
  attr = AttrT::parseBody(parser);
  return success(bool(attr));
}
template <typename AttrT>
static void printBare(OpAsmPrinter &printer, Operation *, AttrT attr) {
  attr.printBody(printer);
}

/// custom<Scalar>($attr): an fp32 immediate or a [P,1] access pattern.
static ParseResult parseScalar(OpAsmParser &parser, Attribute &attr) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<std::string> names;
  for (isa::Memory m : {isa::Memory::HBM, isa::Memory::SBUF, isa::Memory::PSUM})
    names.emplace_back(isa::memoryName(m));
  SmallVector<StringRef> allowed(names.begin(), names.end());
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword, allowed))) {
    attr = AccessPatternAttr::parseAfterMemory(parser,
                                               *isa::parseMemory(keyword), loc);
    return success(bool(attr));
  }
  APFloat value(0.0f);
  if (parser.parseFloat(APFloat::IEEEsingle(), value))
    return failure();
  attr = FloatAttr::get(Float32Type::get(parser.getContext()), value);
  return success();
}
static void printScalar(OpAsmPrinter &printer, Operation *, Attribute attr) {
  if (auto ap = dyn_cast<AccessPatternAttr>(attr))
    return ap.printBody(printer);
  printer.printFloat(cast<FloatAttr>(attr).getValue());
}

/// custom<Accum>($accum): an optional `accum AP`, glued to the previous
/// element like custom<Sync>.
static ParseResult parseAccum(OpAsmParser &parser, AccessPatternAttr &accum) {
  if (failed(parser.parseOptionalKeyword("accum")))
    return success();
  accum = AccessPatternAttr::parseBody(parser);
  return success(bool(accum));
}
static void printAccum(OpAsmPrinter &printer, Operation *,
                       AccessPatternAttr accum) {
  if (!accum)
    return;
  printer << " accum ";
  accum.printBody(printer);
}

/// custom<Sync>($waits, $signal):
///   (`wait` `(` sN `>=` VALUE (`,` ...)* `)`)? (`signal` `(` sN (`+=` INC)?
///   `)`)?
static ParseResult parseSync(OpAsmParser &parser, DenseI64ArrayAttr &waits,
                             DenseI64ArrayAttr &signal) {
  auto parseSemaphore = [&](int64_t &id) -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    uint32_t value;
    if (parser.parseKeyword(&keyword))
      return failure();
    if (!keyword.consume_front("s") || keyword.getAsInteger(10, value))
      return parser.emitError(loc, "expected a semaphore 's<N>'");
    id = value;
    return success();
  };
  if (succeeded(parser.parseOptionalKeyword("wait"))) {
    SmallVector<int64_t> pairs;
    auto parseWait = [&]() -> ParseResult {
      int64_t semaphore;
      uint32_t value;
      if (parseSemaphore(semaphore) || parser.parseGreater() ||
          parser.parseEqual() || parser.parseInteger(value))
        return failure();
      pairs.append({semaphore, int64_t(value)});
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, parseWait))
      return failure();
    if (!pairs.empty())
      waits = DenseI64ArrayAttr::get(parser.getContext(), pairs);
  }
  if (succeeded(parser.parseOptionalKeyword("signal"))) {
    int64_t semaphore;
    uint32_t increment = 1;
    if (parser.parseLParen() || parseSemaphore(semaphore))
      return failure();
    if (succeeded(parser.parseOptionalPlus()) &&
        (parser.parseEqual() || parser.parseInteger(increment)))
      return failure();
    if (parser.parseRParen())
      return failure();
    signal = DenseI64ArrayAttr::get(parser.getContext(),
                                    {semaphore, int64_t(increment)});
  }
  return success();
}
static void printSync(OpAsmPrinter &printer, Operation *,
                      DenseI64ArrayAttr waits, DenseI64ArrayAttr signal) {
  // The op format glues this directive to the previous element, so that an
  // instruction without semaphores ends without a trailing space.
  raw_ostream &os = printer.getStream();
  if (waits && waits.size() >= 2) {
    os << " wait(";
    for (int64_t i = 0; i + 1 < waits.size(); i += 2)
      os << (i ? ", " : "") << 's' << waits[i] << " >= " << waits[i + 1];
    os << ')';
  }
  if (signal && signal.size() == 2) {
    os << " signal(s" << signal[0];
    if (signal[1] != 1)
      os << " += " << signal[1];
    os << ')';
  }
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

void ProgramOp::build(OpBuilder &builder, OperationState &state,
                      StringRef target, uint32_t semaphores) {
  state.addAttribute(getTargetAttrName(state.name),
                     builder.getStringAttr(target));
  state.addAttribute(getSemaphoresAttrName(state.name),
                     builder.getI64IntegerAttr(semaphores));
  state.addRegion()->emplaceBlock();
}

const isa::TargetDesc *ProgramOp::getTargetDesc() {
  return isa::lookupTarget(getTarget().str());
}

std::optional<uint32_t> ProgramOp::getNumSemaphores() {
  int64_t count = getSemaphoresAttr().getInt();
  if (count < 0 || count > kMaxU32)
    return std::nullopt;
  return uint32_t(count);
}

LogicalResult ProgramOp::verify() {
  if (!getTargetDesc())
    return emitOpError() << "unknown target '" << getTarget() << "'; expected "
                         << isa::knownTargetNames();
  if (!getNumSemaphores())
    return emitOpError() << "semaphore count " << getSemaphoresAttr().getInt()
                         << " is not a 32-bit unsigned number";
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  // The tensor table as a whole (bounds, overlaps, constant sizes) is
  // isa::verifyProgram's; run it on a program without streams, whose
  // instructions the instruction ops have checked one by one.
  isa::Program program;
  program.target = getTarget().str();
  program.numSemaphores = getNumSemaphores().value_or(0);
  llvm::SmallDenseMap<int, StreamOp> streams;
  for (Operation &op : getBody().front()) {
    if (auto tensor = dyn_cast<TensorOp>(op)) {
      program.tensors.push_back(tensor.toISA());
      continue;
    }
    auto stream = dyn_cast<StreamOp>(op);
    if (!stream)
      return op.emitOpError()
             << "is not allowed in a nisa.program, which holds nisa.tensor "
                "and nisa.stream ops only";
    std::optional<isa::StreamId> id = stream.getStreamId();
    if (!id)
      continue; // reported by the stream's verifier
    auto [first, inserted] = streams.try_emplace(id->index(), stream);
    if (!inserted) {
      InFlightDiagnostic diag = stream.emitOpError()
                                << "duplicates stream '" << stream.getSymName()
                                << "'; a program has one region per stream";
      diag.attachNote(first->second.getLoc()) << "the stream's first region";
      return diag;
    }
  }
  absl::Status status = isa::verifyProgram(program);
  if (!status.ok())
    return emitOpError() << std::string(status.message());
  return success();
}

//===----------------------------------------------------------------------===//
// TensorOp
//===----------------------------------------------------------------------===//

LogicalResult TensorOp::verify() {
  // The tensor table's rules (sizes, placement, which kinds carry data) are
  // isa::verifyProgram's, run by the program; here only the form of the data
  // attribute, which the ISA library never sees, and the host type's
  // spelling.
  if (getHostAttr() && !isa::parseHostType(getHostAttr().getValue().str()))
    return emitOpError() << "unknown host type " << getHostAttr();
  if (!getDataAttr() ||
      llvm::any_of(getShape(), [](int64_t d) { return d < 0; }))
    return success();
  auto data = dyn_cast<DenseElementsAttr>(getDataAttr());
  auto expected = RankedTensorType::get(
      getShape(), dataElementTypeOf(getContext(), getDtype().getValue()));
  if (!data || data.getType() != expected)
    return emitOpError() << "data must be a dense attribute of type "
                         << expected << ", got " << getDataAttr();
  return success();
}

isa::TensorDecl TensorOp::toISA() {
  isa::TensorDecl decl;
  decl.name = getSymName().str();
  decl.kind = getKind().getValue();
  decl.dtype = getDtype().getValue();
  decl.shape.assign(getShape().begin(), getShape().end());
  decl.hbmOffset = getOffsetAttr().getInt();
  if (getHostAttr())
    decl.host = *isa::parseHostType(getHostAttr().getValue().str());
  if (auto data = dyn_cast_or_null<DenseElementsAttr>(getDataAttr())) {
    ArrayRef<char> raw = data.getRawData();
    if (data.isSplat()) {
      for (int64_t i = 0, e = data.getNumElements(); i < e; ++i)
        decl.data.append(raw.begin(), raw.end());
    } else {
      decl.borrowed = std::string_view(raw.data(), raw.size());
    }
  }
  return decl;
}

//===----------------------------------------------------------------------===//
// StreamOp
//===----------------------------------------------------------------------===//

void StreamOp::build(OpBuilder &builder, OperationState &state,
                     StringRef name) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addRegion()->emplaceBlock();
}

std::optional<isa::StreamId> StreamOp::getStreamId() {
  std::optional<isa::StreamId> id = isa::parseStream(getSymName().str());
  // Only the canonical spelling names a stream, so that two regions cannot
  // name the same stream differently (the symbol table rejects duplicates).
  if (!id || isa::streamName(*id) != getSymName())
    return std::nullopt;
  return id;
}

LogicalResult StreamOp::verify() {
  auto program = (*this)->getParentOfType<ProgramOp>();
  const isa::TargetDesc *target = program ? program.getTargetDesc() : nullptr;
  std::optional<isa::StreamId> id = getStreamId();
  if (!id) {
    InFlightDiagnostic diag = emitOpError() << "unknown stream '"
                                            << getSymName() << "'; expected";
    for (isa::Engine e : {isa::Engine::PE, isa::Engine::ACT, isa::Engine::DVE,
                          isa::Engine::POOL})
      diag << " " << isa::streamName({e, 0}) << ",";
    int queues =
        (target ? *target : isa::getTarget(isa::kDefaultTarget)).numDmaQueues;
    return diag << " " << isa::streamName({isa::Engine::DMA, 0}) << " .. "
                << isa::streamName({isa::Engine::DMA, uint8_t(queues - 1)});
  }
  if (target && id->engine == isa::Engine::DMA &&
      id->queue >= target->numDmaQueues)
    return emitOpError() << "DMA queue " << int(id->queue)
                         << " does not exist: " << target->name << " has "
                         << target->numDmaQueues << " queues";
  for (Operation &op : getBody().front())
    if (!llvm::isa<InstructionOpInterface>(op))
      return op.emitOpError() << "is not an instruction; a nisa.stream holds "
                                 "nisa instruction ops only";
  return success();
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

LogicalResult nki::nisa::detail::verifyInstructionOp(Operation *op) {
  auto inst = cast<InstructionOpInterface>(op);
  // What the Instruction struct can hold; semaphore ids against the count
  // are the ISA verifier's.
  if (DenseI64ArrayAttr waits = inst.getWaitsAttr()) {
    if (waits.size() % 2)
      return op->emitOpError("'waits' must hold (semaphore, value) pairs");
    for (int64_t v : waits.asArrayRef())
      if (v < 0 || v > kMaxU32)
        return op->emitOpError()
               << "wait operand " << v << " is not a 32-bit unsigned number";
  }
  if (DenseI64ArrayAttr signal = inst.getSignalAttr()) {
    if (signal.size() != 2)
      return op->emitOpError("'signal' must be a (semaphore, increment) pair");
    for (int64_t v : signal.asArrayRef())
      if (v < 0 || v > kMaxU32)
        return op->emitOpError()
               << "signal operand " << v << " is not a 32-bit unsigned number";
  }
  if (auto reduce = dyn_cast<TensorReduceOp>(op)) {
    int64_t axes = reduce.getAxesAttr().getInt();
    if (axes < 0 || axes > std::numeric_limits<uint8_t>::max())
      return op->emitOpError()
             << "axes " << axes << " is not an 8-bit unsigned number";
  }

  // Outside a well-formed stream of a well-formed program, the enclosing
  // op's verifier reports the problem.
  auto stream = dyn_cast_or_null<StreamOp>(op->getParentOp());
  auto program =
      stream ? dyn_cast_or_null<ProgramOp>(stream->getParentOp()) : nullptr;
  if (!program)
    return success();
  const isa::TargetDesc *target = program.getTargetDesc();
  std::optional<isa::StreamId> streamId = stream.getStreamId();
  std::optional<uint32_t> numSemaphores = program.getNumSemaphores();
  if (!target || !streamId || !numSemaphores)
    return success();

  absl::Status status = isa::verifyInstruction(
      *target, *streamId, toInstruction(inst), *numSemaphores);
  if (!status.ok())
    return op->emitOpError() << std::string(status.message());
  return success();
}

#include "nki/Dialect/NISA/NISAInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "nki/Dialect/NISA/NISAOps.cpp.inc"
