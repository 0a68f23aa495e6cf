//===- Verify.cpp - Hardware-constraint checks ----------------------------===//
//
// Every constraint of docs/machine-model.md, in the order a reader of an
// instruction would check them: the opcode runs on the stream's engine; each
// operand is well formed (memory reachable by the engine, rank, partition
// range and start-partition rule, bounds); then the opcode's own rules
// (dtypes, shape agreement, limits); then semaphores.
//
// Arithmetic on access patterns is done in 128-bit integers: patterns come
// from binaries and user IR, and a stride of 2^62 must give a message, not
// an overflow. Nothing here calls AccessPattern::elementsPerPartition()
// before checkOperand has bounded the sizes.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Verify.h"

#include "OpcodeFields.h"
#include "StrCat.h"

#include "absl/strings/str_join.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace nki::isa {

namespace {

using Int128 = __int128;

/// An operand in diagnostics: "src0 (stationary)", "dst", "scalar1 (bias)".
struct Operand {
  std::string label;
  const AccessPattern *ap;
  bool isInput;
};

std::string label(const char *field, const char *role) {
  if (!role)
    return field;
  return detail::cat(field, " (", role, ")");
}

/// Tensor operands the opcode uses (scalar operands only when they are APs).
std::vector<Operand> collectOperands(const Instruction &inst) {
  detail::OpcodeFields f = detail::opcodeFields(inst.opcode);
  std::vector<Operand> ops;
  ops.push_back({"dst", &inst.dst, false});
  if (f.usesSrc0)
    ops.push_back({label("src0", f.src0), &inst.src0, true});
  if (f.usesSrc1)
    ops.push_back({label("src1", f.src1), &inst.src1, true});
  if (f.usesSrc2)
    ops.push_back({label("src2", f.src2), &inst.src2, true});
  if (f.usesSrc3)
    ops.push_back({label("src3", f.src3), &inst.src3, true});
  if (f.usesScalar0 && !inst.scalar0.isImmediate)
    ops.push_back({label("scalar0", f.scalar0), &inst.scalar0.ap, true});
  if (f.usesScalar1 && !inst.scalar1.isImmediate)
    ops.push_back({label("scalar1", f.scalar1), &inst.scalar1.ap, true});
  if (f.accum && inst.hasAccum)
    ops.push_back({"accum", &inst.accum, false});
  return ops;
}

/// Builds errors that start with the opcode's name.
class Checker {
public:
  Checker(const TargetDesc &target, const Instruction &inst)
      : target(target), inst(inst), name(opcodeName(inst.opcode)) {}

  template <typename... Args> absl::Status error(const Args &...args) const {
    return absl::InvalidArgumentError(detail::cat(name, ": ", args...));
  }

  absl::Status checkEngine(StreamId stream) const;
  absl::Status checkMemory(const Operand &op, Engine engine) const;
  absl::Status checkOperand(const Operand &op, bool computeEngine) const;
  absl::Status checkDType(const Operand &op) const;
  absl::Status checkOpcode() const;
  absl::Status checkSemaphores(uint32_t numSemaphores) const;

private:
  absl::Status checkMatmul() const;
  absl::Status checkDoubleRow() const;
  absl::Status checkMatmulMx() const;
  absl::Status checkMxSource(const AccessPattern &data, const char *field,
                             const AccessPattern &scale,
                             const char *scaleField) const;
  absl::Status checkTranspose() const;
  absl::Status checkActivation() const;
  absl::Status checkElementwise(const std::vector<const Operand *> &ins) const;
  absl::Status checkTensorScalar() const;
  absl::Status checkTensorReduce() const;
  absl::Status checkTranspose32() const;
  absl::Status checkAffineSelect() const;
  absl::Status checkDma() const;
  absl::Status checkScalarShape(const ScalarOperand &s, const char *field,
                                const char *role) const;
  absl::Status checkSameShape(const AccessPattern &a, const std::string &aName,
                              const AccessPattern &b,
                              const std::string &bName) const;

