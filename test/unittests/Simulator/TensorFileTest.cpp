//===- TensorFileTest.cpp - .npy and ONNX TensorProto I/O -----------------===//

#include "nki/Simulator/TensorFile.h"

#include "gtest/gtest.h"

#include <cstring>

namespace nki::sim {
namespace {

TEST(TensorFile, NpyRoundTripsFloatAndInt) {
  HostTensor t;
  t.shape = {2, 3};
  t.values = {1, 2, 3, 4, 5, -6.5f};
  std::string bytes = formatNpy(t, isa::DType::BF16);
  EXPECT_EQ(bytes.size() % 64, 24u); // 64-aligned header + 6 x 4 bytes
  auto back = parseNpy(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_EQ(back->values, t.values);

  HostTensor i;
  i.shape = {3};
  i.isInteger = true;
  i.ints = {-1, 7, 100000};
  auto ib = parseNpy(formatNpy(i, isa::DType::I32));
  ASSERT_TRUE(ib.ok());
  EXPECT_TRUE(ib->isInteger);
  EXPECT_EQ(ib->ints, i.ints);
}

TEST(TensorFile, NpyErrorsAreMessages) {
  EXPECT_FALSE(parseNpy("garbage").ok());
  std::string header =
      "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += char(header.size());
  bytes += '\0';
  bytes += header;
  auto r = parseNpy(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("'>f4'"), std::string::npos);
}

std::string npyWithHeader(const std::string &header, const std::string &data) {
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += char(header.size());
  bytes += '\0';
  return bytes + header + data;
}

TEST(TensorFile, NpyBf16AsV2AndOversizedShapes) {
  // 1.5 and -2 as bf16 bit patterns.
  auto t = parseNpy(
      npyWithHeader("{'descr': '|V2', 'fortran_order': False, 'shape': (2,), }",
                    std::string("\xc0\x3f\x00\xc0", 4)));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->values, (std::vector<float>{1.5f, -2.0f}));
  // A shape whose element count overflows is an error, not a crash.
  EXPECT_FALSE(parseNpy(npyWithHeader("{'descr': '<f4', 'fortran_order': "
                                      "False, 'shape': (4294967296, "
                                      "4294967296, 16), }",
                                      std::string(16, '\0')))
                   .ok());
  std::string pb = {0x08, 0x7f, 0x10, 0x01}; // dims [127], FLOAT, no data
  EXPECT_FALSE(parseOnnxTensor(pb).ok());
}

TEST(TensorFile, OnnxTensorProtoRawAndTyped) {
  // dims: 2, 2 (field 1 varint); data_type FLOAT (field 2); name "x"
  // (field 8); raw_data 16 bytes (field 9).
  std::string pb = {0x08, 0x02, 0x08, 0x02, 0x10, 0x01,
                    0x42, 0x01, 'x',  0x4a, 0x10};
  float vals[4] = {1.5f, -2, 3, 4};
  pb.append(reinterpret_cast<const char *>(vals), 16);
  auto t = parseOnnxTensor(pb);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->name, "x");
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t->values, (std::vector<float>{1.5f, -2, 3, 4}));

  // INT32 (6) with packed int32_data (field 5): dims [3], values 1, -1, 300.
  std::string ints = {0x08, 0x03, 0x10, 0x06, 0x2a, 0x0d, 0x01};
  // -1 as a varint is 10 bytes.
  ints += std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
  ints += std::string("\xac\x02", 2);
  auto ti = parseOnnxTensor(ints);
  ASSERT_TRUE(ti.ok()) << ti.status().message();
  EXPECT_EQ(ti->ints, (std::vector<int64_t>{1, -1, 300}));

  EXPECT_FALSE(parseOnnxTensor(std::string("\x4a\x10\x01", 3)).ok());
}

TEST(TensorFile, ConversionToProgramDtypes) {
  HostTensor t;
  t.shape = {1, 3};
  t.values = {1.00390625f, 1000.0f, -1};
  auto bytes = toTensorBytes(t, isa::DType::BF16, {3});
  ASSERT_TRUE(bytes.ok());
  HostTensor back = fromTensorBytes(*bytes, isa::DType::BF16, {3});
  EXPECT_EQ(back.values, (std::vector<float>{1.0f, 1000.0f, -1}));
  EXPECT_FALSE(toTensorBytes(t, isa::DType::F32, {2, 2}).ok());
}

