//===- NISABinary.cpp - nisa.program <-> isa::Program ---------------------===//

#include "nki/Target/NISABinary.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/ISA/Verify.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace nki;
using namespace nki::nisa;

FailureOr<isa::Program> nki::programFromNISA(ProgramOp op) {
  isa::Program program;
  program.target = op.getTarget().str();
  program.numSemaphores = *op.getNumSemaphores();
  for (Operation &child : op.getBody().front()) {
    if (auto tensor = dyn_cast<TensorOp>(child)) {
      program.tensors.push_back(tensor.toISA());
      continue;
    }
    auto stream = cast<StreamOp>(child);
    isa::Stream &out = program.getOrCreateStream(*stream.getStreamId());
    // A million instructions of a kilobyte each: grown by doubling, the
    // vector would be copied to fresh pages about twenty times.
    Block &body = stream.getBody().front();
    out.instructions.reserve(out.instructions.size() +
                             body.getOperations().size());
    for (Operation &inst : body) {
      if (inst.hasAttr(kSeqAttr))
        return inst.emitOpError()
               << "has '" << kSeqAttr
               << "': the program is scheduled but has no semaphores yet "
                  "(run nki-synchronize)";
      out.instructions.push_back(
          toInstruction(cast<InstructionOpInterface>(inst)));
    }
  }
  absl::Status status = isa::verifyProgram(program);
  if (!status.ok())
    return op.emitOpError() << std::string(status.message());
  return program;
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
