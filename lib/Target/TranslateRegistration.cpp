//===- TranslateRegistration.cpp - --nisa-to-binary, --binary-to-nisa -----===//

#include "nki/Target/NISABinary.h"

#include "nki/ISA/Binary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace nki;

/// The one nisa.program of the translated input (the op itself or a child of
/// the implicit module).
static FailureOr<nisa::ProgramOp> findProgram(Operation *op) {
  if (auto program = dyn_cast<nisa::ProgramOp>(op))
    return program;
  SmallVector<nisa::ProgramOp> programs;
  for (Region &region : op->getRegions())
    for (Operation &child : region.getOps())
      if (auto program = dyn_cast<nisa::ProgramOp>(child))
        programs.push_back(program);
  if (programs.size() != 1)
    return op->emitError() << "expected exactly one nisa.program, found "
                           << programs.size();
  return programs.front();
}

static LogicalResult nisaToBinary(Operation *op, raw_ostream &output) {
  FailureOr<nisa::ProgramOp> program = findProgram(op);
  if (failed(program))
    return failure();
  FailureOr<isa::Program> isaProgram = programFromNISA(*program);
  if (failed(isaProgram))
    return failure();
  output << isa::encodeProgram(*isaProgram);
  return success();
}

static LogicalResult
binaryToNISA(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
             raw_ostream &output, MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
  Location fileLoc =
      FileLineColLoc::get(context, buffer->getBufferIdentifier(), 0, 0);
  absl::StatusOr<isa::Program> program = isa::decodeProgram(
      std::string_view(buffer->getBufferStart(), buffer->getBufferSize()));
  if (!program.ok())
    return emitError(fileLoc) << "not a valid .nkb binary: "
                              << std::string(program.status().message());
  OwningOpRef<nisa::ProgramOp> op = programToNISA(*program, context, fileLoc);
  if (!op || failed(verify(*op)))
    return failure();
  // Locations are part of the binary (Instruction::loc): print them so that
  // translating the text back gives the same bytes.
  op->print(output, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
  output << "\n";
  return success();
}

void nki::registerNISABinaryTranslations() {
  static TranslateFromMLIRRegistration toBinary(
      "nisa-to-binary", "translate a nisa.program into a .nkb binary",
      nisaToBinary,
      [](DialectRegistry &registry) { registry.insert<nisa::NISADialect>(); });
  static TranslateRegistration fromBinary(
      "binary-to-nisa", "translate a .nkb binary into a nisa.program",
      binaryToNISA);
}
