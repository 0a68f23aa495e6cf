//===- Driver.cpp - What nki-compile does with a source -------------------===//

#include "nki/Pipeline/Driver.h"

#include "nki/Dialect/NISA/ISAConversion.h"
#include "nki/Dialect/NISA/NISA.h"
#include "nki/Dialect/NKI/NKIDialect.h"
#include "nki/ISA/Target.h"
#include "nki/Target/NISABinary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <numeric>

using namespace mlir;

// How much sooner the batch unsplit must end than the split it replaces for
// the driver to keep it (compileModule).
constexpr double kUnsplitMargin = 0.02;
// The same for a split that the traffic rule took (BatchGroupSolution::
// traffic), which moves a fraction of the unsplit batch's HBM bytes: the
// U-Nets' splits at batch 8 in f32 run 0.7 to 7.7 % longer for a quarter
// of the traffic and stay; the text detector's at batch 4, 30 % longer,
// goes.
constexpr double kTrafficMargin = 0.10;

/// The matmuls --auto-cast=fp8, mxfp8 or mxfp4 quantised (after the graph
/// phase), by source op: an ONNX node's name or file:line:col.
static void recordQuantisedWeights(ModuleOp module, nki::CompileReport &r) {
  module.walk([&](Operation *op) {
    if (auto err = op->getAttrOfType<FloatAttr>(nki::tile::kFp8WeightErrorAttr))
      r.quantisedWeights.push_back(
          {nki::nisa::locationToString(op->getLoc()), err.getValueAsDouble()});
    // --auto-cast=mxfp8's and mxfp4's, kept on the function.
    if (auto list =
            op->getAttrOfType<ArrayAttr>(nki::tile::kMxWeightErrorsAttr))
      for (Attribute entry : list) {
        auto pair = dyn_cast<ArrayAttr>(entry);
        if (!pair || pair.size() != 2)
          continue;
        auto loc = dyn_cast<LocationAttr>(pair[0]);
        auto err = dyn_cast<FloatAttr>(pair[1]);
        if (loc && err)
          r.quantisedWeights.push_back(
              {nki::nisa::locationToString(Location(loc)),
               err.getValueAsDouble()});
      }
  });
}

/// nki-split-batch's decision (after the graph phase).
static void recordBatchGroups(ModuleOp module, nki::CompileReport &r) {
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    auto d = func->getAttrOfType<DictionaryAttr>(nki::tile::kBatchGroupsAttr);
    if (!d)
      continue;
    auto ops = d.getAs<IntegerAttr>("ops");
    auto groups = d.getAs<IntegerAttr>("groups");
    auto hbm = d.getAs<FloatAttr>("hbm_us");
    auto compute = d.getAs<FloatAttr>("compute_us");
    auto why = d.getAs<StringAttr>("why");
    if (!ops || !groups || !hbm || !compute || !why)
      continue;
    nki::CompileReport::BatchGroups b{ops.getInt(),
                                      groups.getInt(),
                                      hbm.getValueAsDouble(),
                                      compute.getValueAsDouble(),
                                      why.str(),
                                      false,
                                      false,
                                      {}};
    if (auto packed = d.getAs<BoolAttr>("packed"))
      b.packed = packed.getValue();
    if (auto alternative = d.getAs<IntegerAttr>("alternative"))
      b.alternative = alternative.getInt();
    if (auto chains = d.getAs<IntegerAttr>("chains"))
      b.chains = chains.getInt();
    if (auto chains = d.getAs<IntegerAttr>("alternative_chains"))
      b.alternativeChains = chains.getInt();
    if (auto traffic = d.getAs<BoolAttr>("traffic"))
      b.traffic = traffic.getValue();
    if (auto windows = d.getAs<ArrayAttr>("windows"))
      for (auto w : windows.getAsRange<DictionaryAttr>()) {
        auto integer = [&](StringRef key) {
          auto a = w.getAs<IntegerAttr>(key);
          return a ? a.getInt() : 0;
        };
        auto real = [&](StringRef key) {
          auto a = w.getAs<FloatAttr>(key);
          return a ? a.getValueAsDouble() : 0.0;
        };
        auto text = [&](StringRef key) {
          auto a = w.getAs<StringAttr>(key);
          return a ? a.str() : std::string();
        };
        auto flag = [&](StringRef key) {
          auto a = w.getAs<BoolAttr>(key);
          return a && a.getValue();
        };
        b.windows.push_back({integer("first"), integer("ops"),
                             integer("groups"), real("hbm_us"),
                             real("compute_us"), text("from"), text("to"),
                             flag("traffic"), flag("escapes")});
      }
    r.batchGroups = std::move(b);
  }
}

