//===- VerifyTest.cpp - Every constraint, accepted and rejected -----------===//

#include "nki/ISA/Verify.h"
#include "ISATestUtil.h"
#include "nki/ISA/Cost.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <climits>
#include <iterator>
#include <random>

using namespace nki::isa;
using namespace nki::isa::test;
using ::testing::HasSubstr;

namespace {

const TargetDesc &trn1 = getTarget(TargetKind::Trn1);
const TargetDesc &trn2 = getTarget(TargetKind::Trn2);

std::string check(const Instruction &inst, StreamId stream,
                  const TargetDesc &t = trn2, uint32_t numSemaphores = 4) {
  absl::Status s = verifyInstruction(t, stream, inst, numSemaphores);
  return s.ok() ? "ok" : std::string(s.message());
}

Instruction activation() {
  Instruction i = unary(Opcode::Activation, sbuf(DType::BF16, 128, 256, 2048),
                        sbuf(DType::F32, 128, 256));
  i.func = ActFunc::Exp;
  i.scalar0 = imm(2.0f);
  i.scalar1 = perPartition(sbuf(DType::F32, 128, 1, 8192));
  return i;
}

TEST(Verify, ValidInstructionsPass) {
  EXPECT_EQ(check(matmul(128, 128, 512), kPE), "ok");
  EXPECT_EQ(check(activation(), kACT), "ok");
  EXPECT_EQ(
      check(unary(Opcode::Transpose, psum(128, 64), sbuf(DType::BF16, 64, 128)),
            kPE),
      "ok");
  EXPECT_EQ(check(tensorTensor(AluOp::Add, sbuf(DType::F32, 128, 64),
                               sbuf(DType::F32, 128, 64, 1024), psum(128, 64)),
                  kDVE),
            "ok");
  EXPECT_EQ(check(dma(sbuf(DType::F32, 128, 64), hbm(DType::F32, 8192)), kDMA0),
            "ok");
}

TEST(Verify, EngineMustRunTheOpcode) {
  EXPECT_EQ(check(matmul(128, 128, 512), kACT),
            "matmul: cannot run on stream act (runs on pe)");
  Instruction reduce = unary(Opcode::TensorReduce, sbuf(DType::F32, 128, 1),
                             sbuf(DType::F32, 128, 64, 64));
  reduce.alu0 = AluOp::Add;
  EXPECT_EQ(check(reduce, kDVE), "ok");
  EXPECT_EQ(check(reduce, kPOOL),
            "tensor_reduce: cannot run on stream pool (runs on dve)");
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::BF16, 128, 64),
                           sbuf(DType::F32, 128, 64, 1024));
  EXPECT_EQ(check(copy, kPOOL), "ok");
  EXPECT_THAT(check(copy, kDMA0), HasSubstr("runs on dve, pool"));
  Instruction d = dma(hbm(DType::F32, 16), hbm(DType::F32, 16, 64));
  EXPECT_EQ(check(d, {Engine::DMA, 15}), "ok");
  EXPECT_EQ(check(d, {Engine::DMA, 16}),
            "dma_copy: stream dma16 does not exist: trn2 has 16 DMA queues");
}

TEST(Verify, Connectivity) {
  Instruction mm = matmul(128, 128, 512);
  mm.src1.memory = Memory::PSUM;
  EXPECT_EQ(check(mm, kPE), "matmul: src1 (moving) is in psum; the tensor "
                            "engine reads SBUF only");
  mm = matmul(128, 128, 512);
  mm.dst.memory = Memory::SBUF;
  EXPECT_EQ(check(mm, kPE),
            "matmul: dst is in sbuf; the tensor engine writes PSUM only");

  Instruction act = activation();
  act.src0.memory = Memory::HBM;
  EXPECT_EQ(check(act, kACT), "activation: src0 is in hbm; compute engines "
                              "access SBUF and PSUM only");
  act = activation();
  act.src0 = psum(128, 256);
  EXPECT_EQ(check(act, kACT), "ok"); // one PSUM input
  act.scalar1.ap.memory = Memory::PSUM;
  act.scalar1.ap.offset = 4096;
  EXPECT_EQ(check(act, kACT), "activation: 2 inputs are in PSUM; at most one "
                              "PSUM input is allowed");

  Instruction tt = tensorTensor(AluOp::Mul, psum(128, 64), psum(128, 64, 512),
                                sbuf(DType::F32, 128, 64));
  EXPECT_EQ(check(tt, kDVE), "ok"); // PSUM output and one PSUM input
  tt.src1 = psum(128, 64, 1024);
  EXPECT_THAT(check(tt, kDVE), HasSubstr("2 inputs are in PSUM"));
  tt = tensorTensor(AluOp::Mul, sbuf(DType::F32, 128, 64),
                    sbuf(DType::F32, 128, 64, 256), psum(128, 64));
  EXPECT_EQ(check(tt, kPOOL), "tensor_tensor: src1 is in psum; the gpsimd "
                              "engine accesses SBUF only");

  Instruction d = dma(sbuf(DType::F32, 128, 64), psum(128, 64));
  EXPECT_EQ(check(d, kDMA0), "dma_copy: src0 is in psum; DMA cannot access "
                             "PSUM");
  EXPECT_EQ(
      check(dma(sbuf(DType::F32, 128, 64), sbuf(DType::F32, 128, 64, 256)),
            kDMA0),
      "ok");
  EXPECT_EQ(check(dma(hbm(DType::F32, 64), hbm(DType::F32, 64, 256)), kDMA0),
            "ok");
}

