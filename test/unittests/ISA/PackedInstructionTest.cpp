//===- PackedInstructionTest.cpp - Packing keeps every field
//---------------===//

#include "nki/ISA/PackedInstruction.h"

#include "gtest/gtest.h"

using namespace nki::isa;

namespace {

void expectSame(const AccessPattern &a, const AccessPattern &b) {
  EXPECT_EQ(a.offset, b.offset);
  for (int d = 0; d < AccessPattern::kMaxDims; ++d) {
    EXPECT_EQ(a.dims[d].stride, b.dims[d].stride) << "dim " << d;
    EXPECT_EQ(a.dims[d].size, b.dims[d].size) << "dim " << d;
  }
  EXPECT_EQ(a.startPartition, b.startPartition);
  EXPECT_EQ(a.numPartitions, b.numPartitions);
  EXPECT_EQ(a.memory, b.memory);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.rank, b.rank);
}

void expectSame(const Instruction &a, const Instruction &b) {
  EXPECT_EQ(a.opcode, b.opcode);
  expectSame(a.dst, b.dst);
  expectSame(a.src0, b.src0);
  expectSame(a.src1, b.src1);
  expectSame(a.src2, b.src2);
  expectSame(a.src3, b.src3);
  for (auto [x, y] :
       {std::pair{&a.scalar0, &b.scalar0}, std::pair{&a.scalar1, &b.scalar1}}) {
    EXPECT_EQ(x->isImmediate, y->isImmediate);
    EXPECT_EQ(x->imm, y->imm);
    expectSame(x->ap, y->ap);
  }
  EXPECT_EQ(a.alu0, b.alu0);
  EXPECT_EQ(a.alu1, b.alu1);
  EXPECT_EQ(a.func, b.func);
  EXPECT_EQ(a.affine.offset, b.affine.offset);
  EXPECT_EQ(a.affine.partitionCoef, b.affine.partitionCoef);
  EXPECT_EQ(a.affine.freeCoefs, b.affine.freeCoefs);
  EXPECT_EQ(a.hasAccum, b.hasAccum);
  expectSame(a.accum, b.accum);
  EXPECT_EQ(a.reduceAxes, b.reduceAxes);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.rows, b.rows);
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

AccessPattern pattern(int seed) {
  AccessPattern ap;
  ap.offset = 1000 * seed + 8;
  ap.rank = 2;
  ap.dims[0] = {int64_t(seed + 1), 4};
  ap.dims[1] = {1, int64_t(seed + 2)};
  // Beyond the rank: unused, but kept bit for bit.
  ap.dims[4] = {int64_t(-seed), 7};
  ap.startPartition = seed;
  ap.numPartitions = 32;
  ap.memory = seed % 2 ? Memory::PSUM : Memory::HBM;
  ap.dtype = DType::BF16;
  return ap;
}

TEST(PackedInstructionTest, DefaultRoundTrips) {
  expectSame(PackedInstruction().unpack(), Instruction());
}

TEST(PackedInstructionTest, EveryFieldRoundTrips) {
  Instruction inst;
  inst.opcode = Opcode::Activation;
  inst.dst = pattern(1);
  inst.src0 = pattern(2);
  inst.src1 = pattern(3);
  inst.src2 = pattern(4);
  inst.src3 = pattern(5);
  inst.scalar0 = {false, 2.5f, pattern(6)};
  inst.scalar1 = {true, -1.0f, pattern(7)};
  inst.alu0 = AluOp::Max;
  inst.alu1 = AluOp::Min;
  inst.func = ActFunc::Exp;
  inst.affine = {3, -1, {1, 2, 3, 4}};
  inst.hasAccum = true;
  inst.accum = pattern(8);
  inst.reduceAxes = 2;
  inst.start = false;
  inst.rows = 2;
  inst.reverse0 = inst.reverse1 = true;
  inst.waits = {{1, 2}, {3, 4}};
  inst.hasSignal = true;
  inst.signal = {5, 6};
  inst.loc = "model.onnx:3:4";
  PackedInstruction packed(inst);
  EXPECT_EQ(packed.opcode(), Opcode::Activation);
  expectSame(packed.unpack(), inst);
  // Copies are deep; moves keep the value.
  PackedInstruction copy = packed;
  expectSame(copy.unpack(), inst);
  PackedInstruction moved = std::move(copy);
  expectSame(moved.unpack(), inst);
}

TEST(PackedInstructionTest, SomeOperandsRoundTrip) {
  // A matmul's three operands: the others stay default.
  Instruction inst;
  inst.opcode = Opcode::Matmul;
  inst.dst = pattern(1);
  inst.src1 = pattern(3);
  inst.accum = pattern(2);
  expectSame(PackedInstruction(inst).unpack(), inst);
  // A pattern equal to the default except in an unused dim is kept.
  Instruction odd;
  odd.src2.dims[3] = {9, 9};
  expectSame(PackedInstruction(odd).unpack(), odd);
}

} // namespace