/// The end of the scheduled program's schedule (ps), -1 when there is none.
static int64_t makespanOf(ModuleOp module) {
  for (auto program : module.getOps<nki::nisa::ProgramOp>())
    if (auto end =
            program->getAttrOfType<IntegerAttr>(nki::nisa::kMakespanAttr))
      return end.getInt();
  return -1;
}

/// Replaces `module`'s contents with `other`'s.
static void replaceContents(ModuleOp module, ModuleOp other) {
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*module.getBody())))
    op.erase();
  module.getBody()->getOperations().splice(module.getBody()->end(),
                                           other.getBody()->getOperations());
  module->setAttrs(other->getAttrDictionary());
}

/// Highest offset + bytes per partition over the planned tiles of a space.
static void recordMemoryPeaks(ModuleOp module, nki::CompileReport &r) {
  module.walk([&](nki::tile::AllocOp alloc) {
    if (!alloc.getOffset())
      return;
    MemRefType type = alloc.getTile().getType();
    int64_t bytes = type.getNumElements() / type.getDimSize(0) *
                    type.getElementTypeBitWidth() / 8;
    int64_t end = int64_t(*alloc.getOffset()) + bytes;
    if (nki::tile::isPsum(type))
      r.psumPeak = std::max(r.psumPeak, end);
    else
      r.sbufPeak = std::max(r.sbufPeak, end);
  });
}

static void recordInstructions(ModuleOp module, nki::CompileReport &r) {
  module.walk([&](nki::nisa::StreamOp stream) {
    std::string name = stream.getSymName().str();
    int64_t n = 0;
    for (Operation &op : stream.getBody().front())
      (void)op, ++n;
    r.instructions[name.rfind("dma", 0) == 0 ? "dma (all queues)" : name] += n;
  });
}

/// The process's peak resident memory in bytes (VmHWM: since exec, unlike
/// getrusage's ru_maxrss, which keeps a forking parent's), or -1 where
/// /proc does not say.
static int64_t peakResidentBytes() {
  // Streamed: /proc files report a size of 0.
  auto status = llvm::MemoryBuffer::getFileAsStream("/proc/self/status");
  if (!status)
    return -1;
  for (llvm::StringRef line : llvm::split((*status)->getBuffer(), '\n')) {
    if (!line.consume_front("VmHWM:"))
      continue;
    llvm::StringRef value = line.trim(); // "123456 kB"
    int64_t kib;
    if (!value.consume_back("kB") || value.trim().getAsInteger(10, kib))
      return -1;
    return kib * 1024;
  }
  return -1;
}