TEST(Verify, PartitionCounts) {
  Instruction mm = matmul(128, 128, 512);
  mm.src0.numPartitions = 129;
  EXPECT_EQ(check(mm, kPE),
            "matmul: src0 (stationary) partition count 129 exceeds 128");
  mm.src0.numPartitions = 0;
  EXPECT_EQ(check(mm, kPE),
            "matmul: src0 (stationary) partition count 0 is below 1");
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::F32, 32, 8),
                           sbuf(DType::F32, 32, 8, 64));
  copy.src0.startPartition = 112;
  EXPECT_EQ(check(copy, kDVE), "tensor_copy: src0 partitions [112, 144) are "
                               "outside [0, 128)");
}

TEST(Verify, StartPartitionRule) {
  auto at = [](int32_t start, int32_t parts, StreamId s = kDVE) {
    AccessPattern dst = ap(Memory::SBUF, DType::F32, start, parts, 0, {{1, 8}});
    AccessPattern src = dst;
    src.offset = 64;
    return check(unary(Opcode::TensorCopy, dst, src), s);
  };
  EXPECT_EQ(at(0, 128), "ok");
  EXPECT_EQ(at(0, 96), "ok");
  EXPECT_EQ(at(32, 96), "tensor_copy: dst starts at partition 32 with 96 "
                        "partitions; a tile of more than 64 partitions must "
                        "start at 0");
  EXPECT_EQ(at(64, 64), "ok");
  EXPECT_EQ(at(64, 33), "ok");
  EXPECT_EQ(at(32, 64), "tensor_copy: dst starts at partition 32 with 64 "
                        "partitions; a tile of 33-64 partitions must start "
                        "at 0 or 64");
  EXPECT_EQ(at(96, 32), "ok");
  EXPECT_EQ(at(32, 1), "ok");
  EXPECT_EQ(at(16, 16), "tensor_copy: dst starts at partition 16 with 16 "
                        "partitions; a tile of 1-32 partitions must start at "
                        "0, 32, 64 or 96");
  // DMA is not a compute engine: any start partition.
  AccessPattern odd = ap(Memory::SBUF, DType::F32, 5, 16, 0, {{1, 8}});
  EXPECT_EQ(check(dma(odd, hbm(DType::F32, 128)), kDMA0), "ok");
}

TEST(Verify, Ranks) {
  AccessPattern five = ap(Memory::SBUF, DType::F32, 0, 128, 0,
                          {{1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}});
  AccessPattern four =
      ap(Memory::SBUF, DType::F32, 0, 128, 0, {{8, 2}, {4, 2}, {2, 2}, {1, 2}});
  EXPECT_EQ(check(unary(Opcode::TensorCopy, four, four), kDVE), "ok");
  EXPECT_EQ(check(unary(Opcode::TensorCopy, five, four), kDVE),
            "tensor_copy: dst has 5 dims; sbuf access patterns have at most 4");
  AccessPattern h = ap(Memory::HBM, DType::F32, 0, 1, 0,
                       {{16, 2}, {8, 2}, {4, 2}, {2, 2}, {1, 2}});
  EXPECT_EQ(check(dma(h, hbm(DType::F32, 32, 1024)), kDMA0), "ok");
  h.rank = 6;
  EXPECT_EQ(check(dma(h, hbm(DType::F32, 32, 1024)), kDMA0),
            "dma_copy: dst has 6 dims; hbm access patterns have at most 5");
}

TEST(Verify, SizesAndBroadcastLimit) {
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::F32, 1, 8),
                           sbuf(DType::F32, 1, 8, 64));
  copy.src0.dims[0].size = 0;
  EXPECT_EQ(check(copy, kDVE),
            "tensor_copy: src0 dim 0 has size 0; sizes must be >= 1");
  // A stride-0 broadcast may not visit more elements than SBUF holds.
  AccessPattern bcast = ap(Memory::SBUF, DType::F32, 0, 1, 0, {{0, 57345}});
  EXPECT_EQ(check(unary(Opcode::TensorCopy, bcast, bcast), kDVE),
            "tensor_copy: dst visits more than 57344 elements per partition "
            "(sbuf capacity at f32)");
  bcast.dims[0] = {0, int64_t(1) << 62};
  bcast.rank = 1;
  EXPECT_THAT(check(unary(Opcode::TensorCopy, bcast, bcast), kDVE),
              HasSubstr("visits more than"));
}

