//===- Instruction.h - One machine instruction -----------------*- C++ -*-===//
//
// The in-memory form of an instruction, shared by the emitter, the binary
// encoder/decoder (Binary.h), the constraint checks (Verify.h), the cost model
// (Cost.h) and the simulator. It is a flat struct: each opcode uses the
// fields its role table below names and leaves the rest at their defaults,
// which keeps decoding and simulation free of allocation and indirection.
//
// Operand roles per opcode (dst is always the destination):
//   matmul        src0 = stationary [K partitions, M], src1 = moving [K, N],
//                 dst = PSUM [M partitions, N] fp32; flags.start overwrites,
//                 otherwise accumulates. rows = 2 (fp8 double row): both
//                 sources are [K/2 partitions, M or N, 2], contraction index
//                 k = 2 x partition + the innermost index.
//   matmul_mx     the MX quad row (trn3): src0 = stationary [K/4, M, 4],
//                 src1 = moving [K/4, N, 4] in f8e4m3/f8e5m2 (f4e2m1x2:
//                 [K/4, M or N, 2] bytes of two values), k = 4 x partition
//                 + row; src2 = stationary scales [K/32, M], src3 = moving
//                 scales [K/32, N], e8m0, scale partition g covering source
//                 partitions 8g..8g+7; dst and start as for matmul.
//   transpose     src0 = [P, F] SBUF, dst = [F, P] PSUM.
//   activation    dst = func(src0 * scalar0 + scalar1); scalar0 = scale
//                 (imm or [P,1] AP), scalar1 = bias (imm or [P,1] AP);
//                 accum (optional) = free-axis sum of the result, [P,1].
//   tensor_tensor dst = src0 <alu0> src1.
//   tensor_scalar dst = (src0 <alu0> scalar0) <alu1> scalar1; alu1 may be
//                 bypass. flags.reverse0/1 swap the operands of alu0/alu1.
//   tensor_reduce dst[P, kept dims] = reduce<alu0>(src0) over the trailing
//                 `reduceAxes` free dims (add, max, min).
//   tensor_copy   dst = src0 (with dtype cast).
//   memset        dst = scalar0.imm.
//   select        dst = src0 != 0 ? src1 : src2.
//   transpose32   dst = src0 transposed in 32x32 blocks.
//   iota          dst = affine.value(p, i...) (as fp32, then stored).
//   affine_select dst = affine.value(p, i...) <alu0 comparison> 0 ? src0
//                 : scalar0.imm (fill).
//   dma_copy      dst = src0 (HBM/SBUF either side; optional dtype cast).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_ISA_INSTRUCTION_H
#define NKI_ISA_INSTRUCTION_H

#include "nki/ISA/Types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nki::isa {

enum class Opcode : uint8_t {
#define NKI_OPCODE(Name, mnemonic, engines) Name,
#include "nki/ISA/Opcodes.def"
};
constexpr int kNumOpcodes = int(Opcode::MatmulMx) + 1;
std::string_view opcodeName(Opcode op);
std::optional<Opcode> parseOpcode(std::string_view name);
/// Whether `op` may run on `engine`.
bool opcodeRunsOn(Opcode op, Engine engine);
/// matmul or matmul_mx: the PE instructions that contract into PSUM.
inline bool isMatmulOpcode(Opcode op) {
  return op == Opcode::Matmul || op == Opcode::MatmulMx;
}

enum class AluOp : uint8_t {
#define NKI_ALU_OP(Name, spelling) Name,
#include "nki/ISA/AluOps.def"
};
std::string_view aluOpName(AluOp op);
std::optional<AluOp> parseAluOp(std::string_view name);

enum class ActFunc : uint8_t {
#define NKI_ACT_FUNC(Name, spelling, table) Name,
#include "nki/ISA/ActFuncs.def"
};
enum class ActTable : uint8_t { None, ExpLog, Sigmoid, Sqrt, SinCos };
std::string_view actFuncName(ActFunc f);
std::optional<ActFunc> parseActFunc(std::string_view name);
ActTable actFuncTable(ActFunc f);

/// One free dimension of an access pattern: stride and size in elements.
struct Dim {
  int64_t stride = 0;
  int64_t size = 1;
  bool operator==(const Dim &o) const {
    return stride == o.stride && size == o.size;
  }
};

/// An operand in memory. SBUF/PSUM: partitions [startPartition,
/// startPartition + numPartitions), and in each of them the same byte offset
/// and free dims (at most 4). HBM: a byte offset and at most 5 dims;
/// the partition fields are unused (0 / 1). Elements are visited in row-major
/// order: partitions outermost (on chip), then dims[0], dims[1], ...
struct AccessPattern {
  static constexpr int kMaxDims = 5;
  // Widest first: 104 bytes instead of 112 (an instruction has eight).
  int64_t offset = 0; // bytes
  std::array<Dim, kMaxDims> dims{};
  int32_t startPartition = 0;
  int32_t numPartitions = 1;
  Memory memory = Memory::SBUF;
  DType dtype = DType::F32;
  uint8_t rank = 0; // number of valid dims

  bool valid() const { return rank > 0 || numPartitions > 0; }
  /// Elements per partition: the product of the free sizes.
  int64_t elementsPerPartition() const;
  /// All elements: partitions x elementsPerPartition (HBM: the latter).
  int64_t numElements() const;
  bool operator==(const AccessPattern &o) const;
};

/// An immediate or a per-partition [P,1] operand.
struct ScalarOperand {
  bool isImmediate = true;
  float imm = 0.0f;
  AccessPattern ap; // when !isImmediate
};

/// value(p, i0..i3) = offset + partitionCoef * p + sum_k freeCoefs[k] * i_k,
/// used by iota and affine_select.
struct AffineExpr {
  int64_t offset = 0;
  int64_t partitionCoef = 0;
  std::array<int64_t, 4> freeCoefs{};
};

struct SemWait {
  uint32_t semaphore = 0;
  uint32_t value = 0; // start once the semaphore is >= value
};

struct SemSignal {
  uint32_t semaphore = 0;
  uint32_t increment = 1;
};

struct Instruction {
  Opcode opcode = Opcode::TensorCopy;
  AccessPattern dst, src0, src1, src2, src3;
  ScalarOperand scalar0, scalar1;
  AluOp alu0 = AluOp::Bypass, alu1 = AluOp::Bypass;
  ActFunc func = ActFunc::Identity;
  AffineExpr affine;
  bool hasAccum = false;
  AccessPattern accum; // activation's free-axis sum output
  uint8_t reduceAxes = 1;
  bool start = true;    // matmul: overwrite (true) or accumulate (false)
  uint8_t rows = 1;     // matmul: contraction rows a partition (2: fp8)
  bool reverse0 = false, reverse1 = false; // tensor_scalar operand order

  std::vector<SemWait> waits;
  bool hasSignal = false;
  SemSignal signal;

  /// Source location ("file:line:col"), empty when unknown. Diagnostics from
  /// the simulator name it.
  std::string loc;
};

/// A matmul's contraction K and result M x N. With `rows` contraction rows a
/// partition (fp8 double row; 4 for matmul_mx) K is partitions x rows and
/// each source's free size is rows x M (stationary) or rows x N (moving)
/// values (f4e2m1x2 elements hold two).
struct MatmulShape {
  int64_t k = 0, m = 0, n = 0;
};
MatmulShape matmulShape(const Instruction &inst);

} // namespace nki::isa

#endif // NKI_ISA_INSTRUCTION_H
