//===- Binary.cpp - The .nkb binary container -----------------------------===//
//
// Layout: a 20-byte header (the magic, the format version, the payload's
// length and its CRC-32, all little-endian), then the payload: one
// nki.nkb.Program message (nkb.proto). docs/binary-format.md has the details.
//
// The length and checksum are there because a Protobuf message cut at a
// field boundary is itself a valid, smaller message: without them a
// truncated file would decode as a program missing its last streams.
//
// Byte-for-byte round trips: the encoder writes only the fields an opcode
// uses (OpcodeFields.h) and serializes deterministically. The decoder
// re-encodes what it decoded and rejects input that differs, so every
// accepted binary is the canonical encoding of its program and
// encode(decode(b)) == b holds by construction, not by hope.
//
//===----------------------------------------------------------------------===//

#include "nki/ISA/Binary.h"

#include "OpcodeFields.h"
#include "StrCat.h"
#include "nkb.pb.h"
#include "nki/ISA/Verify.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

#include <array>
#include <cassert>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

namespace nki::isa {

namespace {

// Header fields: offset and width in bytes.
constexpr size_t kVersionAt = 4;
constexpr size_t kLengthAt = 8, kLengthBytes = 8;
constexpr size_t kChecksumAt = 16, kChecksumBytes = 4;
static_assert(kChecksumAt + kChecksumBytes == kBinaryHeaderBytes,
              "the header fields fill the header");

/// CRC-32 as in zlib, PNG and Ethernet (reflected polynomial 0xEDB88320,
/// initial value and final xor 0xFFFFFFFF), so Python's zlib.crc32 checks
/// a file too. It detects every single-bit error and every burst of up to
/// 32 bits, which a sum or a plain hash of this size does not guarantee.
///
/// Slicing-by-8 (eight tables, eight bytes per step): several times the
/// speed of the byte-at-a-time loop, which took a fifth of writing a
/// ResNet-50's 100 MB binary.
uint32_t crc32(std::string_view bytes) {
  using Tables = std::array<std::array<uint32_t, 256>, 8>;
  static constexpr Tables kTables = [] {
    Tables t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (size_t k = 1; k < 8; ++k)
        t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  const auto *p = reinterpret_cast<const uint8_t *>(bytes.data());
  size_t n = bytes.size();
  for (; n >= 8; n -= 8, p += 8) {
    // Little-endian words by bytes, whatever the host's order.
    uint32_t lo = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 |
                         uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    uint32_t hi = uint32_t(p[4]) | uint32_t(p[5]) << 8 |
                  uint32_t(p[6]) << 16 | uint32_t(p[7]) << 24;
    crc = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^
          kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
          kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
          kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; --n, ++p)
    crc = kTables[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void putLE(std::string &out, size_t at, size_t width, uint64_t value) {
  for (size_t i = 0; i < width; ++i)
    out[at + i] = char((value >> (8 * i)) & 0xFF);
}

uint64_t getLE(std::string_view bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= uint64_t(uint8_t(bytes[at + i])) << (8 * i);
  return value;
}

// Number of enumerators, for range checks of decoded values.
constexpr uint32_t kNumDTypes = 0
#define NKI_DTYPE(Name, spelling, bytes) +1
#include "nki/ISA/DTypes.def"
    ;
constexpr uint32_t kNumAluOps = 0
#define NKI_ALU_OP(Name, spelling) +1
#include "nki/ISA/AluOps.def"
    ;
constexpr uint32_t kNumActFuncs = 0
#define NKI_ACT_FUNC(Name, spelling, table) +1
#include "nki/ISA/ActFuncs.def"
    ;
constexpr uint32_t kNumMemories = 3;        // Memory
constexpr uint32_t kNumTensorKinds = 4;     // TensorKind
constexpr uint32_t kNumStreamIds = 4 + 256; // StreamId::index() range

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

void encodeAP(const AccessPattern &ap, nkb::AccessPattern *out) {
  out->set_memory(uint32_t(ap.memory));
  out->set_dtype(uint32_t(ap.dtype));
  out->set_start_partition(ap.startPartition);
  out->set_num_partitions(ap.numPartitions);
  out->set_offset(ap.offset);
  for (int i = 0; i < ap.rank && i < AccessPattern::kMaxDims; ++i) {
    nkb::Dim *d = out->add_dims();
    d->set_stride(ap.dims[i].stride);
    d->set_size(ap.dims[i].size);
  }
}

void encodeScalar(const ScalarOperand &s, nkb::ScalarOperand *out) {
  if (s.isImmediate)
    out->set_imm(s.imm);
  else
    encodeAP(s.ap, out->mutable_ap());
}

void encodeInstruction(const Instruction &inst, nkb::Instruction *out) {
  detail::OpcodeFields f = detail::opcodeFields(inst.opcode);
  out->set_opcode(uint32_t(inst.opcode));
  encodeAP(inst.dst, out->mutable_dst());
  if (f.usesSrc0)
    encodeAP(inst.src0, out->mutable_src0());
  if (f.usesSrc1)
    encodeAP(inst.src1, out->mutable_src1());
  if (f.usesSrc2)
    encodeAP(inst.src2, out->mutable_src2());
  if (f.usesSrc3)
    encodeAP(inst.src3, out->mutable_src3());
  if (f.usesScalar0)
    encodeScalar(inst.scalar0, out->mutable_scalar0());
  if (f.usesScalar1)
    encodeScalar(inst.scalar1, out->mutable_scalar1());
  if (f.alu0)
    out->set_alu0(uint32_t(inst.alu0));
  if (f.alu1)
    out->set_alu1(uint32_t(inst.alu1));
  if (f.func)
    out->set_func(uint32_t(inst.func));
  if (f.affine) {
    nkb::AffineExpr *a = out->mutable_affine();
    a->set_offset(inst.affine.offset);
    a->set_partition_coef(inst.affine.partitionCoef);
    for (int64_t c : inst.affine.freeCoefs)
      a->add_free_coefs(c);
  }
  if (f.accum && inst.hasAccum)
    encodeAP(inst.accum, out->mutable_accum());
  if (f.reduceAxes)
    out->set_reduce_axes(inst.reduceAxes);
  if (f.start)
    out->set_start(inst.start);
  if (f.rows && inst.rows != 1)
    out->set_rows(inst.rows);
  if (f.reverse) {
    out->set_reverse0(inst.reverse0);
    out->set_reverse1(inst.reverse1);
  }
  for (const SemWait &w : inst.waits) {
    nkb::SemWait *pw = out->add_waits();
    pw->set_semaphore(w.semaphore);
    pw->set_value(w.value);
  }
  if (inst.hasSignal) {
    out->mutable_signal()->set_semaphore(inst.signal.semaphore);
    out->mutable_signal()->set_increment(inst.signal.increment);
  }
  out->set_loc(inst.loc);
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

absl::Status corrupt(std::string_view what) {
  return absl::DataLossError(detail::cat("corrupted .nkb binary: ", what));
}

absl::StatusOr<AccessPattern> decodeAP(const nkb::AccessPattern &in,
                                       std::string_view where) {
  AccessPattern ap;
  if (in.memory() >= kNumMemories)
    return corrupt(
        detail::cat(where, ": memory ", in.memory(), " out of range"));
  if (in.dtype() >= kNumDTypes)
    return corrupt(detail::cat(where, ": dtype ", in.dtype(), " out of range"));
  if (in.dims_size() > AccessPattern::kMaxDims)
    return corrupt(detail::cat(where, ": ", in.dims_size(), " dims, more than ",
                               AccessPattern::kMaxDims));
  ap.memory = Memory(in.memory());
  ap.dtype = DType(in.dtype());
  ap.startPartition = in.start_partition();
  ap.numPartitions = in.num_partitions();
  ap.offset = in.offset();
  ap.rank = uint8_t(in.dims_size());
  for (int i = 0; i < in.dims_size(); ++i)
    ap.dims[i] = Dim{in.dims(i).stride(), in.dims(i).size()};
  return ap;
}

absl::StatusOr<ScalarOperand> decodeScalar(const nkb::ScalarOperand &in,
                                           std::string_view where) {
  ScalarOperand s;
  if (in.has_ap()) {
    absl::StatusOr<AccessPattern> ap = decodeAP(in.ap(), where);
    if (!ap.ok())
      return ap.status();
    s.isImmediate = false;
    s.ap = *ap;
  } else {
    s.imm = in.imm();
  }
  return s;
}

absl::StatusOr<Instruction> decodeInstruction(const nkb::Instruction &in,
                                              std::string_view where) {
  Instruction inst;
  if (in.opcode() >= uint32_t(kNumOpcodes))
    return corrupt(
        detail::cat(where, ": opcode ", in.opcode(), " out of range"));
  inst.opcode = Opcode(in.opcode());
  std::string w(where);
  auto ap = [&](const nkb::AccessPattern &m, const char *field,
                AccessPattern &out) -> absl::Status {
    absl::StatusOr<AccessPattern> r = decodeAP(m, detail::cat(w, " ", field));
    if (!r.ok())
      return r.status();
    out = *r;
    return absl::OkStatus();
  };
  auto scalar = [&](const nkb::ScalarOperand &m, const char *field,
                    ScalarOperand &out) -> absl::Status {
    absl::StatusOr<ScalarOperand> r =
        decodeScalar(m, detail::cat(w, " ", field));
    if (!r.ok())
      return r.status();
    out = *r;
    return absl::OkStatus();
  };
  // Decode every field present; fields the opcode does not use make the
  // re-encoding differ, which decodeProgram reports.
  absl::Status s = ap(in.dst(), "dst", inst.dst);
  if (s.ok() && in.has_src0())
    s = ap(in.src0(), "src0", inst.src0);
  if (s.ok() && in.has_src1())
    s = ap(in.src1(), "src1", inst.src1);
  if (s.ok() && in.has_src2())
    s = ap(in.src2(), "src2", inst.src2);
  if (s.ok() && in.has_src3())
    s = ap(in.src3(), "src3", inst.src3);
  if (s.ok() && in.has_scalar0())
    s = scalar(in.scalar0(), "scalar0", inst.scalar0);
  if (s.ok() && in.has_scalar1())
    s = scalar(in.scalar1(), "scalar1", inst.scalar1);
  if (s.ok() && in.has_accum()) {
    inst.hasAccum = true;
    s = ap(in.accum(), "accum", inst.accum);
  }
  if (!s.ok())
    return s;
  if (in.alu0() >= kNumAluOps || in.alu1() >= kNumAluOps)
    return corrupt(detail::cat(where, ": ALU op out of range"));
  if (in.func() >= kNumActFuncs)
    return corrupt(detail::cat(where, ": activation function ", in.func(),
                               " out of range"));
  if (in.rows() > 255)
    return corrupt(detail::cat(where, ": rows ", in.rows(), " out of range"));
  if (in.reduce_axes() > AccessPattern::kMaxDims)
    return corrupt(detail::cat(where, ": reduce_axes ", in.reduce_axes(),
                               " out of range"));
  detail::OpcodeFields f = detail::opcodeFields(inst.opcode);
  inst.alu0 = AluOp(in.alu0());
  inst.alu1 = AluOp(in.alu1());
  inst.func = ActFunc(in.func());
  if (f.reduceAxes)
    inst.reduceAxes = uint8_t(in.reduce_axes());
  if (f.start)
    inst.start = in.start();
  if (f.rows && in.rows() != 0)
    inst.rows = uint8_t(in.rows());
  inst.reverse0 = in.reverse0();
  inst.reverse1 = in.reverse1();
  if (in.has_affine()) {
    const nkb::AffineExpr &a = in.affine();
    if (a.free_coefs_size() != int(inst.affine.freeCoefs.size()))
      return corrupt(detail::cat(where, ": affine expression has ",
                                 a.free_coefs_size(),
                                 " free coefficients, not 4"));
    inst.affine.offset = a.offset();
    inst.affine.partitionCoef = a.partition_coef();
    for (int i = 0; i < a.free_coefs_size(); ++i)
      inst.affine.freeCoefs[i] = a.free_coefs(i);
  }
  for (const nkb::SemWait &pw : in.waits())
    inst.waits.push_back({pw.semaphore(), pw.value()});
  if (in.has_signal()) {
    inst.hasSignal = true;
    inst.signal = {in.signal().semaphore(), in.signal().increment()};
  }
  inst.loc = in.loc();
  return inst;
}

/// The program of `msg`, whose constants it takes (not copies).
absl::StatusOr<Program> decodeMessage(nkb::Program &msg) {
  Program program;
  program.target = msg.target();
  for (int i = 0; i < msg.tensors_size(); ++i) {
    nkb::Tensor &pt = *msg.mutable_tensors(i);
    if (pt.kind() >= kNumTensorKinds || pt.dtype() >= kNumDTypes ||
        pt.host_type() >= kNumHostTypes)
      return corrupt(
          detail::cat("tensor ", i, ": kind, dtype or host type out of range"));
    TensorDecl t;
    t.name = pt.name();
    t.kind = TensorKind(pt.kind());
    t.dtype = DType(pt.dtype());
    t.shape.assign(pt.shape().begin(), pt.shape().end());
    t.hbmOffset = pt.hbm_offset();
    t.data = std::move(*pt.mutable_data());
    t.host = HostType(pt.host_type());
    program.tensors.push_back(std::move(t));
  }
  program.numSemaphores = msg.num_semaphores();
  for (int i = 0; i < msg.streams_size(); ++i) {
    const nkb::Stream &ps = msg.streams(i);
    if (ps.stream() >= kNumStreamIds)
      return corrupt(
          detail::cat("stream ", i, ": id ", ps.stream(), " out of range"));
    Stream s;
    s.id = StreamId::fromIndex(int(ps.stream()));
    std::string sname = streamName(s.id);
    for (int k = 0; k < ps.instructions_size(); ++k) {
      absl::StatusOr<Instruction> inst = decodeInstruction(
          ps.instructions(k), detail::cat(sname, " instruction ", k));
      if (!inst.ok())
        return inst.status();
      s.instructions.push_back(std::move(*inst));
    }
    program.streams.push_back(std::move(s));
  }
  return program;
}

/// Appends `msg`'s serialization to `out` (ByteSizeLong called first;
/// nkb.proto has no map fields, so every serialization is deterministic).
/// Written straight into the string: a StringOutputStream on a long
/// string pads its whole spare capacity on every use.
void appendSerialized(const google::protobuf::MessageLite &msg,
                      std::string &out) {
  size_t at = out.size();
  out.resize(at + size_t(msg.GetCachedSize()));
  msg.SerializeWithCachedSizesToArray(
      reinterpret_cast<uint8_t *>(out.data() + at));
}

/// Appends a length-delimited field's tag and length (its bytes follow).
void appendFieldPrefix(uint32_t tag, size_t size, std::string &out) {
  using google::protobuf::io::CodedOutputStream;
  uint8_t prefix[2 * 10]; // two varints of at most 10 bytes
  uint8_t *end = CodedOutputStream::WriteTagToArray(tag, prefix);
  end = CodedOutputStream::WriteVarint64ToArray(size, end);
  out.append(reinterpret_cast<const char *>(prefix), size_t(end - prefix));
}

/// Appends a length-delimited field (`tag`, varint length, bytes).
void appendField(uint32_t tag, std::string_view bytes, std::string &out) {
  appendFieldPrefix(tag, bytes.size(), out);
  out.append(bytes);
}

/// Field tags (length-delimited, wire type 2) of nkb.Program.tensors,
/// nkb.Tensor.data, nkb.Program.streams and nkb.Stream.instructions.
constexpr uint32_t kTensorsTag = (2 << 3) | 2;
constexpr uint32_t kDataTag = (6 << 3) | 2;
constexpr uint32_t kStreamsTag = (4 << 3) | 2;
constexpr uint32_t kInstructionsTag = (2 << 3) | 2;

} // namespace

// The payload is written as Protobuf would serialize the whole nkb.Program
// (fields in number order, streams last): the header's fields, then each
// stream as a length-delimited field holding its id and its instructions.
// The header's fields are serialized here but for the constants' bytes,
// which finish() copies once, from where the header holds or borrows them,
// into a file allocated at its final size (through an nkb.Program they
// were copied into the message and again into the file).
ProgramEncoder::ProgramEncoder(const Program &header)
    : scratch(std::make_unique<nkb::Instruction>()) {
  encodeHeader(header);
}

ProgramEncoder::ProgramEncoder(Program &&header)
    : owned(std::make_unique<Program>(std::move(header))),
      scratch(std::make_unique<nkb::Instruction>()) {
  encodeHeader(*owned);
}

void ProgramEncoder::encodeHeader(const Program &program) {
  auto append = [&](google::protobuf::MessageLite &msg) {
    msg.ByteSizeLong();
    appendSerialized(msg, header);
  };
  nkb::Program target;
  target.set_target(program.target);
  append(target);
  for (const TensorDecl &t : program.tensors) {
    // A Tensor's fields before and after `data`, which goes between them.
    nkb::Tensor before, after;
    before.set_name(t.name);
    before.set_kind(uint32_t(t.kind));
    before.set_dtype(uint32_t(t.dtype));
    for (int64_t d : t.shape)
      before.add_shape(d);
    before.set_hbm_offset(t.hbmOffset);
    after.set_host_type(uint32_t(t.host));
    std::string_view data = t.bytes();
    size_t dataField =
        data.empty()
            ? 0
            : google::protobuf::io::CodedOutputStream::VarintSize32(kDataTag) +
                  google::protobuf::io::CodedOutputStream::VarintSize64(
                      data.size()) +
                  data.size();
    appendFieldPrefix(kTensorsTag,
                      before.ByteSizeLong() + dataField + after.ByteSizeLong(),
                      header);
    appendSerialized(before, header);
    if (!data.empty()) {
      appendFieldPrefix(kDataTag, data.size(), header);
      constants.push_back({header.size(), data});
      constantBytes += data.size();
    }
    appendSerialized(after, header);
  }
  nkb::Program semaphores;
  semaphores.set_num_semaphores(program.numSemaphores);
  append(semaphores);
  checkHeaderSize();
}

void ProgramEncoder::checkHeaderSize() {
  size_t size = header.size() + constantBytes;
  if (size > size_t(INT_MAX))
    tooLarge = size; // Protobuf cannot parse it; finish() says so
}

ProgramEncoder::~ProgramEncoder() = default;

void ProgramEncoder::beginStream(StreamId id) {
  endStream();
  open = true;
  nkb::Stream msg;
  msg.set_stream(uint32_t(id.index()));
  msg.ByteSizeLong();
  appendSerialized(msg, stream);
}

void ProgramEncoder::add(const Instruction &inst) {
  assert(open && "add() before beginStream()");
  scratch->Clear();
  encodeInstruction(inst, scratch.get());
  scratch->ByteSizeLong();
  instruction.clear();
  appendSerialized(*scratch, instruction);
  appendField(kInstructionsTag, instruction, stream);
}

void ProgramEncoder::endStream() {
  if (!open)
    return;
  if (stream.size() > size_t(INT_MAX))
    tooLarge = std::max(tooLarge, stream.size());
  if (!tooLarge)
    appendField(kStreamsTag, stream, streams);
  stream.clear();
  open = false;
}

template <typename F> void ProgramEncoder::forEachPiece(F &&piece) const {
  std::string_view fields = header;
  size_t from = 0;
  for (const Constant &c : constants) {
    piece(fields.substr(from, c.at - from));
    piece(c.bytes);
    from = c.at;
  }
  piece(fields.substr(from));
  piece(std::string_view(streams));
}

bool ProgramEncoder::matchesPayload(std::string_view payload) && {
  endStream();
  if (tooLarge ||
      header.size() + constantBytes + streams.size() != payload.size())
    return false;
  bool same = true;
  size_t at = 0;
  forEachPiece([&](std::string_view piece) {
    same = same && payload.compare(at, piece.size(), piece) == 0;
    at += piece.size();
  });
  return same;
}

absl::StatusOr<std::string> ProgramEncoder::finish() && {
  endStream();
  size_t headerSize = tooLarge ? 0 : header.size() + constantBytes;
  size_t size = std::max(tooLarge, headerSize + streams.size());
  if (size > size_t(INT_MAX))
    return absl::ResourceExhaustedError(
        detail::cat("program too large for a .nkb binary: ", size,
                    " bytes of payload, the format holds at most ", INT_MAX));
  std::string payload;
  payload.reserve(kBinaryHeaderBytes + size);
  payload.assign(kBinaryHeaderBytes, '\0');
  forEachPiece([&](std::string_view piece) { payload.append(piece); });
  payload.replace(0, kBinaryMagic.size(), kBinaryMagic);
  putLE(payload, kVersionAt, 4, kBinaryFormatVersion);
  std::string_view body = std::string_view(payload).substr(kBinaryHeaderBytes);
  putLE(payload, kLengthAt, kLengthBytes, body.size());
  putLE(payload, kChecksumAt, kChecksumBytes, crc32(body));
  return payload;
}

namespace {

/// The whole file, or an error when the message exceeds Protobuf's 2 GiB
/// limit (constants that large do not fit a version-1 container).
/// Adds `program`'s streams to `encoder`.
void addStreams(const Program &program, ProgramEncoder &encoder) {
  for (const Stream &s : program.streams) {
    encoder.beginStream(s.id);
    for (const Instruction &inst : s.instructions)
      encoder.add(inst);
  }
}

absl::StatusOr<std::string> encodeChecked(const Program &program) {
  ProgramEncoder encoder(program);
  addStreams(program, encoder);
  return std::move(encoder).finish();
}

/// Whether `payload` is `program`'s encoding (the decoder's check that a
/// file is canonical), without writing the constants again.
bool matchesEncoding(const Program &program, std::string_view payload) {
  ProgramEncoder encoder(program);
  addStreams(program, encoder);
  return std::move(encoder).matchesPayload(payload);
}

} // namespace

std::string frameBinaryPayload(std::string_view payload) {
  std::string out(kBinaryHeaderBytes, '\0');
  out.replace(0, kBinaryMagic.size(), kBinaryMagic);
  putLE(out, kVersionAt, 4, kBinaryFormatVersion);
  putLE(out, kLengthAt, kLengthBytes, payload.size());
  putLE(out, kChecksumAt, kChecksumBytes, crc32(payload));
  out.append(payload);
  return out;
}

std::string encodeProgram(const Program &program) {
  absl::StatusOr<std::string> bytes = encodeChecked(program);
  assert(bytes.ok() && "program exceeds the .nkb size limit; use "
                       "writeProgramFile for a diagnosed error");
  return bytes.ok() ? *std::move(bytes) : std::string();
}

absl::StatusOr<Program> decodeProgram(std::string_view bytes) {
  if (bytes.size() < kBinaryMagic.size() ||
      bytes.substr(0, kBinaryMagic.size()) != kBinaryMagic)
    return absl::InvalidArgumentError(
        "not a .nkb binary (missing the \"NKB\\x01\" magic)");
  // The version comes before any other header field: another version may
  // lay out the rest of its header differently.
  if (bytes.size() >= kVersionAt + 4) {
    uint64_t version = getLE(bytes, kVersionAt, 4);
    if (version != kBinaryFormatVersion)
      return absl::InvalidArgumentError(
          detail::cat("unsupported .nkb format version ", version,
                      " (this build reads ", kBinaryFormatVersion, ")"));
  }
  if (bytes.size() < kBinaryHeaderBytes)
    return absl::DataLossError(detail::cat(
        "truncated .nkb binary: ", bytes.size(), " bytes, shorter than the ",
        kBinaryHeaderBytes, "-byte header"));
  uint64_t length = getLE(bytes, kLengthAt, kLengthBytes);
  std::string_view payload = bytes.substr(kBinaryHeaderBytes);
  if (payload.size() < length)
    return absl::DataLossError(
        detail::cat("truncated .nkb binary: header says ", length,
                    " payload bytes, file has ", payload.size()));
  if (payload.size() > length)
    return absl::DataLossError(
        detail::cat("corrupted .nkb binary: header says ", length,
                    " payload bytes, file has ", payload.size()));
  if (payload.size() > size_t(INT_MAX))
    return absl::InvalidArgumentError(".nkb binary is larger than 2 GiB");
  uint32_t stored = uint32_t(getLE(bytes, kChecksumAt, kChecksumBytes));
  uint32_t actual = crc32(payload);
  if (stored != actual)
    return absl::DataLossError(detail::cat(
        "corrupted .nkb binary: checksum mismatch (header says CRC-32 0x",
        absl::Hex(stored, absl::kZeroPad8), ", payload has 0x",
        absl::Hex(actual, absl::kZeroPad8), ")"));
  nkb::Program msg;
  if (!msg.ParseFromArray(payload.data(), int(payload.size())))
    return absl::DataLossError(
        "corrupted .nkb binary: the payload does not parse");
  absl::StatusOr<Program> program = decodeMessage(msg);
  if (!program.ok())
    return program.status();
  if (absl::Status s = verifyProgram(*program); !s.ok())
    return absl::InvalidArgumentError(
        detail::cat("invalid .nkb program: ", s.message()));
  if (!matchesEncoding(*program, payload))
    return absl::DataLossError(
        "corrupted .nkb binary: not in canonical form (it holds fields its "
        "opcodes do not use, unknown fields, or fields out of order)");
  return program;
}

absl::Status writeProgramFile(const Program &program, const std::string &path) {
  absl::StatusOr<std::string> bytes = encodeChecked(program);
  if (!bytes.ok())
    return absl::Status(bytes.status().code(),
                        detail::cat(path, ": ", bytes.status().message()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return absl::PermissionDeniedError(detail::cat(
        "cannot open '", path, "' for writing: ", std::strerror(errno)));
  out.write(bytes->data(), std::streamsize(bytes->size()));
  out.close();
  if (!out)
    return absl::InternalError(
        detail::cat("cannot write '", path, "': ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::StatusOr<Program> readProgramFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(
        detail::cat("cannot open '", path, "': ", std::strerror(errno)));
  // A file of known size is read once into a buffer of that size; a pipe's
  // bytes through a stream.
  std::streamoff size = in.seekg(0, std::ios::end) ? std::streamoff(in.tellg())
                                                   : std::streamoff(-1);
  std::unique_ptr<char[]> data;
  std::string streamed;
  std::string_view bytes;
  if (size >= 0 && in.seekg(0)) {
    data.reset(new char[size_t(size)]);
    if (!in.read(data.get(), size) || in.gcount() != size)
      return absl::InternalError(detail::cat("cannot read '", path, "'"));
    bytes = std::string_view(data.get(), size_t(size));
  } else {
    in.clear();
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
      return absl::InternalError(detail::cat("cannot read '", path, "'"));
    streamed = std::move(buffer).str();
    bytes = streamed;
  }
  absl::StatusOr<Program> program = decodeProgram(bytes);
  if (!program.ok())
    return absl::Status(program.status().code(),
                        detail::cat(path, ": ", program.status().message()));
  return program;
}

} // namespace nki::isa
