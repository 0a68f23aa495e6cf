//===- TypesTest.cpp - Names and exact conversions ------------------------===//
//
// Expected bit patterns are worked out by hand in the comments; the
// exhaustive tests check that decode-then-encode is the identity on every
// non-NaN code of each narrow format.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Types.h"
#include "nki/ISA/Instruction.h"
#include "nki/ISA/Program.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace nki::isa;

namespace {

float bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(Names, DTypes) {
  EXPECT_EQ(dtypeName(DType::F32), "f32");
  EXPECT_EQ(dtypeName(DType::FP8E4M3), "f8e4m3");
  EXPECT_EQ(dtypeBytes(DType::BF16), 2);
  EXPECT_EQ(dtypeBytes(DType::I32), 4);
  EXPECT_EQ(dtypeBytes(DType::U8), 1);
  for (DType t : {DType::F32, DType::BF16, DType::F16, DType::FP8E4M3,
                  DType::FP8E5M2, DType::I32, DType::I8, DType::U8})
    EXPECT_EQ(parseDType(dtypeName(t)), t);
  EXPECT_EQ(parseDType("f64"), std::nullopt);
  EXPECT_TRUE(isFloatDType(DType::FP8E5M2));
  EXPECT_FALSE(isFloatDType(DType::U8));
}

TEST(Names, MemoriesEnginesStreams) {
  EXPECT_EQ(parseMemory("psum"), Memory::PSUM);
  EXPECT_EQ(parseMemory("dram"), std::nullopt);
  EXPECT_EQ(parseEngine("pool"), Engine::POOL);
  EXPECT_EQ(streamName({Engine::DMA, 15}), "dma15");
  EXPECT_EQ(streamName({Engine::DVE, 0}), "dve");
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(parseStream(streamName(StreamId::fromIndex(i))),
              StreamId::fromIndex(i));
  EXPECT_EQ(parseStream("dma"), std::nullopt);
  EXPECT_EQ(parseStream("dma01"), std::nullopt);
  EXPECT_EQ(parseStream("dma1x"), std::nullopt);
  EXPECT_EQ(parseStream("dma256"), std::nullopt);
  EXPECT_EQ(parseStream("gpsimd"), std::nullopt);
  EXPECT_EQ(StreamId::fromIndex(7).queue, 3);
}

TEST(Names, OpcodesAluFuncs) {
  EXPECT_EQ(opcodeName(Opcode::AffineSelect), "affine_select");
  EXPECT_EQ(parseOpcode("dma_copy"), Opcode::DmaCopy);
  EXPECT_EQ(parseOpcode("nop"), std::nullopt);
  for (int i = 0; i < kNumOpcodes; ++i)
    EXPECT_EQ(parseOpcode(opcodeName(Opcode(i))), Opcode(i));
  EXPECT_TRUE(opcodeRunsOn(Opcode::TensorTensor, Engine::POOL));
  EXPECT_TRUE(opcodeRunsOn(Opcode::TensorTensor, Engine::DVE));
  EXPECT_FALSE(opcodeRunsOn(Opcode::TensorReduce, Engine::POOL));
  EXPECT_FALSE(opcodeRunsOn(Opcode::Matmul, Engine::ACT));
  EXPECT_TRUE(opcodeRunsOn(Opcode::DmaCopy, Engine::DMA));
  EXPECT_EQ(aluOpName(AluOp::IsGe), "ge");
  EXPECT_EQ(parseAluOp("xor"), AluOp::Xor);
  EXPECT_EQ(actFuncName(ActFunc::GeluTanh), "gelu_tanh");
  EXPECT_EQ(parseActFunc("rsqrt"), ActFunc::Rsqrt);
  EXPECT_EQ(actFuncTable(ActFunc::Exp), ActTable::ExpLog);
  EXPECT_EQ(actFuncTable(ActFunc::Silu), ActTable::Sigmoid);
  EXPECT_EQ(actFuncTable(ActFunc::Reciprocal), ActTable::Sqrt);
  EXPECT_EQ(actFuncTable(ActFunc::Cos), ActTable::SinCos);
  EXPECT_EQ(actFuncTable(ActFunc::Square), ActTable::None);
  EXPECT_EQ(tensorKindName(TensorKind::Constant), "const");
}

TEST(AccessPatternTest, Counts) {
  AccessPattern a;
  a.numPartitions = 64;
  a.rank = 2;
  a.dims[0] = {16, 4};
  a.dims[1] = {1, 16};
  EXPECT_EQ(a.elementsPerPartition(), 64);
  EXPECT_EQ(a.numElements(), 64 * 64);
  a.memory = Memory::HBM;
  EXPECT_EQ(a.numElements(), 64);
  AccessPattern b = a;
  EXPECT_TRUE(a == b);
  b.dims[4] = {7, 7}; // beyond rank: ignored
  EXPECT_TRUE(a == b);
  b.dims[1].stride = 2;
  EXPECT_FALSE(a == b);
  AccessPattern scalar;
  EXPECT_EQ(scalar.elementsPerPartition(), 1);
}

TEST(ProgramTest, StreamsStayInIndexOrder) {
  Program p;
  p.getOrCreateStream({Engine::DMA, 2});
  p.getOrCreateStream({Engine::PE, 0});
  p.getOrCreateStream({Engine::DVE, 0}).instructions.emplace_back();
  EXPECT_EQ(p.getOrCreateStream({Engine::DVE, 0}).instructions.size(), 1u);
  ASSERT_EQ(p.streams.size(), 3u);
  EXPECT_EQ(p.streams[0].id.index(), 0);
  EXPECT_EQ(p.streams[1].id.index(), 2);
  EXPECT_EQ(p.streams[2].id.index(), 6);
  TensorDecl t;
  t.name = "x";
  t.dtype = DType::BF16;
  t.shape = {3, 5};
  p.tensors.push_back(t);
  EXPECT_EQ(p.findTensor("x")->sizeBytes(), 30);
  EXPECT_EQ(p.findTensor("y"), nullptr);
  TensorDecl scalar;
  EXPECT_EQ(scalar.numElements(), 1);
}

TEST(BF16, RoundToNearestEven) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(-2.0f), 0xC000);
  // 1 + 2^-8 is halfway between 0x3F80 and 0x3F81: even wins.
  EXPECT_EQ(floatToBF16(bits(0x3F808000)), 0x3F80);
  // Halfway between 0x3F81 and 0x3F82: even (0x3F82) wins.
  EXPECT_EQ(floatToBF16(bits(0x3F818000)), 0x3F82);
  EXPECT_EQ(floatToBF16(bits(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBF16(bits(0x3F807FFF)), 0x3F80);
  // FLT_MAX is past the last bf16 + half an ulp: infinity, as IEEE says.
  EXPECT_EQ(floatToBF16(bits(0x7F7FFFFF)), 0x7F80);
  EXPECT_EQ(floatToBF16(-kInf), 0xFF80);
  EXPECT_EQ(floatToBF16(bits(0x00010000)), 0x0001); // subnormal, exact
  EXPECT_EQ(floatToBF16(bits(0x00008000)), 0x0000); // tie to even zero
}

TEST(BF16, NaNStaysQuietNaN) {
  EXPECT_EQ(floatToBF16(bits(0x7F800001)), 0x7FC0); // signalling -> quiet
  EXPECT_EQ(floatToBF16(bits(0xFFC00000)), 0xFFC0);
  EXPECT_TRUE(std::isnan(bf16ToFloat(0x7FC1)));
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
}

TEST(F16, Values) {
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(-0.0f), 0x8000);
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF); // below the 65520 tie
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // tie rounds to even: infinity
  EXPECT_EQ(floatToF16(1e10f), 0x7C00);
  EXPECT_EQ(floatToF16(-kInf), 0xFC00);
  // 1 + 2^-11: halfway between 0x3C00 and 0x3C01.
  EXPECT_EQ(floatToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(floatToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(f16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(f16ToFloat(0xFC00), -kInf);
}

TEST(F16, Subnormals) {
  float q = std::ldexp(1.0f, -24); // smallest subnormal
  EXPECT_EQ(floatToF16(q), 0x0001);
  EXPECT_EQ(floatToF16(0.5f * q), 0x0000); // tie: even (zero)
  EXPECT_EQ(floatToF16(0.75f * q), 0x0001);
  EXPECT_EQ(floatToF16(1.5f * q), 0x0002);    // tie: even
  EXPECT_EQ(floatToF16(2.5f * q), 0x0002);    // tie: even
  EXPECT_EQ(floatToF16(-1023 * q), 0x83FF);   // largest subnormal
  EXPECT_EQ(floatToF16(1023.5f * q), 0x0400); // rounds up into normals
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(f16ToFloat(0x0001), q);
  EXPECT_EQ(f16ToFloat(0x03FF), 1023 * q);
}

TEST(F16, NaN) {
  uint16_t h = floatToF16(bits(0x7F800001));
  EXPECT_EQ(h & 0x7E00, 0x7E00); // quiet NaN
  EXPECT_TRUE(std::isnan(f16ToFloat(h)));
  EXPECT_EQ(floatToF16(-kNaN) & 0x8000, 0x8000);
  EXPECT_TRUE(std::isnan(f16ToFloat(0x7C01)));
}

#ifdef __FLT16_MANT_DIG__
// The host's _Float16 conversion is IEEE round-to-nearest-even.
TEST(F16, MatchesHostFloat16) {
  std::mt19937 rng(42);
  for (int i = 0; i < 2000000; ++i) {
    uint32_t u = rng();
    // Concentrate on f16's range: exponents 100..145.
    u = (u & 0x807FFFFF) | ((100 + (u >> 23) % 46) << 23);
    float f = bits(u);
    _Float16 h = _Float16(f);
    uint16_t expected;
    std::memcpy(&expected, &h, 2);
    ASSERT_EQ(floatToF16(f), expected) << "input bits " << std::hex << u;
  }
}
#endif

TEST(E4M3, Values) {
  EXPECT_EQ(floatToFp8E4M3(1.0f), 0x38);
  EXPECT_EQ(floatToFp8E4M3(-2.0f), 0xC0);
  EXPECT_EQ(floatToFp8E4M3(448.0f), 0x7E);
  EXPECT_EQ(fp8E4M3ToFloat(0x7E), 448.0f);
  // 464 is halfway between 448 (mantissa 110) and 480 (not representable;
  // would be mantissa 111 = NaN): even -> 448.
  EXPECT_EQ(floatToFp8E4M3(464.0f), 0x7E);
  // Overflow and infinities saturate.
  EXPECT_EQ(floatToFp8E4M3(500.0f), 0x7E);
  EXPECT_EQ(floatToFp8E4M3(1e30f), 0x7E);
  EXPECT_EQ(floatToFp8E4M3(kInf), 0x7E);
  EXPECT_EQ(floatToFp8E4M3(-kInf), 0xFE);
  // 1 + 2^-4: tie between 1.0 (0x38) and 1.125 (0x39).
  EXPECT_EQ(floatToFp8E4M3(1.0625f), 0x38);
  EXPECT_EQ(floatToFp8E4M3(1.1875f), 0x3A);
  EXPECT_EQ(floatToFp8E4M3(kNaN), 0x7F);
  EXPECT_EQ(floatToFp8E4M3(-kNaN), 0xFF);
  EXPECT_TRUE(std::isnan(fp8E4M3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(fp8E4M3ToFloat(0xFF)));
}

TEST(E4M3, Subnormals) {
  float q = std::ldexp(1.0f, -9);
  EXPECT_EQ(floatToFp8E4M3(q), 0x01);
  EXPECT_EQ(floatToFp8E4M3(0.5f * q), 0x00);
  EXPECT_EQ(floatToFp8E4M3(1.5f * q), 0x02);
  EXPECT_EQ(floatToFp8E4M3(7 * q), 0x07);
  EXPECT_EQ(floatToFp8E4M3(7.5f * q), 0x08); // tie: up to even min normal
  EXPECT_EQ(floatToFp8E4M3(std::ldexp(1.0f, -6)), 0x08);
  EXPECT_EQ(fp8E4M3ToFloat(0x01), q);
  EXPECT_EQ(fp8E4M3ToFloat(0x81), -q);
}

TEST(E5M2, Values) {
  EXPECT_EQ(floatToFp8E5M2(1.0f), 0x3C);
  EXPECT_EQ(floatToFp8E5M2(57344.0f), 0x7B);
  EXPECT_EQ(fp8E5M2ToFloat(0x7B), 57344.0f);
  // 61440 is halfway between 57344 and 65536 (past the range): even would be
  // 65536, which saturates.
  EXPECT_EQ(floatToFp8E5M2(61440.0f), 0x7B);
  EXPECT_EQ(floatToFp8E5M2(1e9f), 0x7B);
  EXPECT_EQ(floatToFp8E5M2(kInf), 0x7B);
  EXPECT_EQ(floatToFp8E5M2(-kInf), 0xFB);
  EXPECT_EQ(floatToFp8E5M2(1.125f), 0x3C); // tie: even
  EXPECT_EQ(floatToFp8E5M2(1.375f), 0x3E); // tie: even
  EXPECT_EQ(fp8E5M2ToFloat(0x7C), kInf);
  EXPECT_EQ(fp8E5M2ToFloat(0xFC), -kInf);
  EXPECT_TRUE(std::isnan(fp8E5M2ToFloat(0x7D)));
  uint8_t nan = floatToFp8E5M2(kNaN);
  EXPECT_TRUE(std::isnan(fp8E5M2ToFloat(nan)));
  float q = std::ldexp(1.0f, -16);
  EXPECT_EQ(floatToFp8E5M2(q), 0x01);
  EXPECT_EQ(floatToFp8E5M2(0.5f * q), 0x00);
  EXPECT_EQ(floatToFp8E5M2(3 * q), 0x03);
  EXPECT_EQ(fp8E5M2ToFloat(0x02), 2 * q);
}

TEST(E2M1, Values) {
  // OCP FP4: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
  const float values[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint8_t c = 0; c < 8; ++c) {
    EXPECT_EQ(fp4E2M1ToFloat(c), values[c]);
    EXPECT_EQ(fp4E2M1ToFloat(uint8_t(c | 8)), -values[c]);
    EXPECT_EQ(floatToFp4E2M1(values[c]), c);
  }
  EXPECT_EQ(floatToFp4E2M1(0.25f), 0x0); // tie: even (0)
  EXPECT_EQ(floatToFp4E2M1(0.75f), 0x2); // tie: even (1.0)
  EXPECT_EQ(floatToFp4E2M1(2.5f), 0x4);  // tie: even (2)
  EXPECT_EQ(floatToFp4E2M1(3.5f), 0x6);  // tie: even (4)
  EXPECT_EQ(floatToFp4E2M1(5.0f), 0x6);  // tie: even (4)
  EXPECT_EQ(floatToFp4E2M1(5.5f), 0x7);
  EXPECT_EQ(floatToFp4E2M1(7.0f), 0x7); // saturates
  EXPECT_EQ(floatToFp4E2M1(-1e30f), 0xF);
  EXPECT_EQ(floatToFp4E2M1(kInf), 0x7);
  EXPECT_EQ(floatToFp4E2M1(kNaN), 0x7); // no NaN: +6
  EXPECT_EQ(floatToFp4E2M1(-0.0f), 0x8);
  // An f4e2m1 element is its low nibble; f4e2m1x2 moves as a byte.
  uint8_t b = 0x00;
  storeElement(DType::FP4E2M1, -3.0f, &b);
  EXPECT_EQ(b, 0x0D);
  uint8_t packed = 0xD2;
  EXPECT_EQ(loadElement(DType::FP4E2M1, &packed), 1.0f);
  EXPECT_EQ(loadElement(DType::FP4E2M1X2, &packed), 210.0f);
  storeElement(DType::FP4E2M1X2, 0x3C, &b);
  EXPECT_EQ(b, 0x3C);
}

TEST(E8M0, Values) {
  for (int c = 0; c < 255; ++c) {
    float v = e8m0ToFloat(uint8_t(c));
    ASSERT_EQ(v, std::ldexp(1.0f, c - 127)) << c;
    ASSERT_EQ(floatToE8M0(v), c) << c;
  }
  EXPECT_TRUE(std::isnan(e8m0ToFloat(0xFF)));
  EXPECT_EQ(floatToE8M0(kNaN), 0xFF);
  // The nearest power of two: 1.5 x 2^e is a tie, to the even code.
  EXPECT_EQ(floatToE8M0(1.4f), 127);
  EXPECT_EQ(floatToE8M0(1.6f), 128);
  EXPECT_EQ(floatToE8M0(1.5f), 128); // 2^0 is code 127 (odd): up
  EXPECT_EQ(floatToE8M0(3.0f), 128); // 2^1 is code 128 (even): down
  // Beyond the range: clamped; zero and negatives take the smallest.
  EXPECT_EQ(floatToE8M0(kInf), 254);
  EXPECT_EQ(floatToE8M0(1e38f * 10), 254);
  EXPECT_EQ(floatToE8M0(0.0f), 0);
  EXPECT_EQ(floatToE8M0(-4.0f), 0);
  EXPECT_EQ(floatToE8M0(std::ldexp(1.0f, -140)), 0);
}

TEST(Conversions, DecodeEncodeIsIdentity) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    float b = bf16ToFloat(uint16_t(c));
    if (!std::isnan(b))
      ASSERT_EQ(floatToBF16(b), c) << c;
    float h = f16ToFloat(uint16_t(c));
    if (!std::isnan(h))
      ASSERT_EQ(floatToF16(h), c) << c;
  }
  for (uint32_t c = 0; c < 0x100; ++c) {
    float a = fp8E4M3ToFloat(uint8_t(c));
    if (!std::isnan(a))
      ASSERT_EQ(floatToFp8E4M3(a), c) << c;
    float b = fp8E5M2ToFloat(uint8_t(c));
    if (!std::isnan(b) && !std::isinf(b)) // infinities saturate on store
      ASSERT_EQ(floatToFp8E5M2(b), c) << c;
  }
}

/// Oracle: the nearest finite code by brute force, ties to the even code,
/// beyond the largest finite value the largest finite value.
uint8_t nearestFp8(float x, float (*decode)(uint8_t)) {
  int best = -1;
  double bestErr = 0;
  for (int c = 0; c < 256; ++c) {
    float v = decode(uint8_t(c));
    if (std::isnan(v) || std::isinf(v) || std::signbit(v) != std::signbit(x))
      continue;
    double err = std::fabs(double(v) - double(x));
    if (best < 0 || err < bestErr || (err == bestErr && (c & 1) == 0)) {
      best = c;
      bestErr = err;
    }
  }
  return uint8_t(best);
}

void checkAgainstOracle(uint8_t (*encode)(float), float (*decode)(uint8_t)) {
  std::vector<float> inputs;
  // Every code, every midpoint between neighbours, and one float ulp either
  // side of each midpoint.
  for (int c = 0; c < 0x7F; ++c) {
    float a = decode(uint8_t(c)), b = decode(uint8_t(c + 1));
    if (std::isnan(b) || std::isinf(b))
      break;
    float mid = float((double(a) + double(b)) / 2);
    for (float x :
         {a, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
      inputs.push_back(x);
      inputs.push_back(-x);
    }
  }
  std::mt19937 rng(3);
  for (int i = 0; i < 30000; ++i)
    inputs.push_back(std::ldexp(float(rng() % 0x1000000) / 0x800000 - 1.0f,
                                int(rng() % 44) - 24));
  for (float x : inputs)
    ASSERT_EQ(encode(x), nearestFp8(x, decode)) << "input " << x;
}

TEST(E4M3, MatchesNearestFiniteOracle) {
  checkAgainstOracle(floatToFp8E4M3, fp8E4M3ToFloat);
}

TEST(E5M2, MatchesNearestFiniteOracle) {
  checkAgainstOracle(floatToFp8E5M2, fp8E5M2ToFloat);
}

float storeLoad(DType t, float v) {
  uint8_t buf[4] = {};
  storeElement(t, v, buf);
  return loadElement(t, buf);
}

TEST(Integers, RoundToNearestEvenThenSaturate) {
  EXPECT_EQ(storeLoad(DType::I32, 2.5f), 2.0f);
  EXPECT_EQ(storeLoad(DType::I32, 3.5f), 4.0f);
  EXPECT_EQ(storeLoad(DType::I32, -2.5f), -2.0f);
  EXPECT_EQ(storeLoad(DType::I32, -2.6f), -3.0f);
  EXPECT_EQ(storeLoad(DType::I32, 3e9f), 2147483647.0f);
  EXPECT_EQ(storeLoad(DType::I32, -3e9f), -2147483648.0f);
  EXPECT_EQ(storeLoad(DType::I32, kNaN), 0.0f);
  EXPECT_EQ(storeLoad(DType::I8, 127.5f), 127.0f);
  EXPECT_EQ(storeLoad(DType::I8, -128.5f), -128.0f);
  EXPECT_EQ(storeLoad(DType::I8, 200.0f), 127.0f);
  EXPECT_EQ(storeLoad(DType::I8, -kInf), -128.0f);
  EXPECT_EQ(storeLoad(DType::U8, -1.0f), 0.0f);
  EXPECT_EQ(storeLoad(DType::U8, 254.5f), 254.0f);
  EXPECT_EQ(storeLoad(DType::U8, 255.5f), 255.0f);
  EXPECT_EQ(storeLoad(DType::U8, 0.5f), 0.0f);
  EXPECT_EQ(storeLoad(DType::U8, 1.5f), 2.0f);
}

TEST(Elements, LittleEndianBytes) {
  const uint8_t one[4] = {0x00, 0x00, 0x80, 0x3F};
  EXPECT_EQ(loadElement(DType::F32, one), 1.0f);
  EXPECT_EQ(loadElement(DType::BF16, one + 2), 1.0f);
  const uint8_t ones[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_EQ(loadElement(DType::I32, ones), -1.0f);
  EXPECT_EQ(loadElement(DType::I8, ones), -1.0f);
  EXPECT_EQ(loadElement(DType::U8, ones), 255.0f);
  const uint8_t h[2] = {0x00, 0x3C};
  EXPECT_EQ(loadElement(DType::F16, h), 1.0f);
  uint8_t out[4] = {};
  storeElement(DType::F32, 1.0f, out);
  EXPECT_EQ(std::memcmp(out, one, 4), 0);
  storeElement(DType::I32, -2.0f, out);
  EXPECT_EQ(out[0], 0xFE);
  EXPECT_EQ(out[3], 0xFF);
  storeElement(DType::FP8E4M3, 448.0f, out);
  EXPECT_EQ(out[0], 0x7E);
  storeElement(DType::BF16, bits(0x3F818000), out);
  EXPECT_EQ(out[0], 0x82);
  EXPECT_EQ(out[1], 0x3F);
  EXPECT_EQ(bitsOf(loadElement(DType::FP8E5M2, "\x3c")), bitsOf(1.0f));
}

} // namespace