TEST(Verify, SbufBounds) {
  // The last f32 of trn1's 196608-byte partition.
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::F32, 1, 1, 196604),
                           sbuf(DType::F32, 1, 1));
  EXPECT_EQ(check(copy, kDVE, trn1), "ok");
  copy.dst.offset = 196608;
  EXPECT_EQ(check(copy, kDVE, trn1), "tensor_copy: dst touches bytes "
                                     "[196608, 196612) of sbuf, outside "
                                     "[0, 196608) per partition");
  EXPECT_EQ(check(copy, kDVE, trn2), "ok"); // trn2 has 224 KiB
  // Negative strides: the lowest byte counts.
  copy.dst = ap(Memory::SBUF, DType::F32, 0, 1, 1020, {{-1, 256}});
  copy.src0 = sbuf(DType::F32, 1, 256, 2048);
  EXPECT_EQ(check(copy, kDVE), "ok");
  copy.dst.offset = 1016;
  EXPECT_EQ(check(copy, kDVE), "tensor_copy: dst touches bytes [-4, 1020) of "
                               "sbuf, outside [0, 229376) per partition");
  copy.dst = ap(Memory::SBUF, DType::F32, 0, 1, 0, {{int64_t(1) << 61, 2}});
  EXPECT_THAT(check(copy, kDVE), HasSubstr("dst touches bytes [0, "));
}

TEST(Verify, PsumBoundsAndBanks) {
  Instruction mm = matmul(128, 128, 512);
  mm.dst.offset = 7 * 2048; // the last bank
  EXPECT_EQ(check(mm, kPE), "ok");
  mm.dst.offset = 4;
  EXPECT_EQ(check(mm, kPE), "matmul: dst bytes [4, 2052) cross a PSUM bank "
                            "boundary (banks are 2048 bytes)");
  mm.dst.offset = 8 * 2048;
  EXPECT_EQ(check(mm, kPE), "matmul: dst touches bytes [16384, 18432) of "
                            "psum, outside [0, 16384) per partition");
}

TEST(Verify, HbmBounds) {
  int64_t hbm12 = int64_t(12) << 30;
  Instruction d = dma(sbuf(DType::F32, 1, 1), hbm(DType::F32, 1, hbm12 - 4));
  EXPECT_EQ(check(d, kDMA0), "ok");
  d.src0.offset = hbm12;
  EXPECT_EQ(check(d, kDMA0), "dma_copy: src0 touches bytes [12884901888, "
                             "12884901892) of hbm, outside [0, 12884901888)");
  EXPECT_EQ(check(d, kDMA0, trn1), "ok"); // trn1 models 16 GiB
  d.src0.offset = -4;
  EXPECT_THAT(check(d, kDMA0), HasSubstr("[-4, 0) of hbm"));
}

TEST(Verify, MatmulDtypes) {
  Instruction mm = matmul(128, 128, 512);
  mm.src1.dtype = DType::FP8E4M3;
  EXPECT_EQ(check(mm, kPE), "ok"); // narrow types mix
  mm.src0.dtype = DType::F16;
  EXPECT_EQ(check(mm, kPE), "ok");
  Instruction f32 = matmul(128, 128, 256, DType::F32);
  f32.src1.offset = 1024;
  EXPECT_EQ(check(f32, kPE), "ok");
  f32.src1.dtype = DType::BF16;
  EXPECT_EQ(check(f32, kPE), "matmul: src0 (stationary) is f32 and src1 "
                             "(moving) bf16; inputs must be bf16/f16/f8e4m3/"
                             "f8e5m2 (mixed) or both f32");
  mm = matmul(128, 128, 512);
  mm.src0.dtype = DType::I8;
  EXPECT_THAT(check(mm, kPE), HasSubstr("src0 (stationary) is i8"));
  mm = matmul(128, 64, 512);
  mm.dst = ap(Memory::PSUM, DType::BF16, 0, 64, 0, {{1, 512}});
  EXPECT_EQ(check(mm, kPE),
            "matmul: dst dtype is bf16; the tensor engine writes f32");
}

