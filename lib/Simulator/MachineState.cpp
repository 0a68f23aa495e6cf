//===- MachineState.cpp - Memories of the simulated core ------------------===//

#include "MachineState.h"

namespace nki::sim {

MachineState::MachineState(const isa::TargetDesc &target, std::string hbmImage)
    : target(target), hbm(std::move(hbmImage)),
      sbuf(size_t(target.numPartitions) * target.sbufBytesPerPartition),
      psum(size_t(target.numPartitions) * target.psumBytesPerPartition()),
      hbmInit(int64_t(hbm.size())), sbufInit(int64_t(sbuf.size())),
      psumInit(int64_t(psum.size())), psumAccInit(psum.size() / 4),
      sbufRow(target.sbufBytesPerPartition),
      psumRow(target.psumBytesPerPartition()) {}

} // namespace nki::sim
