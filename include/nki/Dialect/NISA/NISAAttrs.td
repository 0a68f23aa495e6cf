//===- NISAAttrs.td - Operands and enumerations of nisa ----*- tablegen -*-===//
//
// Each attribute wraps one field type of nki::isa::Instruction. Spellings
// (dtypes, ALU ops, functions, memories) are not repeated here: the custom
// parsers and printers call the ISA library's parse*/ *Name functions, which
// read the .def tables in include/nki/ISA.
//
// Every attribute prints as `#nisa.<mnemonic><BODY>` in generic form; inside
// ops only BODY is printed (the `custom<Bare>` directive), so that operands
// read like assembly.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NISA_NISAATTRS_TD
#define NKI_DIALECT_NISA_NISAATTRS_TD

include "nki/Dialect/NISA/NISADialect.td"
include "mlir/IR/AttrTypeBase.td"

class NISA_Attr<string name, string attrMnemonic>
    : AttrDef<NISA_Dialect, name> {
  let mnemonic = attrMnemonic;
  let hasCustomAssemblyFormat = 1;
  // BODY, without the mnemonic and angle brackets (see the file comment).
  let extraClassDeclaration = [{
    static }] # name # [{Attr parseBody(::mlir::AsmParser &parser);
    void printBody(::mlir::AsmPrinter &printer) const;
  }];
}

def NISA_AccessPatternAttr : NISA_Attr<"AccessPattern", "ap"> {
  let summary = "An operand in HBM, SBUF or PSUM";
  let description = [{
    On chip: `sbuf[START:END, OFFSET, DTYPE][(STRIDE,SIZE), ...]`, the
    partitions START..END-1, and in each of them the byte OFFSET and up to 4
    free dimensions of (stride, size) in elements, outermost first.
    In HBM: `hbm[OFFSET, DTYPE][(STRIDE,SIZE), ...]`, up to 5 dimensions.
    Memories are `hbm`, `sbuf` and `psum`.
  }];
  let parameters = (ins
    "::nki::isa::Memory":$memory,
    "int32_t":$startPartition,
    "int32_t":$numPartitions,
    "int64_t":$offset,
    "::nki::isa::DType":$dtype,
    ArrayRefParameter<"int64_t", "element strides, outermost first">:$strides,
    ArrayRefParameter<"int64_t", "sizes, outermost first">:$sizes);
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static AccessPatternAttr parseBody(::mlir::AsmParser &parser);
    /// parseBody after the memory keyword, which started at `loc`.
    static AccessPatternAttr parseAfterMemory(::mlir::AsmParser &parser,
                                              ::nki::isa::Memory memory,
                                              ::llvm::SMLoc loc);
    void printBody(::mlir::AsmPrinter &printer) const;
    ::nki::isa::AccessPattern toISA() const;
    static AccessPatternAttr fromISA(::mlir::MLIRContext *context,
                                     const ::nki::isa::AccessPattern &ap);
  }];
}

def NISA_AffineExprAttr : NISA_Attr<"AffineExpr", "affine"> {
  let summary = "An affine function of partition and free indices";
  let description = [{
    `(OFFSET + C * p + C0 * i0 + ... + C3 * i3)`, terms with a zero
    coefficient omitted; `p` is the partition index and `iK` the index of the
    K-th free dimension. Used by `iota` and `affine_select`.
  }];
  let parameters = (ins "int64_t":$offset, "int64_t":$partitionCoef,
                        ArrayRefParameter<"int64_t">:$freeCoefs);
  let genVerifyDecl = 1;
}

def NISA_DTypeAttr : NISA_Attr<"DType", "dtype"> {
  let summary = "An element type (f32, bf16, f16, f8e4m3, f8e5m2, i32, i8, u8)";
  let parameters = (ins "::nki::isa::DType":$value);
}

def NISA_AluOpAttr : NISA_Attr<"AluOp", "alu"> {
  let summary = "A DVE/POOL arithmetic operation (include/nki/ISA/AluOps.def)";
  let parameters = (ins "::nki::isa::AluOp":$value);
}

def NISA_ActFuncAttr : NISA_Attr<"ActFunc", "func"> {
  let summary = "An ACT function (include/nki/ISA/ActFuncs.def)";
  let parameters = (ins "::nki::isa::ActFunc":$value);
}

def NISA_TensorKindAttr : NISA_Attr<"TensorKind", "kind"> {
  let summary = "The role of an HBM tensor: input, output, const or scratch";
  let parameters = (ins "::nki::isa::TensorKind":$value);
}

#endif // NKI_DIALECT_NISA_NISAATTRS_TD
