//===- Execute.cpp - ACT, DVE and POOL semantics --------------------------===//
//
// Each instruction is applied partition by partition: the operands' rows are
// loaded as fp32, computed on, and stored with the destination's dtype
// (round to nearest even, fp8 saturating), as the engines do.
//
//===----------------------------------------------------------------------===//

#include "Execute.h"
#include "Access.h"
#include "Math.h"
#include "Strings.h"

#include <algorithm>

namespace nki::sim {

using isa::AccessPattern;
using isa::Instruction;
using isa::Opcode;

int operandsOf(const Instruction &inst, Operand out[8]) {
  int n = 0;
  auto add = [&](const AccessPattern &ap, const char *role, bool read,
                 bool write) {
    out[n++] = Operand{&ap, role, read, write};
  };
  auto addScalar = [&](const isa::ScalarOperand &s, const char *role) {
    if (!s.isImmediate)
      add(s.ap, role, true, false);
  };
  switch (inst.opcode) {
  case Opcode::Matmul:
    add(inst.src0, "src0", true, false);
    add(inst.src1, "src1", true, false);
    // Accumulation reads the PSUM it adds to.
    add(inst.dst, "dst", !inst.start, true);
    break;
  case Opcode::MatmulMx:
    add(inst.src0, "src0", true, false);
    add(inst.src1, "src1", true, false);
    add(inst.src2, "src2", true, false);
    add(inst.src3, "src3", true, false);
    add(inst.dst, "dst", !inst.start, true);
    break;
  case Opcode::Transpose:
  case Opcode::TensorReduce:
  case Opcode::TensorCopy:
  case Opcode::Transpose32:
  case Opcode::AffineSelect:
  case Opcode::DmaCopy:
    add(inst.src0, "src0", true, false);
    add(inst.dst, "dst", false, true);
    break;
  case Opcode::Activation:
    add(inst.src0, "src0", true, false);
    addScalar(inst.scalar0, "scale");
    addScalar(inst.scalar1, "bias");
    add(inst.dst, "dst", false, true);
    if (inst.hasAccum)
      add(inst.accum, "accum", false, true);
    break;
  case Opcode::TensorTensor:
    add(inst.src0, "src0", true, false);
    add(inst.src1, "src1", true, false);
    add(inst.dst, "dst", false, true);
    break;
  case Opcode::TensorScalar:
    add(inst.src0, "src0", true, false);
    addScalar(inst.scalar0, "scalar0");
    addScalar(inst.scalar1, "scalar1");
    add(inst.dst, "dst", false, true);
    break;
  case Opcode::Memset:
  case Opcode::Iota:
    add(inst.dst, "dst", false, true);
    break;
  case Opcode::Select:
    add(inst.src0, "src0", true, false);
    add(inst.src1, "src1", true, false);
    add(inst.src2, "src2", true, false);
    add(inst.dst, "dst", false, true);
    break;
  }
  return n;
}

namespace {

/// The rows of one partition of each operand, loaded as fp32.
struct Rows {
  MachineState &state;