std::string nki::formatCompileReport(const CompileReport &r) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "nki-compile report (target " << r.target << ")\n";
  os << llvm::format("  %-22s %10s\n", "phase", "seconds");
  double total = 0;
  for (auto &[phase, s] : r.phaseSeconds) {
    os << llvm::format("  %-22s %10.3f\n", phase.c_str(), s);
    total += s;
  }
  os << llvm::format("  %-22s %10.3f\n", "total", total);
  if (r.sbufPeak >= 0)
    os << "  SBUF peak: " << r.sbufPeak << " bytes per partition\n";
  if (r.psumPeak >= 0)
    os << "  PSUM peak: " << r.psumPeak << " bytes per partition\n";
  if (r.planRetries)
    os << "  SBUF plan fragmented or unrotated: tiled again " << r.planRetries
       << " time(s), tensors kept in SBUF leaving " << r.residentMargin
       << " bytes per partition free\n";
  for (auto &[engine, n] : r.instructions)
    os << llvm::format("  instructions %-16s %8lld\n", engine.c_str(),
                       (long long)n);
  if (r.batchGroups) {
    const auto &b = *r.batchGroups;
    if (b.chains > 1)
      os << llvm::format("  batch groups: %lld chains, one after another, "
                         "each the whole network on 1/%lld of the batch; "
                         "in each:\n",
                         (long long)b.chains, (long long)b.chains);
    if (b.ops)
      os << llvm::format("  batch groups: the first %lld ops in %lld groups "
                         "(HBM %.1f us saved, against %.1f us of compute%s)\n",
                         (long long)b.ops, (long long)b.groups, b.hbmUs,
                         b.computeUs,
                         b.traffic  ? "; for HBM traffic, packed, one group "
                                      "after another"
                         : b.packed ? "; packed, one group after another"
                                    : "");
    else
      os << "  batch groups: none (" << b.why << ")\n";
    for (const auto &w : b.windows)
      os << llvm::format("  batch groups: ops %lld to %lld in %lld groups "
                         "(HBM %.1f us saved, against %.1f us of compute%s%s): "
                         "%s .. %s\n",
                         (long long)w.first, (long long)(w.first + w.ops - 1),
                         (long long)w.groups, w.hbmUs, w.computeUs,
                         w.traffic ? "; for HBM traffic" : "",
                         w.escapes ? "; its other large results through HBM"
                                   : "",
                         w.from.c_str(), w.to.c_str());
    // The second candidate: chains or groups of the first layers, or the
    // batch unsplit (no windows).
    int64_t count = b.alternativeChains ? b.alternativeChains : b.alternative;
    std::string what = b.alternativeChains
                           ? llvm::formatv("{0} chains", count).str()
                       : count == 1 ? std::string("the batch unsplit")
                                    : llvm::formatv("{0} groups", count).str();
    if (b.alternativeCompiled)
      os << llvm::format("  batch groups: %s compiled too, %s "
                         "schedule %.1f us against %.1f us: %s\n",
                         what.c_str(), count == 1 ? "its" : "their",
                         b.alternativeUs, b.defaultUs,
                         b.alternativeKept ? "kept" : "not kept");
    else if (count && b.defaultUs >= 0)
      os << llvm::format("  batch groups: %s compiled too, and "
                         "failed: the first kept\n",
                         what.c_str());
    else if (count)
      os << llvm::format("  batch groups: %s a second candidate, "
                         "not compiled (no schedule to compare)\n",
                         what.c_str());
  }
  if (r.peakResidentBytes >= 0)
    os << llvm::format("  peak memory: %.1f MiB\n",
                       double(r.peakResidentBytes) / (1 << 20));
  if (!r.quantisedWeights.empty()) {
    os << "  " << r.autoCast << " matmuls: " << r.quantisedWeights.size()
       << " (weight relative rounding error, largest first)\n";
    // Largest first, ties in program order (a sort of indices: libstdc++'s
    // stable_sort uses the deprecated get_temporary_buffer).
    const auto &weights = r.quantisedWeights;
    std::vector<size_t> order(weights.size());
    std::iota(order.begin(), order.end(), size_t{0});
    llvm::sort(order, [&](size_t a, size_t b) {
      if (weights[a].second != weights[b].second)
        return weights[a].second > weights[b].second;
      return a < b;
    });
    for (size_t i : order)
      os << llvm::format("    %.3e  ", weights[i].second) << weights[i].first
         << "\n";
  }
  return text;
}

