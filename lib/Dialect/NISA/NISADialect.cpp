//===- NISADialect.cpp - The nisa dialect ---------------------------------===//

#include "nki/Dialect/NISA/NISA.h"

using namespace mlir;
using namespace nki::nisa;

#include "nki/Dialect/NISA/NISADialect.cpp.inc"

void NISADialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "nki/Dialect/NISA/NISAOps.cpp.inc"
      >();
}