  const TargetDesc &target;
  const Instruction &inst;
  std::string_view name;
};

std::string engineList(Opcode op) {
  std::vector<std::string> names;
  for (Engine e :
       {Engine::PE, Engine::ACT, Engine::DVE, Engine::POOL, Engine::DMA})
    if (opcodeRunsOn(op, e))
      names.emplace_back(engineName(e));
  return absl::StrJoin(names, ", ");
}

absl::Status Checker::checkEngine(StreamId stream) const {
  if (stream.engine == Engine::DMA && stream.queue >= target.numDmaQueues)
    return error("stream ", streamName(stream),
                 " does not exist: ", target.name, " has ", target.numDmaQueues,
                 " DMA queues");
  if (!opcodeRunsOn(inst.opcode, stream.engine))
    return error("cannot run on stream ", streamName(stream), " (runs on ",
                 engineList(inst.opcode), ")");
  if (inst.opcode == Opcode::MatmulMx && !target.hasMx())
    return error("target ", target.name,
                 " has no matmul_mx (the MX quad row is trn3's)");
  return absl::OkStatus();
}

/// Connectivity: which memories each engine reads and writes.
absl::Status Checker::checkMemory(const Operand &op, Engine engine) const {
  Memory m = op.ap->memory;
  const char *need = nullptr;
  switch (engine) {
  case Engine::PE:
    if (op.isInput && m != Memory::SBUF)
      need = "the tensor engine reads SBUF only";
    else if (!op.isInput && m != Memory::PSUM)
      need = "the tensor engine writes PSUM only";
    break;
  case Engine::ACT:
  case Engine::DVE:
    if (m == Memory::HBM)
      need = "compute engines access SBUF and PSUM only";
    break;
  case Engine::POOL:
    if (m != Memory::SBUF)
      need = "the gpsimd engine accesses SBUF only";
    break;
  case Engine::DMA:
    if (m == Memory::PSUM)
      need = "DMA cannot access PSUM";
    break;
  }
  if (need)
    return error(op.label, " is in ", memoryName(m), "; ", need);
  return absl::OkStatus();
}

/// Rank, sizes, partitions, the start-partition rule and bounds of one AP.
absl::Status Checker::checkOperand(const Operand &op,
                                   bool computeEngine) const {
  const AccessPattern &ap = *op.ap;
  const std::string &l = op.label;
  bool onChip = ap.memory != Memory::HBM;
  int maxRank = onChip ? target.maxFreeDimsOnChip : target.maxDimsHbm;
  if (ap.rank > maxRank)
    return error(l, " has ", int(ap.rank), " dims; ", memoryName(ap.memory),
                 " access patterns have at most ", maxRank);

  int64_t esz = dtypeBytes(ap.dtype);
  int64_t capacity = ap.memory == Memory::HBM ? target.hbmBytes
                     : ap.memory == Memory::SBUF
                         ? target.sbufBytesPerPartition
                         : target.psumBytesPerPartition();
  // An AP may not visit more elements per partition than its memory holds:
  // bounds broadcasts (stride 0) and keeps every later product in range.
  Int128 elements = 1;
  for (int i = 0; i < ap.rank; ++i) {
    int64_t size = ap.dims[i].size;
    if (size < 1)
      return error(l, " dim ", i, " has size ", size, "; sizes must be >= 1");
    elements *= size;
    if (elements * esz > capacity)
      return error(l, " visits more than ", capacity / esz,
                   " elements per partition (", memoryName(ap.memory),
                   " capacity at ", dtypeName(ap.dtype), ")");
  }

  if (onChip) {
    if (ap.numPartitions < 1)
      return error(l, " partition count ", ap.numPartitions, " is below 1");
    if (ap.numPartitions > target.numPartitions)
      return error(l, " partition count ", ap.numPartitions, " exceeds ",
                   target.numPartitions);
    if (ap.startPartition < 0 ||
        int64_t(ap.startPartition) + ap.numPartitions > target.numPartitions)
      return error(l, " partitions [", ap.startPartition, ", ",
                   int64_t(ap.startPartition) + ap.numPartitions,
                   ") are outside [0, ", target.numPartitions, ")");
    if (computeEngine) {
      // Quadrant rule: a tile lives in one half, one quarter or the whole
      // partition range, aligned to it.
      int32_t n = ap.numPartitions, s = ap.startPartition;
      int32_t quarter = target.numPartitions / 4;
      int32_t half = target.numPartitions / 2;
      if (!target.computeTileStartOk(s, n)) {
        if (n > half)
          return error(l, " starts at partition ", s, " with ", n,
                       " partitions; a tile of more than ", half,
                       " partitions must start at 0");
        if (n > quarter)
          return error(l, " starts at partition ", s, " with ", n,
                       " partitions; a tile of ", quarter + 1, "-", half,
                       " partitions must start at 0 or ", half);
        return error(l, " starts at partition ", s, " with ", n,
                     " partitions; a tile of 1-", quarter,
                     " partitions must start at 0, ", quarter, ", ", half,
                     " or ", 3 * quarter);
      }
    }
  }

  // The bytes touched in each partition (in HBM: overall).
  Int128 lo = 0, hi = 0; // element offsets relative to `offset`
  for (int i = 0; i < ap.rank; ++i) {
    Int128 span = Int128(ap.dims[i].stride) * (ap.dims[i].size - 1);
    (span < 0 ? lo : hi) += span;
  }
  Int128 first = Int128(ap.offset) + lo * esz;
  Int128 end = Int128(ap.offset) + hi * esz + esz;
  if (first < 0 || end > capacity) {
    auto str = [](Int128 v) {
      // Bounded by the checks above to well within int64 unless a stride or
      // offset is itself near the int64 limits; clamp for printing.
      if (v > INT64_MAX)
        return std::string(">9223372036854775807");
      if (v < INT64_MIN)
        return std::string("<-9223372036854775808");
      return std::to_string(int64_t(v));
    };
    return error(l, " touches bytes [", str(first), ", ", str(end), ") of ",
                 memoryName(ap.memory), ", outside [0, ", capacity, ")",
                 onChip ? " per partition" : "");
  }
  if (ap.memory == Memory::PSUM &&
      first / target.psumBankBytes != (end - 1) / target.psumBankBytes)
    return error(l, " bytes [", int64_t(first), ", ", int64_t(end),
                 ") cross a PSUM bank boundary (banks are ",
                 target.psumBankBytes, " bytes)");
  return absl::OkStatus();
}

/// The MX types exist on MX targets only, and a packed f4e2m1x2 byte is
/// two values: only matmul_mx reads it and only a same-type DMA moves it.
absl::Status Checker::checkDType(const Operand &op) const {
  DType t = op.ap->dtype;
  if (isMxOnlyDType(t) && !target.hasMx())
    return error(op.label, " is ", dtypeName(t), "; target ", target.name,
                 " has no MX types (f4e2m1, f4e2m1x2, e8m0)");
  if (t != DType::FP4E2M1X2 || inst.opcode == Opcode::MatmulMx)
    return absl::OkStatus();
  if (inst.opcode == Opcode::DmaCopy && inst.src0.dtype == inst.dst.dtype)
    return absl::OkStatus();
  return error(op.label,
               " is f4e2m1x2 (two values a byte), which only matmul_mx "
               "reads and only a DMA copy to f4e2m1x2 moves; use f4e2m1 or "
               "u8 to compute on it");
}

absl::Status Checker::checkSameShape(const AccessPattern &a,
                                     const std::string &aName,
                                     const AccessPattern &b,
                                     const std::string &bName) const {
  bool onChip = a.memory != Memory::HBM && b.memory != Memory::HBM;
  if ((onChip && a.numPartitions != b.numPartitions) ||
      a.elementsPerPartition() != b.elementsPerPartition())
    return error(aName, " is [", a.numPartitions, " partitions x ",
                 a.elementsPerPartition(), " elements] but ", bName, " is [",
                 b.numPartitions, " x ", b.elementsPerPartition(), "]");
  return absl::OkStatus();
}

absl::Status Checker::checkScalarShape(const ScalarOperand &s,
                                       const char *field,
                                       const char *role) const {
  if (s.isImmediate)
    return absl::OkStatus();
  if (s.ap.numPartitions != inst.dst.numPartitions ||
      s.ap.elementsPerPartition() != 1)
    return error(label(field, role), " must be [", inst.dst.numPartitions,
                 ", 1] like dst's partitions, got [", s.ap.numPartitions, ", ",
                 s.ap.elementsPerPartition(), "]");
  return absl::OkStatus();
}

bool isMatmulNarrowInput(DType t) {
  return t == DType::BF16 || t == DType::F16 || t == DType::FP8E4M3 ||
         t == DType::FP8E5M2;
}

bool isComparison(AluOp op) {
  return op == AluOp::IsEq || op == AluOp::IsNe || op == AluOp::IsLt ||
         op == AluOp::IsLe || op == AluOp::IsGt || op == AluOp::IsGe;
}

bool isBitwise(AluOp op) {
  return op == AluOp::And || op == AluOp::Or || op == AluOp::Xor;
}

absl::Status Checker::checkMatmul() const {
  const AccessPattern &st = inst.src0, &mv = inst.src1, &dst = inst.dst;
  DType a = st.dtype, b = mv.dtype;
  bool ok = (isMatmulNarrowInput(a) && isMatmulNarrowInput(b)) ||
            (a == DType::F32 && b == DType::F32);
  if (!ok)
    return error("src0 (stationary) is ", dtypeName(a), " and src1 (moving) ",
                 dtypeName(b),
                 "; inputs must be bf16/f16/f8e4m3/f8e5m2 "
                 "(mixed) or both f32");
  if (dst.dtype != DType::F32)
    return error("dst dtype is ", dtypeName(dst.dtype),
                 "; the tensor engine writes f32");
  if (inst.rows != 1 && inst.rows != 2)
    return error("rows = ", int(inst.rows),
                 "; a matmul contracts 1 row a partition, or 2 (fp8 double "
                 "row)");
  if (inst.rows == 2) {
    if (auto s = checkDoubleRow(); !s.ok())
      return s;
  }
  MatmulShape s = matmulShape(inst);
  if (st.numPartitions > target.matmulMaxK)
    return error("contraction K = ", st.numPartitions, " exceeds ",
                 target.matmulMaxK);
  if (mv.numPartitions != st.numPartitions)
    return error("src1 (moving) has ", mv.numPartitions,
                 " partitions but src0 (stationary) has ", st.numPartitions,
                 "; both are the contraction K");
  if (s.m > target.matmulMaxM)
    return error("src0 (stationary) free size M = ", s.m, " exceeds ",
                 target.matmulMaxM);
  if (s.n > target.matmulMaxN)
    return error("src1 (moving) free size N = ", s.n, " exceeds ",
                 target.matmulMaxN);
  if (dst.numPartitions != s.m || dst.elementsPerPartition() != s.n)
    return error("dst is [", dst.numPartitions, ", ",
                 dst.elementsPerPartition(), "] but must be [M, N] = [", s.m,
                 ", ", s.n, "]");
  return absl::OkStatus();
}

absl::Status Checker::checkDoubleRow() const {
  if (!isFp8DType(inst.src0.dtype) || !isFp8DType(inst.src1.dtype))
    return error("fp8 double row (rows = 2) needs f8e4m3/f8e5m2 inputs, got ",
                 dtypeName(inst.src0.dtype), " and ",
                 dtypeName(inst.src1.dtype));
  if (target.peFp8Rows < 2)
    return error("target ", target.name,
                 " has no fp8 double row (rows = 2); it contracts ",
                 target.peFp8Rows, " row a partition");
  for (auto [ap, field] : {std::pair{&inst.src0, "src0 (stationary)"},
                           std::pair{&inst.src1, "src1 (moving)"}}) {
    Dim inner = ap->rank ? ap->dims[ap->rank - 1] : Dim{};
    if (inner.stride != 1 || inner.size != 2)
      return error(field, "'s innermost free dim is (stride ", inner.stride,
                   ", size ", inner.size,
                   "); fp8 double row needs (1, 2): k = 2 x partition + row");
  }
  return absl::OkStatus();
}

absl::Status Checker::checkMatmulMx() const {
  if (inst.dst.dtype != DType::F32)
    return error("dst dtype is ", dtypeName(inst.dst.dtype),
                 "; the tensor engine writes f32");
  if (auto s = checkMxSource(inst.src0, "src0 (stationary)", inst.src2,
                             "src2 (stationary_scale)");
      !s.ok())
    return s;
  if (auto s = checkMxSource(inst.src1, "src1 (moving)", inst.src3,
                             "src3 (moving_scale)");
      !s.ok())
    return s;
  if (inst.src1.numPartitions != inst.src0.numPartitions)
    return error("src1 (moving) has ", inst.src1.numPartitions,
                 " partitions but src0 (stationary) has ",
                 inst.src0.numPartitions, "; both are K/4");
  MatmulShape s = matmulShape(inst);
  if (inst.src0.numPartitions > target.matmulMaxK)
    return error("contraction K = ", s.k, " exceeds ",
                 target.matmulMaxK * target.peMxRows);
  if (s.m > target.matmulMaxM)
    return error("src0 (stationary) has M = ", s.m, " columns, more than ",
                 target.matmulMaxM);
  if (s.n > target.matmulMaxN)
    return error("src1 (moving) has N = ", s.n, " columns, more than ",
                 target.matmulMaxN);
  if (inst.dst.numPartitions != s.m || inst.dst.elementsPerPartition() != s.n)
    return error("dst is [", inst.dst.numPartitions, ", ",
                 inst.dst.elementsPerPartition(), "] but must be [M, N] = [",
                 s.m, ", ", s.n, "]");
  return absl::OkStatus();
}

/// An MX source: [K/4, columns, 4] values (k = 4 x partition + row; two a
/// byte for f4e2m1x2) with e8m0 scales [K/32, columns].
absl::Status Checker::checkMxSource(const AccessPattern &data,
                                    const char *field,
                                    const AccessPattern &scale,
                                    const char *scaleField) const {
  if (!isMxElementDType(data.dtype))
    return error(field, " is ", dtypeName(data.dtype),
                 "; matmul_mx reads f8e4m3, f8e5m2 or f4e2m1x2");
  int64_t inner = 4 / mxValuesPerElement(data.dtype);
  Dim d = data.rank ? data.dims[data.rank - 1] : Dim{};
  if (d.stride != 1 || d.size != inner)
    return error(field, "'s innermost free dim is (stride ", d.stride,
                 ", size ", d.size, "); the MX quad row needs (1, ", inner, ")",
                 inner == 2 ? " bytes of two f4e2m1" : "",
                 ": k = 4 x partition + row");
  if (data.numPartitions % 8 != 0)
    return error(field, " has ", data.numPartitions,
                 " partitions; matmul_mx needs a multiple of 8 (a scale "
                 "covers 8 partitions x 4 rows)");
  if (scale.dtype != DType::E8M0)
    return error(scaleField, " is ", dtypeName(scale.dtype),
                 "; MX scales are e8m0");
  int64_t columns = data.elementsPerPartition() / inner;
  if (scale.numPartitions != data.numPartitions / 8 ||
      scale.elementsPerPartition() != columns)
    return error(scaleField, " is [", scale.numPartitions, ", ",
                 scale.elementsPerPartition(), "] but must be [K/32, ", columns,
                 "] = [", data.numPartitions / 8, ", ", columns, "]");
  return absl::OkStatus();
}

absl::Status Checker::checkTranspose() const {
  const AccessPattern &src = inst.src0, &dst = inst.dst;
  if (!isFloatDType(src.dtype))
    return error("src0 dtype ", dtypeName(src.dtype),
                 " is not a floating-point type");
  if (dst.dtype != DType::F32)
    return error("dst dtype is ", dtypeName(dst.dtype),
                 "; the tensor engine writes f32");
  int64_t p = src.numPartitions, f = src.elementsPerPartition();
  if (p > target.transposeMaxP)
    return error("src0 partition count P = ", p, " exceeds ",
                 target.transposeMaxP);
  if (f > target.transposeMaxF)
    return error("src0 free size F = ", f, " exceeds ", target.transposeMaxF);
  if (dst.numPartitions != f || dst.elementsPerPartition() != p)
    return error("dst is [", dst.numPartitions, ", ",
                 dst.elementsPerPartition(), "] but must be [F, P] = [", f,
                 ", ", p, "]");
  return absl::OkStatus();
}

absl::Status
Checker::checkElementwise(const std::vector<const Operand *> &ins) const {
  for (const Operand *op : ins)
    if (absl::Status s = checkSameShape(*op->ap, op->label, inst.dst, "dst");
        !s.ok())
      return s;
  return absl::OkStatus();
}

absl::Status Checker::checkActivation() const {
  if (absl::Status s = checkSameShape(inst.src0, "src0", inst.dst, "dst");
      !s.ok())
    return s;
  if (absl::Status s = checkScalarShape(inst.scalar0, "scalar0", "scale");
      !s.ok())
    return s;
  if (absl::Status s = checkScalarShape(inst.scalar1, "scalar1", "bias");
      !s.ok())
    return s;
  if (inst.hasAccum && (inst.accum.numPartitions != inst.dst.numPartitions ||
                        inst.accum.elementsPerPartition() != 1))
    return error("accum must be [", inst.dst.numPartitions, ", 1], got [",
                 inst.accum.numPartitions, ", ",
                 inst.accum.elementsPerPartition(), "]");
  return absl::OkStatus();
}

absl::Status Checker::checkTensorScalar() const {
  if (absl::Status s = checkSameShape(inst.src0, "src0", inst.dst, "dst");
      !s.ok())
    return s;
  if (inst.alu0 == AluOp::Bypass)
    return error("alu0 may not be bypass (only the second op is optional)");
  for (AluOp op : {inst.alu0, inst.alu1})
    if (isBitwise(op) &&
        (isFloatDType(inst.src0.dtype) || isFloatDType(inst.dst.dtype)))
      return error(aluOpName(op), " needs integer src0 and dst, got ",
                   dtypeName(inst.src0.dtype), " and ",
                   dtypeName(inst.dst.dtype));
  if (absl::Status s = checkScalarShape(inst.scalar0, "scalar0", nullptr);
      !s.ok())
    return s;
  return checkScalarShape(inst.scalar1, "scalar1", nullptr);
}

absl::Status Checker::checkTensorReduce() const {
  const AccessPattern &src = inst.src0, &dst = inst.dst;
  if (inst.alu0 != AluOp::Add && inst.alu0 != AluOp::Max &&
      inst.alu0 != AluOp::Min)
    return error("reduction ", aluOpName(inst.alu0),
                 " is not one of add, max, min");
  if (inst.reduceAxes < 1 || inst.reduceAxes > src.rank)
    return error("reduces ", int(inst.reduceAxes),
                 " trailing axes but src0 has ", int(src.rank), " free dims");
  int64_t kept = 1;
  for (int i = 0; i < src.rank - inst.reduceAxes; ++i)
    kept *= src.dims[i].size;
  if (dst.numPartitions != src.numPartitions ||
      dst.elementsPerPartition() != kept)
    return error("dst is [", dst.numPartitions, ", ",
                 dst.elementsPerPartition(), "] but reducing ",
                 int(inst.reduceAxes), " axes of src0 leaves [",
                 src.numPartitions, ", ", kept, "]");
  return absl::OkStatus();
}

absl::Status Checker::checkTranspose32() const {
  if (absl::Status s = checkSameShape(inst.src0, "src0", inst.dst, "dst");
      !s.ok())
    return s;
  if (inst.src0.numPartitions % 32 != 0 ||
      inst.src0.elementsPerPartition() % 32 != 0)
    return error("src0 is [", inst.src0.numPartitions, ", ",
                 inst.src0.elementsPerPartition(),
                 "]; both must be multiples of 32 (32x32 blocks)");
  return absl::OkStatus();
}

absl::Status Checker::checkAffineSelect() const {
  if (absl::Status s = checkSameShape(inst.src0, "src0", inst.dst, "dst");
      !s.ok())
    return s;
  if (!isComparison(inst.alu0))
    return error("predicate ", aluOpName(inst.alu0), " is not a comparison");
  return absl::OkStatus();
}

absl::Status Checker::checkDma() const {
  if (inst.src0.numElements() != inst.dst.numElements())
    return error("src0 has ", inst.src0.numElements(), " elements but dst has ",
                 inst.dst.numElements());
  return absl::OkStatus();
}

absl::Status Checker::checkOpcode() const {
  detail::OpcodeFields f = detail::opcodeFields(inst.opcode);
  if (f.scalarsImmediateOnly && !inst.scalar0.isImmediate)
    return error("scalar0 (", f.scalar0, ") must be an immediate");
  switch (inst.opcode) {
  case Opcode::Matmul:
    return checkMatmul();
  case Opcode::MatmulMx:
    return checkMatmulMx();
  case Opcode::Transpose:
    return checkTranspose();
  case Opcode::Activation:
    return checkActivation();
  case Opcode::TensorTensor: {
    if (inst.alu0 == AluOp::Bypass)
      return error("alu0 may not be bypass");
    if (isBitwise(inst.alu0))
      for (const auto &[ap, n] : {std::pair{&inst.src0, "src0"},
                                  {&inst.src1, "src1"},
                                  {&inst.dst, "dst"}})
        if (isFloatDType(ap->dtype))
          return error(aluOpName(inst.alu0), " needs integer dtypes; ", n,
                       " is ", dtypeName(ap->dtype));
    Operand a{"src0", &inst.src0, true}, b{"src1", &inst.src1, true};
    return checkElementwise({&a, &b});
  }
  case Opcode::TensorScalar:
    return checkTensorScalar();
  case Opcode::TensorReduce:
    return checkTensorReduce();
  case Opcode::TensorCopy:
    return checkSameShape(inst.src0, "src0", inst.dst, "dst");
  case Opcode::Memset:
  case Opcode::Iota:
    return absl::OkStatus();
  case Opcode::Select: {
    Operand p{"src0 (predicate)", &inst.src0, true},
        t{"src1 (on_true)", &inst.src1, true},
        e{"src2 (on_false)", &inst.src2, true};
    return checkElementwise({&p, &t, &e});
  }
  case Opcode::Transpose32:
    return checkTranspose32();
  case Opcode::AffineSelect:
    return checkAffineSelect();
  case Opcode::DmaCopy:
    return checkDma();
  }
  return error("unknown opcode");
}

absl::Status Checker::checkSemaphores(uint32_t numSemaphores) const {
  for (size_t i = 0; i < inst.waits.size(); ++i)
    if (inst.waits[i].semaphore >= numSemaphores)
      return error("wait ", i, " uses semaphore ", inst.waits[i].semaphore,
                   " but the program has ", numSemaphores, " semaphores");
  if (inst.hasSignal && inst.signal.semaphore >= numSemaphores)
    return error("signal uses semaphore ", inst.signal.semaphore,
                 " but the program has ", numSemaphores, " semaphores");
  return absl::OkStatus();
}

} // namespace

