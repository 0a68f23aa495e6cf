//===- Types.cpp - Element types, memories, engines, conversions ----------===//
//
// The narrowing conversions are written out bit by bit rather than borrowed
// from the host (no _Float16, no library fp8) so that the simulator's results
// are the same on every host and match the machine model exactly:
//   - bf16, f16: IEEE round to nearest even; overflow gives infinity; NaN
//     stays a quiet NaN with its sign.
//   - fp8 e4m3 (OCP "FN": bias 7, max 448, no infinity, NaN = S.1111.111) and
//     e5m2 (bias 15, max 57344, IEEE-like inf/NaN): round to nearest even,
//     then saturate anything beyond the largest finite value, infinities
//     included, to that value (the "satfinite" convention); NaN stays NaN.
//   - fp4 e2m1 (OCP: bias 1, max 6, no infinity or NaN): round to nearest
//     even, saturate to +-6; NaN stores +6 (e2m1 cannot say NaN).
//   - e8m0 (OCP scale: 2^(code - 127), code 255 = NaN, no sign or zero):
//     the nearest power of two (x = m 2^e with m > 1.5 rounds up, m = 1.5
//     to the even code), clamped to [2^-127, 2^127], so zero and negative
//     values store 2^-127; NaN stores NaN.
//   - integers: round to nearest even, then saturate; NaN stores 0.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Types.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace nki::isa {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

int64_t dtypeBytes(DType t) {
  switch (t) {
#define NKI_DTYPE(Name, spelling, bytes)                                       \
  case DType::Name:                                                            \
    return bytes;
#include "nki/ISA/DTypes.def"
  }
  return 0;
}

std::string_view dtypeName(DType t) {
  switch (t) {
#define NKI_DTYPE(Name, spelling, bytes)                                       \
  case DType::Name:                                                            \
    return spelling;
#include "nki/ISA/DTypes.def"
  }
  return "<invalid dtype>";
}

std::optional<DType> parseDType(std::string_view name) {
#define NKI_DTYPE(Name, spelling, bytes)                                       \
  if (name == spelling)                                                        \
    return DType::Name;
#include "nki/ISA/DTypes.def"
  return std::nullopt;
}

bool isFloatDType(DType t) {
  switch (t) {
  case DType::F32:
  case DType::BF16:
  case DType::F16:
  case DType::FP8E4M3:
  case DType::FP8E5M2:
    return true;
  case DType::FP4E2M1:
  case DType::E8M0:
    return true;
  case DType::FP4E2M1X2: // as an element, its byte (see Types.h)
  case DType::I32:
  case DType::I8:
  case DType::U8:
    return false;
  }
  return false;
}

std::string_view memoryName(Memory m) {
  switch (m) {
  case Memory::HBM:
    return "hbm";
  case Memory::SBUF:
    return "sbuf";
  case Memory::PSUM:
    return "psum";
  }
  return "<invalid memory>";
}

std::optional<Memory> parseMemory(std::string_view name) {
  for (Memory m : {Memory::HBM, Memory::SBUF, Memory::PSUM})
    if (memoryName(m) == name)
      return m;
  return std::nullopt;
}

std::string_view engineName(Engine e) {
  switch (e) {
  case Engine::PE:
    return "pe";
  case Engine::ACT:
    return "act";
  case Engine::DVE:
    return "dve";
  case Engine::POOL:
    return "pool";
  case Engine::DMA:
    return "dma";
  }
  return "<invalid engine>";
}

std::optional<Engine> parseEngine(std::string_view name) {
  for (Engine e :
       {Engine::PE, Engine::ACT, Engine::DVE, Engine::POOL, Engine::DMA})
    if (engineName(e) == name)
      return e;
  return std::nullopt;
}

std::string streamName(StreamId id) {
  std::string name(engineName(id.engine));
  if (id.engine == Engine::DMA)
    name += std::to_string(id.queue);
  return name;
}

std::optional<StreamId> parseStream(std::string_view name) {
  if (name.size() > 3 && name.substr(0, 3) == "dma") {
    // "dma<q>", q a decimal without leading zeros that fits the queue field.
    // Whether the target has that many queues is verifyProgram's business.
    std::string_view digits = name.substr(3);
    if (digits.size() > 3 || (digits.size() > 1 && digits[0] == '0'))
      return std::nullopt;
    int q = 0;
    for (char c : digits) {
      if (c < '0' || c > '9')
        return std::nullopt;
      q = q * 10 + (c - '0');
    }
    if (q > std::numeric_limits<uint8_t>::max())
      return std::nullopt;
    return StreamId{Engine::DMA, uint8_t(q)};
  }
  std::optional<Engine> e = parseEngine(name);
  if (!e || *e == Engine::DMA)
    return std::nullopt;
  return StreamId{*e, 0};
}

//===----------------------------------------------------------------------===//
// Float conversions
//===----------------------------------------------------------------------===//