TEST(Verify, MatmulDoubleRow) {
  Instruction mm = doubleRowMatmul(256, 128, 512);
  EXPECT_EQ(check(mm, kPE), "ok");
  EXPECT_EQ(check(mm, kPE, getTarget(TargetKind::Trn3)), "ok");
  mm.src1.dtype = DType::FP8E5M2; // e4m3 and e5m2 mix
  EXPECT_EQ(check(mm, kPE), "ok");
  EXPECT_EQ(check(mm, kPE, trn1), "matmul: target trn1 has no fp8 double row "
                                  "(rows = 2); it contracts 1 row a partition");
  mm.src0.dtype = DType::BF16;
  EXPECT_EQ(check(mm, kPE), "matmul: fp8 double row (rows = 2) needs "
                            "f8e4m3/f8e5m2 inputs, got bf16 and f8e5m2");
  mm = doubleRowMatmul(256, 128, 512);
  mm.rows = 3;
  EXPECT_EQ(check(mm, kPE), "matmul: rows = 3; a matmul contracts 1 row a "
                            "partition, or 2 (fp8 double row)");
  mm = doubleRowMatmul(256, 128, 512);
  mm.src1.dims[1] = Dim{512, 2}; // rows of one partition not adjacent
  mm.src1.dims[0] = Dim{1, 512};
  EXPECT_EQ(check(mm, kPE), "matmul: src1 (moving)'s innermost free dim is "
                            "(stride 512, size 2); fp8 double row needs (1, "
                            "2): k = 2 x partition + row");
  mm = doubleRowMatmul(256, 128, 512);
  mm.src0.rank = 1;
  mm.src0.dims[0] = Dim{1, 256};
  EXPECT_THAT(check(mm, kPE), HasSubstr("src0 (stationary)'s innermost free "
                                        "dim is (stride 1, size 256)"));
  // M, N and dst count columns, not elements.
  mm = doubleRowMatmul(256, 256, 512);
  mm.dst = psum(128, 512);
  EXPECT_EQ(check(mm, kPE),
            "matmul: src0 (stationary) free size M = 256 exceeds 128");
  mm = doubleRowMatmul(256, 128, 1024);
  mm.dst = psum(128, 512);
  EXPECT_EQ(check(mm, kPE),
            "matmul: src1 (moving) free size N = 1024 exceeds 512");
  mm = doubleRowMatmul(256, 128, 512);
  mm.dst = psum(128, 256);
  EXPECT_EQ(check(mm, kPE),
            "matmul: dst is [128, 256] but must be [M, N] = [128, 512]");
  // K = 2 x partitions: 128 partitions is the limit.
  mm = doubleRowMatmul(258, 128, 512);
  EXPECT_EQ(check(mm, kPE), "matmul: src0 (stationary) partition count 129 "
                            "exceeds 128");
}

TEST(Verify, MatmulMx) {
  const TargetDesc &trn3 = getTarget(TargetKind::Trn3);
  Instruction mm = mxMatmul(512, 128, 512);
  EXPECT_EQ(check(mm, kPE, trn3), "ok");
  EXPECT_EQ(check(mxMatmul(512, 128, 512, DType::FP4E2M1X2), kPE, trn3), "ok");
  mm.src1.dtype = DType::FP8E5M2; // element types may mix
  EXPECT_EQ(check(mm, kPE, trn3), "ok");
  EXPECT_EQ(check(mm, kPE),
            "matmul_mx: target trn2 has no matmul_mx (the MX quad row is "
            "trn3's)");
  mm.src0.dtype = DType::BF16;
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src0 (stationary) is bf16; matmul_mx reads f8e4m3, "
            "f8e5m2 or f4e2m1x2");
  // The quad layout: rows of a partition adjacent, 4 values (2 bytes).
  mm = mxMatmul(512, 128, 512);
  mm.src1.dims[1] = Dim{1, 2};
  mm.src1.dims[0] = Dim{2, 1024};
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src1 (moving)'s innermost free dim is (stride 1, size "
            "2); the MX quad row needs (1, 4): k = 4 x partition + row");
  mm = mxMatmul(512, 128, 512, DType::FP4E2M1X2);
  mm.src0.dims[1] = Dim{1, 1};
  mm.src0.dims[0] = Dim{1, 256};
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src0 (stationary)'s innermost free dim is (stride 1, "
            "size 1); the MX quad row needs (1, 2) bytes of two f4e2m1: k = 4 "
            "x partition + row");
  // Scales: 8 partitions x 4 rows share one; e8m0; [K/32, columns].
  mm = mxMatmul(500, 128, 512);
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src0 (stationary) has 125 partitions; matmul_mx needs "
            "a multiple of 8 (a scale covers 8 partitions x 4 rows)");
  mm = mxMatmul(512, 128, 512);
  mm.src3.dtype = DType::U8;
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src3 (moving_scale) is u8; MX scales are e8m0");
  mm = mxMatmul(512, 128, 512);
  mm.src2.numPartitions = 8;
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src2 (stationary_scale) is [8, 128] but must be "
            "[K/32, 128] = [16, 128]");
  mm = mxMatmul(512, 128, 512);
  mm.src3.dims[0] = Dim{1, 256};
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src3 (moving_scale) is [16, 256] but must be "
            "[K/32, 512] = [16, 512]");
  // Shapes count columns; K = 4 x partitions.
  mm = mxMatmul(512, 128, 1024);
  mm.dst = psum(128, 512);
  mm.src3.dims[0] = Dim{1, 1024};
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src1 (moving) has N = 1024 columns, more than 512");
  mm = mxMatmul(512, 128, 512);
  mm.dst = psum(128, 256);
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: dst is [128, 256] but must be [M, N] = [128, 512]");
  mm = mxMatmul(512, 128, 512);
  mm.src1 = mxMatmul(256, 128, 512).src1;
  mm.src3 = mxMatmul(256, 128, 512).src3;
  EXPECT_EQ(check(mm, kPE, trn3),
            "matmul_mx: src1 (moving) has 64 partitions but src0 (stationary) "
            "has 128; both are K/4");
}

