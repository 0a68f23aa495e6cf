//===- NISABinary.cpp - nisa.program <-> isa::Program ---------------------===//

#include "nki/Target/NISABinary.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/ISA/Binary.h"
#include "nki/ISA/Verify.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace nki;
using namespace nki::nisa;

/// `op`'s target, semaphore count and tensors (in IR order), and its
/// stream ops grouped by stream in index order (those of one stream in IR
/// order): an isa::Program holds one stream per id, in index order.
static FailureOr<std::pair<isa::Program, std::vector<std::vector<StreamOp>>>>
programParts(ProgramOp op) {
  isa::Program header;
  header.target = op.getTarget().str();
  header.numSemaphores = *op.getNumSemaphores();
  std::vector<std::vector<StreamOp>> streams;
  for (Operation &child : op.getBody().front()) {
    if (auto tensor = dyn_cast<TensorOp>(child)) {
      header.tensors.push_back(tensor.toISA());
      continue;
    }
    auto stream = cast<StreamOp>(child);
    std::optional<isa::StreamId> id = stream.getStreamId();
    if (!id)
      return stream.emitOpError() << "is not a stream of the machine";
    size_t index = size_t(id->index());
    if (streams.size() <= index)
      streams.resize(index + 1);
    streams[index].push_back(stream);
  }
  return std::make_pair(std::move(header), std::move(streams));
}

/// Calls f(inst) for each instruction op of `streams`, in order, after
/// checking that it has been synchronised.
template <typename F>
static LogicalResult forEachInstruction(ArrayRef<StreamOp> streams, F &&f) {
  for (StreamOp stream : streams)
    for (Operation &inst : stream.getBody().front()) {
      if (inst.hasAttr(kSeqAttr))
        return inst.emitOpError()
               << "has '" << kSeqAttr
               << "': the program is scheduled but has no semaphores yet "
                  "(run nki-synchronize)";
      if (failed(f(cast<InstructionOpInterface>(inst))))
        return failure();
    }
  return success();
}

FailureOr<isa::Program> nki::programFromNISA(ProgramOp op) {
  auto parts = programParts(op);
  if (failed(parts))
    return failure();
  isa::Program program = std::move(parts->first);
  for (auto [index, streams] : llvm::enumerate(parts->second)) {
    if (streams.empty())
      continue;
    isa::Stream &out =
        program.getOrCreateStream(isa::StreamId::fromIndex(int(index)));
    if (failed(forEachInstruction(
            streams, [&](InstructionOpInterface inst) -> LogicalResult {
              out.instructions.push_back(toInstruction(inst));
              return success();
            })))
      return failure();
  }
  absl::Status status = isa::verifyProgram(program);
  if (!status.ok())
    return op.emitOpError() << std::string(status.message());
  return program;
}

FailureOr<std::string> nki::binaryFromNISA(ProgramOp op) {
  auto parts = programParts(op);
  if (failed(parts))
    return failure();
  isa::Program &header = parts->first;
  // The header's checks (target, tensors); then each instruction's, one at
  // a time as it is encoded, with verifyProgram's messages.
  if (absl::Status status = isa::verifyProgram(header); !status.ok())
    return op.emitOpError() << std::string(status.message());
  const isa::TargetDesc &target = *isa::lookupTarget(header.target);
  uint32_t numSemaphores = header.numSemaphores;
  // The constants move into the encoder (a model's weights, held once).
  isa::ProgramEncoder encoder(std::move(header));
  for (auto [index, streams] : llvm::enumerate(parts->second)) {
    if (streams.empty())
      continue;
    auto id = isa::StreamId::fromIndex(int(index));
    encoder.beginStream(id);
    size_t k = 0;
    if (failed(forEachInstruction(
            streams, [&](InstructionOpInterface op) -> LogicalResult {
              isa::Instruction inst = toInstruction(op);
              absl::Status status = isa::verifyProgramInstruction(
                  target, id, k++, inst, numSemaphores);
              if (!status.ok())
                return op->emitOpError() << std::string(status.message());
              encoder.add(inst);
              return success();
            })))
      return failure();
  }
  absl::StatusOr<std::string> bytes = std::move(encoder).finish();
  if (!bytes.ok())
    return op.emitOpError() << std::string(bytes.status().message());
  return *std::move(bytes);
}

/// Constant data as an attribute of the tensor's own type.
static DenseElementsAttr constantData(const isa::TensorDecl &tensor,
                                      MLIRContext *context) {
  auto type = RankedTensorType::get(tensor.shape,
                                    dataElementTypeOf(context, tensor.dtype));
  if (type.getNumElements() == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>());
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(tensor.data.data(), tensor.data.size()));
}

OwningOpRef<ProgramOp> nki::programToNISA(const isa::Program &program,
                                          MLIRContext *context, Location loc) {
  // verifyProgram vouches for everything the builders below rely on
  // (shapes, constant sizes, stream ids); the instruction checks then make
  // the ops valid as well.
  absl::Status status = isa::verifyProgram(program);
  if (!status.ok()) {
    emitError(loc) << std::string(status.message());
    return {};
  }
  context->loadDialect<NISADialect>();
  OpBuilder builder(context);
  Location unknown = builder.getUnknownLoc();
  OwningOpRef<ProgramOp> result = ProgramOp::create(
      builder, unknown, program.target, program.numSemaphores);
  builder.setInsertionPointToEnd(&result->getBody().front());
  for (const isa::TensorDecl &tensor : program.tensors) {
    bool isConst = tensor.kind == isa::TensorKind::Constant;
    TensorOp::create(
        builder, unknown, builder.getStringAttr(tensor.name),
        TensorKindAttr::get(context, tensor.kind),
        DTypeAttr::get(context, tensor.dtype),
        builder.getDenseI64ArrayAttr(tensor.shape),
        builder.getI64IntegerAttr(tensor.hbmOffset),
        isConst ? constantData(tensor, context) : DenseElementsAttr(),
        tensor.host == isa::HostType::Device
            ? StringAttr()
            : builder.getStringAttr(isa::hostTypeName(tensor.host)));
  }
  for (const isa::Stream &stream : program.streams) {
    OpBuilder::InsertionGuard guard(builder);
    auto op = StreamOp::create(builder, unknown, isa::streamName(stream.id));
    builder.setInsertionPointToEnd(&op.getBody().front());
    for (const isa::Instruction &inst : stream.instructions)
      buildInstructionOp(builder, locationFromString(context, inst.loc), inst);
  }
  return result;
}
