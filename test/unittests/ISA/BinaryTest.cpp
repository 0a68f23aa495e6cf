//===- BinaryTest.cpp - .nkb round trips, errors and corruption -----------===//

#include "nki/ISA/Binary.h"
#include "ISATestUtil.h"
#include "nkb.pb.h"
#include "nki/ISA/Verify.h"

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <fstream>
#include <random>

using namespace nki::isa;
using namespace nki::isa::test;
using ::testing::HasSubstr;

namespace {

/// CRC-32 (zlib's), bit by bit: an implementation independent of the
/// table-driven one in Binary.cpp.
uint32_t slowCrc32(std::string_view bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (char ch : bytes) {
    crc ^= uint8_t(ch);
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

std::string le(uint64_t value, int width) {
  std::string out;
  for (int i = 0; i < width; ++i)
    out.push_back(char((value >> (8 * i)) & 0xFF));
  return out;
}

/// A version-1 header that is right for `payload`, then `payload`: lets a
/// test reach the checks behind the length and checksum.
std::string withHeader(std::string_view payload) {
  return std::string("NKB\x01", 4) + le(kBinaryFormatVersion, 4) +
         le(payload.size(), 8) + le(slowCrc32(payload), 4) +
         std::string(payload);
}

std::string payloadOf(const std::string &bytes) {
  return bytes.substr(kBinaryHeaderBytes);
}

std::string decodeError(std::string_view bytes) {
  absl::StatusOr<Program> r = decodeProgram(bytes);
  return r.ok() ? std::string("ok") : std::string(r.status().message());
}

/// A program that uses every opcode and every kind of field.
Program everyOpcode() {
  Program p;
  p.target = "trn1";
  p.numSemaphores = 3;
  p.tensors.push_back({"x", TensorKind::Input, DType::BF16, {128, 512}, 0, ""});
  p.tensors.push_back({"w",
                       TensorKind::Constant,
                       DType::U8,
                       {2, 2},
                       131072,
                       "\x01\x02\x03\x04"});
  p.tensors.push_back(
      {"y", TensorKind::Output, DType::F32, {128, 64}, 262144, ""});
  p.tensors.push_back({"s", TensorKind::Scratch, DType::F16, {}, 393216, ""});

  Instruction load = dma(sbuf(DType::BF16, 128, 512), hbm(DType::BF16, 65536));
  load.hasSignal = true;
  load.signal = {0, 1};
  load.loc = "model.onnx:1:2";
  p.getOrCreateStream({Engine::DMA, 3}).instructions.push_back(load);

  Instruction mm = matmul(128, 64, 512);
  mm.waits.push_back({0, 1});
  mm.start = false;
  Instruction tr =
      unary(Opcode::Transpose, psum(128, 64, 2048), sbuf(DType::BF16, 64, 128));
  Stream &pe = p.getOrCreateStream(kPE);
  pe.instructions = {mm, tr};

  Instruction a = unary(Opcode::Activation, sbuf(DType::F32, 128, 64, 8192),
                        psum(128, 64, 2048));
  a.func = ActFunc::GeluTanh;
  a.scalar0 = imm(-0.5f);
  a.scalar1 = perPartition(sbuf(DType::F32, 128, 1, 16384));
  a.hasAccum = true;
  a.accum = sbuf(DType::F32, 128, 1, 16388);
  p.getOrCreateStream(kACT).instructions.push_back(a);

  Stream &dve = p.getOrCreateStream(kDVE);
  dve.instructions.push_back(tensorTensor(
      AluOp::Pow, sbuf(DType::F32, 128, 64, 20000),
      sbuf(DType::F32, 128, 64, 8192), sbuf(DType::F32, 128, 64, 24000)));
  Instruction ts = unary(Opcode::TensorScalar, sbuf(DType::F32, 128, 64, 28000),
                         sbuf(DType::F32, 128, 64, 8192));
  ts.alu0 = AluOp::Sub;
  ts.alu1 = AluOp::Max;
  ts.scalar0 = perPartition(sbuf(DType::F32, 128, 1, 16384));
  ts.scalar1 = imm(0.0f);
  ts.reverse0 = true;
  dve.instructions.push_back(ts);
  Instruction red =
      unary(Opcode::TensorReduce, sbuf(DType::F32, 128, 8, 32000),
            ap(Memory::SBUF, DType::F32, 0, 128, 8192, {{8, 8}, {1, 8}}));
  red.alu0 = AluOp::Min;
  red.reduceAxes = 1;
  dve.instructions.push_back(red);
  Instruction sel;
  sel.opcode = Opcode::Select;
  sel.dst = sbuf(DType::F32, 128, 64, 36000);
  sel.src0 = sbuf(DType::U8, 128, 64, 40000);
  sel.src1 = sbuf(DType::F32, 128, 64, 8192);
  sel.src2 = sbuf(DType::F32, 128, 64, 20000);
  dve.instructions.push_back(sel);
  dve.instructions.push_back(unary(Opcode::Transpose32,
                                   sbuf(DType::F32, 128, 64, 44000),
                                   sbuf(DType::F32, 128, 64, 8192)));
  Instruction ms;
  ms.opcode = Opcode::Memset;
  ms.dst = sbuf(DType::BF16, 128, 64, 48000);
  ms.scalar0 = imm(1.5f);
  dve.instructions.push_back(ms);
  dve.instructions.push_back(unary(Opcode::TensorCopy,
                                   sbuf(DType::FP8E5M2, 128, 64, 52000),
                                   sbuf(DType::F32, 128, 64, 8192)));

  Stream &pool = p.getOrCreateStream(kPOOL);
  Instruction iota;
  iota.opcode = Opcode::Iota;
  iota.dst = sbuf(DType::I32, 128, 64, 56000);
  iota.affine = {-3, 64, {1, 0, 0, 0}};
  pool.instructions.push_back(iota);
  Instruction as = unary(Opcode::AffineSelect, sbuf(DType::F32, 128, 64, 60000),
                         sbuf(DType::F32, 128, 64, 8192));
  as.alu0 = AluOp::IsLe;
  as.affine = {0, 1, {-1, 0, 0, 0}};
  as.scalar0 = imm(-3e38f);
  as.hasSignal = true;
  as.signal = {2, 5};
  pool.instructions.push_back(as);
  return p;
}

TEST(Binary, EncodesAValidProgram) {
  Program p = everyOpcode();
  ASSERT_TRUE(verifyProgram(p).ok()) << verifyProgram(p).message();
  std::string bytes = encodeProgram(p);
  EXPECT_EQ(bytes.substr(0, 4), std::string("NKB\x01", 4));
  EXPECT_EQ(bytes.substr(4, 4), std::string("\x01\x00\x00\x00", 4));
  ASSERT_GT(bytes.size(), kBinaryHeaderBytes);
  EXPECT_EQ(bytes.substr(8, 8), le(bytes.size() - kBinaryHeaderBytes, 8));
  ASSERT_EQ(slowCrc32("123456789"), 0xCBF43926u); // the standard check value
  EXPECT_EQ(bytes, withHeader(payloadOf(bytes)));
  EXPECT_EQ(encodeProgram(p), bytes); // deterministic
  // The library's own framing (the fuzz targets') writes the same header.
  EXPECT_EQ(frameBinaryPayload(payloadOf(bytes)), bytes);
  EXPECT_EQ(frameBinaryPayload("xyz"), withHeader("xyz"));
}

TEST(Binary, RoundTrip) {
  Program p = everyOpcode();
  std::string bytes = encodeProgram(p);
  absl::StatusOr<Program> q = decodeProgram(bytes);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(encodeProgram(*q), bytes);
  EXPECT_EQ(q->target, "trn1");
  EXPECT_EQ(q->numSemaphores, 3u);
  ASSERT_EQ(q->tensors.size(), 4u);
  EXPECT_EQ(q->tensors[1].data, "\x01\x02\x03\x04");
  EXPECT_EQ(q->tensors[3].shape.size(), 0u);
  ASSERT_EQ(q->streams.size(), 5u);
  const Instruction &mm = q->streams[0].instructions[0];
  EXPECT_EQ(mm.opcode, Opcode::Matmul);
  EXPECT_FALSE(mm.start);
  EXPECT_TRUE(mm.src1 == p.streams[0].instructions[0].src1);
  ASSERT_EQ(mm.waits.size(), 1u);
  const Instruction &a = q->streams[1].instructions[0];
  EXPECT_EQ(a.func, ActFunc::GeluTanh);
  EXPECT_EQ(a.scalar0.imm, -0.5f);
  EXPECT_FALSE(a.scalar1.isImmediate);
  EXPECT_TRUE(a.hasAccum);
  const Instruction &ts = q->streams[2].instructions[1];
  EXPECT_EQ(ts.alu1, AluOp::Max);
  EXPECT_TRUE(ts.reverse0);
  const Instruction &as = q->streams[3].instructions[1];
  EXPECT_EQ(as.affine.freeCoefs[0], -1);
  EXPECT_EQ(as.signal.increment, 5u);
  EXPECT_EQ(q->streams[4].id, (StreamId{Engine::DMA, 3}));
  EXPECT_EQ(q->streams[4].instructions[0].loc, "model.onnx:1:2");
}

TEST(Binary, ProgramEncoderWritesOneInstructionAtATime) {
  Program p = everyOpcode();
  p.getOrCreateStream(StreamId{Engine::DMA, 7}); // an empty stream
  ProgramEncoder encoder(p); // the header only: its streams are not written
  for (const Stream &s : p.streams) {
    encoder.beginStream(s.id);
    for (const Instruction &inst : s.instructions)
      encoder.add(inst);
  }
  absl::StatusOr<std::string> bytes = std::move(encoder).finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(*bytes, encodeProgram(p));
  // Protobuf's own parser reads the pieces back as one message.
  absl::StatusOr<Program> q = decodeProgram(*bytes);
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_EQ(q->streams.size(), p.streams.size());
  for (size_t i = 0; i < p.streams.size(); ++i) {
    EXPECT_EQ(q->streams[i].id, p.streams[i].id);
    EXPECT_EQ(q->streams[i].instructions.size(),
              p.streams[i].instructions.size());
  }
  EXPECT_TRUE(q->streams.back().instructions.empty());
  EXPECT_EQ(q->tensors.size(), p.tensors.size());

  // A header moved in (its constants taken, not copied) writes the same.
  Program copy = p;
  ProgramEncoder moved(std::move(copy));
  for (const Stream &s : p.streams) {
    moved.beginStream(s.id);
    for (const Instruction &inst : s.instructions)
      moved.add(inst);
  }
  absl::StatusOr<std::string> movedBytes = std::move(moved).finish();
  ASSERT_TRUE(movedBytes.ok()) << movedBytes.status().message();
  EXPECT_EQ(*movedBytes, *bytes);

  // A header alone is a program without streams.
  absl::StatusOr<std::string> header = ProgramEncoder(p).finish();
  ASSERT_TRUE(header.ok());
  absl::StatusOr<Program> h = decodeProgram(*header);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_TRUE(h->streams.empty());
  EXPECT_EQ(h->numSemaphores, p.numSemaphores);
}

// The encoder writes the header's fields itself, each constant's bytes
// copied once from where its program holds or borrows them: the payload is
// what Protobuf's own serializer writes for the same message.
TEST(Binary, PayloadIsProtobufsSerialization) {
  Program p = everyOpcode();
  p.tensors.push_back(
      {"idx", TensorKind::Input, DType::I32, {4}, 400000, "", HostType::I64});
  std::string weights(300, '\x05'); // a two-byte length varint
  TensorDecl w{"w2", TensorKind::Constant, DType::U8, {300}, 400064, ""};
  w.borrowed = weights;
  p.tensors.push_back(w);
  std::string bytes = encodeProgram(p);
  std::string payload = payloadOf(bytes);
  nki::nkb::Program msg;
  ASSERT_TRUE(msg.ParseFromString(payload));
  EXPECT_EQ(msg.SerializeAsString(), payload);
  ASSERT_EQ(msg.tensors_size(), 6);
  EXPECT_EQ(msg.tensors(5).data(), weights);
  EXPECT_EQ(msg.tensors(4).host_type(), uint32_t(HostType::I64));
  // Borrowed or owned, the same bytes; decoded, owned.
  Program owned = p;
  owned.tensors.back().data = weights;
  owned.tensors.back().borrowed = {};
  EXPECT_EQ(encodeProgram(owned), bytes);
  absl::StatusOr<Program> q = decodeProgram(bytes);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->tensors.back().data, weights);
  EXPECT_TRUE(q->tensors.back().borrowed.empty());

  // The decoder's canonical check compares the pieces without a copy: a
  // byte of a constant, of a header field or of a stream differs, or the
  // length does.
  auto matches = [&](std::string_view candidate) {
    ProgramEncoder e(p);
    for (const Stream &st : p.streams) {
      e.beginStream(st.id);
      for (const Instruction &inst : st.instructions)
        e.add(inst);
    }
    return std::move(e).matchesPayload(candidate);
  };
  EXPECT_TRUE(matches(payload));
  size_t inWeights = payload.find(weights) + 7;
  for (size_t at : {size_t(3), inWeights, payload.size() - 1}) {
    std::string changed = payload;
    changed[at] ^= 1;
    EXPECT_FALSE(matches(changed)) << "byte " << at;
  }
  EXPECT_FALSE(matches(payload.substr(0, payload.size() - 1)));
  EXPECT_FALSE(matches(payload + "x"));
}

TEST(Binary, DoubleRowRoundTrip) {
  Program p;
  p.target = "trn2";
  p.getOrCreateStream(kPE).instructions = {doubleRowMatmul(256, 128, 512),
                                           matmul(128, 128, 512)};
  absl::StatusOr<Program> q = decodeProgram(encodeProgram(p));
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->streams[0].instructions[0].rows, 2);
  EXPECT_EQ(q->streams[0].instructions[1].rows, 1);
  EXPECT_TRUE(q->streams[0].instructions[0].src0 ==
              p.streams[0].instructions[0].src0);
  // A rows value beyond a byte is corrupt, not truncated: 200 and 300 are
  // both two-byte varints (0xC8 0x01, 0xAC 0x02) after field 20's tag
  // (0xA0 0x01), so one can stand in for the other.
  Program wide = p;
  wide.streams[0].instructions[0].rows = 200;
  std::string payload = payloadOf(encodeProgram(wide));
  size_t at = payload.find(std::string("\xa0\x01\xc8\x01", 4));
  ASSERT_NE(at, std::string::npos);
  payload[at + 2] = char(0xac);
  payload[at + 3] = char(0x02);
  EXPECT_THAT(decodeError(withHeader(payload)),
              HasSubstr("rows 300 out of range"));
  // The decoder verifies: on trn1 the same program is rejected.
  p.target = "trn1";
  EXPECT_THAT(std::string(decodeProgram(encodeProgram(p)).status().message()),
              HasSubstr("target trn1 has no fp8 double row"));
}

TEST(Binary, MatmulMxRoundTrip) {
  Program p;
  p.target = "trn3";
  Instruction mx = mxMatmul(512, 128, 512, DType::FP4E2M1X2);
  mx.start = false;
  p.getOrCreateStream(kPE).instructions = {mxMatmul(512, 128, 512), mx};
  p.tensors.push_back(
      {"w", TensorKind::Input, DType::FP4E2M1X2, {128, 128, 2}, 0, ""});
  p.tensors.push_back(
      {"s", TensorKind::Input, DType::E8M0, {16, 128}, 32768, ""});
  std::string bytes = encodeProgram(p);
  absl::StatusOr<Program> q = decodeProgram(bytes);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(encodeProgram(*q), bytes);
  const Instruction &r = q->streams[0].instructions[1];
  EXPECT_EQ(r.opcode, Opcode::MatmulMx);
  EXPECT_FALSE(r.start);
  EXPECT_TRUE(r.src2 == mx.src2);
  EXPECT_TRUE(r.src3 == mx.src3);
  EXPECT_EQ(q->tensors[0].dtype, DType::FP4E2M1X2);
  EXPECT_EQ(q->tensors[1].dtype, DType::E8M0);
  // The decoder verifies: trn2 has neither matmul_mx nor the MX types.
  p.target = "trn2";
  EXPECT_THAT(std::string(decodeProgram(encodeProgram(p)).status().message()),
              HasSubstr("target trn2 has no"));
}

TEST(Binary, HostTypesRoundTripAndAreChecked) {
  Program p = everyOpcode();
  p.tensors.push_back(
      {"idx", TensorKind::Input, DType::I32, {4}, 400000, "", HostType::I64});
  p.tensors.push_back(
      {"mask", TensorKind::Output, DType::U8, {4}, 400064, "", HostType::Bool});
  absl::StatusOr<Program> q = decodeProgram(encodeProgram(p));
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->tensors[4].host, HostType::I64);
  EXPECT_EQ(q->tensors[5].host, HostType::Bool);
  EXPECT_EQ(q->tensors[0].host, HostType::Device);
  for (uint32_t h = 0; h < kNumHostTypes; ++h)
    EXPECT_EQ(parseHostType(hostTypeName(HostType(h))), HostType(h));
  EXPECT_FALSE(parseHostType("i128"));