TEST(Verify, MxTypes) {
  const TargetDesc &trn3 = getTarget(TargetKind::Trn3);
  // fp4 and e8m0 are trn3's; engines compute on f4e2m1 and e8m0 but not on
  // the packed pairs, which only DMA moves.
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::FP4E2M1, 128, 64),
                           sbuf(DType::F32, 128, 64, 1024));
  EXPECT_EQ(check(copy, kDVE, trn3), "ok");
  EXPECT_EQ(check(copy, kDVE),
            "tensor_copy: dst is f4e2m1; target trn2 has no MX types (f4e2m1, "
            "f4e2m1x2, e8m0)");
  copy.dst.dtype = DType::E8M0;
  EXPECT_EQ(check(copy, kDVE, trn3), "ok");
  copy.dst.dtype = DType::FP4E2M1X2;
  EXPECT_EQ(check(copy, kDVE, trn3),
            "tensor_copy: dst is f4e2m1x2 (two values a byte), which only "
            "matmul_mx reads and only a DMA copy to f4e2m1x2 moves; use "
            "f4e2m1 or u8 to compute on it");
  Instruction dma = unary(Opcode::DmaCopy, sbuf(DType::FP4E2M1X2, 128, 64),
                          hbm(DType::FP4E2M1X2, 128 * 64));
  EXPECT_EQ(check(dma, kDMA0, trn3), "ok");
  dma.src0.dtype = DType::U8;
  EXPECT_THAT(check(dma, kDMA0, trn3), HasSubstr("dst is f4e2m1x2"));
}

TEST(Verify, MatmulShapes) {
  EXPECT_EQ(check(matmul(1, 1, 1), kPE), "ok");
  Instruction mm = matmul(128, 128, 512);
  mm.src1.numPartitions = 64;
  EXPECT_EQ(check(mm, kPE), "matmul: src1 (moving) has 64 partitions but src0 "
                            "(stationary) has 128; both are the contraction K");
  mm = matmul(128, 128, 512);
  mm.src0.dims[0].size = 129;
  EXPECT_EQ(check(mm, kPE),
            "matmul: src0 (stationary) free size M = 129 exceeds 128");
  mm = matmul(128, 128, 512);
  mm.src1.dims[0].size = 513;
  EXPECT_EQ(check(mm, kPE),
            "matmul: src1 (moving) free size N = 513 exceeds 512");
  mm = matmul(128, 64, 256);
  mm.dst = psum(64, 128);
  EXPECT_EQ(check(mm, kPE),
            "matmul: dst is [64, 128] but must be [M, N] = [64, 256]");
}

TEST(Verify, Transpose) {
  Instruction t =
      unary(Opcode::Transpose, psum(128, 64), sbuf(DType::BF16, 64, 128));
  t.dst.dtype = DType::BF16;
  EXPECT_EQ(check(t, kPE),
            "transpose: dst dtype is bf16; the tensor engine writes f32");
  t = unary(Opcode::Transpose, psum(128, 64), sbuf(DType::BF16, 64, 129));
  EXPECT_EQ(check(t, kPE), "transpose: src0 free size F = 129 exceeds 128");
  t = unary(Opcode::Transpose, psum(64, 128), sbuf(DType::BF16, 64, 128));
  EXPECT_EQ(check(t, kPE),
            "transpose: dst is [64, 128] but must be [F, P] = [128, 64]");
  t = unary(Opcode::Transpose, psum(128, 64), sbuf(DType::I32, 64, 128));
  EXPECT_EQ(check(t, kPE),
            "transpose: src0 dtype i32 is not a floating-point type");
}

TEST(Verify, ActivationOperands) {
  Instruction a = activation();
  a.src0 = sbuf(DType::F32, 128, 128);
  EXPECT_EQ(check(a, kACT), "activation: src0 is [128 partitions x 128 "
                            "elements] but dst is [128 x 256]");
  a = activation();
  a.scalar1.ap.dims[0].size = 2;
  EXPECT_EQ(check(a, kACT), "activation: scalar1 (bias) must be [128, 1] like "
                            "dst's partitions, got [128, 2]");
  a = activation();
  a.hasAccum = true;
  a.accum = sbuf(DType::F32, 64, 1, 9000);
  EXPECT_EQ(check(a, kACT), "activation: accum must be [128, 1], got [64, 1]");
  a.accum.numPartitions = 128;
  EXPECT_EQ(check(a, kACT), "ok");
}

