//===- TensorFile.cpp - .npy and ONNX TensorProto files -------------------===//
//
// Both formats are small enough to read directly: .npy is a text header and
// raw data; a TensorProto is read with a minimal protobuf wire-format
// decoder, which keeps the simulator free of a libonnx dependency.
//
//===----------------------------------------------------------------------===//

#include "nki/Simulator/TensorFile.h"

#include "Strings.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace nki::sim {

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {

/// The value after `key` in a Python dict literal, up to `end` chars.
bool findValue(std::string_view header, std::string_view key, size_t &pos) {
  size_t k = header.find(cat("'", key, "'"));
  if (k == std::string_view::npos)
    return false;
  pos = header.find(':', k);
  if (pos == std::string_view::npos)
    return false;
  ++pos;
  while (pos < header.size() && header[pos] == ' ')
    ++pos;
  return pos < header.size();
}

/// Whether the product of `shape` is at most `limit` (without overflowing).
bool elementsWithin(const std::vector<int64_t> &shape, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > limit / d))
      return false;
    n *= d;
  }
  return n <= limit;
}

template <typename T> T readLE(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

} // namespace

absl::StatusOr<HostTensor> parseNpy(std::string_view bytes) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
    return absl::InvalidArgumentError("not a .npy file (bad magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, start;
  if (major == 1) {
    headerLen = readLE<uint16_t>(bytes.data() + 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return absl::InvalidArgumentError("truncated .npy header");
    headerLen = readLE<uint32_t>(bytes.data() + 8);
    start = 12;
  } else {
    return absl::InvalidArgumentError(cat("unsupported .npy version ", major));
  }
  if (start + headerLen > bytes.size())
    return absl::InvalidArgumentError("truncated .npy header");
  std::string_view header = bytes.substr(start, headerLen);
  std::string_view data = bytes.substr(start + headerLen);

  size_t pos;
  if (!findValue(header, "descr", pos) || header[pos] != '\'')
    return absl::InvalidArgumentError(".npy header has no 'descr'");
  size_t endq = header.find('\'', pos + 1);
  if (endq == std::string_view::npos)
    return absl::InvalidArgumentError(".npy header: unterminated 'descr'");
  std::string descr(header.substr(pos + 1, endq - pos - 1));
  if (findValue(header, "fortran_order", pos) &&
      header.substr(pos, 4) == "True")
    return absl::InvalidArgumentError(
        ".npy data in Fortran order is not supported; save it in C order");
  if (!findValue(header, "shape", pos) || header[pos] != '(')
    return absl::InvalidArgumentError(".npy header has no 'shape'");
  HostTensor t;
  size_t close = header.find(')', pos);
  if (close == std::string_view::npos)
    return absl::InvalidArgumentError(".npy header: unterminated 'shape'");
  std::string dims(header.substr(pos + 1, close - pos - 1));
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(" L");
    if (b == std::string::npos)
      continue;
    char *endp = nullptr;
    long long v = std::strtoll(item.c_str() + b, &endp, 10);
    if (endp == item.c_str() + b || v < 0)
      return absl::InvalidArgumentError(
          cat(".npy header: bad shape '", dims, "'"));
    t.shape.push_back(v);
  }

  struct Kind {
    const char *descr;
    int bytes;
    bool isInt;
  };
  static const Kind kinds[] = {
      {"<f4", 4, false}, {"<f2", 2, false}, {"<f8", 8, false},
      {"<i4", 4, true},  {"<i8", 8, true},  {"<i2", 2, true},
      {"<u2", 2, true},  {"<u4", 4, true},  {"<u8", 8, true},
      {"<i1", 1, true},  {"|i1", 1, true},  {"|u1", 1, true},
      {"<u1", 1, true},  {"|b1", 1, true},  {"<V2", 2, false},
      {"|V2", 2, false}};
  const Kind *kind = nullptr;
  for (const Kind &k : kinds)
    if (descr == k.descr)
      kind = &k;
  if (!kind)
    return absl::InvalidArgumentError(
        cat("unsupported .npy element type '", descr,
            "' (use <f4, <f2, <f8, <i4, <i8, <i2, <u2, <u4, <i1/|i1, |u1, "
            "|b1 or |V2 for bf16)"));
  if (!elementsWithin(t.shape, int64_t(data.size()) / kind->bytes))
    return absl::InvalidArgumentError(
        cat(".npy shape (", dims, ") needs more data than the file holds"));
  int64_t n = t.numElements();
  if (int64_t(data.size()) < n * kind->bytes)
    return absl::InvalidArgumentError(cat(".npy data holds ", data.size(),
                                          " bytes but shape (", dims, ") of '",
                                          descr, "' needs ", n * kind->bytes));
  t.isInteger = kind->isInt;
  const char *p = data.data();
  for (int64_t i = 0; i < n; ++i, p += kind->bytes) {
    if (descr == "<f4")
      t.values.push_back(readLE<float>(p));
    else if (descr == "<f2")
      t.values.push_back(isa::f16ToFloat(readLE<uint16_t>(p)));
    else if (descr == "<V2" || descr == "|V2") // ml_dtypes' bfloat16
      t.values.push_back(isa::bf16ToFloat(readLE<uint16_t>(p)));
    else if (descr == "<f8")
      t.values.push_back(float(readLE<double>(p)));
    else if (descr == "<i4")
      t.ints.push_back(readLE<int32_t>(p));
    else if (descr == "<i8")
      t.ints.push_back(readLE<int64_t>(p));
    else if (descr == "<i2")
      t.ints.push_back(readLE<int16_t>(p));
    else if (descr == "<u2")
      t.ints.push_back(readLE<uint16_t>(p));
    else if (descr == "<u4")
      t.ints.push_back(readLE<uint32_t>(p));
    else if (descr == "<u8") // values past INT64_MAX wrap; the device
      t.ints.push_back(int64_t(readLE<uint64_t>(p))); // refuses them
    else if (descr == "|u1" || descr == "<u1" || descr == "|b1")
      t.ints.push_back(readLE<uint8_t>(p));
    else
      t.ints.push_back(readLE<int8_t>(p));
  }
  return t;
}