  Program wrongCarrier = p;
  wrongCarrier.tensors[4].dtype = DType::F32;
  EXPECT_EQ(verifyProgram(wrongCarrier).message(),
            "tensor 'idx': host type i64 is carried as i32, not f32");
  Program scratch = p;
  scratch.tensors[3].host = HostType::F64;
  EXPECT_EQ(verifyProgram(scratch).message(),
            "tensor 's': scratch tensor has host type f64; only inputs and "
            "outputs have one");
}

TEST(Binary, UnusedFieldsAreNotStored) {
  Program p = everyOpcode();
  Program noisy = p;
  Instruction &copy = noisy.getOrCreateStream(kDVE).instructions.back();
  copy.src1 = psum(1, 1);
  copy.alu0 = AluOp::Xor;
  copy.reduceAxes = 3;
  EXPECT_EQ(encodeProgram(noisy), encodeProgram(p));
}

TEST(Binary, HeaderErrors) {
  std::string bytes = encodeProgram(everyOpcode());
  size_t n = bytes.size() - kBinaryHeaderBytes;
  auto err = decodeError;
  EXPECT_THAT(err(""), HasSubstr("not a .nkb binary"));
  EXPECT_THAT(err("NKB"), HasSubstr("not a .nkb binary"));
  std::string wrongMagic = bytes;
  wrongMagic[0] = 'X';
  EXPECT_THAT(err(wrongMagic), HasSubstr("not a .nkb binary"));
  std::string v2 = bytes;
  v2[4] = 2;
  EXPECT_EQ(err(v2), "unsupported .nkb format version 2 (this build reads 1)");
  // The version is checked before the header's length: another version may
  // have a shorter header.
  EXPECT_EQ(err(v2.substr(0, 8)),
            "unsupported .nkb format version 2 (this build reads 1)");
  EXPECT_EQ(err(bytes.substr(0, 6)),
            "truncated .nkb binary: 6 bytes, shorter than the 20-byte header");
  EXPECT_EQ(err(bytes.substr(0, 19)),
            "truncated .nkb binary: 19 bytes, shorter than the 20-byte header");
  EXPECT_EQ(err(bytes.substr(0, bytes.size() - 1)),
            absl::StrCat("truncated .nkb binary: header says ", n,
                         " payload bytes, file has ", n - 1));
  EXPECT_EQ(err(bytes + "x"),
            absl::StrCat("corrupted .nkb binary: header says ", n,
                         " payload bytes, file has ", n + 1));
  std::string flipped = bytes;
  flipped.back() = char(flipped.back() ^ 0x10);
  EXPECT_THAT(err(flipped),
              HasSubstr("corrupted .nkb binary: checksum mismatch (header "
                        "says CRC-32 0x"));
  std::string badSum = bytes;
  badSum[16] = char(badSum[16] ^ 1);
  EXPECT_THAT(err(badSum), HasSubstr("checksum mismatch"));
  // A payload with a right header that still does not parse.
  EXPECT_EQ(err(withHeader("\xff\xff\xff")),
            "corrupted .nkb binary: the payload does not parse");
  // A header with an empty payload is an empty program for no target.
  EXPECT_EQ(
      err(withHeader("")),
      "invalid .nkb program: unknown target '' (known: trn1, trn2, trn3)");
}