TEST(Verify, TensorTensorAndBitwise) {
  Instruction tt = tensorTensor(AluOp::Add, sbuf(DType::F32, 128, 64),
                                sbuf(DType::F32, 128, 64, 256),
                                sbuf(DType::F32, 64, 64, 512));
  EXPECT_EQ(check(tt, kDVE), "tensor_tensor: src1 is [64 partitions x 64 "
                             "elements] but dst is [128 x 64]");
  tt.src1.numPartitions = 128;
  tt.alu0 = AluOp::Bypass;
  EXPECT_EQ(check(tt, kDVE), "tensor_tensor: alu0 may not be bypass");
  tt.alu0 = AluOp::And;
  EXPECT_EQ(check(tt, kDVE),
            "tensor_tensor: and needs integer dtypes; src0 is f32");
  tt.src0.dtype = tt.src1.dtype = tt.dst.dtype = DType::I32;
  EXPECT_EQ(check(tt, kDVE), "ok");
  // Different layouts with the same element count agree.
  tt.src1 = ap(Memory::SBUF, DType::I32, 0, 128, 512, {{16, 4}, {1, 16}});
  EXPECT_EQ(check(tt, kDVE), "ok");
}

TEST(Verify, TensorScalar) {
  Instruction ts = unary(Opcode::TensorScalar, sbuf(DType::F32, 128, 64),
                         sbuf(DType::F32, 128, 64, 256));
  ts.alu0 = AluOp::Mul;
  ts.scalar0 = imm(3.0f);
  ts.alu1 = AluOp::Add;
  ts.scalar1 = perPartition(sbuf(DType::F32, 128, 1, 1024));
  EXPECT_EQ(check(ts, kDVE), "ok");
  EXPECT_EQ(check(ts, kPOOL), "ok");
  ts.scalar1.ap.numPartitions = 64;
  EXPECT_EQ(check(ts, kDVE), "tensor_scalar: scalar1 must be [128, 1] like "
                             "dst's partitions, got [64, 1]");
  ts.scalar1 = imm(1.0f);
  ts.alu0 = AluOp::Bypass;
  EXPECT_THAT(check(ts, kDVE), HasSubstr("alu0 may not be bypass"));
  ts.alu0 = AluOp::Xor;
  EXPECT_EQ(check(ts, kDVE),
            "tensor_scalar: xor needs integer src0 and dst, got f32 and f32");
}

TEST(Verify, TensorReduce) {
  Instruction r =
      unary(Opcode::TensorReduce, sbuf(DType::F32, 128, 4),
            ap(Memory::SBUF, DType::F32, 0, 128, 64, {{16, 4}, {1, 16}}));
  r.alu0 = AluOp::Max;
  r.reduceAxes = 1;
  EXPECT_EQ(check(r, kDVE), "ok");
  r.reduceAxes = 2;
  EXPECT_EQ(check(r, kDVE), "tensor_reduce: dst is [128, 4] but reducing 2 "
                            "axes of src0 leaves [128, 1]");
  r.dst = sbuf(DType::F32, 128, 1);
  EXPECT_EQ(check(r, kDVE), "ok");
  r.reduceAxes = 3;
  EXPECT_EQ(check(r, kDVE), "tensor_reduce: reduces 3 trailing axes but src0 "
                            "has 2 free dims");
  r.reduceAxes = 0;
  EXPECT_THAT(check(r, kDVE), HasSubstr("reduces 0 trailing axes"));
  r.reduceAxes = 2;
  r.alu0 = AluOp::Sub;
  EXPECT_EQ(check(r, kDVE),
            "tensor_reduce: reduction sub is not one of add, max, min");
}

