//===- TestPasses.h - nki's test-only passes ---------------------*- C++
//-*-===//
//
// Passes that exist for lit tests alone, kept out of the libraries as MLIR
// and Triton keep theirs (test/lib): nki-opt registers them when the tests
// are built (NKI_BUILD_TESTS).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_TEST_LIB_TESTPASSES_H
#define NKI_TEST_LIB_TESTPASSES_H

namespace nki::test {

/// -nki-test-print-memory-plan (Planning/TestPrintMemoryPlan.cpp).
void registerTestPrintMemoryPlanPass();

inline void registerTestPasses() { registerTestPrintMemoryPlanPass(); }

} // namespace nki::test

#endif // NKI_TEST_LIB_TESTPASSES_H
