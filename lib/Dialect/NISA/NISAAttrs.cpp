//===- NISAAttrs.cpp - Syntax of operands and enumerations ----------------===//
//
// Every attribute has a BODY syntax (parseBody / printBody) used inline in
// ops, and a generic form `#nisa.<mnemonic><BODY>`. Names come from the ISA
// library's tables, never from strings spelled here.
//
//===----------------------------------------------------------------------===//

#include "nki/Dialect/NISA/NISA.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h" // used by the generated attribute parser

#include <limits>

using namespace mlir;
using namespace nki;
using namespace nki::nisa;

#define GET_ATTRDEF_CLASSES
#include "nki/Dialect/NISA/NISAAttrs.cpp.inc"

void NISADialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nki/Dialect/NISA/NISAAttrs.cpp.inc"
      >();
}

namespace {

/// `<` BODY `>` for the generic form of every nisa attribute.
template <typename AttrT> Attribute parseBracketed(AsmParser &parser) {
  if (parser.parseLess())
    return {};
  AttrT attr = AttrT::parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

template <typename AttrT> void printBracketed(AsmPrinter &printer, AttrT attr) {
  printer << '<';
  attr.printBody(printer);
  printer << '>';
}

/// Parses a keyword naming one value of an ISA enumeration of `count`
/// values; an unknown keyword is an error that lists every spelling.
template <typename EnumT>
std::optional<EnumT>
parseEnumKeyword(AsmParser &parser, StringRef what,
                 std::optional<EnumT> (*parse)(std::string_view),
                 std::string_view (*name)(EnumT), int count) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return std::nullopt;
  if (std::optional<EnumT> value = parse(keyword))
    return value;
  InFlightDiagnostic diag = parser.emitError(loc)
                            << "unknown " << what << " '" << keyword
                            << "'; expected one of:";
  for (int i = 0; i < count; ++i)
    diag << ' ' << std::string(name(EnumT(i)));
  return std::nullopt;
}

constexpr int kNumDTypes = 0
#define NKI_DTYPE(Name, spelling, bytes) +1
#include "nki/ISA/DTypes.def"
    ;
constexpr int kNumAluOps = 0
#define NKI_ALU_OP(Name, spelling) +1
#include "nki/ISA/AluOps.def"
    ;
constexpr int kNumActFuncs = 0
#define NKI_ACT_FUNC(Name, spelling, table) +1
#include "nki/ISA/ActFuncs.def"
    ;
constexpr int kNumMemories = int(isa::Memory::PSUM) + 1;
constexpr int kNumTensorKinds = int(isa::TensorKind::Scratch) + 1;

std::optional<isa::TensorKind> parseTensorKind(std::string_view name) {
  for (int i = 0; i < kNumTensorKinds; ++i)
    if (isa::tensorKindName(isa::TensorKind(i)) == name)
      return isa::TensorKind(i);
  return std::nullopt;
}

std::optional<isa::DType> parseDTypeKeyword(AsmParser &parser) {
  return parseEnumKeyword<isa::DType>(parser, "dtype", isa::parseDType,
                                      isa::dtypeName, kNumDTypes);
}

} // namespace

//===----------------------------------------------------------------------===//
// AccessPatternAttr
//===----------------------------------------------------------------------===//

LogicalResult AccessPatternAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, isa::Memory memory,
    int32_t startPartition, int32_t numPartitions, int64_t offset,
    isa::DType dtype, ArrayRef<int64_t> strides, ArrayRef<int64_t> sizes) {
  // Only what the Instruction struct cannot represent is checked here; every
  // hardware limit is isa::verifyInstruction's.
  if (strides.size() != sizes.size())
    return emitError() << "access pattern has " << strides.size()
                       << " strides but " << sizes.size() << " sizes";
  if (sizes.size() > size_t(isa::AccessPattern::kMaxDims))
    return emitError() << "access pattern has " << sizes.size()
                       << " dimensions; at most "
                       << isa::AccessPattern::kMaxDims << " are representable";
  return success();
}

AccessPatternAttr AccessPatternAttr::parseBody(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::optional<isa::Memory> memory = parseEnumKeyword<isa::Memory>(
      parser, "memory", isa::parseMemory, isa::memoryName, kNumMemories);
  if (!memory)
    return {};
  return parseAfterMemory(parser, *memory, loc);
}