TEST(Verify, SelectMemsetIotaTranspose32AffineSelect) {
  Instruction sel;
  sel.opcode = Opcode::Select;
  sel.dst = sbuf(DType::F32, 128, 64);
  sel.src0 = sbuf(DType::U8, 128, 64, 256);
  sel.src1 = sbuf(DType::F32, 128, 64, 512);
  sel.src2 = psum(128, 64);
  EXPECT_EQ(check(sel, kDVE), "ok");
  sel.src2 = psum(128, 32);
  EXPECT_EQ(check(sel, kDVE), "select: src2 (on_false) is [128 partitions x 32 "
                              "elements] but dst is [128 x 64]");

  Instruction ms;
  ms.opcode = Opcode::Memset;
  ms.dst = sbuf(DType::BF16, 128, 64);
  ms.scalar0 = imm(0.0f);
  EXPECT_EQ(check(ms, kPOOL), "ok");
  ms.scalar0 = perPartition(sbuf(DType::F32, 128, 1, 1024));
  EXPECT_EQ(check(ms, kDVE), "memset: scalar0 (value) must be an immediate");

  Instruction iota;
  iota.opcode = Opcode::Iota;
  iota.dst = sbuf(DType::I32, 128, 64);
  iota.affine.partitionCoef = 64;
  iota.affine.freeCoefs[0] = 1;
  EXPECT_EQ(check(iota, kPOOL), "ok");
  EXPECT_THAT(check(iota, kDVE), HasSubstr("cannot run on stream dve"));

  Instruction t32 = unary(Opcode::Transpose32, sbuf(DType::F32, 64, 64),
                          sbuf(DType::F32, 64, 64, 256));
  EXPECT_EQ(check(t32, kDVE), "ok");
  t32 = unary(Opcode::Transpose32, sbuf(DType::F32, 64, 48),
              sbuf(DType::F32, 64, 48, 256));
  EXPECT_EQ(check(t32, kDVE), "transpose32: src0 is [64, 48]; both must be "
                              "multiples of 32 (32x32 blocks)");

  Instruction as = unary(Opcode::AffineSelect, sbuf(DType::F32, 128, 64),
                         sbuf(DType::F32, 128, 64, 256));
  as.alu0 = AluOp::IsGe;
  as.scalar0 = imm(-1e30f);
  EXPECT_EQ(check(as, kPOOL), "ok");
  as.alu0 = AluOp::Add;
  EXPECT_EQ(check(as, kPOOL),
            "affine_select: predicate add is not a comparison");
  as.alu0 = AluOp::IsGe;
  as.scalar0 = perPartition(sbuf(DType::F32, 128, 1, 1024));
  EXPECT_EQ(check(as, kPOOL),
            "affine_select: scalar0 (fill) must be an immediate");
}

TEST(Verify, DmaElementCounts) {
  Instruction d = dma(sbuf(DType::BF16, 128, 64), hbm(DType::F32, 8192));
  EXPECT_EQ(check(d, kDMA0), "ok"); // casts allowed
  d.src0.dims[0].size = 8191;
  EXPECT_EQ(check(d, kDMA0),
            "dma_copy: src0 has 8191 elements but dst has 8192");
}

TEST(Verify, Semaphores) {
  Instruction d = dma(hbm(DType::F32, 16), hbm(DType::F32, 16, 64));
  d.waits.push_back({3, 1});
  d.hasSignal = true;
  d.signal = {0, 1};
  EXPECT_EQ(check(d, kDMA0, trn2, 4), "ok");
  EXPECT_EQ(check(d, kDMA0, trn2, 3), "dma_copy: wait 0 uses semaphore 3 but "
                                      "the program has 3 semaphores");
  d.waits.clear();
  d.signal.semaphore = 7;
  EXPECT_EQ(check(d, kDMA0, trn2, 3), "dma_copy: signal uses semaphore 7 but "
                                      "the program has 3 semaphores");
}

Program validProgram() {
  Program p;
  p.numSemaphores = 1;
  TensorDecl in{"x", TensorKind::Input, DType::F32, {128, 64}, 0, ""};
  TensorDecl w{"w", TensorKind::Constant, DType::BF16, {2}, 32768, "abcd"};
  TensorDecl out{"y", TensorKind::Output, DType::F32, {128, 64}, 65536, ""};
  p.tensors = {in, w, out};
  Instruction load = dma(sbuf(DType::F32, 128, 64), hbm(DType::F32, 8192));
  load.hasSignal = true;
  p.getOrCreateStream(kDMA0).instructions.push_back(load);
  Instruction copy = unary(Opcode::TensorCopy, sbuf(DType::F32, 128, 64, 256),
                           sbuf(DType::F32, 128, 64));
  copy.waits.push_back({0, 1});
  p.getOrCreateStream(kDVE).instructions.push_back(copy);
  return p;
}

std::string checkProgram(const Program &p) {
  absl::Status s = verifyProgram(p);
  return s.ok() ? "ok" : std::string(s.message());
}

TEST(VerifyProgram, Valid) { EXPECT_EQ(checkProgram(validProgram()), "ok"); }

TEST(VerifyProgram, Target) {
  Program p = validProgram();
  p.target = "trn9";
  EXPECT_EQ(checkProgram(p), "unknown target 'trn9' (known: trn1, trn2, trn3)");
  p.target = "trn1";
  EXPECT_EQ(checkProgram(p), "ok");
}

