//===- ISAConversionTest.cpp - nisa ops <-> isa::Instruction --------------===//
//
// For every opcode: an Instruction with a non-default value in every field
// the opcode uses survives Instruction -> op -> Instruction, and also
// Instruction -> op -> text -> op -> Instruction. This is what makes
// binary -> nisa -> binary byte-identical.
//
//===----------------------------------------------------------------------===//

#include "nki/Dialect/NISA/ISAConversion.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mlir;
using namespace nki;

namespace {

isa::AccessPattern ap(isa::Memory memory, int32_t start, int32_t partitions,
                      int64_t offset, isa::DType dtype,
                      std::vector<isa::Dim> dims) {
  isa::AccessPattern p;
  p.memory = memory;
  p.startPartition = start;
  p.numPartitions = partitions;
  p.offset = offset;
  p.dtype = dtype;
  p.rank = uint8_t(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    p.dims[i] = dims[i];
  return p;
}

isa::AccessPattern sbuf(int64_t offset, int64_t n = 64) {
  return ap(isa::Memory::SBUF, 0, 128, offset, isa::DType::F32, {{1, n}});
}

isa::ScalarOperand imm(float value) {
  isa::ScalarOperand s;
  s.imm = value;
  return s;
}

isa::ScalarOperand column(int64_t offset) {
  isa::ScalarOperand s;
  s.isImmediate = false;
  s.ap = ap(isa::Memory::SBUF, 0, 128, offset, isa::DType::F32, {{0, 1}});
  return s;
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

void expectSameScalar(const isa::ScalarOperand &a,
                      const isa::ScalarOperand &b) {
  EXPECT_EQ(a.isImmediate, b.isImmediate);
  if (a.isImmediate)
    EXPECT_TRUE(sameBits(a.imm, b.imm)) << a.imm << " vs " << b.imm;
  else
    EXPECT_TRUE(a.ap == b.ap);
}

void expectSame(const isa::Instruction &a, const isa::Instruction &b) {
  EXPECT_EQ(a.opcode, b.opcode);
  EXPECT_TRUE(a.dst == b.dst);
  EXPECT_TRUE(a.src0 == b.src0);
  EXPECT_TRUE(a.src1 == b.src1);
  EXPECT_TRUE(a.src2 == b.src2);
  EXPECT_TRUE(a.src3 == b.src3);
  expectSameScalar(a.scalar0, b.scalar0);
  expectSameScalar(a.scalar1, b.scalar1);
  EXPECT_EQ(a.alu0, b.alu0);
  EXPECT_EQ(a.alu1, b.alu1);
  EXPECT_EQ(a.func, b.func);
  EXPECT_EQ(a.affine.offset, b.affine.offset);
  EXPECT_EQ(a.affine.partitionCoef, b.affine.partitionCoef);
  EXPECT_EQ(a.affine.freeCoefs, b.affine.freeCoefs);
  EXPECT_EQ(a.hasAccum, b.hasAccum);
  EXPECT_TRUE(a.accum == b.accum);
  EXPECT_EQ(a.reduceAxes, b.reduceAxes);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.reverse0, b.reverse0);
  EXPECT_EQ(a.reverse1, b.reverse1);
  ASSERT_EQ(a.waits.size(), b.waits.size());
  for (size_t i = 0; i < a.waits.size(); ++i) {
    EXPECT_EQ(a.waits[i].semaphore, b.waits[i].semaphore);
    EXPECT_EQ(a.waits[i].value, b.waits[i].value);
  }
  EXPECT_EQ(a.hasSignal, b.hasSignal);
  EXPECT_EQ(a.signal.semaphore, b.signal.semaphore);
  EXPECT_EQ(a.signal.increment, b.signal.increment);
  EXPECT_EQ(a.loc, b.loc);
}

/// One instruction per opcode, each field it uses away from its default.
std::vector<isa::Instruction> everyOpcode() {
  std::vector<isa::Instruction> all;
  auto add = [&](isa::Opcode opcode) -> isa::Instruction & {
    isa::Instruction &inst = all.emplace_back();
    inst.opcode = opcode;
    inst.dst = sbuf(0);
    inst.waits = {{1, 2}, {3, 4000000000u}};
    inst.hasSignal = true;
    inst.signal = {2, 7};
    inst.loc = "kernel.mlir:" + std::to_string(all.size()) + ":3";
    return inst;
  };
  {
    isa::Instruction &i = add(isa::Opcode::Matmul);
    i.dst = ap(isa::Memory::PSUM, 0, 128, 2048, isa::DType::F32, {{1, 512}});
    i.src0 = ap(isa::Memory::SBUF, 0, 128, 0, isa::DType::BF16, {{1, 128}});
    i.src1 = ap(isa::Memory::SBUF, 0, 128, 256, isa::DType::FP8E4M3,
                {{2, 256}, {1, 2}});
    i.start = false;
  }
  {
    isa::Instruction &i = add(isa::Opcode::Transpose);
    i.src0 = ap(isa::Memory::SBUF, 64, 32, 16, isa::DType::F16, {{1, 8}});
  }
  {
    isa::Instruction &i = add(isa::Opcode::MatmulMx);
    i.dst = ap(isa::Memory::PSUM, 0, 128, 0, isa::DType::F32, {{1, 512}});
    i.src0 = ap(isa::Memory::SBUF, 0, 128, 0, isa::DType::FP4E2M1X2,
                {{2, 128}, {1, 2}});
    i.src1 = ap(isa::Memory::SBUF, 0, 128, 512, isa::DType::FP8E5M2,
                {{4, 512}, {1, 4}});
    i.src2 = ap(isa::Memory::SBUF, 0, 16, 4096, isa::DType::E8M0, {{1, 128}});
    i.src3 = ap(isa::Memory::SBUF, 0, 16, 4224, isa::DType::E8M0, {{1, 512}});
    i.start = false;
  }
  {
    isa::Instruction &i = add(isa::Opcode::Activation);
    i.func = isa::ActFunc::GeluTanh;
    i.src0 = sbuf(256);
    i.scalar0 = column(512);
    i.scalar1 = imm(-0.0f);
    i.hasAccum = true;
    i.accum = sbuf(516, 1);
  }
  {
    isa::Instruction &i = add(isa::Opcode::TensorTensor);
    i.alu0 = isa::AluOp::Pow;
    i.src0 = sbuf(256);
    i.src1 = ap(isa::Memory::PSUM, 0, 128, 0, isa::DType::F32, {{1, 64}});
  }
  {
    isa::Instruction &i = add(isa::Opcode::TensorScalar);
    i.src0 = sbuf(256);
    i.alu0 = isa::AluOp::Sub;
    i.scalar0 = imm(std::numeric_limits<float>::denorm_min());
    i.reverse0 = true;
    i.alu1 = isa::AluOp::Max;
    i.scalar1 = column(1024);
    i.reverse1 = true;
  }
  {
    isa::Instruction &i = add(isa::Opcode::TensorReduce);
    i.alu0 = isa::AluOp::Min;
    i.src0 = ap(isa::Memory::SBUF, 0, 128, 0, isa::DType::BF16,
                {{64, 4}, {8, 8}, {1, 8}});
    i.reduceAxes = 2;
  }
  {
    isa::Instruction &i = add(isa::Opcode::TensorCopy);
    i.src0 = ap(isa::Memory::SBUF, 0, 128, 8, isa::DType::U8, {{-1, 64}});
  }
  {
    isa::Instruction &i = add(isa::Opcode::Memset);
    uint32_t nanBits = 0x7fc00123;
    std::memcpy(&i.scalar0.imm, &nanBits, 4);
  }
  {
    isa::Instruction &i = add(isa::Opcode::Select);
    i.src0 = sbuf(256);
    i.src1 = sbuf(512);
    i.src2 = ap(isa::Memory::SBUF, 0, 128, 1024, isa::DType::I32, {{0, 64}});
  }
  {
    isa::Instruction &i = add(isa::Opcode::Transpose32);
    i.src0 = sbuf(4096);
  }
  {
    isa::Instruction &i = add(isa::Opcode::Iota);
    i.affine = {-5, 64, {1, -2, 3, std::numeric_limits<int64_t>::min()}};
  }
  {
    isa::Instruction &i = add(isa::Opcode::AffineSelect);
    i.src0 = sbuf(256);
    i.affine = {0, 1, {-1, 0, 0, 0}};
    i.alu0 = isa::AluOp::IsGe;
    i.scalar0 = imm(-3.0e38f);
  }
  {
    isa::Instruction &i = add(isa::Opcode::DmaCopy);
    i.dst = ap(isa::Memory::HBM, 0, 1, 1 << 20, isa::DType::BF16,
               {{256, 2}, {1, 3}, {1, 1}, {0, 2}, {5, 1}});
    i.src0 = sbuf(64, 12);
  }
  return all;
}

class ISAConversionTest : public ::testing::Test {
protected:
  ISAConversionTest() { context.loadDialect<nisa::NISADialect>(); }

  /// A program with one stream holding `inst`, built from the Instruction.
  OwningOpRef<ModuleOp> build(const isa::Instruction &inst) {
    OpBuilder builder(&context);
    Location unknown = builder.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);
    builder.setInsertionPointToEnd(module->getBody());
    auto program = nisa::ProgramOp::create(builder, unknown, "trn2", 8);
    builder.setInsertionPointToEnd(&program.getBody().front());
    auto stream = nisa::StreamOp::create(builder, unknown, "pe");
    builder.setInsertionPointToEnd(&stream.getBody().front());
    nisa::buildInstructionOp(
        builder, nisa::locationFromString(&context, inst.loc), inst);
    return module;
  }

  static isa::Instruction only(ModuleOp module) {
    isa::Instruction result;
    int count = 0;
    module.walk([&](nisa::InstructionOpInterface op) {
      result = nisa::toInstruction(op);
      ++count;
    });
    EXPECT_EQ(count, 1);
    return result;
  }

  MLIRContext context;
};

TEST_F(ISAConversionTest, EveryOpcodeRoundTripsThroughOps) {
  for (const isa::Instruction &inst : everyOpcode()) {
    SCOPED_TRACE(std::string(isa::opcodeName(inst.opcode)));
    OwningOpRef<ModuleOp> module = build(inst);
    expectSame(inst, only(*module));
  }
}

TEST_F(ISAConversionTest, EveryOpcodeRoundTripsThroughText) {
  for (const isa::Instruction &inst : everyOpcode()) {
    SCOPED_TRACE(std::string(isa::opcodeName(inst.opcode)));
    OwningOpRef<ModuleOp> module = build(inst);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo());
    // Parsing needs no verification here: the stream is `pe` whatever the
    // opcode, and the point is the syntax, not the hardware rules.
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, config);
    ASSERT_TRUE(parsed) << text;
    expectSame(inst, only(*parsed));
  }
}