// The problem the length field solves: the payload cut at a field boundary
// parses as a smaller message (here: the tensor table without the streams).
TEST(Binary, PayloadCutAtAFieldBoundaryIsATruncation) {
  Program p = everyOpcode();
  Program tensorsOnly = p;
  tensorsOnly.streams.clear();
  std::string bytes = encodeProgram(p);
  std::string prefix = payloadOf(encodeProgram(tensorsOnly));
  ASSERT_EQ(payloadOf(bytes).substr(0, prefix.size()), prefix);
  // Behind a header that matches it, the prefix is a valid program.
  EXPECT_EQ(decodeError(withHeader(prefix)), "ok");
  std::string cut = bytes.substr(0, kBinaryHeaderBytes + prefix.size());
  EXPECT_EQ(decodeError(cut),
            absl::StrCat("truncated .nkb binary: header says ",
                         bytes.size() - kBinaryHeaderBytes,
                         " payload bytes, file has ", prefix.size()));
}

TEST(Binary, RejectsInvalidPrograms) {
  Program p = everyOpcode();
  p.numSemaphores = 1;
  absl::StatusOr<Program> r = decodeProgram(encodeProgram(p));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "invalid .nkb program: pool instruction 1: affine_select: signal "
            "uses semaphore 2 but the program has 1 semaphores");
}