TEST(VerifyProgram, Tensors) {
  Program p = validProgram();
  p.tensors[2].hbmOffset = 32768 + 2; // into the constant
  EXPECT_EQ(checkProgram(p), "tensors 'w' [32768, 32772) and 'y' [32770, "
                             "65538) overlap in HBM");
  p = validProgram();
  p.tensors[1].data = "abc";
  EXPECT_EQ(checkProgram(p), "tensor 'w': constant has 3 data bytes but its "
                             "type needs 4");
  p = validProgram(); // borrowed bytes count as owned ones
  p.tensors[1].data.clear();
  p.tensors[1].borrowed = "abc";
  EXPECT_EQ(checkProgram(p), "tensor 'w': constant has 3 data bytes but its "
                             "type needs 4");
  p.tensors[1].borrowed = "abcd";
  EXPECT_EQ(checkProgram(p), "ok");
  p = validProgram();
  p.tensors[0].data = "x";
  EXPECT_EQ(checkProgram(p), "tensor 'x': input tensor carries 1 data bytes; "
                             "only constants have data");
  p.tensors[0].data.clear();
  p.tensors[0].borrowed = "x";
  EXPECT_EQ(checkProgram(p), "tensor 'x': input tensor carries 1 data bytes; "
                             "only constants have data");
  p = validProgram();
  p.tensors[2].hbmOffset = (int64_t(12) << 30) - 4;
  EXPECT_EQ(checkProgram(p), "tensor 'y': HBM bytes [12884901884, "
                             "12884934652) are outside [0, 12884901888)");
  p.tensors[2].shape = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(checkProgram(p),
            "tensor 'y': does not fit in trn2's 12884901888 bytes of HBM");
  p.tensors[2].shape = {-1};
  EXPECT_EQ(checkProgram(p), "tensor 'y': negative dimension -1");
  p = validProgram();
  p.tensors[2].name = "x";
  EXPECT_EQ(checkProgram(p), "tensor 'x': declared twice");
}

TEST(VerifyProgram, StreamsAndInstructions) {
  Program p = validProgram();
  p.streams.push_back(p.streams[0]);
  EXPECT_EQ(checkProgram(p), "stream dve appears twice");
  p = validProgram();
  p.numSemaphores = 0;
  EXPECT_EQ(checkProgram(p), "dve instruction 0: tensor_copy: wait 0 uses "
                             "semaphore 0 but the program has 0 semaphores");
  p = validProgram();
  Instruction bad = p.streams[0].instructions[0];
  bad.loc = "model.mlir:3:7";
  bad.dst.numPartitions = 200;
  p.streams[0].instructions.push_back(bad);
  EXPECT_EQ(checkProgram(p), "dve instruction 1 (model.mlir:3:7): "
                             "tensor_copy: dst partition count 200 exceeds "
                             "128");
}

} // namespace

namespace {

/// Random instructions with extreme field values: verification must answer
/// (no overflow, no crash), and what it accepts must be costable.
TEST(Verify, ExtremeValuesNeverOverflow) {
  std::mt19937_64 rng(1234);
  const int64_t extreme[] = {0,
                             -1,
                             -2,
                             129,
                             513,
                             int64_t(1) << 31,
                             int64_t(1) << 40,
                             int64_t(1) << 62,
                             INT64_MAX,
                             INT64_MIN};
  // Mostly plausible values, sometimes an extreme one.
  auto pick = [&](int64_t plausible) {
    return rng() % 8 ? plausible : extreme[rng() % std::size(extreme)];
  };
  auto randomAP = [&]() {
    AccessPattern a;
    a.memory = Memory(rng() % 3);
    a.dtype = DType(rng() % 8);
    a.startPartition = int32_t(pick(32 * int64_t(rng() % 4)));
    a.numPartitions = int32_t(pick(int64_t(1) << (rng() % 8)));
    a.offset = pick(int64_t(rng() % 4) * 2048);
    a.rank = uint8_t(rng() % 6);
    for (int i = 0; i < a.rank; ++i)
      a.dims[i] = Dim{pick(int64_t(rng() % 3) - 1), pick(1 + rng() % 16)};
    return a;
  };
  int accepted = 0;
  for (int iter = 0; iter < 200000; ++iter) {
    Instruction inst;
    inst.opcode = Opcode(rng() % kNumOpcodes);
    inst.dst = randomAP();
    inst.src0 = randomAP();
    inst.src1 = randomAP();
    inst.src2 = randomAP();
    if (rng() % 2)
      inst.scalar0 = perPartition(randomAP());
    if (rng() % 2)
      inst.scalar1 = perPartition(randomAP());
    inst.hasAccum = rng() % 2;
    inst.accum = randomAP();
    inst.alu0 = AluOp(rng() % 17);
    inst.alu1 = AluOp(rng() % 17);
    inst.func = ActFunc(rng() % 19);
    inst.reduceAxes = uint8_t(rng() % 7);
    StreamId stream = StreamId::fromIndex(int(rng() % 22));
    const TargetDesc &t = rng() % 2 ? trn1 : trn2;
    if (!verifyInstruction(t, stream, inst, 2).ok())
      continue;
    ++accepted;
    EngineTimingState state;
    Duration d = instructionDuration(t, stream, inst, state);
    EXPECT_GT(d.busyPs, 0);
    EXPECT_GE(d.completePs, d.busyPs);
  }
  EXPECT_GT(accepted, 100);
}

} // namespace
