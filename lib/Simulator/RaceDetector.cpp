//===- RaceDetector.cpp - Unordered conflicting accesses ------------------===//

#include "RaceDetector.h"

namespace nki::sim {

PartitionMask PartitionMask::range(int32_t start, int32_t count) {
  PartitionMask m;
  for (int w = 0; w < 2; ++w) {
    int32_t lo = start - 64 * w, hi = start + count - 64 * w;
    lo = lo < 0 ? 0 : lo;
    hi = hi > 64 ? 64 : hi;
    if (lo >= hi)
      continue;
    uint64_t upper = hi == 64 ? ~uint64_t(0) : (uint64_t(1) << hi) - 1;
    uint64_t lower = (uint64_t(1) << lo) - 1;
    m.bits[w] = upper & ~lower;
  }
  return m;
}

int32_t PartitionMask::first() const {
  if (bits[0])
    return __builtin_ctzll(bits[0]);
  if (bits[1])
    return 64 + __builtin_ctzll(bits[1]);
  return -1;
}

void RaceDetector::splitAt(SegmentMap &map, int64_t pos) {
  auto it = map.upper_bound(pos);
  if (it == map.begin())
    return;
  --it;
  if (it->first < pos && it->second.end > pos) {
    Segment tail{it->second.end, it->second.records};
    it->second.end = pos;
    map.emplace_hint(std::next(it), pos, std::move(tail));
  }
}

std::optional<RaceConflict>
RaceDetector::access(isa::Memory mem, int32_t start, int32_t count,
                     const std::vector<ByteRun> &runs, bool write, int stream,
                     uint32_t index, const VectorClock &clock) {
  SegmentMap &map = memories_[int(mem)];
  PartitionMask mask = PartitionMask::range(start, count);
  std::optional<RaceConflict> conflict;

  auto visit = [&](int64_t segStart, Segment &seg) {
    Records &recs = seg.records;
    for (size_t i = 0; i < recs.size(); ++i) {
      const Record &r = recs[i];
      if (r.stream == stream || (!write && !r.write))
        continue;
      PartitionMask overlap = r.mask & mask;
      if (!overlap.any() || clock[r.stream] > r.index)
        continue;
      if (!conflict)
        conflict =
            RaceConflict{r.stream, r.index, r.write, overlap.first(), segStart};
    }
    // Superseded records: all of them under a write; under a read, this
    // stream's earlier reads.
    size_t out = 0;
    for (size_t i = 0; i < recs.size(); ++i) {
      Record r = recs[i];
      if (write || (r.stream == stream && !r.write))
        r.mask.clear(mask);
      if (r.mask.any())
        recs[out++] = r;
    }
    recs.truncate(out);
    recs.push_back(Record{mask, index, uint8_t(stream), write});
  };

  for (const ByteRun &run : runs) {
    int64_t a = run.offset, b = run.offset + run.bytes;
    // Most accesses repeat an earlier range exactly.
    if (auto it = map.find(a); it != map.end() && it->second.end == b) {
      visit(a, it->second);
      continue;
    }
    splitAt(map, a);
    splitAt(map, b);
    int64_t pos = a;
    auto it = map.lower_bound(a);
    while (pos < b) {
      if (it == map.end() || it->first > pos) {
        int64_t gapEnd = it == map.end() || it->first > b ? b : it->first;
        it = map.emplace_hint(it, pos, Segment{gapEnd, {}});
      }
      visit(it->first, it->second);
      pos = it->second.end;
      ++it;
    }
    coalesce(map, a, b);
  }
  return conflict;
}

bool RaceDetector::Records::operator==(const Records &o) const {
  if (size_ != o.size_)
    return false;
  for (size_t i = 0; i < size_; ++i) {
    const Record &x = i < kInline ? inline_[i] : more_[i - kInline];
    const Record &y = i < kInline ? o.inline_[i] : o.more_[i - kInline];
    if (!(x == y))
      return false;
  }
  return true;
}

void RaceDetector::coalesce(SegmentMap &map, int64_t a, int64_t b) {
  auto it = map.find(a);
  if (it == map.end())
    return;
  for (auto next = std::next(it); next != map.end() && next->first < b;
       next = std::next(it)) {
    if (it->second.end == next->first &&
        it->second.records == next->second.records) {
      it->second.end = next->second.end;
      map.erase(next);
    } else {
      it = next;
    }
  }
}

} // namespace nki::sim
