//===- simulate.cpp - Fuzz the simulator on programs that verify
//-----------===//
//
// Input: a .nkb file, or (first byte odd) a byte then a payload that gets
// a correct header (frameBinaryPayload). Programs decodeProgram accepts (they
// passed isa::verifyProgram) run on the simulator with every check on and
// inputs filled from a fixed pattern (any bit pattern: NaNs and infinities
// too). Whatever the program does (race, deadlock, read uninitialised memory,
// divide by zero), the simulator must answer with a result or an error
// status, never crash, hang or touch memory outside its own. Work is
// bounded so one input takes milliseconds: at most 4096 instructions, 16
// MiB of HBM tensors and 2^24 elements over all operands.
// Seeds: nki-sim-example's programs and small compiled programs.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Binary.h"
#include "nki/Simulator/Simulator.h"

#include <string_view>

using namespace nki;

static int64_t operandElements(const isa::Instruction &inst) {
  int64_t n = 0;
  for (const isa::AccessPattern *ap :
       {&inst.dst, &inst.src0, &inst.src1, &inst.src2, &inst.src3, &inst.accum})
    n += ap->numElements();
  return n;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string framed;
  if (size && (data[0] & 1)) // a .nkb starts with 'N', which is even
    bytes = framed = isa::frameBinaryPayload(bytes.substr(1));
  absl::StatusOr<isa::Program> program = isa::decodeProgram(bytes);
  if (!program.ok())
    return 0;
  int64_t instructions = 0, elements = 0, hbmBytes = 0;
  for (const isa::Stream &s : program->streams)
    for (const isa::Instruction &inst : s.instructions) {
      ++instructions;
      elements += operandElements(inst);
    }
  for (const isa::TensorDecl &t : program->tensors)
    hbmBytes = std::max(hbmBytes, t.hbmOffset + t.sizeBytes());
  if (instructions > 4096 || elements > (int64_t(1) << 24) ||
      hbmBytes > (int64_t(16) << 20))
    return 0;

  std::string hbm = sim::makeHbmImage(*program);
  uint32_t state = 0x9e3779b9u;
  for (const isa::TensorDecl &t : program->tensors) {
    if (t.kind != isa::TensorKind::Input)
      continue;
    std::string bytes(size_t(t.sizeBytes()), '\0');
    for (char &c : bytes) {
      state = state * 1664525u + 1013904223u;
      c = char(state >> 24);
    }
    (void)sim::setTensorBytes(*program, hbm, t.name, bytes);
  }
  sim::SimOptions options;
  options.collectTrace = true;
  options.collectProfile = true;
  absl::StatusOr<sim::SimResult> result =
      sim::simulate(*program, std::move(hbm), options);
  if (result.ok()) { // the report and trace writers see every result
    (void)sim::formatReportJson(result->report);
    (void)sim::formatReportTable(result->report);
    (void)sim::formatChromeTrace(*program, result->trace,
                                 &result->report.criticalPath);
  }
  return 0;
}