absl::Status verifyInstruction(const TargetDesc &target, StreamId stream,
                               const Instruction &inst,
                               uint32_t numSemaphores) {
  Checker c(target, inst);
  if (absl::Status s = c.checkEngine(stream); !s.ok())
    return s;
  std::vector<Operand> ops = collectOperands(inst);
  bool compute = stream.engine != Engine::DMA;
  int psumInputs = 0;
  for (const Operand &op : ops) {
    if (absl::Status s = c.checkMemory(op, stream.engine); !s.ok())
      return s;
    if (op.isInput && op.ap->memory == Memory::PSUM)
      ++psumInputs;
  }
  if (psumInputs > 1)
    return c.error(psumInputs,
                   " inputs are in PSUM; at most one PSUM input is allowed");
  for (const Operand &op : ops) {
    if (absl::Status s = c.checkOperand(op, compute); !s.ok())
      return s;
    if (absl::Status s = c.checkDType(op); !s.ok())
      return s;
  }
  if (absl::Status s = c.checkOpcode(); !s.ok())
    return s;
  return c.checkSemaphores(numSemaphores);
}

absl::Status verifyProgram(const Program &program) {
  const TargetDesc *target = lookupTarget(program.target);
  if (!target)
    return absl::InvalidArgumentError(detail::cat(
        "unknown target '", program.target,
        "' (known: ", knownTargetNames(", "), ")"));

  // Tensors: sizes, placement inside HBM, no overlap, constant data.
  struct Placed {
    int64_t begin, end;
    const TensorDecl *decl;
  };
  std::vector<Placed> placed;
  std::unordered_set<std::string_view> names;
  for (const TensorDecl &t : program.tensors) {
    auto err = [&](const auto &...args) {
      return absl::InvalidArgumentError(
          detail::cat("tensor '", t.name, "': ", args...));
    };
    if (t.name.empty())
      return absl::InvalidArgumentError("a tensor has an empty name");
    if (!names.insert(t.name).second)
      return err("declared twice");
    Int128 bytes = dtypeBytes(t.dtype);
    for (int64_t d : t.shape) {
      if (d < 0)
        return err("negative dimension ", d);
      bytes *= d;
      if (bytes > target->hbmBytes)
        return err("does not fit in ", target->name, "'s ", target->hbmBytes,
                   " bytes of HBM");
    }
    if (t.hbmOffset < 0 || Int128(t.hbmOffset) + bytes > target->hbmBytes)
      return err("HBM bytes [", t.hbmOffset, ", ",
                 int64_t(Int128(t.hbmOffset) + bytes), ") are outside [0, ",
                 target->hbmBytes, ")");
    if (t.kind == TensorKind::Constant && Int128(t.bytes().size()) != bytes)
      return err("constant has ", t.bytes().size(), " data bytes but its type ",
                 "needs ", int64_t(bytes));
    if (t.kind != TensorKind::Constant && !t.bytes().empty())
      return err(tensorKindName(t.kind), " tensor carries ", t.bytes().size(),
                 " data bytes; only constants have data");
    if (t.host != HostType::Device) {
      if (t.kind != TensorKind::Input && t.kind != TensorKind::Output)
        return err(tensorKindName(t.kind), " tensor has host type ",
                   hostTypeName(t.host), "; only inputs and outputs have one");
      // Each host type is carried in one device dtype.
      DType carrier = t.host == HostType::F64    ? DType::F32
                      : t.host == HostType::Bool ? DType::U8
                                                 : DType::I32;
      if (t.dtype != carrier)
        return err("host type ", hostTypeName(t.host), " is carried as ",
                   dtypeName(carrier), ", not ", dtypeName(t.dtype));
    }
    if (bytes > 0)
      placed.push_back({t.hbmOffset, t.hbmOffset + int64_t(bytes), &t});
  }
  std::sort(placed.begin(), placed.end(),
            [](const Placed &a, const Placed &b) { return a.begin < b.begin; });
  for (size_t i = 1; i < placed.size(); ++i)
    if (placed[i].begin < placed[i - 1].end)
      return absl::InvalidArgumentError(detail::cat(
          "tensors '", placed[i - 1].decl->name, "' [", placed[i - 1].begin,
          ", ", placed[i - 1].end, ") and '", placed[i].decl->name, "' [",
          placed[i].begin, ", ", placed[i].end, ") overlap in HBM"));

  // Streams and their instructions.
  std::unordered_set<int> streamIds;
  for (const Stream &stream : program.streams) {
    std::string sname = streamName(stream.id);
    if (!streamIds.insert(stream.id.index()).second)
      return absl::InvalidArgumentError(
          detail::cat("stream ", sname, " appears twice"));
    for (size_t k = 0; k < stream.instructions.size(); ++k)
      if (absl::Status s = verifyProgramInstruction(*target, stream.id, k,
                                                    stream.instructions[k],
                                                    program.numSemaphores);
          !s.ok())
        return s;
  }
  return absl::OkStatus();
}

absl::Status verifyProgramInstruction(const TargetDesc &target, StreamId stream,
                                      size_t index, const Instruction &inst,
                                      uint32_t numSemaphores) {
  absl::Status s = verifyInstruction(target, stream, inst, numSemaphores);
  if (s.ok())
    return s;
  return absl::InvalidArgumentError(
      detail::cat(streamName(stream), " instruction ", index,
                  inst.loc.empty() ? "" : detail::cat(" (", inst.loc, ")"),
                  ": ", s.message()));
}

} // namespace nki::isa