std::string formatNpy(const HostTensor &t, isa::DType dtype,
                      isa::HostType host) {
  const char *descr = "<f4";
  int width = 4; // bytes per element
  if (dtype == isa::DType::I32)
    descr = "<i4";
  else if (dtype == isa::DType::I8)
    descr = "|i1", width = 1;
  else if (dtype == isa::DType::U8 || dtype == isa::DType::FP4E2M1X2)
    descr = "|u1", width = 1; // f4e2m1x2: the packed bytes
  switch (host) {
  case isa::HostType::Device:
    break;
  case isa::HostType::I64:
    descr = "<i8", width = 8;
    break;
  case isa::HostType::F64:
    descr = "<f8", width = 8;
    break;
  case isa::HostType::Bool:
    descr = "|b1", width = 1;
    break;
  case isa::HostType::U8:
    descr = "|u1", width = 1;
    break;
  case isa::HostType::I16:
    descr = "<i2", width = 2;
    break;
  case isa::HostType::U16:
    descr = "<u2", width = 2;
    break;
  case isa::HostType::U32:
    descr = "<u4", width = 4;
    break;
  case isa::HostType::U64:
    descr = "<u8", width = 8;
    break;
  }
  bool isFloat = descr[1] == 'f';
  std::string shape;
  for (size_t i = 0; i < t.shape.size(); ++i)
    append(&shape, t.shape[i], ",", i + 1 < t.shape.size() ? " " : "");
  std::string header =
      cat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", shape,
          "), }");
  // Pad so the data starts 64-byte aligned, as numpy writes it.
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  int64_t n = t.numElements();
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat && width == 8) {
      double v = t.isInteger ? double(t.ints[i]) : double(t.values[i]);
      out.append(reinterpret_cast<const char *>(&v), 8);
    } else if (isFloat) {
      float v = t.isInteger ? float(t.ints[i]) : t.values[i];
      out.append(reinterpret_cast<const char *>(&v), 4);
    } else {
      // Little-endian two's complement: the low `width` bytes of the value.
      int64_t v = t.isInteger ? t.ints[i] : int64_t(t.values[i]);
      if (host == isa::HostType::Bool)
        v = v != 0;
      for (int k = 0; k < width; ++k)
        out += char(uint64_t(v) >> (8 * k));
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// ONNX TensorProto
//===----------------------------------------------------------------------===//

namespace {

struct WireReader {
  std::string_view data;
  size_t pos = 0;

  bool done() const { return pos >= data.size(); }
  bool varint(uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= data.size())
        return false;
      uint8_t b = static_cast<uint8_t>(data[pos++]);
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }
  bool bytes(size_t n, std::string_view &out) {
    if (n > data.size() - pos)
      return false;
    out = data.substr(pos, n);
    pos += n;
    return true;
  }
};

enum OnnxType {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBFloat16 = 16
};

} // namespace