OwningOpRef<ModuleOp> nki::loadSource(llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context, bool onnx,
                                      const ONNXImportOptions &onnxOptions) {
  if (!onnx)
    return parseSourceFile<ModuleOp>(sourceMgr, context);
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  return importONNX(buffer->getBuffer(), buffer->getBufferIdentifier(), context,
                    onnxOptions);
}

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The Tiled and Planned phases. The residency plan's capacities are
/// estimates: when the SBUF plan then runs out of contiguous bytes, the
/// graph is tiled again with the tensors kept in SBUF leaving an eighth,
/// then a quarter of a partition free (ResNet-50 at batch 8 under
/// auto-cast on trn3 fragmented its 256 KiB with two 98 KiB tensors
/// resident); likewise when it fits only without rotating its tiles
/// (kSbufUnrotatedAttr: ResNet-50 at batch 4 under auto-cast on trn3,
/// 1,172.2 -> 628.2 us), whose plan stands if no retry plans at all. The
/// failed attempts' diagnostics are dropped; the one that succeeds (or the
/// last) reports its own.
template <typename RunPhase>
static LogicalResult
tileAndPlan(ModuleOp module, const nki::CompileOptions &options,
            nki::CompileReport &report, RunPhase &runPhase) {
  const nki::isa::TargetDesc *target = nki::isa::lookupTarget(options.target);
  OwningOpRef<ModuleOp> graph = module.clone();
  nki::CompileOptions opts = options;
  // The first plan that fit without rotating, with its retries and margin:
  // it stands if a retry fails to plan at all.
  OwningOpRef<ModuleOp> unrotatedPlan;
  int64_t unrotatedRetries = 0, unrotatedMargin = 0;
  constexpr int kAttempts = 3;
  for (int attempt = 0;; ++attempt) {
    bool last = attempt + 1 == kAttempts || !target || !options.sbufResident;
    SmallVector<Diagnostic> held;
    LogicalResult result = success();
    {
      ScopedDiagnosticHandler hold(module.getContext(), [&](Diagnostic &d) {
        if (last && !unrotatedPlan)
          return failure(); // reported as usual
        held.push_back(std::move(d));
        return success();
      });
      result = succeeded(runPhase(nki::CompilePhase::Tiled, opts)) &&
                       succeeded(runPhase(nki::CompilePhase::Planned, opts))
                   ? success()
                   : failure();
    }
    if (failed(result) && unrotatedPlan) {
      replaceContents(module, *unrotatedPlan);
      report.planRetries = unrotatedRetries;
      report.residentMargin = unrotatedMargin;
      return success();
    }
    if (last) {
      for (Diagnostic &d : held)
        module.getContext()->getDiagEngine().emit(std::move(d));
      return result;
    }
    bool fragmented = llvm::any_of(held, [](const Diagnostic &d) {
      return StringRef(d.str()).contains("SBUF overflow");
    });
    // A plan that fits but could not rotate its tiles at any window orders
    // the kernels one after another through the bytes they reuse: planned
    // again the same way.
    bool unrotated = false;
    if (succeeded(result))
      module.walk([&](func::FuncOp f) {
        unrotated |= f->hasAttr(nki::tile::kSbufUnrotatedAttr);
      });
    if ((succeeded(result) && !unrotated) || (failed(result) && !fragmented)) {
      for (Diagnostic &d : held)
        module.getContext()->getDiagEngine().emit(std::move(d));
      return result;
    }
    if (unrotated && !unrotatedPlan) {
      unrotatedPlan = module.clone();
      unrotatedRetries = report.planRetries;
      unrotatedMargin = report.residentMargin;
    }
    // From the graph again.
    OwningOpRef<ModuleOp> fresh = graph->clone();
    replaceContents(module, *fresh);
    opts.residentMargin = std::max<int64_t>(
        options.residentMargin,
        int64_t(target->sbufBytesPerPartition) * (attempt + 1) / 8);
    report.planRetries = attempt + 1;
    report.residentMargin = opts.residentMargin;
  }
}