AccessPatternAttr AccessPatternAttr::parseAfterMemory(AsmParser &parser,
                                                      isa::Memory memory,
                                                      SMLoc loc) {
  if (parser.parseLSquare())
    return {};

  // [START:END, OFFSET, DTYPE]; HBM patterns omit START:END.
  int64_t start = 0, end = 1, offset = 0;
  SMLoc rangeLoc = parser.getCurrentLocation();
  if (parser.parseInteger(offset))
    return {};
  if (succeeded(parser.parseOptionalColon())) {
    start = offset;
    if (parser.parseInteger(end) || parser.parseComma() ||
        parser.parseInteger(offset))
      return {};
  } else if (memory != isa::Memory::HBM) {
    parser.emitError(rangeLoc)
        << "expected the partition range START:END of the "
        << std::string(isa::memoryName(memory)) << " access pattern";
    return {};
  }
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  // START in int32, then END - START in int32 (compared without overflow).
  if (start < kMin || start > kMax || end > start + kMax ||
      end < start + kMin) {
    parser.emitError(rangeLoc)
        << "partition range " << start << ":" << end << " is not representable";
    return {};
  }
  if (parser.parseComma())
    return {};
  std::optional<isa::DType> dtype = parseDTypeKeyword(parser);
  if (!dtype || parser.parseRSquare())
    return {};

  // [(STRIDE,SIZE), ...]
  SmallVector<int64_t> strides, sizes;
  auto parseDim = [&]() -> ParseResult {
    int64_t stride, size;
    if (parser.parseLParen() || parser.parseInteger(stride) ||
        parser.parseComma() || parser.parseInteger(size) ||
        parser.parseRParen())
      return failure();
    strides.push_back(stride);
    sizes.push_back(size);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    memory, int32_t(start), int32_t(end - start), offset,
                    *dtype, strides, sizes);
}

void AccessPatternAttr::printBody(AsmPrinter &printer) const {
  raw_ostream &os = printer.getStream();
  os << isa::memoryName(getMemory()) << '[';
  if (getMemory() != isa::Memory::HBM || getStartPartition() != 0 ||
      getNumPartitions() != 1)
    os << getStartPartition() << ':'
       << int64_t(getStartPartition()) + getNumPartitions() << ", ";
  os << getOffset() << ", " << isa::dtypeName(getDtype()) << "][";
  llvm::interleave(
      llvm::zip(getStrides(), getSizes()), os,
      [&](auto dim) {
        os << '(' << std::get<0>(dim) << ',' << std::get<1>(dim) << ')';
      },
      ",");
  os << ']';
}

Attribute AccessPatternAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<AccessPatternAttr>(parser);
}
void AccessPatternAttr::print(AsmPrinter &printer) const {
  printBracketed(printer, *this);
}

isa::AccessPattern AccessPatternAttr::toISA() const {
  isa::AccessPattern ap;
  ap.memory = getMemory();
  ap.dtype = getDtype();
  ap.startPartition = getStartPartition();
  ap.numPartitions = getNumPartitions();
  ap.offset = getOffset();
  ap.rank = uint8_t(getSizes().size());
  for (auto [i, stride, size] : llvm::enumerate(getStrides(), getSizes()))
    ap.dims[i] = {stride, size};
  return ap;
}

AccessPatternAttr AccessPatternAttr::fromISA(MLIRContext *context,
                                             const isa::AccessPattern &ap) {
  SmallVector<int64_t> strides, sizes;
  for (int i = 0; i < ap.rank && i < isa::AccessPattern::kMaxDims; ++i) {
    strides.push_back(ap.dims[i].stride);
    sizes.push_back(ap.dims[i].size);
  }
  return get(context, ap.memory, ap.startPartition, ap.numPartitions, ap.offset,
             ap.dtype, strides, sizes);
}

//===----------------------------------------------------------------------===//
// AffineExprAttr
//===----------------------------------------------------------------------===//

LogicalResult
AffineExprAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t offset, int64_t partitionCoef,
                       ArrayRef<int64_t> freeCoefs) {
  if (freeCoefs.size() !=
      std::tuple_size_v<decltype(isa::AffineExpr::freeCoefs)>)
    return emitError()
           << "affine expression needs "
           << std::tuple_size_v<
                  decltype(isa::AffineExpr::
                               freeCoefs)> << " free coefficients, got "
           << freeCoefs.size();
  return success();
}