absl::StatusOr<HostTensor> parseOnnxTensor(std::string_view bytes) {
  WireReader r{bytes};
  HostTensor t;
  int64_t dataType = 0;
  std::string_view raw;
  bool hasRaw = false;
  std::vector<double> typed; // float_data/int32_data/int64_data/double_data
  auto bad = [](const char *what) {
    return absl::InvalidArgumentError(
        cat("malformed ONNX TensorProto: ", what));
  };
  while (!r.done()) {
    uint64_t key;
    if (!r.varint(key))
      return bad("truncated field key");
    uint32_t field = uint32_t(key >> 3), wire = uint32_t(key & 7);
    if (wire == 0) {
      uint64_t v;
      if (!r.varint(v))
        return bad("truncated varint");
      if (field == 1)
        t.shape.push_back(int64_t(v));
      else if (field == 2)
        dataType = int64_t(v);
      else if (field == 5 || field == 7)
        typed.push_back(field == 5 ? double(int32_t(v)) : double(int64_t(v)));
      else if (field == 11) // uint64_data
        typed.push_back(double(v));
    } else if (wire == 1 || wire == 5) {
      std::string_view v;
      if (!r.bytes(wire == 1 ? 8 : 4, v))
        return bad("truncated fixed-width field");
      if (field == 4 && wire == 5)
        typed.push_back(readLE<float>(v.data()));
      else if (field == 10 && wire == 1)
        typed.push_back(readLE<double>(v.data()));
    } else if (wire == 2) {
      uint64_t len;
      std::string_view v;
      if (!r.varint(len) || !r.bytes(size_t(len), v))
        return bad("truncated length-delimited field");
      if (field == 8) {
        t.name = std::string(v);
      } else if (field == 9) {
        raw = v;
        hasRaw = true;
      } else if (field == 13) {
        return absl::InvalidArgumentError(
            "ONNX tensors with external data are not supported");
      } else if (field == 1 || field == 5 || field == 7 || field == 11) {
        WireReader packed{v};
        while (!packed.done()) {
          uint64_t x;
          if (!packed.varint(x))
            return bad("truncated packed varints");
          if (field == 1)
            t.shape.push_back(int64_t(x));
          else if (field == 11)
            typed.push_back(double(x));
          else
            typed.push_back(field == 5 ? double(int32_t(x))
                                       : double(int64_t(x)));
        }
      } else if (field == 4 || field == 10) {
        size_t w = field == 4 ? 4 : 8;
        if (v.size() % w)
          return bad("packed float data is not a whole number of values");
        for (size_t i = 0; i < v.size(); i += w)
          typed.push_back(field == 4 ? double(readLE<float>(v.data() + i))
                                     : readLE<double>(v.data() + i));
      }
    } else {
      return bad("unknown wire type");
    }
  }
  // No tensor has more elements than the file has bytes (typed fields take
  // at least one byte per value).
  if (!elementsWithin(t.shape, int64_t(bytes.size())))
    return absl::InvalidArgumentError(
        cat("ONNX tensor '", t.name, "' has a shape larger than its data"));
  int64_t n = t.numElements();
  int width;
  switch (dataType) {
  case kFloat:
  case kInt32:
  case kUint32:
    width = 4;
    break;
  case kFloat16:
  case kBFloat16:
  case kInt16:
  case kUint16:
    width = 2;
    break;
  case kInt8:
  case kUint8:
  case kBool:
    width = 1;
    break;
  case kInt64:
  case kUint64:
  case kDouble:
    width = 8;
    break;
  default:
    return absl::InvalidArgumentError(
        cat("unsupported ONNX tensor data_type ", dataType,
            " (FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64, INT32, INT16, UINT16, "
            "UINT32, UINT64, INT8, UINT8, BOOL)"));
  }
  t.isInteger = !(dataType == kFloat || dataType == kFloat16 ||
                  dataType == kBFloat16 || dataType == kDouble);
  auto push = [&](double v) {
    if (t.isInteger)
      t.ints.push_back(int64_t(v));
    else
      t.values.push_back(float(v));
  };
  if (hasRaw) {
    if (int64_t(raw.size()) != n * width)
      return absl::InvalidArgumentError(
          cat("ONNX tensor '", t.name, "' raw_data has ", raw.size(),
              " bytes, its shape needs ", n * width));
    for (int64_t i = 0; i < n; ++i) {
      const char *p = raw.data() + i * width;
      switch (dataType) {
      case kFloat:
        push(readLE<float>(p));
        break;
      case kInt32:
        push(readLE<int32_t>(p));
        break;
      case kFloat16:
        push(isa::f16ToFloat(readLE<uint16_t>(p)));
        break;
      case kBFloat16:
        push(isa::bf16ToFloat(readLE<uint16_t>(p)));
        break;
      case kInt8:
        push(readLE<int8_t>(p));
        break;
      case kUint8:
      case kBool:
        push(readLE<uint8_t>(p));
        break;
      case kInt16:
        push(readLE<int16_t>(p));
        break;
      case kUint16:
        push(readLE<uint16_t>(p));
        break;
      case kUint32:
        push(readLE<uint32_t>(p));
        break;
      case kInt64:
        push(double(readLE<int64_t>(p)));
        break;
      case kUint64:
        push(double(readLE<uint64_t>(p)));
        break;
      case kDouble:
        push(readLE<double>(p));
        break;
      }
    }
    return t;
  }
  if (int64_t(typed.size()) != n)
    return absl::InvalidArgumentError(cat("ONNX tensor '", t.name, "' holds ",
                                          typed.size(),
                                          " values, its shape needs ", n));
  for (double v : typed) {
    // FLOAT16/BFLOAT16 travel as their bit patterns in int32_data.
    if (dataType == kFloat16)
      v = isa::f16ToFloat(uint16_t(v));
    else if (dataType == kBFloat16)
      v = isa::bf16ToFloat(uint16_t(v));
    push(v);
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Conversion and files
//===----------------------------------------------------------------------===//

absl::StatusOr<std::string> toTensorBytes(const HostTensor &t, isa::DType dtype,
                                          const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  auto strip = [](std::vector<int64_t> s) {
    while (s.size() > 1 && s.front() == 1)
      s.erase(s.begin());
    return s;
  };
  auto shapeStr = [](const std::vector<int64_t> &s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i)
      append(&out, i ? ", " : "", s[i]);
    return out + "]";
  };
  if (t.numElements() != n || strip(t.shape) != strip(shape))
    return absl::InvalidArgumentError(cat("shape ", shapeStr(t.shape),
                                          " does not match the ", "program's ",
                                          shapeStr(shape)));
  int64_t eb = isa::dtypeBytes(dtype);
  std::string out(size_t(n * eb), '\0');
  int64_t lo = dtype == isa::DType::I32  ? INT32_MIN
               : dtype == isa::DType::I8 ? -128
                                         : 0;
  int64_t hi = dtype == isa::DType::I32  ? INT32_MAX
               : dtype == isa::DType::I8 ? 127
                                         : 255;
  for (int64_t i = 0; i < n; ++i) {
    void *dst = out.data() + i * eb;
    // An f4e2m1x2 element is a byte of two e2m1 codes: the host gives those
    // bytes, never values to round.
    if (dtype == isa::DType::FP4E2M1X2 && !t.isInteger &&
        !(t.values[i] >= 0 && t.values[i] <= 255 &&
          t.values[i] == std::floor(t.values[i])))
      return absl::InvalidArgumentError(
          cat("value ", t.values[i], " at ", i,
              " (flat index) is not a byte; f4e2m1x2 data is packed bytes "
              "(two e2m1 codes each, low nibble first), as a uint8 .npy "
              "gives them"));
    if (t.isInteger && !isa::isFloatDType(dtype)) {
      // The device holds these exactly or not at all (INT64 data is carried
      // as int32, so its values must fit).
      int64_t v = t.ints[i];
      if (v < lo || v > hi)
        return absl::InvalidArgumentError(cat("value ", v, " at ", i,
                                              " (flat index) does not fit the "
                                              "device's ",
                                              isa::dtypeName(dtype), " [", lo,
                                              ", ", hi, "]"));
      if (dtype == isa::DType::I32) {
        int32_t c = int32_t(v);
        std::memcpy(dst, &c, 4);
        continue;
      }
    }
    isa::storeElement(dtype, t.isInteger ? float(t.ints[i]) : t.values[i], dst);
  }
  return out;
}

HostTensor fromTensorBytes(std::string_view bytes, isa::DType dtype,
                           const std::vector<int64_t> &shape,
                           isa::HostType host) {
  HostTensor t;
  t.shape = shape;
  t.isInteger = !isa::isFloatDType(dtype);
  int64_t n = t.numElements(), eb = isa::dtypeBytes(dtype);
  for (int64_t i = 0; i < n && (i + 1) * eb <= int64_t(bytes.size()); ++i) {
    const char *p = bytes.data() + i * eb;
    if (dtype == isa::DType::I32)
      t.ints.push_back(readLE<int32_t>(p));
    else if (t.isInteger)
      t.ints.push_back(int64_t(isa::loadElement(dtype, p)));
    else
      t.values.push_back(isa::loadElement(dtype, p));
  }
  for (int64_t &v : t.ints) {
    switch (host) {
    case isa::HostType::Bool:
      v = v != 0;
      break;
    case isa::HostType::U8:
      v = uint8_t(v);
      break;
    case isa::HostType::I16:
      v = int16_t(v);
      break;
    case isa::HostType::U16:
      v = uint16_t(v);
      break;
    case isa::HostType::U32:
      v = uint32_t(v);
      break;
    default: // i64 holds every i32 (a negative one read as u64 stays
             // negative: the host tensor holds int64 values)
      break;
    }
  }
  return t;
}

absl::StatusOr<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(cat("cannot open '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status writeFile(const std::string &path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return absl::PermissionDeniedError(cat("cannot write '", path, "'"));
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out)
    return absl::DataLossError(cat("error writing '", path, "'"));
  return absl::OkStatus();
}

absl::StatusOr<HostTensor> readTensorFile(const std::string &path) {
  auto bytes = readFile(path);
  if (!bytes.ok())
    return bytes.status();
  auto endsWith = [&](std::string_view ext) {
    return path.size() >= ext.size() &&
           path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  absl::StatusOr<HostTensor> t;
  if (endsWith(".npy"))
    t = parseNpy(*bytes);
  else if (endsWith(".pb"))
    t = parseOnnxTensor(*bytes);
  else
    return absl::InvalidArgumentError(
        cat("'", path, "': unknown tensor file type (expected .npy or .pb)"));
  if (!t.ok())
    return absl::Status(t.status().code(),
                        cat("'", path, "': ", t.status().message()));
  return t;
}

} // namespace nki::sim
