//===- LargeAllocations.cpp - Large blocks on transparent huge pages ------===//
//
// The tools' replacement global allocation functions. A block of at least
// one huge page (a model's weights as the importer, the graph rewrites and
// the encoder hold them; the .nkb file; the simulator's HBM image) is
// aligned to 2 MiB and advised as a transparent huge page region, so that
// the kernel maps it 2 MiB at a time instead of faulting it in 4 KiB
// pages. On the project's machine (a VM, where kernel time went mostly to
// page faults) ResNet-50 at batch 1 compiles in 0.65 and simulates in 0.49
// of the time (docs/performance.md, "Compile time", session 35). Smaller
// blocks are malloc's as before; every block is released by free().
//
// glibc does the same for all of its blocks under
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1, but reads that at process start
// only: a tool cannot set it for itself. Kernels in THP mode "madvise" (the
// common default) need the advice; under "always" it is redundant, under
// "never" ignored. Not built into sanitized tools, whose runtimes replace
// these functions.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#endif

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

void *allocate(std::size_t size, std::size_t align) {
  void *p = nullptr;
  if (size >= kHugePage) {
#if defined(M_MMAP_THRESHOLD)
    // Every such block mapped on its own (not carved from the heap, as
    // glibc's adaptive threshold would after a large free): the advice
    // then covers its mapping alone, and free() unmaps it.
    static const bool mapped = mallopt(M_MMAP_THRESHOLD, int(kHugePage));
    (void)mapped;
#endif
    if (posix_memalign(&p, align > kHugePage ? align : kHugePage, size))
      return nullptr;
#if defined(MADV_HUGEPAGE)
    // Advice only: a kernel without THP leaves the block as it was. The
    // block's own pages (the kernel rounds the length up to a page): a
    // last partial huge page stays in small pages rather than the advice
    // reaching past the block's mapping.
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
  }
  if (align <= alignof(std::max_align_t))
    return std::malloc(size ? size : 1);
  return posix_memalign(&p, align, size ? size : 1) ? nullptr : p;
}

void *allocateOrThrow(std::size_t size, std::size_t align) {
  // As the default operator new: retry through the new-handler.
  for (;;) {
    if (void *p = allocate(size, align))
      return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler)
      throw std::bad_alloc();
    handler();
  }
}

} // namespace

// The other forms (arrays, nothrow, sized deletes) call these by default.
void *operator new(std::size_t size) {
  return allocateOrThrow(size, alignof(std::max_align_t));
}
void *operator new(std::size_t size, std::align_val_t align) {
  return allocateOrThrow(size, std::size_t(align));
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
