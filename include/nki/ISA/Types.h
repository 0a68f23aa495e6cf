//===- Types.h - Element types, memories, engines ------------*- C++ -*-===//
//
// The small enumerations every instruction is built from. Names (used by the
// nisa assembly, the binary and diagnostics) come from the same .def tables.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_TYPES_H
#define NKI_ISA_TYPES_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nki::isa {

enum class DType : uint8_t {
#define NKI_DTYPE(Name, spelling, bytes) Name,
#include "nki/ISA/DTypes.def"
};
int64_t dtypeBytes(DType t);
std::string_view dtypeName(DType t); // "f32", "bf16", ...
std::optional<DType> parseDType(std::string_view name);
bool isFloatDType(DType t);
/// f8e4m3 or f8e5m2: the types of the PE's fp8 rate (double row).
inline bool isFp8DType(DType t) {
  return t == DType::FP8E4M3 || t == DType::FP8E5M2;
}
/// f4e2m1, f4e2m1x2 or e8m0: the types only targets with matmul_mx have.
inline bool isMxOnlyDType(DType t) {
  return t == DType::FP4E2M1 || t == DType::FP4E2M1X2 || t == DType::E8M0;
}
/// The element types of a matmul_mx source: f8e4m3, f8e5m2, f4e2m1x2.
inline bool isMxElementDType(DType t) {
  return isFp8DType(t) || t == DType::FP4E2M1X2;
}
/// Values a byte of an MX source holds: 2 for f4e2m1x2, else 1.
inline int64_t mxValuesPerElement(DType t) {
  return t == DType::FP4E2M1X2 ? 2 : 1;
}

/// Conversions used by every engine: values are fp32 inside ACT/DVE/POOL and
/// in PSUM; narrowing stores round to nearest even; fp8 and fp4 overflow
/// saturates to the largest finite value; e8m0 stores round to the nearest
/// power of two in [2^-127, 2^127]; integer stores round to nearest even and
/// saturate. An f4e2m1x2 element is a pair of values, which no engine
/// computes on (the verifier keeps it to matmul_mx and DMA): loads and
/// stores move its byte as a u8, which is also how hosts pass it (.npy u1).
/// Implemented in lib/ISA/Types.cpp.
float loadElement(DType t, const void *src);
void storeElement(DType t, float value, void *dst);
uint16_t floatToBF16(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToF16(float f);
float f16ToFloat(uint16_t h);
uint8_t floatToFp8E4M3(float f);
float fp8E4M3ToFloat(uint8_t b);
uint8_t floatToFp8E5M2(float f);
float fp8E5M2ToFloat(uint8_t b);
uint8_t floatToFp4E2M1(float f);    // the code in the low nibble
float fp4E2M1ToFloat(uint8_t code); // the low nibble's value
uint8_t floatToE8M0(float f);
float e8m0ToFloat(uint8_t b);

enum class Memory : uint8_t { HBM, SBUF, PSUM };
std::string_view memoryName(Memory m); // "hbm", "sbuf", "psum"
std::optional<Memory> parseMemory(std::string_view name);

/// Instruction streams: one per engine and one per DMA queue. A stream id is
/// a small integer: PE, ACT, DVE, POOL, then DMA queue q at kDma0 + q.
enum class Engine : uint8_t { PE, ACT, DVE, POOL, DMA };
std::string_view engineName(Engine e); // "pe", "act", "dve", "pool", "dma"
std::optional<Engine> parseEngine(std::string_view name);

struct StreamId {
  Engine engine = Engine::PE;
  uint8_t queue = 0; // DMA queue index; 0 for compute engines
  bool operator==(const StreamId &o) const {
    return engine == o.engine && queue == o.queue;
  }
  bool operator!=(const StreamId &o) const { return !(*this == o); }
  /// Dense index: PE=0, ACT=1, DVE=2, POOL=3, DMA queue q = 4 + q.
  int index() const { return engine == Engine::DMA ? 4 + queue : int(engine); }
  static StreamId fromIndex(int i) {
    return i < 4 ? StreamId{Engine(i), 0} : StreamId{Engine::DMA, uint8_t(i - 4)};
  }
};
/// "pe", "act", "dve", "pool", "dma3"
std::string streamName(StreamId id);
std::optional<StreamId> parseStream(std::string_view name);

} // namespace nki::isa

#endif // NKI_ISA_TYPES_H
