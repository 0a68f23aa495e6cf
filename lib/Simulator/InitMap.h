//===- InitMap.h - Which bytes of a memory have been written --*- C++ -*-===//
//
// One bit per byte: the uninitialised-read check asks for the first clear
// bit of a byte range and every write sets a range. Whole 64-bit words are
// handled at once, so a check costs bytes / 64 word tests.
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
    while (a < b && (a & 63)) {
      words_[a >> 6] |= uint64_t(1) << (a & 63);
      ++a;
    }
    for (; a + 64 <= b; a += 64)
      words_[a >> 6] = ~uint64_t(0);
    for (; a < b; ++a)
      words_[a >> 6] |= uint64_t(1) << (a & 63);
  }

  /// The first unset byte in [a, b), or -1.
  int64_t firstUnset(int64_t a, int64_t b) const {
    while (a < b && (a & 63)) {
      if (!(words_[a >> 6] >> (a & 63) & 1))
        return a;
      ++a;
    }
    for (; a + 64 <= b; a += 64)
      if (~words_[a >> 6])
        return a + __builtin_ctzll(~words_[a >> 6]);
    for (; a < b; ++a)
      if (!(words_[a >> 6] >> (a & 63) & 1))
        return a;
    return -1;
  }

private:
  std::vector<uint64_t> words_;
};

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_INITMAP_H
