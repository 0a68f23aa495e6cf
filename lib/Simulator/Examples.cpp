//===- Examples.cpp - Programs built directly with the ISA API ------------===//

#include "nki/Simulator/Examples.h"

#include "Strings.h"

#include "nki/ISA/Builders.h"
#include "nki/ISA/Target.h"

namespace nki::sim {

using isa::AccessPattern;
using isa::DType;
using isa::Engine;
using isa::Instruction;
using isa::Memory;
using isa::Opcode;
using isa::StreamId;

namespace {

AccessPattern onChip(Memory mem, int32_t p0, int32_t np, int64_t offset,
                     DType dtype, int64_t elements) {
  return isa::makeAccessPattern(mem, dtype, p0, np, offset, {{1, elements}});
}

/// A matmul source of `columns` columns of `rows` elements each
/// ([partitions, columns, rows]: the double row's layout when rows = 2, the
/// MX quad row's with 4, or 2 f4e2m1x2 bytes).
AccessPattern matmulSource(int64_t offset, DType dtype, int64_t columns,
                           int64_t rows) {
  if (rows == 1)
    return onChip(Memory::SBUF, 0, 128, offset, dtype, columns);
  return isa::makeAccessPattern(Memory::SBUF, dtype, 0, 128, offset,
                                {{rows, columns}, {1, rows}});
}

/// rows x cols elements of a row-major HBM matrix with `rowStride` elements.
AccessPattern hbmBlock(int64_t offset, DType dtype, int64_t rows,
                       int64_t rowStride, int64_t cols) {
  return isa::makeAccessPattern(Memory::HBM, dtype, 0, 1, offset,
                                {{rowStride, rows}, {1, cols}});
}

void wait(Instruction &inst, uint32_t sem, uint32_t value) {
  if (value > 0)
    inst.waits.push_back({sem, value});
}

void signal(Instruction &inst, uint32_t sem) {
  inst.hasSignal = true;
  inst.signal = {sem, 1};
}

Instruction dma(AccessPattern dst, AccessPattern src) {
  Instruction inst;
  inst.opcode = Opcode::DmaCopy;
  inst.dst = dst;
  inst.src0 = src;
  return inst;
}

StreamId dmaQueue(int q) { return StreamId{Engine::DMA, uint8_t(q)}; }

} // namespace

absl::StatusOr<isa::Program> buildMatmulProgram(const MatmulExample &ex) {
  const isa::TargetDesc *target = isa::lookupTarget(ex.target);
  if (!target)
    return absl::InvalidArgumentError(cat("unknown target '", ex.target, "'"));
  const int64_t P = 128, nt = ex.N < 512 ? ex.N : 512, R = ex.rows;
  const bool mx = R == 4;
  if (R != 1 && R != 2 && R != 4)
    return absl::InvalidArgumentError("rows must be 1, 2 or 4 (matmul_mx)");
  if (ex.M % P || ex.K % (P * R) || ex.N % nt || ex.M <= 0 || ex.N <= 0)
    return absl::InvalidArgumentError(cat("M must be a multiple of 128, K of ",
                                          P * R,
                                          " and N of min(N, "
                                          "512)"));
  // A K block is P partitions of R contraction rows each, `re` elements of
  // `eb` bytes a column (f4e2m1x2 holds two rows a byte).
  const int64_t eb = isa::dtypeBytes(ex.dtype);
  const int64_t re = mx ? R / isa::mxValuesPerElement(ex.dtype) : R;
  const int64_t cb = re * eb; // bytes of one column in one partition
  const int64_t KT = ex.K / (P * R), MT = ex.M / P, NT = ex.N / nt;
  const int64_t SP = P * R / 32; // scale partitions of a K block (MX)

  // SBUF per partition: A^T (KT x M columns), two B buffers (KT x nt), two
  // fp32 output buffers (nt); MX: then the scales of A (KT x M) and of the
  // two B buffers (KT x nt), in partitions 0..SP-1.
  const int64_t atOff = 0, bOff = KT * ex.M * cb;
  const int64_t outOff = bOff + 2 * KT * nt * cb;
  const int64_t asOff = outOff + 2 * nt * 4, bsOff = asOff + KT * ex.M;
  const int64_t sbufEnd = mx ? bsOff + 2 * KT * nt : asOff;
  if (sbufEnd > target->sbufBytesPerPartition)
    return absl::InvalidArgumentError(
        cat("the operands need ", sbufEnd, " SBUF bytes per partition; ",
            target->name, " has ", target->sbufBytesPerPartition));

  isa::Program prog;
  prog.target = ex.target;
  int64_t aBytes = ex.K * ex.M * cb / R, bBytes = ex.K * ex.N * cb / R;
  auto shape = [&](int64_t cols) {
    return R == 1 ? std::vector<int64_t>{ex.K, cols}
                  : std::vector<int64_t>{ex.K / R, cols, re};
  };
  prog.tensors.push_back(
      {"a_t", isa::TensorKind::Input, ex.dtype, shape(ex.M), 0, {}});
  prog.tensors.push_back(
      {"b", isa::TensorKind::Input, ex.dtype, shape(ex.N), aBytes, {}});
  const int64_t cOff = aBytes + bBytes;
  prog.tensors.push_back(
      {"c", isa::TensorKind::Output, DType::F32, {ex.M, ex.N}, cOff, {}});
  const int64_t asHbm = cOff + ex.M * ex.N * 4,
                bsHbm = asHbm + ex.K / 32 * ex.M;
  if (mx) {
    prog.tensors.push_back({"a_scale",
                            isa::TensorKind::Input,
                            DType::E8M0,
                            {ex.K / 32, ex.M},
                            asHbm,
                            {}});
    prog.tensors.push_back({"b_scale",
                            isa::TensorKind::Input,
                            DType::E8M0,
                            {ex.K / 32, ex.N},
                            bsHbm,
                            {}});
  }

  enum : uint32_t { semA, semB0, semB1, semPsum, semCopy, semOut0, semOut1 };
  prog.numSemaphores = 7;
  const int loadQueues = 14; // 0..13 load; 14 and 15 store the two buffers
  int nextQueue = 0;
  auto loadQueue = [&] {
    int q = nextQueue;
    nextQueue = (nextQueue + 1) % loadQueues;
    return dmaQueue(q);
  };
  // Loads per K block of A (values, then MX scales) and of a B tile.
  const uint32_t loadsPerBlock = mx ? 2 : 1;

  for (int64_t kt = 0; kt < KT; ++kt) {
    Instruction inst = dma(
        onChip(Memory::SBUF, 0, P, atOff + kt * ex.M * cb, ex.dtype, ex.M * re),
        hbmBlock(kt * P * ex.M * cb, ex.dtype, P, ex.M * re, ex.M * re));
    signal(inst, semA);
    prog.getOrCreateStream(loadQueue()).instructions.push_back(inst);
    if (!mx)
      continue;
    Instruction scale =
        dma(onChip(Memory::SBUF, 0, int32_t(SP), asOff + kt * ex.M, DType::E8M0,
                   ex.M),
            hbmBlock(asHbm + kt * SP * ex.M, DType::E8M0, SP, ex.M, ex.M));
    signal(scale, semA);
    prog.getOrCreateStream(loadQueue()).instructions.push_back(scale);
  }
  for (int64_t j = 0; j < NT; ++j) {
    int64_t buf = j % 2;
    for (int64_t kt = 0; kt < KT; ++kt) {
      Instruction inst =
          dma(onChip(Memory::SBUF, 0, P, bOff + (buf * KT + kt) * nt * cb,
                     ex.dtype, nt * re),
              hbmBlock(aBytes + (kt * P * ex.N + j * nt) * cb, ex.dtype, P,
                       ex.N * re, nt * re));
      // The buffer is free once every tile of n-tile j - 2 has finished.
      if (j >= 2)
        wait(inst, semPsum, uint32_t((j - 1) * MT));
      signal(inst, buf ? semB1 : semB0);
      prog.getOrCreateStream(loadQueue()).instructions.push_back(inst);
      if (!mx)
        continue;
      Instruction scale = dma(
          onChip(Memory::SBUF, 0, int32_t(SP), bsOff + (buf * KT + kt) * nt,
                 DType::E8M0, nt),
          hbmBlock(bsHbm + kt * SP * ex.N + j * nt, DType::E8M0, SP, ex.N, nt));
      if (j >= 2)
        wait(scale, semPsum, uint32_t((j - 1) * MT));
      signal(scale, buf ? semB1 : semB0);
      prog.getOrCreateStream(loadQueue()).instructions.push_back(scale);
    }
  }

  // Streams are filled at the end: getOrCreateStream may move them.
  std::vector<Instruction> pe, dve, stores[2];
  for (int64_t j = 0; j < NT; ++j) {
    int64_t buf = j % 2;
    for (int64_t mt = 0; mt < MT; ++mt) {
      int64_t t = j * MT + mt, bank = t % 8;
      for (int64_t kt = 0; kt < KT; ++kt) {
        Instruction mm;
        mm.opcode = mx ? Opcode::MatmulMx : Opcode::Matmul;
        mm.src0 =
            matmulSource(atOff + (kt * ex.M + mt * P) * cb, ex.dtype, P, re);
        mm.src1 =
            matmulSource(bOff + (buf * KT + kt) * nt * cb, ex.dtype, nt, re);
        if (mx) {
          mm.src2 = onChip(Memory::SBUF, 0, int32_t(SP),
                           asOff + kt * ex.M + mt * P, DType::E8M0, P);
          mm.src3 = onChip(Memory::SBUF, 0, int32_t(SP),
                           bsOff + (buf * KT + kt) * nt, DType::E8M0, nt);
        } else {
          mm.rows = uint8_t(R);
        }
        mm.dst = onChip(Memory::PSUM, 0, P, bank * target->psumBankBytes,
                        DType::F32, nt);
        mm.start = kt == 0;
        if (kt == 0) {
          if (t == 0)
            wait(mm, semA, uint32_t(KT * loadsPerBlock));
          if (mt == 0)
            wait(mm, buf ? semB1 : semB0,
                 uint32_t(KT * loadsPerBlock * (j / 2 + 1)));
          if (t >= 8)
            wait(mm, semCopy, uint32_t(t - 7));
        }
        if (kt == KT - 1)
          signal(mm, semPsum);
        pe.push_back(mm);
      }
      // PSUM bank -> SBUF output buffer t % 2 -> HBM.
      Instruction copy;
      copy.opcode = Opcode::TensorCopy;
      copy.src0 = onChip(Memory::PSUM, 0, P, bank * target->psumBankBytes,
                         DType::F32, nt);
      copy.dst =
          onChip(Memory::SBUF, 0, P, outOff + (t % 2) * nt * 4, DType::F32, nt);
      wait(copy, semPsum, uint32_t(t + 1));
      wait(copy, t % 2 ? semOut1 : semOut0, uint32_t(t / 2));
      signal(copy, semCopy);
      dve.push_back(copy);

      Instruction store =
          dma(hbmBlock(cOff + (mt * P * ex.N + j * nt) * 4, DType::F32, P, ex.N,
                       nt),
              onChip(Memory::SBUF, 0, P, outOff + (t % 2) * nt * 4, DType::F32,
                     nt));
      wait(store, semCopy, uint32_t(t + 1));
      signal(store, t % 2 ? semOut1 : semOut0);
      stores[t % 2].push_back(store);
    }
  }
  prog.getOrCreateStream(StreamId{Engine::PE, 0}).instructions = std::move(pe);
  prog.getOrCreateStream(StreamId{Engine::DVE, 0}).instructions =
      std::move(dve);
  for (int i = 0; i < 2; ++i)
    prog.getOrCreateStream(dmaQueue(14 + i)).instructions =
        std::move(stores[i]);
  return prog;
}

isa::Program buildSimpleProgram(const SimpleExample &ex) {
  isa::Program prog;
  prog.target = ex.target;
  prog.numSemaphores = 1;
  const Engine engines[] = {Engine::DVE, Engine::ACT, Engine::POOL};
  auto tileOf = [&](int e) {
    return onChip(Memory::SBUF, 0, ex.partitions, e * ex.elements * 4,
                  DType::F32, ex.elements);
  };
  for (int e = 0; e < 3; ++e) {
    auto &insts = prog.getOrCreateStream(StreamId{engines[e], 0}).instructions;
    int64_t count = ex.instructions / 3 + (e < ex.instructions % 3 ? 1 : 0);
    for (int64_t i = 0; i < count; ++i) {
      Instruction inst;
      inst.dst = tileOf(e);
      inst.src0 = tileOf(e);
      if (engines[e] == Engine::ACT) {
        // ACT cannot memset: DVE initialises its tile first.
        inst.opcode = Opcode::Activation;
        inst.func = isa::ActFunc::Identity;
        inst.scalar0.imm = 1.0f;
        inst.scalar1.imm = 0.5f;
        if (i == 0)
          wait(inst, 0, 1);
      } else if (i == 0) {
        inst.opcode = Opcode::Memset;
        inst.src0 = AccessPattern();
        inst.scalar0.imm = 1.0f;
      } else {
        inst.opcode = Opcode::TensorScalar;
        inst.alu0 = isa::AluOp::Mul;
        inst.scalar0.imm = 0.5f;
        inst.alu1 = isa::AluOp::Add;
        inst.scalar1.imm = 1.0f;
      }
      insts.push_back(inst);
      if (engines[e] == Engine::DVE && i == 0) {
        Instruction init;
        init.opcode = Opcode::Memset;
        init.dst = tileOf(1);
        init.scalar0.imm = 1.0f;
        signal(init, 0);
        insts.push_back(init);
      }
    }
  }
  return prog;
}

} // namespace nki::sim