namespace {

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// A small binary float format: `manBits` stored mantissa bits, exponent
/// bias `bias`, and the largest finite magnitude's code.
struct MiniFormat {
  int manBits;
  int bias;
  uint32_t maxFiniteCode; // magnitude code (no sign)
};

/// Rounds the finite, non-negative magnitude `a` to the format's magnitude
/// code with round-to-nearest-even. The code may exceed maxFiniteCode (the
/// caller decides between infinity and saturation). Subnormals fall out of
/// the same formula: below the smallest normal exponent the quantum stays
/// 2^(emin - manBits), and a mantissa that rounds up to 2^manBits carries
/// into the exponent field exactly as the encoding expects.
uint32_t roundMagnitude(float a, const MiniFormat &fmt) {
  if (a == 0.0f)
    return 0;
  const int emin = 1 - fmt.bias;
  int e = std::ilogb(a);
  if (e < emin)
    e = emin;
  // Past the format's range by far: any code above maxFiniteCode will do,
  // and this keeps the shifts below in range.
  if (e > fmt.bias + 2)
    return fmt.maxFiniteCode + 1;
  const int quantumExp = e - fmt.manBits;
  // Exact: a float scaled by a power of two, in a double.
  double scaled = std::ldexp(double(a), -quantumExp);
  double n = std::floor(scaled);
  double frac = scaled - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0.0))
    n += 1.0;
  return (uint32_t(e - emin) << fmt.manBits) + uint32_t(n);
}

constexpr MiniFormat kF16 = {10, 15, 0x7BFF};
constexpr MiniFormat kE4M3 = {3, 7, 0x7E};
constexpr MiniFormat kE5M2 = {2, 15, 0x7B};
constexpr MiniFormat kE2M1 = {1, 1, 0x7};

/// Decodes a magnitude code of a format whose top exponent is not special
/// (or whose specials the caller has already handled).
float decodeMagnitude(uint32_t code, const MiniFormat &fmt) {
  uint32_t expField = code >> fmt.manBits;
  uint32_t man = code & ((1u << fmt.manBits) - 1);
  if (expField == 0)
    return float(std::ldexp(double(man), 1 - fmt.bias - fmt.manBits));
  return float(std::ldexp(double(man | (1u << fmt.manBits)),
                          int(expField) - fmt.bias - fmt.manBits));
}

/// The magnitude code of a non-NaN `f` in a saturating format: rounded to
/// nearest even, anything beyond the largest finite value (infinity
/// included) that value.
uint32_t saturatedCode(float f, const MiniFormat &fmt) {
  if (std::isinf(f))
    return fmt.maxFiniteCode;
  return std::min(roundMagnitude(std::fabs(f), fmt), fmt.maxFiniteCode);
}

} // namespace

uint16_t floatToBF16(float f) {
  uint32_t u = floatBits(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x0040); // quiet, sign and payload kept
  // Round to nearest even on the dropped 16 bits; a carry into the exponent
  // is the correct result, including overflow to infinity.
  uint32_t lsb = (u >> 16) & 1;
  return uint16_t((u + 0x7FFF + lsb) >> 16);
}

float bf16ToFloat(uint16_t b) { return bitsFloat(uint32_t(b) << 16); }

uint16_t floatToF16(float f) {
  uint32_t u = floatBits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  if (std::isnan(f))
    return uint16_t(sign | 0x7E00 | ((u >> 13) & 0x03FF));
  if (std::isinf(f))
    return uint16_t(sign | 0x7C00);
  uint32_t code = roundMagnitude(std::fabs(f), kF16);
  if (code > kF16.maxFiniteCode)
    code = 0x7C00; // IEEE: overflow rounds to infinity
  return uint16_t(sign | code);
}

float f16ToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t code = h & 0x7FFF;
  if ((code & 0x7C00) == 0x7C00) {
    if ((code & 0x03FF) == 0)
      return bitsFloat(sign | 0x7F800000);
    return bitsFloat(sign | 0x7FC00000 | ((code & 0x03FF) << 13));
  }
  return bitsFloat(sign | floatBits(decodeMagnitude(code, kF16)));
}

uint8_t floatToFp8E4M3(float f) {
  uint8_t sign = uint8_t((floatBits(f) >> 24) & 0x80);
  if (std::isnan(f))
    return uint8_t(sign | 0x7F);
  return uint8_t(sign | saturatedCode(f, kE4M3));
}

float fp8E4M3ToFloat(uint8_t b) {
  uint32_t sign = uint32_t(b & 0x80) << 24;
  uint32_t code = b & 0x7F;
  if (code == 0x7F)
    return bitsFloat(sign | 0x7FC00000);
  return bitsFloat(sign | floatBits(decodeMagnitude(code, kE4M3)));
}

uint8_t floatToFp8E5M2(float f) {
  uint8_t sign = uint8_t((floatBits(f) >> 24) & 0x80);
  if (std::isnan(f))
    return uint8_t(sign | 0x7E);
  return uint8_t(sign | saturatedCode(f, kE5M2));
}

