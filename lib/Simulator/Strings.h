//===- Strings.h - absl::StrCat that also takes std::string_view -*- C++
//-*-===//
//
// Debian's Abseil has its own absl::string_view (not std::string_view), so
// absl::StrCat rejects the std::string_view names the ISA API returns.
// cat()/append() convert them and forward everything else.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_LIB_SIMULATOR_STRINGS_H
#define NKI_LIB_SIMULATOR_STRINGS_H

#include "absl/strings/str_cat.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace nki::sim {

template <typename T> const T &catArg(const T &v) { return v; }
inline absl::string_view catArg(std::string_view v) {
  return absl::string_view(v.data(), v.size());
}

template <typename... Args> std::string cat(const Args &...args) {
  return absl::StrCat(catArg(args)...);
}
template <typename... Args> void append(std::string *out, const Args &...args) {
  absl::StrAppend(out, catArg(args)...);
}

/// `s` with quotes, backslashes and control characters escaped for JSON.
inline std::string jsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out;
}

} // namespace nki::sim

#endif // NKI_LIB_SIMULATOR_STRINGS_H
