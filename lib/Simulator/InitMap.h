//===- InitMap.h - Which bytes of a memory have been written --*- C++ -*-===//
//
// One bit per byte: the uninitialised-read check asks for the first clear
// bit of a byte range and every write sets a range. Every 64-bit word the
// range touches is handled at once, its partial first and last words by a
// mask, so a check or a write costs bytes / 64 + 2 word operations (the
// simulator's runs are often a few hundred bytes: a bit at a time, their
// ragged ends were most of Simulation::run's own time).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_INITMAP_H
#define NKI_LIB_SIMULATOR_INITMAP_H

#include <cstdint>
#include <vector>

namespace nki::sim {

class InitMap {
public:
  explicit InitMap(int64_t bytes) : words_((bytes + 63) / 64) {}

  /// Sets bytes [a, b).
  void set(int64_t a, int64_t b) {
    if (a >= b)
      return;
    int64_t first = a >> 6, last = (b - 1) >> 6;
    if (first == last) {
      words_[first] |= mask(a & 63, b - (first << 6));
      return;
    }
    words_[first] |= mask(a & 63, 64);
    for (int64_t w = first + 1; w < last; ++w)
      words_[w] = ~uint64_t(0);
    words_[last] |= mask(0, b - (last << 6));
  }

  /// The first unset byte in [a, b), or -1.
  int64_t firstUnset(int64_t a, int64_t b) const {
    if (a >= b)
      return -1;
    int64_t first = a >> 6, last = (b - 1) >> 6;
    for (int64_t w = first; w <= last; ++w) {
      int64_t lo = w == first ? a & 63 : 0;
      int64_t hi = w == last ? b - (w << 6) : 64;
      if (uint64_t clear = ~words_[w] & mask(lo, hi))
        return (w << 6) + __builtin_ctzll(clear);
    }
    return -1;
  }

private:
  /// Bits [lo, hi) of a word, 0 <= lo < hi <= 64.
  static uint64_t mask(int64_t lo, int64_t hi) {
    uint64_t upTo = hi == 64 ? ~uint64_t(0) : (uint64_t(1) << hi) - 1;
    return upTo & (~uint64_t(0) << lo);
  }

  std::vector<uint64_t> words_;
};

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_INITMAP_H
