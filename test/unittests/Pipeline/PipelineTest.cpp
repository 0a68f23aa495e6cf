//===- PipelineTest.cpp - The compiler as a library -------------------------===//
//
// compileToBinary returns bytes for a good module and, for a bad one, a
// failure with the diagnostics delivered to the caller's handler: the
// process never exits.
//
//===----------------------------------------------------------------------===//

#include "nki/Pipeline/Pipeline.h"
#include "nki/ISA/Binary.h"
#include "nki/InitAll.h"
#include "nki/Pipeline/Driver.h"

#include "nki/Dialect/NKI/NKIDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context,
                                        const char *source) {
  return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
}

struct PipelineTest : ::testing::Test {
  PipelineTest() {
    nki::registerAllDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
  }
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
};

TEST_F(PipelineTest, CompilesToADecodableBinary) {
  auto module = parse(*context, R"mlir(
    func.func @main(%a: tensor<130x40xf32> {nki.name = "a"}) -> tensor<130x40xf32> {
      %e = tensor.empty() : tensor<130x40xf32>
      %r = linalg.exp ins(%a : tensor<130x40xf32>) outs(%e : tensor<130x40xf32>) -> tensor<130x40xf32>
      return %r : tensor<130x40xf32>
    })mlir");
  ASSERT_TRUE(module);
  nki::CompileOptions options;
  options.target = "trn1";
  mlir::FailureOr<std::string> bytes = nki::compileToBinary(*module, options);
  ASSERT_TRUE(mlir::succeeded(bytes));
  absl::StatusOr<nki::isa::Program> program = nki::isa::decodeProgram(*bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->target, "trn1");
  ASSERT_NE(program->findTensor("a"), nullptr);
  ASSERT_NE(program->findTensor("out0"), nullptr);
}

TEST_F(PipelineTest, ErrorsAreDiagnosticsNotExits) {
  auto module = parse(*context, R"mlir(
    func.func @main(%v: f32) -> tensor<4xf32> {
      %s = tensor.splat %v : tensor<4xf32>
      return %s : tensor<4xf32>
    })mlir");
  ASSERT_TRUE(module);
  std::vector<std::string> messages;
  mlir::ScopedDiagnosticHandler handler(
      context.get(), [&](mlir::Diagnostic &d) {
        messages.push_back(d.str());
        return mlir::success();
      });
  mlir::FailureOr<std::string> bytes =
      nki::compileToBinary(*module, nki::CompileOptions());
  EXPECT_TRUE(mlir::failed(bytes));
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages.front().find("'tensor.splat' op is not supported"),
            std::string::npos)
      << messages.front();
}

TEST_F(PipelineTest, PhasesHaveNames) {
  for (nki::CompilePhase p :
       {nki::CompilePhase::Graph, nki::CompilePhase::Tiled,
        nki::CompilePhase::Planned, nki::CompilePhase::Scheduled,
        nki::CompilePhase::NISA, nki::CompilePhase::Binary})
    EXPECT_EQ(nki::parseCompilePhase(nki::compilePhaseName(p)), p);
  EXPECT_FALSE(nki::parseCompilePhase("assembly").has_value());
}

TEST_F(PipelineTest, ReportSaysWhyAWindowWasTakenAndWhatItLetsGo) {
  nki::CompileReport r;
  nki::CompileReport::BatchGroups b;
  b.why = "every result fits with the whole batch";
  b.windows.push_back({22, 35, 8, 247.9, 145.3, "/a/fc2/Conv", "/b/Conv",
                       /*traffic=*/false, /*escapes=*/true});
  b.windows.push_back({60, 4, 2, 10.0, 20.0, "/c/Conv", "/d/Conv",
                       /*traffic=*/true, /*escapes=*/false});
  r.batchGroups = b;
  std::string text = nki::formatCompileReport(r);
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "batch groups: ops 22 to 56 in 8 groups (HBM 247.9 us "
                        "saved, against 145.3 us of compute; its other large "
                        "results through HBM): /a/fc2/Conv .. /b/Conv\n"));
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "batch groups: ops 60 to 63 in 2 groups (HBM 10.0 us "
                        "saved, against 20.0 us of compute; for HBM traffic): "
                        "/c/Conv .. /d/Conv\n"));
}

TEST_F(PipelineTest, ReportSaysWhatBecameOfTheSecondCandidate) {
  auto text = [](int64_t alternative, bool compiled, double secondUs,
                 double firstUs, bool kept) {
    nki::CompileReport r;
    nki::CompileReport::BatchGroups b;
    b.why = "a result does not fit with 1 image(s)";
    b.alternative = alternative;
    b.alternativeCompiled = compiled;
    b.alternativeUs = secondUs;
    b.defaultUs = firstUs;
    b.alternativeKept = kept;
    r.batchGroups = b;
    return nki::formatCompileReport(r);
  };
  EXPECT_THAT(text(2, true, 390.1, 436.1, true),
              ::testing::HasSubstr("batch groups: 2 groups compiled too, their "
                                   "schedule 390.1 us against 436.1 us: "
                                   "kept\n"));
  EXPECT_THAT(text(2, true, 414.1, 374.5, false),
              ::testing::HasSubstr("their schedule 414.1 us against 374.5 us: "
                                   "not kept\n"));
  // The second failed: the first stands.
  EXPECT_THAT(text(4, false, -1, 374.5, false),
              ::testing::HasSubstr("batch groups: 4 groups compiled too, and "
                                   "failed: the first kept\n"));
  // A phase before the schedule: nothing to compare.
  EXPECT_THAT(text(2, false, -1, -1, false),
              ::testing::HasSubstr("batch groups: 2 groups a second candidate, "
                                   "not compiled (no schedule to compare)\n"));
  // The batch unsplit (1) in place of a split.
  EXPECT_THAT(text(1, true, 2428.2, 2582.6, true),
              ::testing::HasSubstr("batch groups: the batch unsplit compiled "
                                   "too, its schedule 2428.2 us against "
                                   "2582.6 us: kept\n"));
  EXPECT_THAT(text(1, false, -1, -1, false),
              ::testing::HasSubstr("batch groups: the batch unsplit a second "
                                   "candidate, not compiled (no schedule to "
                                   "compare)\n"));
  // None named: no line.
  EXPECT_THAT(text(0, false, -1, -1, false),
              ::testing::Not(::testing::HasSubstr("second candidate")));
  EXPECT_THAT(text(0, false, -1, -1, false),
              ::testing::Not(::testing::HasSubstr("compiled too")));
}

