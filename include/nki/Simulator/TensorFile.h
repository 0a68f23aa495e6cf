//===- TensorFile.h - Host tensors in .npy and ONNX .pb files --*- C++ -*-===//
//
// nki-run's input and output files. A HostTensor holds fp32 values (or raw
// bytes of the program's dtype for exact copies); conversion to a program
// tensor goes through isa::storeElement, so narrowing rounds exactly as the
// machine does.
//
// Readable .npy element types: <f4, <f2, <i4, <i8, <i2, <u2, <u4, <i1,
// |i1, |u1, |b1, <f8 (doubles are rounded to fp32) and |V2 / <V2, read as
// bf16 bit patterns (how ml_dtypes' bfloat16 arrays are saved); C order
// only. Readable ONNX TensorProto (.pb): FLOAT, FLOAT16, BFLOAT16, DOUBLE,
// INT64, INT32, INT16, UINT16, UINT32, INT8, UINT8, BOOL as raw_data or
// typed fields. Integer values that the device dtype cannot hold are an
// error, never clamped. Outputs are written as .npy in the tensor's host
// type (isa::HostType): <i8 for i64, <f8 for f64, |b1 for bool, ...; else
// <f4 for every float dtype (bf16 and fp8 widen exactly), <i4 / |i1 / |u1
// for integers.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_SIMULATOR_TENSORFILE_H
#define NKI_SIMULATOR_TENSORFILE_H

#include "nki/ISA/Program.h"
#include "nki/ISA/Types.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nki::sim {

/// A tensor read from or written to a file: the shape and the values as
/// fp32 (integers up to 2^24 are exact), or for integer files the int64
/// values so int32 data stays exact.
struct HostTensor {
  std::string name; // ONNX: TensorProto.name; .npy: empty
  std::vector<int64_t> shape;
  bool isInteger = false;
  std::vector<float> values; // when !isInteger
  std::vector<int64_t> ints; // when isInteger
  int64_t numElements() const;
};

absl::StatusOr<HostTensor> parseNpy(std::string_view bytes);
absl::StatusOr<HostTensor> parseOnnxTensor(std::string_view bytes);
/// By extension: .npy or .pb; errors name the file.
absl::StatusOr<HostTensor> readTensorFile(const std::string &path);

/// Converts `t` to the raw bytes of a program tensor of `dtype` and `shape`
/// (element counts must agree; shapes must agree up to leading 1s; integer
/// values must fit an integer `dtype`).
absl::StatusOr<std::string> toTensorBytes(const HostTensor &t, isa::DType dtype,
                                          const std::vector<int64_t> &shape);
/// Reads raw program-tensor bytes back as a HostTensor; integers are
/// converted to `host`'s type as a C cast would (an i32 -1 read as u8 is
/// 255, as bool is 1), which is ONNX's wrapping integer arithmetic for the
/// narrow types the device carries as i32.
HostTensor fromTensorBytes(std::string_view bytes, isa::DType dtype,
                           const std::vector<int64_t> &shape,
                           isa::HostType host = isa::HostType::Device);

/// .npy encoding of `t`, read from a tensor of `dtype`, in `host`'s element
/// type (see the header comment).
std::string formatNpy(const HostTensor &t, isa::DType dtype,
                      isa::HostType host = isa::HostType::Device);
absl::Status writeFile(const std::string &path, std::string_view bytes);
absl::StatusOr<std::string> readFile(const std::string &path);

} // namespace nki::sim

#endif // NKI_SIMULATOR_TENSORFILE_H
