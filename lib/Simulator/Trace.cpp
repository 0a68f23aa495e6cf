//===- Trace.cpp - Chrome trace-event JSON --------------------------------===//
//
// One process, one thread (track) per stream named after it, one complete
// ("X") event per instruction covering its busy time, named by its opcode
// and source op; the event's args give the operands and when it signals.
//
//===----------------------------------------------------------------------===//

#include "nki/Simulator/Trace.h"

#include "Strings.h"

#include "nki/ISA/Program.h"

#include <cstdio>

namespace nki::sim {

namespace {

std::string us(int64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", double(ps) * 1e-6);
  return buf;
}

std::string describeAp(const isa::AccessPattern &ap) {
  std::string s(isa::memoryName(ap.memory));
  if (ap.memory != isa::Memory::HBM)
    append(&s, "[", ap.startPartition, ":",
           ap.startPartition + ap.numPartitions, "]");
  append(&s, "+", ap.offset, " ", isa::dtypeName(ap.dtype), " [");
  for (int d = 0; d < ap.rank; ++d)
    append(&s, d ? ", " : "", "(", ap.dims[d].stride, ", ", ap.dims[d].size,
           ")");
  return s + "]";
}

} // namespace

std::string describeOperands(const isa::Instruction &inst) {
  using isa::Opcode;
  std::string s = cat("dst=", describeAp(inst.dst));
  auto add = [&](const char *name, const isa::AccessPattern &ap) {
    append(&s, " ", name, "=", describeAp(ap));
  };
  auto addScalar = [&](const char *name, const isa::ScalarOperand &op) {
    if (op.isImmediate)
      append(&s, " ", name, "=", op.imm);
    else
      add(name, op.ap);
  };
  switch (inst.opcode) {
  case Opcode::Matmul:
    add("stationary", inst.src0);
    add("moving", inst.src1);
    append(&s, inst.start ? " start" : " accumulate");
    break;
  case Opcode::MatmulMx:
    add("stationary", inst.src0);
    add("moving", inst.src1);
    add("stationary_scale", inst.src2);
    add("moving_scale", inst.src3);
    append(&s, inst.start ? " start" : " accumulate");
    break;
  case Opcode::Activation:
    add("src", inst.src0);
    append(&s, " func=", isa::actFuncName(inst.func));
    addScalar("scale", inst.scalar0);
    addScalar("bias", inst.scalar1);
    if (inst.hasAccum)
      add("accum", inst.accum);
    break;
  case Opcode::TensorTensor:
    add("src0", inst.src0);
    add("src1", inst.src1);
    append(&s, " op=", isa::aluOpName(inst.alu0));
    break;
  case Opcode::TensorScalar:
    add("src0", inst.src0);
    append(&s, " op0=", isa::aluOpName(inst.alu0));
    addScalar("scalar0", inst.scalar0);
    if (inst.alu1 != isa::AluOp::Bypass) {
      append(&s, " op1=", isa::aluOpName(inst.alu1));
      addScalar("scalar1", inst.scalar1);
    }
    break;
  case Opcode::Select:
    add("pred", inst.src0);
    add("on_true", inst.src1);
    add("on_false", inst.src2);
    break;
  case Opcode::Memset:
  case Opcode::Iota:
    break;
  default:
    add("src", inst.src0);
    break;
  }
  return s;
}

std::string formatChromeTrace(const isa::Program &program,
                              const std::vector<TraceEvent> &events,
                              const CriticalPath *path) {
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  auto sep = [&] {
    out += first ? "  " : ",\n  ";
    first = false;
  };
  // A track's name and place among the others.
  auto track = [&](int tid, const std::string &name, int sortIndex) {
    sep();
    append(&out, "{\"ph\": \"M\", \"pid\": 0, \"tid\": ", tid,
           ", \"name\": \"thread_name\", \"args\": {\"name\": \"", name,
           "\"}}");
    sep();
    append(&out, "{\"ph\": \"M\", \"pid\": 0, \"tid\": ", tid,
           ", \"name\": \"thread_sort_index\", \"args\": "
           "{\"sort_index\": ",
           sortIndex, "}}");
  };
  // Instruction `index` of stream `id`, or null outside the program.
  auto instructionAt = [&](isa::StreamId id,
                           int32_t index) -> const isa::Instruction * {
    for (const isa::Stream &s : program.streams)
      if (s.id == id)
        return index < int32_t(s.instructions.size()) ? &s.instructions[index]
                                                      : nullptr;
    return nullptr;
  };
  // A slice on track `tid` named by the instruction's opcode and source op;
  // `args` opens its args object, which the source op closes.
  auto slice = [&](int tid, const isa::Instruction &inst, const char *cat,
                   int64_t startPs, int64_t durPs, const std::string &args) {
    sep();
    append(&out, "{\"ph\": \"X\", \"pid\": 0, \"tid\": ", tid, ", \"name\": \"",
           isa::opcodeName(inst.opcode), inst.loc.empty() ? "" : " ",
           jsonEscape(inst.loc), "\", \"cat\": \"", cat,
           "\", \"ts\": ", us(startPs), ", \"dur\": ", us(durPs),
           ", \"args\": {", args);
    if (!inst.loc.empty())
      append(&out, ", \"source\": \"", jsonEscape(inst.loc), "\"");
    out += "}}";
  };
  for (const isa::Stream &s : program.streams)
    track(s.id.index(), isa::streamName(s.id), s.id.index());
  for (const TraceEvent &e : events)
    if (const isa::Instruction *inst = instructionAt(e.stream, e.index))
      slice(e.stream.index(), *inst,
            std::string(isa::opcodeName(inst->opcode)).c_str(), e.startPs,
            e.busyPs,
            cat("\"index\": ", e.index, ", \"operands\": \"",
                jsonEscape(describeOperands(*inst)),
                "\", \"signals_at_us\": ", us(e.startPs + e.completePs)));
  // The critical path on a track of its own, above the streams: each of
  // its instructions over its time on the path (Profile.h).
  if (path && !path->steps.empty()) {
    constexpr int kPathTrack = 1000; // past every stream's index
    track(kPathTrack, "critical path", -1);
    for (const CriticalPath::Step &step : path->steps) {
      isa::StreamId id = isa::StreamId::fromIndex(step.stream);
      if (const isa::Instruction *inst = instructionAt(id, step.index))
        slice(kPathTrack, *inst, "critical", step.startPs, step.ps,
              cat("\"stream\": \"", isa::streamName(id),
                  "\", \"index\": ", step.index));
    }
  }
  out += "\n]}\n";
  return out;
}

} // namespace nki::sim
