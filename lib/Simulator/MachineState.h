//===- MachineState.h - Memories of the simulated core ---------*- C++ -*-===//
//
// HBM (the program's tensors only), SBUF and PSUM, plus what the checker
// needs: a bit per HBM/SBUF/PSUM byte saying whether anything wrote it and, per
// fp32 PSUM element, whether a start-flagged matmul has initialised it for
// accumulation (a byte map, checked with memchr).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_MACHINESTATE_H
#define NKI_LIB_SIMULATOR_MACHINESTATE_H

#include "InitMap.h"

#include "nki/ISA/Instruction.h"
#include "nki/ISA/Target.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nki::sim {

struct MachineState {
  MachineState(const isa::TargetDesc &target, std::string hbmImage);

  const isa::TargetDesc &target;
  std::string hbm;
  std::vector<uint8_t> sbuf, psum;
  InitMap hbmInit;                  // indexed by HBM byte
  InitMap sbufInit, psumInit;       // indexed by partition * rowBytes + byte
  std::vector<uint8_t> psumAccInit; // per 4-byte PSUM element

  /// Bytes per partition of an on-chip memory (HBM: the image size).
  int64_t rowBytes(isa::Memory m) const {
    return m == isa::Memory::SBUF   ? sbufRow
           : m == isa::Memory::PSUM ? psumRow
                                    : int64_t(hbm.size());
  }
  /// The base of partition `p` of memory `m` (HBM: p must be 0).
  uint8_t *base(isa::Memory m, int32_t p) {
    return m == isa::Memory::SBUF   ? sbuf.data() + p * sbufRow
           : m == isa::Memory::PSUM ? psum.data() + p * psumRow
                                    : reinterpret_cast<uint8_t *>(hbm.data());
  }
  /// The init map of memory `m`.
  InitMap *initMap(isa::Memory m) {
    return m == isa::Memory::SBUF   ? &sbufInit
           : m == isa::Memory::PSUM ? &psumInit
                                    : &hbmInit;
  }

private:
  int64_t sbufRow, psumRow;
};

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_MACHINESTATE_H
