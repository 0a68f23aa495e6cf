//===- HbmImage.cpp - The HBM contents a simulation starts from -----------===//

#include "nki/Simulator/Simulator.h"

#include "Strings.h"

#include <algorithm>
#include <cstring>

namespace nki::sim {

std::string makeHbmImage(const isa::Program &program) {
  int64_t extent = 0;
  for (const isa::TensorDecl &t : program.tensors)
    extent = std::max(extent, t.hbmOffset + t.sizeBytes());
  std::string image(size_t(extent), '\0');
  for (const isa::TensorDecl &t : program.tensors)
    if (std::string_view bytes = t.bytes();
        t.kind == isa::TensorKind::Constant && !bytes.empty())
      std::memcpy(image.data() + t.hbmOffset, bytes.data(),
                  std::min<size_t>(bytes.size(), size_t(t.sizeBytes())));
  return image;
}

static absl::StatusOr<const isa::TensorDecl *>
findInImage(const isa::Program &program, const std::string &hbm,
            std::string_view name) {
  const isa::TensorDecl *t = program.findTensor(name);
  if (!t)
    return absl::NotFoundError(
        cat("the program has no tensor named '", name, "'"));
  if (t->hbmOffset < 0 || t->hbmOffset + t->sizeBytes() > int64_t(hbm.size()))
    return absl::InvalidArgumentError(
        cat("tensor '", name, "' lies outside the HBM image"));
  return t;
}

absl::Status setTensorBytes(const isa::Program &program, std::string &hbm,
                            std::string_view name, std::string_view bytes) {
  auto t = findInImage(program, hbm, name);
  if (!t.ok())
    return t.status();
  if (int64_t(bytes.size()) != (*t)->sizeBytes())
    return absl::InvalidArgumentError(cat("tensor '", name, "' has ",
                                          (*t)->sizeBytes(), " bytes, got ",
                                          bytes.size()));
  std::memcpy(hbm.data() + (*t)->hbmOffset, bytes.data(), bytes.size());
  return absl::OkStatus();
}

absl::StatusOr<std::string> getTensorBytes(const isa::Program &program,
                                           const std::string &hbm,
                                           std::string_view name) {
  auto t = findInImage(program, hbm, name);
  if (!t.ok())
    return t.status();
  return hbm.substr(size_t((*t)->hbmOffset), size_t((*t)->sizeBytes()));
}

} // namespace nki::sim