float fp8E5M2ToFloat(uint8_t b) {
  uint32_t sign = uint32_t(b & 0x80) << 24;
  uint32_t code = b & 0x7F;
  if ((code & 0x7C) == 0x7C) {
    if ((code & 0x03) == 0)
      return bitsFloat(sign | 0x7F800000);
    return bitsFloat(sign | 0x7FC00000);
  }
  return bitsFloat(sign | floatBits(decodeMagnitude(code, kE5M2)));
}

uint8_t floatToFp4E2M1(float f) {
  if (std::isnan(f))
    return kE2M1.maxFiniteCode;
  uint8_t sign = uint8_t((floatBits(f) >> 28) & 0x8);
  return uint8_t(sign | saturatedCode(f, kE2M1));
}

float fp4E2M1ToFloat(uint8_t code) {
  float v = decodeMagnitude(code & 0x7, kE2M1);
  return (code & 0x8) ? -v : v;
}

uint8_t floatToE8M0(float f) {
  if (std::isnan(f))
    return 0xFF;
  if (!(f >= 0x1p-127f))
    return 0; // zero, negative and tiny values: the smallest scale
  if (f >= 0x1p127f)
    return 254;
  int e = std::ilogb(f);
  // m = f / 2^e in [1, 2), exact in a double.
  double m = std::ldexp(double(f), -e);
  int code = e + 127;
  if (m > 1.5 || (m == 1.5 && (code & 1)))
    ++code;
  return uint8_t(std::min(code, 254));
}

float e8m0ToFloat(uint8_t b) {
  if (b == 0xFF)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, int(b) - 127);
}

//===----------------------------------------------------------------------===//
// Element loads and stores (little-endian in memory, whatever the host)
//===----------------------------------------------------------------------===//

namespace {

uint32_t loadLE(const void *src, int bytes) {
  const auto *p = static_cast<const uint8_t *>(src);
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v |= uint32_t(p[i]) << (8 * i);
  return v;
}

void storeLE(uint32_t v, void *dst, int bytes) {
  auto *p = static_cast<uint8_t *>(dst);
  for (int i = 0; i < bytes; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

/// Round to nearest even, then clamp to [lo, hi]; NaN gives 0.
int64_t roundSaturate(float value, int64_t lo, int64_t hi) {
  if (std::isnan(value))
    return 0;
  double d = double(value);
  if (d <= double(lo))
    return lo;
  if (d >= double(hi))
    return hi;
  double n = std::floor(d);
  double frac = d - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0.0))
    n += 1.0;
  return int64_t(n);
}

} // namespace

float loadElement(DType t, const void *src) {
  switch (t) {
  case DType::F32:
    return bitsFloat(loadLE(src, 4));
  case DType::BF16:
    return bf16ToFloat(uint16_t(loadLE(src, 2)));
  case DType::F16:
    return f16ToFloat(uint16_t(loadLE(src, 2)));
  case DType::FP8E4M3:
    return fp8E4M3ToFloat(uint8_t(loadLE(src, 1)));
  case DType::FP8E5M2:
    return fp8E5M2ToFloat(uint8_t(loadLE(src, 1)));
  case DType::FP4E2M1:
    return fp4E2M1ToFloat(uint8_t(loadLE(src, 1)));
  case DType::E8M0:
    return e8m0ToFloat(uint8_t(loadLE(src, 1)));
  case DType::I32:
    return float(int32_t(loadLE(src, 4)));
  case DType::I8:
    return float(int8_t(uint8_t(loadLE(src, 1))));
  case DType::U8:
  case DType::FP4E2M1X2:
    return float(uint8_t(loadLE(src, 1)));
  }
  assert(false && "invalid dtype");
  return 0.0f;
}

void storeElement(DType t, float value, void *dst) {
  switch (t) {
  case DType::F32:
    return storeLE(floatBits(value), dst, 4);
  case DType::BF16:
    return storeLE(floatToBF16(value), dst, 2);
  case DType::F16:
    return storeLE(floatToF16(value), dst, 2);
  case DType::FP8E4M3:
    return storeLE(floatToFp8E4M3(value), dst, 1);
  case DType::FP8E5M2:
    return storeLE(floatToFp8E5M2(value), dst, 1);
  case DType::FP4E2M1:
    return storeLE(floatToFp4E2M1(value), dst, 1);
  case DType::E8M0:
    return storeLE(floatToE8M0(value), dst, 1);
  case DType::I32:
    return storeLE(uint32_t(int32_t(
                       roundSaturate(value, std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max()))),
                   dst, 4);
  case DType::I8:
    return storeLE(uint32_t(uint8_t(int8_t(roundSaturate(value, -128, 127)))),
                   dst, 1);
  case DType::U8:
  case DType::FP4E2M1X2:
    return storeLE(uint32_t(roundSaturate(value, 0, 255)), dst, 1);
  }
  assert(false && "invalid dtype");
}

} // namespace nki::isa
