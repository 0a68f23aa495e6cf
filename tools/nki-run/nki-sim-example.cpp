//===- nki-sim-example.cpp - Write hand-built programs as .nkb ------------===//
//
// Test support for the simulator's lit tests: writes the programs of
// nki/Simulator/Examples.h, and small programs that exhibit each error class
// the simulator reports, without going through the compiler.
//
//   nki-sim-example matmul M N K DTYPE [TARGET [ROWS]] -o FILE
//     (ROWS 2: fp8 double row; 4: matmul_mx with e8m0 scale inputs)
//   nki-sim-example simple COUNT -o FILE
//   nki-sim-example race|deadlock|uninit|accumulate|oob|elementwise -o FILE
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Binary.h"
#include "nki/Simulator/Examples.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace nki;
using isa::AccessPattern;
using isa::DType;
using isa::Instruction;
using isa::Memory;
using isa::Opcode;
using isa::StreamId;

namespace {

[[noreturn]] void fail(const std::string &msg) {
  std::cerr << "nki-sim-example: " << msg << "\n";
  std::exit(2);
}

AccessPattern sbuf(int32_t parts, int64_t n, int64_t offset = 0) {
  AccessPattern ap;
  ap.memory = Memory::SBUF;
  ap.numPartitions = parts;
  ap.offset = offset;
  ap.rank = 1;
  ap.dims[0] = {1, n};
  return ap;
}

AccessPattern hbm(int64_t offset, int64_t rows, int64_t cols) {
  AccessPattern ap;
  ap.memory = Memory::HBM;
  ap.offset = offset;
  ap.rank = 2;
  ap.dims[0] = {cols, rows};
  ap.dims[1] = {1, cols};
  return ap;
}

Instruction make(Opcode opcode, AccessPattern dst, AccessPattern src = {},
                 const char *loc = "") {
  Instruction inst;
  inst.opcode = opcode;
  inst.dst = dst;
  inst.src0 = src;
  inst.scalar0.imm = 1;
  inst.loc = loc;
  return inst;
}

void add(isa::Program &p, isa::Engine e, Instruction inst, uint8_t queue = 0) {
  p.getOrCreateStream(StreamId{e, queue}).instructions.push_back(inst);
}

/// x [4, 64] in, y [4, 64] out: load, exp, store, fully synchronised; the
/// error cases below each break one thing.
isa::Program elementwise(const std::string &variant) {
  isa::Program p;
  p.numSemaphores = 3;
  p.tensors.push_back(
      {"x", isa::TensorKind::Input, DType::F32, {4, 64}, 0, {}});
  p.tensors.push_back(
      {"y", isa::TensorKind::Output, DType::F32, {4, 64}, 1024, {}});
  Instruction load = make(Opcode::DmaCopy, sbuf(4, 64),
                          hbm(variant == "oob" ? 2048 : 0, 4, 64), "ew.k:1:1");
  load.hasSignal = true;
  load.signal = {0, 1};
  if (variant != "uninit")
    add(p, isa::Engine::DMA, load, 0);
  Instruction act =
      make(Opcode::Activation, sbuf(4, 64, 256), sbuf(4, 64), "ew.k:2:1");
  act.func = isa::ActFunc::Exp;
  if (variant != "uninit")
    act.waits.push_back({0, 1});
  if (variant == "deadlock")
    act.waits.push_back({2, 1});
  act.hasSignal = true;
  act.signal = {1, 1};
  add(p, isa::Engine::ACT, act);
  if (variant == "race") {
    // Reloads the tile ACT reads, ordered after the first load but not
    // after ACT's read.
    Instruction reload = load;
    reload.loc = "ew.k:4:1";
    reload.hasSignal = false;
    reload.waits.push_back({0, 1});
    add(p, isa::Engine::DMA, reload, 2);
  }
  Instruction store =
      make(Opcode::DmaCopy, hbm(1024, 4, 64), sbuf(4, 64, 256), "ew.k:3:1");
  store.waits.push_back({1, 1});
  if (variant == "deadlock") {
    store.hasSignal = true;
    store.signal = {2, 1};
  }
  add(p, isa::Engine::DMA, store, 1);
  return p;
}

isa::Program accumulate() {
  isa::Program p;
  p.numSemaphores = 1;
  Instruction set = make(Opcode::Memset, sbuf(128, 128));
  set.hasSignal = true;
  set.signal = {0, 1};
  add(p, isa::Engine::DVE, set);
  Instruction mm = make(Opcode::Matmul, {}, sbuf(128, 128), "acc.k:4:2");
  mm.src1 = sbuf(128, 128);
  mm.dst = sbuf(128, 128);
  mm.dst.memory = Memory::PSUM;
  mm.start = false;
  mm.waits.push_back({0, 1});
  add(p, isa::Engine::PE, mm);
  return p;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" && i + 1 < argc)
      out = argv[++i];
    else
      args.push_back(a);
  }
  if (args.empty() || out.empty())
    fail("usage: nki-sim-example KIND [ARGS] -o FILE");
  isa::Program prog;
  const std::string &kind = args[0];
  if (kind == "matmul") {
    if (args.size() < 5)
      fail("matmul needs M N K DTYPE [TARGET [ROWS]]");
    sim::MatmulExample ex;
    ex.M = std::atoll(args[1].c_str());
    ex.N = std::atoll(args[2].c_str());
    ex.K = std::atoll(args[3].c_str());
    auto dt = isa::parseDType(args[4]);
    if (!dt)
      fail("unknown dtype '" + args[4] + "'");
    ex.dtype = *dt;
    if (args.size() > 5)
      ex.target = args[5];
    if (args.size() > 6)
      ex.rows = std::atoll(args[6].c_str());
    auto p = sim::buildMatmulProgram(ex);
    if (!p.ok())
      fail(std::string(p.status().message()));
    prog = std::move(*p);
  } else if (kind == "simple") {
    sim::SimpleExample ex;
    if (args.size() > 1)
      ex.instructions = std::atoll(args[1].c_str());
    prog = sim::buildSimpleProgram(ex);
  } else if (kind == "accumulate") {
    prog = accumulate();
  } else if (kind == "elementwise" || kind == "race" || kind == "deadlock" ||
             kind == "uninit" || kind == "oob") {
    prog = elementwise(kind);
  } else {
    fail("unknown program kind '" + kind + "'");
  }
  absl::Status st = isa::writeProgramFile(prog, out);
  if (!st.ok())
    fail(std::string(st.message()));
  return 0;
}
