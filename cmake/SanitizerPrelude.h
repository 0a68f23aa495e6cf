// Force-included into nki's C++ in sanitizer builds (NKI_SANITIZE with
// address): Debian's LLVM/MLIR is not built with ASan, but LLVM's headers
// turn on ASan poisoning of BumpPtrAllocator slabs when *we* are. A slab
// that our inlined allocator code starts is poisoned whole, then handed out
// by the uninstrumented library without being unpoisoned, and the next
// write into it is reported as a use-after-poison that is not a bug. Keep
// the inlined allocator code as uninstrumented as the library it shares
// slabs with; ASan still checks every heap, stack and global access.
#if defined(__cplusplus) && __has_include("llvm/Support/Compiler.h")
#include "llvm/Support/Compiler.h"
#undef __asan_poison_memory_region
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#endif
