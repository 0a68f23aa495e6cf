//===- LargeAllocationsTest.cpp - Large blocks on transparent huge pages --===//

#include "gtest/gtest.h"

#include <cstdint>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;

/// The kernel's transparent huge page mode ("always", "madvise", "never"),
/// or "" without THP.
std::string thpMode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? std::string()
             : line.substr(open + 1, close - open - 1);
}

/// The "THPeligible" flag of the mapping holding `p` in /proc/self/smaps,
/// or -1 when none says.
int thpEligible(const void *p) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  auto at = std::uintptr_t(p);
  while (std::getline(in, line)) {
    std::uintptr_t lo, hi;
    char dash;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::stoi(line.substr(12));
  }
  return -1;
}

TEST(LargeAllocations, LargeBlocksAreHugePageAlignedAndAdvised) {
  auto block = std::make_unique<char[]>(3 * kHugePage);
  EXPECT_EQ(std::uintptr_t(block.get()) % kHugePage, 0u);
  block[0] = block[3 * kHugePage - 1] = 1; // usable end to end
  std::string mode = thpMode();
  if (mode == "always" || mode == "madvise")
    EXPECT_EQ(thpEligible(block.get()), 1) << "THP mode " << mode;
  // A vector's storage, through the same functions.
  std::vector<double> v(kHugePage / sizeof(double));
  EXPECT_EQ(std::uintptr_t(v.data()) % kHugePage, 0u);
}

TEST(LargeAllocations, SmallAndAlignedBlocksKeepTheirContract) {
  auto small = std::make_unique<char[]>(100);
  EXPECT_EQ(std::uintptr_t(small.get()) % alignof(std::max_align_t), 0u);
  struct alignas(256) Wide {
    char c[256];
  };
  auto wide = std::make_unique<Wide>();
  EXPECT_EQ(std::uintptr_t(wide.get()) % 256, 0u);
  // A large over-aligned block keeps the stronger alignment of the two.
  struct alignas(4 << 20) Huge {
    char c[8];
  };
  auto huge = std::make_unique<Huge>();
  EXPECT_EQ(std::uintptr_t(huge.get()) % (4 << 20), 0u);
  // Zero bytes is a distinct, freeable pointer.
  void *a = ::operator new(0), *b = ::operator new(0);
  EXPECT_NE(a, b);
  ::operator delete(a);
  ::operator delete(b);
}

TEST(LargeAllocations, FailureThrowsBadAlloc) {
  EXPECT_THROW((void)::operator new(~std::size_t(0) / 2), std::bad_alloc);
  EXPECT_EQ(::operator new(~std::size_t(0) / 2, std::nothrow), nullptr);
}

} // namespace
