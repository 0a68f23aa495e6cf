//===- Report.cpp - Report table and JSON ---------------------------------===//

#include "nki/Simulator/Report.h"

#include "Strings.h"

#include <cstdio>

namespace nki::sim {

namespace {

std::string fmt(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string microseconds(int64_t ps) { return fmt("%.3f", double(ps) * 1e-6); }

} // namespace

std::string formatReportTable(const SimReport &r) {
  std::string out =
      cat("target ", r.target, ", total ", microseconds(r.totalPs), " us, ",
          r.instructions, " instructions\n");
  char line[160];
  std::snprintf(line, sizeof line, "%-8s %12s %14s %8s %14s\n", "stream",
                "instructions", "busy (us)", "util %", "DMA bytes");
  out += line;
  for (const StreamReport &s : r.streams) {
    std::string bytes =
        s.stream.engine == isa::Engine::DMA ? cat(s.dmaBytes) : "-";
    std::snprintf(line, sizeof line, "%-8s %12lld %14s %8.2f %14s\n",
                  isa::streamName(s.stream).c_str(),
                  static_cast<long long>(s.instructions),
                  microseconds(s.busyPs).c_str(), 100.0 * s.utilisation,
                  bytes.c_str());
    out += line;
  }
  append(&out, "PE utilisation ", fmt("%.2f", 100.0 * r.peUtilisation), " % (",
         r.matmulFlops, " matmul FLOPs)\n");
  append(&out, "DMA ", r.dmaBytes, " bytes, ",
         fmt("%.2f", r.dmaBytesPerSecond * 1e-9), " GB/s of ",
         fmt("%.2f", r.dmaPeakBytesPerSecond * 1e-9), " GB/s peak\n");
  return out;
}

std::string formatReportJson(const SimReport &r) {
  std::string out = cat(
      "{\"target\": \"", r.target, "\", \"total_ps\": ", r.totalPs,
      ", \"instructions\": ", r.instructions,
      ", \"matmul_flops\": ", r.matmulFlops,
      ", \"pe_utilisation\": ", fmt("%.6g", r.peUtilisation),
      ", \"dma_bytes\": ", r.dmaBytes,
      ", \"dma_bytes_per_second\": ", fmt("%.6g", r.dmaBytesPerSecond),
      ", \"dma_peak_bytes_per_second\": ", fmt("%.6g", r.dmaPeakBytesPerSecond),
      ", \"streams\": [");
  for (size_t i = 0; i < r.streams.size(); ++i) {
    const StreamReport &s = r.streams[i];
    append(&out, i ? ", " : "", "{\"stream\": \"", isa::streamName(s.stream),
           "\", \"instructions\": ", s.instructions,
           ", \"busy_ps\": ", s.busyPs,
           ", \"utilisation\": ", fmt("%.6g", s.utilisation),
           ", \"dma_bytes\": ", s.dmaBytes, "}");
  }
  out += "]}\n";
  return out;
}

} // namespace nki::sim
