//===- RaceDetector.h - Unordered conflicting accesses ---------*- C++ -*-===//
//
// Happens-before race detection over streams with vector clocks. A stream's
// clock component is the number of its instructions issued so far; a wait
// acquires the clocks of the semaphore increments that satisfied it. Two
// accesses from different streams to overlapping bytes, at least one a
// write, race unless the earlier one happens-before the later.
//
// Shadow state is kept per memory as a map from byte ranges (within a
// partition; HBM is one partition) to access records, each with a 128-bit
// partition mask. Like FastTrack, a write supersedes every earlier access to
// its bytes and a read supersedes its own stream's earlier reads, so the
// records per range stay few and the cost follows the number of contiguous
// runs an instruction touches, not its bytes.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_RACEDETECTOR_H
#define NKI_LIB_SIMULATOR_RACEDETECTOR_H

#include "Access.h"

#include "nki/ISA/Types.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace nki::sim {

/// Streams: PE, ACT, DVE, POOL and up to 16 DMA queues.
constexpr int kMaxStreams = 20;
using VectorClock = std::array<uint32_t, kMaxStreams>;

inline void joinClock(VectorClock &into, const VectorClock &other) {
  for (int i = 0; i < kMaxStreams; ++i)
    into[i] = into[i] > other[i] ? into[i] : other[i];
}

struct PartitionMask {
  uint64_t bits[2] = {0, 0};
  static PartitionMask range(int32_t start, int32_t count);
  bool any() const { return bits[0] | bits[1]; }
  bool operator==(const PartitionMask &o) const {
    return bits[0] == o.bits[0] && bits[1] == o.bits[1];
  }
  PartitionMask operator&(const PartitionMask &o) const {
    return {{bits[0] & o.bits[0], bits[1] & o.bits[1]}};
  }
  void clear(const PartitionMask &o) {
    bits[0] &= ~o.bits[0];
    bits[1] &= ~o.bits[1];
  }
  int32_t first() const;
};

struct RaceConflict {
  int stream = 0;     // the earlier access's stream index
  uint32_t index = 0; // and its instruction index
  bool earlierWrite = false;
  int32_t partition = 0;
  int64_t byte = 0;
};

class RaceDetector {
public:
  /// Records an access by instruction `index` of stream `stream` whose
  /// current clock is `clock`; returns the first earlier access it races
  /// with. Partitions are [start, start + count); HBM uses (0, 1).
  std::optional<RaceConflict> access(isa::Memory mem, int32_t start,
                                     int32_t count,
                                     const std::vector<ByteRun> &runs,
                                     bool write, int stream, uint32_t index,
                                     const VectorClock &clock);

private:
  struct Record {
    PartitionMask mask;
    uint32_t index = 0;
    uint8_t stream = 0;
    bool write = false;
    bool operator==(const Record &o) const {
      return mask == o.mask && index == o.index && stream == o.stream &&
             write == o.write;
    }
  };
  /// A segment's records, the first kInline of them in the segment itself:
  /// most segments hold one to three, and reaching them through a vector's
  /// heap block was the race check's main cache miss.
  class Records {
  public:
    size_t size() const { return size_; }
    Record &operator[](size_t i) {
      return i < kInline ? inline_[i] : more_[i - kInline];
    }
    void push_back(const Record &r) {
      if (size_ < kInline)
        inline_[size_] = r;
      else
        more_.push_back(r);
      ++size_;
    }
    bool operator==(const Records &o) const;
    /// Keeps the first `n` (n <= size()).
    void truncate(size_t n) {
      size_ = uint32_t(n);
      more_.resize(n > kInline ? n - kInline : 0);
    }

  private:
    static constexpr size_t kInline = 3;
    Record inline_[kInline];
    uint32_t size_ = 0;
    std::vector<Record> more_;
  };
  struct Segment {
    int64_t end;
    Records records;
  };
  using SegmentMap = std::map<int64_t, Segment>;

  static void splitAt(SegmentMap &map, int64_t pos);
  /// Merges the adjacent ranges within [a, b) that hold the same records
  /// (an access over many small ranges leaves them alike, most of all a
  /// write): later accesses there then visit one range, not many.
  static void coalesce(SegmentMap &map, int64_t a, int64_t b);
  std::array<SegmentMap, 3> memories_;
};

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_RACEDETECTOR_H
