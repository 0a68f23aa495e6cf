//===- Program.cpp - Tensor table and stream helpers ----------------------===//

#include "nki/ISA/Program.h"

#include <algorithm>

namespace nki::isa {

std::string_view tensorKindName(TensorKind k) {
  switch (k) {
  case TensorKind::Input:
    return "input";
  case TensorKind::Output:
    return "output";
  case TensorKind::Constant:
    return "const";
  case TensorKind::Scratch:
    return "scratch";
  }
  return "<invalid tensor kind>";
}

int64_t TensorDecl::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

Stream &Program::getOrCreateStream(StreamId id) {
  auto it = std::lower_bound(
      streams.begin(), streams.end(), id.index(),
      [](const Stream &s, int index) { return s.id.index() < index; });
  if (it != streams.end() && it->id == id)
    return *it;
  Stream s;
  s.id = id;
  return *streams.insert(it, std::move(s));
}

const TensorDecl *Program::findTensor(std::string_view name) const {
  for (const TensorDecl &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

} // namespace nki::isa
