//===- StrCat.h - absl::StrCat that also takes std::string_view -*- C++ -*-===//
//
// Debian's Abseil is built with its own absl::string_view (not an alias of
// std::string_view), so absl::StrCat rejects the std::string_view names the
// ISA API returns. cat() converts them and forwards everything else.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_ISA_STRCAT_H
#define NKI_LIB_ISA_STRCAT_H

#include "absl/strings/str_cat.h"

#include <string>
#include <string_view>

namespace nki::isa::detail {

template <typename T> const T &catArg(const T &v) { return v; }
inline absl::string_view catArg(std::string_view v) {
  return absl::string_view(v.data(), v.size());
}

template <typename... Args> std::string cat(const Args &...args) {
  return absl::StrCat(catArg(args)...);
}

} // namespace nki::isa::detail

#endif // NKI_LIB_ISA_STRCAT_H
