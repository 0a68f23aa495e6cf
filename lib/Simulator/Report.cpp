//===- Report.cpp - Report table and JSON ---------------------------------===//

#include "nki/Simulator/Report.h"

#include "Strings.h"

#include <algorithm>
#include <cstdio>

namespace nki::sim {

namespace {

std::string fmt(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string microseconds(int64_t ps) { return fmt("%.3f", double(ps) * 1e-6); }

/// The ops table: the `top` ops with the most attributed time.
std::string formatOps(const SimReport &r, size_t top) {
  if (r.ops.empty() || top == 0)
    return "";
  size_t n = std::min(top, r.ops.size());
  std::string out =
      cat("top ", n, " of ", r.ops.size(), " source ops by simulated time\n");
  char line[256];
  std::snprintf(line, sizeof line, "%12s %6s %8s %12s %12s %5s %7s %6s  %s\n",
                "time (us)", "%", "instrs", "MFLOP", "DMA bytes", "bound",
                "util %", "PE %", "source op");
  out += line;
  for (size_t i = 0; i < n; ++i) {
    const OpProfile &p = r.ops[i];
    double pct =
        r.totalPs ? 100.0 * double(p.attributedPs) / double(r.totalPs) : 0.0;
    std::snprintf(
        line, sizeof line, "%12s %6.2f %8lld %12.3f %12lld %5s %7.2f %6.2f  ",
        microseconds(p.attributedPs).c_str(), pct,
        static_cast<long long>(p.instructions), double(p.matmulFlops) * 1e-6,
        static_cast<long long>(p.dmaBytes),
        std::string(isa::engineName(p.bound)).c_str(),
        100.0 * p.boundUtilisation, 100.0 * p.peUtilisation);
    append(&out, line, p.source, "\n");
  }
  return out;
}

/// The critical path's split and the `top` source ops on it.
std::string formatCriticalPath(const SimReport &r, size_t top) {
  const CriticalPath &c = r.criticalPath;
  if (!c.instructions || top == 0)
    return "";
  std::string out = cat("critical path ", microseconds(c.totalPs), " us over ",
                        c.instructions, " instructions: busy");
  for (int e = 0; e < kProfileEngines; ++e)
    append(&out, e ? ", " : " ", isa::engineName(isa::Engine(e)), " ",
           microseconds(c.busyPs[size_t(e)]));
  append(&out, "; DMA latency ", microseconds(c.dmaLatencyPs), ", sync ",
         microseconds(c.syncPs), ", other ", microseconds(c.otherPs),
         " (us)\n");
  size_t n = std::min(top, c.ops.size());
  append(&out, "top ", n, " of ", c.ops.size(),
         " source ops on the critical path\n");
  char line[160];
  std::snprintf(line, sizeof line, "%12s %6s %8s %6s  %s\n", "time (us)", "%",
                "instrs", "engine", "source op");
  out += line;
  for (size_t i = 0; i < n; ++i) {
    const CriticalPath::Op &op = c.ops[i];
    double pct = c.totalPs ? 100.0 * double(op.ps) / double(c.totalPs) : 0.0;
    size_t engine =
        size_t(std::max_element(op.enginePs.begin(), op.enginePs.end()) -
               op.enginePs.begin());
    std::snprintf(line, sizeof line, "%12s %6.2f %8lld %6s  ",
                  microseconds(op.ps).c_str(), pct,
                  static_cast<long long>(op.instructions),
                  std::string(isa::engineName(isa::Engine(engine))).c_str());
    append(&out, line, op.source, "\n");
  }
  return out;
}

} // namespace

std::string formatReportTable(const SimReport &r, size_t topOps) {
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
  append(&out, "DMA ", r.dmaBytes, " bytes (", r.dmaHbmBytes,
         " to or from HBM), ", fmt("%.2f", r.dmaBytesPerSecond * 1e-9),
         " GB/s of ", fmt("%.2f", r.dmaPeakBytesPerSecond * 1e-9),
         " GB/s peak\n");
  out += formatOps(r, topOps);
  out += formatCriticalPath(r, topOps);
  return out;
}

std::string formatReportJson(const SimReport &r) {
  std::string out = cat(
      "{\"target\": \"", r.target, "\", \"total_ps\": ", r.totalPs,
      ", \"instructions\": ", r.instructions,
      ", \"matmul_flops\": ", r.matmulFlops,
      ", \"pe_utilisation\": ", fmt("%.6g", r.peUtilisation),
      ", \"dma_bytes\": ", r.dmaBytes, ", \"dma_hbm_bytes\": ", r.dmaHbmBytes,
      ", \"dma_bytes_per_second\": ", fmt("%.6g", r.dmaBytesPerSecond),
      ", \"dma_peak_bytes_per_second\": ", fmt("%.6g", r.dmaPeakBytesPerSecond),
      ", \"pe_peak_flops_per_second\": ", fmt("%.6g", r.pePeakFlopsPerSecond),
      ", \"pe_peak_flops_per_second_fp32\": ",
      fmt("%.6g", r.pePeakFp32FlopsPerSecond),
      ", \"pe_peak_flops_per_second_fp8\": ",
      fmt("%.6g", r.pePeakFp8FlopsPerSecond),
      ", \"pe_peak_flops_per_second_mx\": ",
      fmt("%.6g", r.pePeakMxFlopsPerSecond),
      ", \"engine_clocks_hz\": {\"pe\": ", fmt("%.6g", r.peClockHz),
      ", \"act\": ", fmt("%.6g", r.actClockHz),
      ", \"dve\": ", fmt("%.6g", r.dveClockHz),
      ", \"pool\": ", fmt("%.6g", r.poolClockHz), "}, \"streams\": [");
  for (size_t i = 0; i < r.streams.size(); ++i) {
    const StreamReport &s = r.streams[i];
    append(&out, i ? ", " : "", "{\"stream\": \"", isa::streamName(s.stream),
           "\", \"instructions\": ", s.instructions,
           ", \"busy_ps\": ", s.busyPs,
           ", \"utilisation\": ", fmt("%.6g", s.utilisation),
           ", \"dma_bytes\": ", s.dmaBytes, "}");
  }
  out += "], \"ops\": [";
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const OpProfile &p = r.ops[i];
    append(&out, i ? ", " : "", "{\"source\": \"", jsonEscape(p.source),
           "\", \"attributed_ps\": ", p.attributedPs,
           ", \"first_start_ps\": ", p.firstStartPs,
           ", \"last_complete_ps\": ", p.lastCompletePs,
           ", \"instructions\": ", p.instructions, ", \"busy_ps\": {");
    for (int e = 0; e < kProfileEngines; ++e)
      append(&out, e ? ", " : "", "\"", isa::engineName(isa::Engine(e)),
             "\": ", p.busyPs[size_t(e)]);
    append(&out, "}, \"matmul_flops\": ", p.matmulFlops,
           ", \"dma_bytes\": ", p.dmaBytes,
           ", \"dma_hbm_bytes\": ", p.dmaHbmBytes, ", \"bound\": \"",
           isa::engineName(p.bound),
           "\", \"bound_utilisation\": ", fmt("%.6g", p.boundUtilisation),
           ", \"pe_utilisation\": ", fmt("%.6g", p.peUtilisation), "}");
  }
  const CriticalPath &c = r.criticalPath;
  append(&out, "], \"critical_path\": {\"total_ps\": ", c.totalPs,
         ", \"instructions\": ", c.instructions, ", \"busy_ps\": {");
  for (int e = 0; e < kProfileEngines; ++e)
    append(&out, e ? ", " : "", "\"", isa::engineName(isa::Engine(e)),
           "\": ", c.busyPs[size_t(e)]);
  append(&out, "}, \"dma_latency_ps\": ", c.dmaLatencyPs,
         ", \"sync_ps\": ", c.syncPs, ", \"other_ps\": ", c.otherPs,
         ", \"ops\": [");
  for (size_t i = 0; i < c.ops.size(); ++i) {
    append(&out, i ? ", " : "", "{\"source\": \"", jsonEscape(c.ops[i].source),
           "\", \"ps\": ", c.ops[i].ps,
           ", \"instructions\": ", c.ops[i].instructions, ", \"engine_ps\": {");
    for (int e = 0; e < kProfileEngines; ++e)
      append(&out, e ? ", " : "", "\"", isa::engineName(isa::Engine(e)),
             "\": ", c.ops[i].enginePs[size_t(e)]);
    out += "}}";
  }
  out += "]}}\n";
  return out;
}

} // namespace nki::sim