  float *load(const AccessPattern &ap, int32_t p, std::vector<float> &buf) {
    int64_t n = elementsPerRow(ap);
    if (int64_t(buf.size()) < n)
      buf.resize(n);
    loadRow(ap, state.base(ap.memory, ap.startPartition + p), buf.data());
    return buf.data();
  }
  void store(const AccessPattern &ap, int32_t p, const float *values) {
    storeRow(ap, state.base(ap.memory, ap.startPartition + p), values);
  }
  /// Every partition row of `ap`, one after another ([P x E] fp32), so the
  /// arithmetic runs once over the whole tile instead of once per row.
  float *loadAll(const AccessPattern &ap, std::vector<float> &buf) {
    int32_t rows = partitionsOf(ap);
    int64_t n = elementsPerRow(ap);
    if (int64_t(buf.size()) < rows * n)
      buf.resize(rows * n);
    for (int32_t p = 0; p < rows; ++p)
      loadRow(ap, state.base(ap.memory, ap.startPartition + p),
              buf.data() + p * n);
    return buf.data();
  }
  void storeAll(const AccessPattern &ap, const float *values) {
    int64_t n = elementsPerRow(ap);
    for (int32_t p = 0; p < partitionsOf(ap); ++p)
      storeRow(ap, state.base(ap.memory, ap.startPartition + p),
               values + p * n);
  }
  float scalar(const isa::ScalarOperand &s, int32_t p) {
    if (s.isImmediate)
      return s.imm;
    float v;
    loadRun(s.ap.dtype,
            state.base(s.ap.memory, s.ap.startPartition + p) + s.ap.offset, 1,
            0, &v);
    return v;
  }
};

absl::Status checkSameCount(const AccessPattern &a, const char *aRole,
                            const AccessPattern &b, const char *bRole) {
  if (elementsPerRow(a) == elementsPerRow(b) &&
      partitionsOf(a) == partitionsOf(b))
    return absl::OkStatus();
  return absl::InvalidArgumentError(cat(aRole, " has ", partitionsOf(a), " x ",
                                        elementsPerRow(a), " elements but ",
                                        bRole, " has ", partitionsOf(b), " x ",
                                        elementsPerRow(b)));
}

/// Free-dimension indices of element `i` of `ap` (row-major), into idx[4].
void freeIndices(const AccessPattern &ap, int64_t i, int64_t idx[4]) {
  for (int d = 3; d >= 0; --d) {
    if (d >= ap.rank) {
      idx[d] = 0;
      continue;
    }
    idx[d] = i % ap.dims[d].size;
    i /= ap.dims[d].size;
  }
}

double affineValue(const isa::AffineExpr &e, int32_t p, const int64_t idx[4]) {
  int64_t v = e.offset + e.partitionCoef * p;
  for (int k = 0; k < 4; ++k)
    v += e.freeCoefs[k] * idx[k];
  return double(v);
}

absl::Status executeElementwise(MachineState &state, const Instruction &inst,
                                ExecScratch &s) {
  Rows rows{state};
  const AccessPattern &dst = inst.dst;
  int32_t P = partitionsOf(dst);
  int64_t E = elementsPerRow(dst);
  if (int64_t(s.d.size()) < E)
    s.d.resize(E);
  float *out = s.d.data();

  switch (inst.opcode) {
  case Opcode::TensorTensor: {
    if (auto st = checkSameCount(inst.src0, "src0", dst, "dst"); !st.ok())
      return st;
    if (auto st = checkSameCount(inst.src1, "src1", dst, "dst"); !st.ok())
      return st;
    float *a = rows.loadAll(inst.src0, s.a);
    float *b = rows.loadAll(inst.src1, s.b);
    applyAlu(inst.alu0, a, b, 1, a, P * E);
    rows.storeAll(dst, a);
    return absl::OkStatus();
  }
  case Opcode::TensorScalar: {
    if (auto st = checkSameCount(inst.src0, "src0", dst, "dst"); !st.ok())
      return st;
    float *a = rows.loadAll(inst.src0, s.a);
    // One step over the whole tile for an immediate, else row by row.
    auto step = [&](isa::AluOp op, const isa::ScalarOperand &operand,
                    bool reverse) {
      int64_t rowsAtOnce = operand.isImmediate ? P : 1;
      for (int32_t p = 0; p < P; p += int32_t(rowsAtOnce)) {
        float v = rows.scalar(operand, p);
        float *row = a + p * E;
        if (reverse)
          applyAluScalarFirst(op, v, row, row, rowsAtOnce * E);
        else
          applyAlu(op, row, &v, 0, row, rowsAtOnce * E);
      }
    };
    step(inst.alu0, inst.scalar0, inst.reverse0);
    if (inst.alu1 != isa::AluOp::Bypass)
      step(inst.alu1, inst.scalar1, inst.reverse1);
    rows.storeAll(dst, a);
    return absl::OkStatus();
  }
  case Opcode::TensorReduce: {
    const AccessPattern &src = inst.src0;
    if (inst.reduceAxes < 1 || inst.reduceAxes > src.rank)
      return absl::InvalidArgumentError(
          cat("reduces over ", int(inst.reduceAxes),
              " trailing axes but src0 has ", int(src.rank)));
    int64_t R = 1;
    for (int d = src.rank - inst.reduceAxes; d < src.rank; ++d)
      R *= src.dims[d].size;
    int64_t kept = elementsPerRow(src) / R;
    if (kept != E || partitionsOf(src) != P)
      return absl::InvalidArgumentError(cat(
          "dst has ", P, " x ", E, " elements but the reduction of src0 gives ",
          partitionsOf(src), " x ", kept));
    for (int32_t p = 0; p < P; ++p) {
      float *a = rows.load(src, p, s.a);
      for (int64_t j = 0; j < kept; ++j) {
        const float *seg = a + j * R;
        float acc = seg[0];
        for (int64_t r = 1; r < R; ++r)
          acc = aluScalar(inst.alu0, acc, seg[r]);
        out[j] = acc;
      }
      rows.store(dst, p, out);
    }
    return absl::OkStatus();
  }
  case Opcode::TensorCopy: {
    if (auto st = checkSameCount(inst.src0, "src0", dst, "dst"); !st.ok())
      return st;
    for (int32_t p = 0; p < P; ++p)
      rows.store(dst, p, rows.load(inst.src0, p, s.a));
    return absl::OkStatus();
  }
  case Opcode::Memset: {
    std::fill(out, out + E, inst.scalar0.imm);
    for (int32_t p = 0; p < P; ++p)
      rows.store(dst, p, out);
    return absl::OkStatus();
  }
  case Opcode::Select: {
    for (const AccessPattern *src : {&inst.src0, &inst.src1, &inst.src2})
      if (auto st = checkSameCount(*src, "a source", dst, "dst"); !st.ok())
        return st;
    for (int32_t p = 0; p < P; ++p) {
      float *pred = rows.load(inst.src0, p, s.a);
      float *a = rows.load(inst.src1, p, s.b);
      float *b = rows.load(inst.src2, p, s.c);
      for (int64_t i = 0; i < E; ++i)
        out[i] = pred[i] != 0.0f ? a[i] : b[i];
      rows.store(dst, p, out);
    }
    return absl::OkStatus();
  }
  case Opcode::Transpose32: {
    if (auto st = checkSameCount(inst.src0, "src0", dst, "dst"); !st.ok())
      return st;
    if (P % 32 != 0 || E % 32 != 0)
      return absl::InvalidArgumentError(
          cat("transpose32 needs multiples of 32 partitions and elements, got ",
              P, " x ", E));
    // Whole source first: block (pb, fb) of dst reads rows of src.
    if (int64_t(s.c.size()) < P * E)
      s.c.resize(P * E);
    for (int32_t p = 0; p < P; ++p) {
      float *row = rows.load(inst.src0, p, s.a);
      std::copy(row, row + E, s.c.data() + int64_t(p) * E);
    }
    for (int32_t p = 0; p < P; ++p) {
      int32_t pb = p / 32 * 32, i = p % 32;
      for (int64_t f = 0; f < E; ++f) {
        int64_t fb = f / 32 * 32, j = f % 32;
        out[f] = s.c[int64_t(pb + j) * E + fb + i];
      }
      rows.store(dst, p, out);
    }
    return absl::OkStatus();
  }
  case Opcode::Iota: {
    int64_t idx[4];
    for (int32_t p = 0; p < P; ++p) {
      for (int64_t i = 0; i < E; ++i) {
        freeIndices(dst, i, idx);
        out[i] = float(affineValue(inst.affine, p, idx));
      }
      rows.store(dst, p, out);
    }
    return absl::OkStatus();
  }
  case Opcode::AffineSelect: {
    if (auto st = checkSameCount(inst.src0, "src0", dst, "dst"); !st.ok())
      return st;
    if (!isComparison(inst.alu0))
      return absl::InvalidArgumentError(cat("affine_select predicate '",
                                            isa::aluOpName(inst.alu0),
                                            "' is not a comparison"));
    int64_t idx[4];
    for (int32_t p = 0; p < P; ++p) {
      float *a = rows.load(inst.src0, p, s.a);
      for (int64_t i = 0; i < E; ++i) {
        freeIndices(dst, i, idx);
        float v = float(affineValue(inst.affine, p, idx));
        out[i] =
            aluScalar(inst.alu0, v, 0.0f) != 0.0f ? a[i] : inst.scalar0.imm;
      }
      rows.store(dst, p, out);
    }
    return absl::OkStatus();
  }
  case Opcode::Activation: {
    if (auto st = checkSameCount(inst.src0, "src0", dst, "dst"); !st.ok())
      return st;
    if (inst.hasAccum &&
        (partitionsOf(inst.accum) != P || elementsPerRow(inst.accum) != 1))
      return absl::InvalidArgumentError(cat("accum must be [", P, ", 1], got ",
                                            partitionsOf(inst.accum), " x ",
                                            elementsPerRow(inst.accum)));
    float *a = rows.loadAll(inst.src0, s.a);
    bool uniform = inst.scalar0.isImmediate && inst.scalar1.isImmediate;
    int64_t rowsAtOnce = uniform ? P : 1;
    for (int32_t p = 0; p < P; p += int32_t(rowsAtOnce)) {
      float scale = rows.scalar(inst.scalar0, p);
      float bias = rows.scalar(inst.scalar1, p);
      float *row = a + p * E;
      // Two roundings: the product, then the sum (no fused multiply-add).
      for (int64_t i = 0; i < rowsAtOnce * E; ++i) {
        float scaled = row[i] * scale;
        row[i] = scaled + bias;
      }
    }
    applyActivation(inst.func, a, P * E);
    rows.storeAll(dst, a);
    if (inst.hasAccum) {
      for (int32_t p = 0; p < P; ++p) {
        float sum = 0.0f;
        for (int64_t i = 0; i < E; ++i)
          sum += a[p * E + i];
        rows.store(inst.accum, p, &sum);
      }
    }
    return absl::OkStatus();
  }
  default:
    return absl::InternalError("not an ACT/DVE/POOL instruction");
  }
}

} // namespace

absl::Status executeInstruction(MachineState &state, const Instruction &inst,
                                ExecScratch &scratch) {
  switch (inst.opcode) {
  case Opcode::Matmul:
  case Opcode::MatmulMx:
  case Opcode::Transpose:
    return executePE(state, inst, scratch);
  case Opcode::DmaCopy:
    return executeDma(state, inst, scratch);
  default:
    return executeElementwise(state, inst, scratch);
  }
}

} // namespace nki::sim