TEST(Binary, RejectsNonCanonicalEncodings) {
  std::string payload = payloadOf(encodeProgram(everyOpcode()));
  // An unknown field (number 100, varint 1) appended to the message.
  std::string extra = withHeader(payload + std::string("\xa0\x06\x01", 3));
  absl::StatusOr<Program> r = decodeProgram(extra);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not in canonical form"));
  // The target field written twice (the last one wins in protobuf).
  std::string twice = withHeader(payload + std::string("\x0a\x04trn1", 6));
  r = decodeProgram(twice);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not in canonical form"));
}

// Every bit flip, every truncation and every random edit is an error with a
// message (and none crashes): the magic, version and length are checked
// directly, the payload by its CRC-32, which catches every single-bit error.
TEST(Binary, CorruptionIsAlwaysAnError) {
  std::string bytes = encodeProgram(everyOpcode());
  auto expectError = [&](const std::string &b, const std::string &what) {
    absl::StatusOr<Program> r = decodeProgram(b);
    ASSERT_FALSE(r.ok()) << what << " decodes";
    ASSERT_FALSE(r.status().message().empty()) << what;
  };
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string b = bytes;
      b[i] = char(b[i] ^ (1 << bit));
      expectError(b, absl::StrCat("flipping bit ", bit, " of byte ", i));
      if (HasFatalFailure())
        return;
    }
  for (size_t n = 0; n < bytes.size(); ++n) {
    expectError(bytes.substr(0, n), absl::StrCat("the first ", n, " bytes"));
    if (HasFatalFailure())
      return;
  }
  std::mt19937 rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string b = bytes;
    int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = 8 + rng() % (b.size() - 8);
      switch (rng() % 3) {
      case 0:
        b[pos] = char(rng());
        break;
      case 1:
        b.erase(pos, 1 + rng() % 8);
        break;
      case 2:
        b.insert(pos, 1, char(rng()));
        break;
      }
      if (b.size() <= 8)
        break;
    }
    // An edit may write back the byte that was there.
    if (b != bytes)
      expectError(b, absl::StrCat("random edit ", iter));
    if (HasFatalFailure())
      return;
  }
}

TEST(Binary, Files) {
  std::string path = ::testing::TempDir() + "/isa_binary_test.nkb";
  Program p = everyOpcode();
  ASSERT_TRUE(writeProgramFile(p, path).ok());
  absl::StatusOr<Program> q = readProgramFile(path);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(encodeProgram(*q), encodeProgram(p));

  absl::StatusOr<Program> missing = readProgramFile(path + ".missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("cannot open '" + path + ".missing'"));
  absl::Status unwritable = writeProgramFile(p, "/nonexistent-dir/x.nkb");
  ASSERT_FALSE(unwritable.ok());
  EXPECT_THAT(unwritable.message(), HasSubstr("'/nonexistent-dir/x.nkb'"));

  {
    std::ofstream out(path, std::ios::binary);
    out << std::string("NKB\x01\x07\x00\x00\x00", 8);
  }
  absl::StatusOr<Program> old = readProgramFile(path);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().message(),
            path + ": unsupported .nkb format version 7 (this build reads 1)");
  std::remove(path.c_str());
}

} // namespace