// (OFFSET (+|-) C * p (+|-) C * iK ...), each variable at most once.
AffineExprAttr AffineExprAttr::parseBody(AsmParser &parser) {
  constexpr int kFree = std::tuple_size_v<decltype(isa::AffineExpr::freeCoefs)>;
  int64_t offset = 0;
  // Coefficients of p, i0 .. i3, when their term has been seen.
  std::optional<int64_t> coefs[1 + kFree];
  if (parser.parseLParen() || parser.parseInteger(offset))
    return {};
  while (true) {
    bool negate;
    if (succeeded(parser.parseOptionalPlus()))
      negate = false;
    else if (succeeded(parser.parseOptionalMinus()))
      negate = true;
    else
      break;
    int64_t coef;
    StringRef var;
    if (parser.parseInteger(coef) || parser.parseStar())
      return {};
    SMLoc varLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&var))
      return {};
    unsigned k = 0;
    if (var != "p") {
      StringRef index = var;
      if (!index.consume_front("i") || index.getAsInteger(10, k) ||
          k >= unsigned(kFree)) {
        parser.emitError(varLoc)
            << "expected 'p' or a free index 'i0'..'i" << kFree - 1 << "'";
        return {};
      }
      ++k;
    }
    if (coefs[k]) {
      parser.emitError(varLoc) << "'" << var << "' appears twice";
      return {};
    }
    coefs[k] = negate ? int64_t(0ULL - uint64_t(coef)) : coef;
  }
  if (parser.parseRParen())
    return {};
  SmallVector<int64_t> freeCoefs;
  for (int k = 1; k <= kFree; ++k)
    freeCoefs.push_back(coefs[k].value_or(0));
  return get(parser.getContext(), offset, coefs[0].value_or(0), freeCoefs);
}

void AffineExprAttr::printBody(AsmPrinter &printer) const {
  raw_ostream &os = printer.getStream();
  auto term = [&](int64_t coef, const Twine &var) {
    if (coef == 0)
      return;
    if (coef < 0 && coef != std::numeric_limits<int64_t>::min())
      os << " - " << -coef;
    else
      os << " + " << coef;
    os << " * " << var;
  };
  os << '(' << getOffset();
  term(getPartitionCoef(), "p");
  for (auto [k, coef] : llvm::enumerate(getFreeCoefs()))
    term(coef, "i" + Twine(k));
  os << ')';
}

Attribute AffineExprAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<AffineExprAttr>(parser);
}
void AffineExprAttr::print(AsmPrinter &printer) const {
  printBracketed(printer, *this);
}

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

#define NISA_ENUM_ATTR(AttrT, EnumT, what, parseFn, nameFn, count)             \
  AttrT AttrT::parseBody(AsmParser &parser) {                                  \
    std::optional<EnumT> value =                                               \
        parseEnumKeyword<EnumT>(parser, what, parseFn, nameFn, count);         \
    return value ? get(parser.getContext(), *value) : AttrT();                 \
  }                                                                            \
  void AttrT::printBody(AsmPrinter &printer) const {                           \
    printer.getStream() << nameFn(getValue());                                 \
  }                                                                            \
  Attribute AttrT::parse(AsmParser &parser, Type) {                            \
    return parseBracketed<AttrT>(parser);                                      \
  }                                                                            \
  void AttrT::print(AsmPrinter &printer) const {                               \
    printBracketed(printer, *this);                                            \
  }

NISA_ENUM_ATTR(DTypeAttr, isa::DType, "dtype", isa::parseDType, isa::dtypeName,
               kNumDTypes)
NISA_ENUM_ATTR(AluOpAttr, isa::AluOp, "ALU op", isa::parseAluOp, isa::aluOpName,
               kNumAluOps)
NISA_ENUM_ATTR(ActFuncAttr, isa::ActFunc, "activation function",
               isa::parseActFunc, isa::actFuncName, kNumActFuncs)
NISA_ENUM_ATTR(TensorKindAttr, isa::TensorKind, "tensor kind", parseTensorKind,
               isa::tensorKindName, kNumTensorKinds)

#undef NISA_ENUM_ATTR
