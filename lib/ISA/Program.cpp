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

std::string_view hostTypeName(HostType h) {
  switch (h) {
  case HostType::Device:
    return "device";
  case HostType::I64:
    return "i64";
  case HostType::F64:
    return "f64";
  case HostType::Bool:
    return "bool";
  case HostType::U8:
    return "u8";
  case HostType::I16:
    return "i16";
  case HostType::U16:
    return "u16";
  case HostType::U32:
    return "u32";
  case HostType::U64:
    return "u64";
  }
  return "<invalid host type>";
}

std::optional<HostType> parseHostType(std::string_view name) {
  for (uint32_t i = 0; i < kNumHostTypes; ++i)
    if (hostTypeName(HostType(i)) == name)
      return HostType(i);
  return std::nullopt;
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