TEST_F(PipelineTest, ReportSaysWhereChainsRanAndWhatBecameOfThem) {
  nki::CompileReport r;
  nki::CompileReport::BatchGroups b;
  b.why = "every result fits with the whole batch";
  b.alternativeChains = 4;
  b.alternativeCompiled = true;
  b.alternativeUs = 2981.6;
  b.defaultUs = 2904.0;
  r.batchGroups = b;
  EXPECT_THAT(nki::formatCompileReport(r),
              ::testing::HasSubstr("batch groups: 4 chains compiled too, their "
                                   "schedule 2981.6 us against 2904.0 us: not "
                                   "kept\n"));
  r.batchGroups->alternativeCompiled = false;
  r.batchGroups->defaultUs = -1;
  EXPECT_THAT(nki::formatCompileReport(r),
              ::testing::HasSubstr("batch groups: 4 chains a second candidate, "
                                   "not compiled (no schedule to compare)\n"));
  // Chains taken: their line, then each chain's choice.
  b = nki::CompileReport::BatchGroups();
  b.chains = 4;
  b.ops = 39;
  b.groups = 8;
  r.batchGroups = b;
  std::string text = nki::formatCompileReport(r);
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "batch groups: 4 chains, one after another, each the "
                        "whole network on 1/4 of the batch; in each:\n  batch "
                        "groups: the first 39 ops in 8 groups"));
  EXPECT_THAT(text, ::testing::Not(::testing::HasSubstr("compiled too")));
}

} // namespace

/// Marks the function's first SBUF plan as one that could not rotate (as
/// nki-plan-memory does when it falls back to greedy by size); with
/// `breakRetries`, every later plan gets a tile larger than a partition, so
/// that it overflows SBUF.
struct UnrotatedFirstPlan : mlir::PassInstrumentation {
  UnrotatedFirstPlan(int &plans, bool breakRetries)
      : plans(plans), breakRetries(breakRetries) {}
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override {
    auto func = llvm::dyn_cast<mlir::func::FuncOp>(op);
    if (pass->getArgument() != "nki-plan-memory" || plans == 0 ||
        !breakRetries || !func || func.isExternal())
      return;
    mlir::OpBuilder b(&func.getBody().front().front());
    nki::tile::AllocOp::create(
        b, func.getLoc(),
        nki::tile::getTileType({128, 70000}, b.getF32Type(),
                               nki::tile::MemorySpace::SBUF),
        mlir::IntegerAttr());
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    if (pass->getArgument() == "nki-plan-memory" && plans++ == 0)
      op->setAttr(nki::tile::kSbufUnrotatedAttr,
                  mlir::StringAttr::get(op->getContext(), "greedy-by-size"));
  }
  int &plans;
  bool breakRetries;
};

TEST_F(PipelineTest, AnUnrotatedPlanIsPlannedAgainAndStandsIfNoRetryPlans) {
  const char *source = R"mlir(
    func.func @main(%a: tensor<130x40xf32> {nki.name = "a"}) -> tensor<130x40xf32> {
      %e = tensor.empty() : tensor<130x40xf32>
      %r = linalg.exp ins(%a : tensor<130x40xf32>) outs(%e : tensor<130x40xf32>) -> tensor<130x40xf32>
      return %r : tensor<130x40xf32>
    })mlir";
  auto compile = [&](bool breakRetries, int &plans, nki::CompileReport &r) {
    auto module = parse(*context, source);
    EXPECT_TRUE(module);
    nki::CompileOptions options;
    options.target = "trn1";
    nki::DriverOptions driver;
    driver.configure = [&](mlir::PassManager &pm) {
      pm.addInstrumentation(
          std::make_unique<UnrotatedFirstPlan>(plans, breakRetries));
      return mlir::success();
    };
    mlir::ScopedDiagnosticHandler quiet(
        context.get(), [](mlir::Diagnostic &) { return mlir::success(); });
    return nki::compileModule(*module, options, r, driver);
  };
  // Planned again with an eighth of trn1's 192 KiB partition left free.
  int plans = 0;
  nki::CompileReport report;
  EXPECT_TRUE(mlir::succeeded(compile(false, plans, report)));
  EXPECT_EQ(plans, 2);
  EXPECT_EQ(report.planRetries, 1);
  EXPECT_EQ(report.residentMargin, 196608 / 8);
  // Where no retry plans at all, the unrotated plan stands.
  plans = 0;
  nki::CompileReport fallback;
  EXPECT_TRUE(mlir::succeeded(compile(true, plans, fallback)));
  EXPECT_EQ(plans, 1);
  EXPECT_EQ(fallback.planRetries, 0);
  EXPECT_EQ(fallback.residentMargin, 0);
}
