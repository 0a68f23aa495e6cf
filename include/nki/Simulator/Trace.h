//===- Trace.h - Per-instruction timeline ----------------------*- C++ -*-===//
//
// One event per executed instruction, written as Chrome trace-event JSON
// (a track per engine and DMA queue) that Perfetto and chrome://tracing open.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_SIMULATOR_TRACE_H
#define NKI_SIMULATOR_TRACE_H

#include "nki/ISA/Types.h"
#include "nki/Simulator/Profile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nki::isa {
struct Instruction;
struct Program;
} // namespace nki::isa

namespace nki::sim {

struct TraceEvent {
  isa::StreamId stream;
  int32_t index = 0;      // instruction index in its stream
  int64_t startPs = 0;    // issue
  int64_t busyPs = 0;     // the stream is occupied [start, start + busy)
  int64_t completePs = 0; // signals at start + completePs
};

/// Chrome trace-event JSON for `events` of `program` (timestamps in us);
/// with `path`, a "critical path" track repeats its instructions' slices
/// (each covering its time on the path).
std::string formatChromeTrace(const isa::Program &program,
                              const std::vector<TraceEvent> &events,
                              const CriticalPath *path = nullptr);

/// "dst=sbuf[0:128, +0, f32, (1,512)] src0=..." for trace and diagnostics.
std::string describeOperands(const isa::Instruction &inst);

} // namespace nki::sim

#endif // NKI_SIMULATOR_TRACE_H