TEST(TensorFile, IntegersMustFitTheDeviceDtype) {
  HostTensor t;
  t.shape = {3};
  t.isInteger = true;
  t.ints = {-5, 16777216, 2147483647};
  auto bytes = toTensorBytes(t, isa::DType::I32, {3});
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(fromTensorBytes(*bytes, isa::DType::I32, {3}).ints, t.ints);
  t.ints[1] = int64_t(1) << 32;
  auto big = toTensorBytes(t, isa::DType::I32, {3});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "value 4294967296 at 1 (flat index) does not fit the device's i32 "
            "[-2147483648, 2147483647]");
  t.ints = {0, 1, 256};
  EXPECT_FALSE(toTensorBytes(t, isa::DType::U8, {3}).ok());
  t.ints = {0, 1, 255};
  EXPECT_TRUE(toTensorBytes(t, isa::DType::U8, {3}).ok());
}

TEST(TensorFile, PackedFp4InputsAreBytes) {
  // f4e2m1x2 holds two e2m1 codes a byte: bytes from an integer or float
  // file are taken as they are; a value that is no byte is an error, not
  // rounded.
  HostTensor t;
  t.shape = {3};
  t.isInteger = true;
  t.ints = {0, 0x7F, 255};
  auto bytes = toTensorBytes(t, isa::DType::FP4E2M1X2, {3});
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(*bytes, std::string("\x00\x7f\xff", 3));
  t.ints = {0, 1, 256};
  EXPECT_FALSE(toTensorBytes(t, isa::DType::FP4E2M1X2, {3}).ok());
  HostTensor f;
  f.shape = {3};
  f.values = {0, 17, 255};
  EXPECT_TRUE(toTensorBytes(f, isa::DType::FP4E2M1X2, {3}).ok());
  f.values = {0, 0.5f, 255};
  auto half = toTensorBytes(f, isa::DType::FP4E2M1X2, {3});
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.status().message(),
            "value 0.5 at 1 (flat index) is not a byte; f4e2m1x2 data is "
            "packed bytes (two e2m1 codes each, low nibble first), as a uint8 "
            ".npy gives them");
}

TEST(TensorFile, OutputsInTheirHostType) {
  HostTensor t;
  t.shape = {2};
  t.isInteger = true;
  t.ints = {-3, 7};
  auto i64 = parseNpy(formatNpy(t, isa::DType::I32, isa::HostType::I64));
  ASSERT_TRUE(i64.ok());
  EXPECT_EQ(i64->ints, t.ints);
  EXPECT_NE(formatNpy(t, isa::DType::I32, isa::HostType::I64).find("'<i8'"),
            std::string::npos);
  t.ints = {0, 1};
  std::string b = formatNpy(t, isa::DType::U8, isa::HostType::Bool);
  EXPECT_NE(b.find("'|b1'"), std::string::npos);
  EXPECT_EQ(b.substr(b.size() - 2), std::string("\x00\x01", 2));
  HostTensor f;
  f.shape = {1};
  f.values = {0.5f};
  auto f64 = parseNpy(formatNpy(f, isa::DType::F32, isa::HostType::F64));
  ASSERT_TRUE(f64.ok());
  EXPECT_EQ(f64->values, f.values);
}

TEST(TensorFile, OnnxBoolAndSmallIntegers) {
  // BOOL (9), dims [3], raw_data 01 00 01.
  std::string pb = {0x08, 0x03, 0x10, 0x09, 0x4a, 0x03, 0x01, 0x00, 0x01};
  auto t = parseOnnxTensor(pb);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->isInteger);
  EXPECT_EQ(t->ints, (std::vector<int64_t>{1, 0, 1}));
  // UINT16 (4), dims [1], raw_data ff ff.
  std::string u16 = {0x08, 0x01, 0x10, 0x04, 0x4a, 0x02};
  u16 += std::string("\xff\xff", 2);
  auto u = parseOnnxTensor(u16);
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->ints, (std::vector<int64_t>{65535}));
}

} // namespace
} // namespace nki::sim