FailureOr<std::string> nki::compileModule(ModuleOp module,
                                          const CompileOptions &options,
                                          CompileReport &report,
                                          const DriverOptions &driver) {
  report.target = options.target;
  report.autoCast = options.autoCast;
  // One pass manager per phase, so that each is timed on its own. The
  // phases run on `current` and record into `into`: the module and report,
  // or a second candidate's (below).
  CompilePhase last = std::min(options.compileTo, CompilePhase::NISA);
  ModuleOp current = module;
  CompileReport *into = &report;
  auto runPhase = [&](CompilePhase p, const CompileOptions &opts) {
    PassManager pm(current.getContext());
    if (driver.configure && failed(driver.configure(pm)))
      return failure();
    std::optional<TimingScope> phaseScope;
    if (driver.timing) {
      phaseScope = driver.timing->nest(compilePhaseName(p).str());
      pm.enableTiming(*phaseScope);
    }
    pm.enableVerifier(driver.verify == VerifyLevel::Each);
    addPhasePasses(pm, opts, p);
    auto start = std::chrono::steady_clock::now();
    if (failed(pm.run(current)))
      return failure();
    // Under Ends a binary's nisa program is not verified as IR: the
    // encoder checks it whole against the ISA (isa::verifyProgram), the
    // checks the nisa ops' verifiers make.
    bool verifyLast = p == last && options.compileTo != CompilePhase::Binary;
    bool verifyPhase = driver.verify == VerifyLevel::Phases ||
                       (driver.verify == VerifyLevel::Ends &&
                        (p == CompilePhase::Graph || verifyLast));
    if (verifyPhase) {
      std::optional<TimingScope> verifyScope;
      if (phaseScope)
        verifyScope = phaseScope->nest("verify");
      if (failed(verify(current)))
        return failure();
    }
    into->phaseSeconds.push_back(
        {compilePhaseName(p).str(), secondsSince(start)});
    if (p == CompilePhase::Graph) {
      recordQuantisedWeights(current, *into);
      recordBatchGroups(current, *into);
    }
    if (p == CompilePhase::Planned)
      recordMemoryPeaks(current, *into);
    return success();
  };
  // The phases up to the scheduled one (or `last`) on `m`.
  auto runUpToScheduled = [&](ModuleOp m, const CompileOptions &opts) {
    for (CompilePhase p :
         {CompilePhase::Graph, CompilePhase::Tiled, CompilePhase::Scheduled}) {
      if (p > last)
        break;
      if (p != CompilePhase::Tiled || last == CompilePhase::Tiled) {
        if (failed(runPhase(p, opts)))
          return failure();
        continue;
      }
      if (failed(tileAndPlan(m, opts, *into, runPhase)))
        return failure();
    }
    return success();
  };
  // The source, for a second candidate of the batch split.
  OwningOpRef<ModuleOp> source;
  if (options.batchGroups == 0 && options.batchChains == 0 &&
      last >= CompilePhase::Scheduled)
    source = module.clone();
  if (failed(runUpToScheduled(module, options)))
    return failure();
  int64_t groups = 0, chains = 0;
  if (source && report.batchGroups) {
    groups = report.batchGroups->alternative;
    chains = report.batchGroups->alternativeChains;
  }
  if (groups || chains) {
    // nki-split-batch's estimate cannot tell whether `groups` groups
    // (BatchGroupSolution::alternative) or `chains` chains
    // (alternativeChains) run faster: compile them too and keep the
    // schedule that ends first. The second's diagnostics are dropped; if
    // it fails, the first stands.
    CompileOptions second = options;
    second.batchGroups = groups;
    second.batchChains = chains;
    std::string what = chains        ? std::to_string(chains) + " chains"
                       : groups == 1 ? std::string("unsplit")
                                     : std::to_string(groups) + " groups";
    CompileReport secondReport;
    current = *source;
    into = &secondReport;
    LogicalResult compiled = failure();
    {
      ScopedDiagnosticHandler drop(module.getContext(),
                                   [](Diagnostic &) { return success(); });
      compiled = runUpToScheduled(*source, second);
    }
    current = module;
    into = &report;
    int64_t first = makespanOf(module), other = makespanOf(*source);
    // The batch unsplit against a split: the split moves less through HBM
    // (EfficientNet-B0's windows at batch 8 under auto-cast: 40.7 against
    // 79.2 MB for a schedule 0.2 % longer), which the schedule's end does
    // not weigh; kept only when clearly shorter.
    double margin = 0;
    if (groups == 1)
      margin = report.batchGroups && report.batchGroups->traffic
                   ? kTrafficMargin
                   : kUnsplitMargin;
    double limit = double(first) * (1 - margin);
    bool keep = succeeded(compiled) && other >= 0 && first >= 0 &&
                double(other) < limit;
    for (auto &[phase, seconds] : secondReport.phaseSeconds)
      report.phaseSeconds.push_back({phase + " (" + what + ")", seconds});
    if (keep) {
      replaceContents(module, *source);
      report.quantisedWeights = std::move(secondReport.quantisedWeights);
      report.batchGroups = secondReport.batchGroups;
      if (groups == 1 && report.batchGroups)
        report.batchGroups->why = "the batch unsplit, below";
      report.sbufPeak = secondReport.sbufPeak;
      report.psumPeak = secondReport.psumPeak;
      report.planRetries = secondReport.planRetries;
      report.residentMargin = secondReport.residentMargin;
    }
    if (report.batchGroups) {
      CompileReport::BatchGroups &b = *report.batchGroups;
      b.alternative = groups;
      b.alternativeChains = chains;
      b.alternativeCompiled = succeeded(compiled);
      b.alternativeUs = other >= 0 ? double(other) / 1e6 : -1;
      b.defaultUs = first >= 0 ? double(first) / 1e6 : -1;
      b.alternativeKept = keep;
    }
  }
  source = nullptr;
  if (last == CompilePhase::NISA &&
      failed(runPhase(CompilePhase::NISA, options)))
    return failure();

  std::string out;
  if (options.compileTo == CompilePhase::Binary) {
    recordInstructions(module, report);
    auto start = std::chrono::steady_clock::now();
    FailureOr<std::string> bytes = encodeNISA(module);
    if (failed(bytes))
      return failure();
    out = std::move(*bytes);
    report.phaseSeconds.push_back({"binary", secondsSince(start)});
  } else {
    // The nisa phase is the program as it will be encoded: checked as a
    // whole (tensor table, streams, every instruction) by the ISA library.
    if (options.compileTo == CompilePhase::NISA)
      for (auto program : module.getOps<nisa::ProgramOp>())
        if (failed(programFromNISA(program)))
          return failure();
    llvm::raw_string_ostream os(out);
    module->print(os);
  }
  report.peakResidentBytes = peakResidentBytes();
  return out;
}