TEST_F(ISAConversionTest, OpNamesAreTheISAMnemonics) {
  for (const isa::Instruction &inst : everyOpcode()) {
    OwningOpRef<ModuleOp> module = build(inst);
    module->walk([&](nisa::InstructionOpInterface op) {
      EXPECT_EQ(op->getName().stripDialect().str(),
                std::string(isa::opcodeName(inst.opcode)));
    });
  }
  EXPECT_EQ(everyOpcode().size(), size_t(isa::kNumOpcodes));
}

TEST_F(ISAConversionTest, LocationsRoundTrip) {
  for (const char *text : {"", "a.mlir:3:5", "/x/y z.mlir:10:1", "a.mlir:3",
                           "a:b:c", "f.mlir:03:5", "just a name"}) {
    EXPECT_EQ(nisa::locationToString(nisa::locationFromString(&context, text)),
              text);
  }
  // A named location is a source op (an ONNX node): its name is the text.
  Location file = FileLineColLoc::get(&context, "k.mlir", 7, 9);
  EXPECT_EQ(nisa::locationToString(NameLoc::get(
                StringAttr::get(&context, "/layer1/conv1/Conv"), file)),
            "/layer1/conv1/Conv");
  EXPECT_EQ(nisa::locationToString(
                NameLoc::get(StringAttr::get(&context, ""), file)),
            "k.mlir:7:9");
  EXPECT_EQ(nisa::locationToString(FusedLoc::get(
                &context, {UnknownLoc::get(&context), file})),
            "k.mlir:7:9");
}

} // namespace
