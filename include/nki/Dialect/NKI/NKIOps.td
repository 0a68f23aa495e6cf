//===- NKIOps.td - Tile-level operations ------------------*- tablegen -*-===//
//
// One op per machine instruction family, on memref tiles. Operand roles match
// the ISA (include/nki/ISA/Instruction.h); names of ALU ops and activation
// functions are the ISA's spellings (isa::parseAluOp / parseActFunc check
// them), so they are written once.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NKI_NKIOPS_TD
#define NKI_DIALECT_NKI_NKIOPS_TD

include "nki/Dialect/NKI/NKIDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

class NKI_Op<string mnemonic, list<Trait> traits = []>
    : Op<NKI_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}

// Tile ops absorb memref.cast of their operands (canonicalization leaves
// casts from folded views), so views keep their static layouts.
class NKI_TileOp<string mnemonic, list<Trait> traits = []>
    : NKI_Op<mnemonic, traits> {
  let hasFolder = 1;
}

def NKI_AllocOp : NKI_Op<"alloc"> {
  let summary = "a tile in SBUF or PSUM";
  let description = [{
    Allocates a tile, live from here to its last use. Memory planning sets
    `offset`: the byte offset of the tile in every partition it occupies
    (SBUF), or within PSUM's 16 KiB per partition.

    ```mlir
    %t = nki.alloc : memref<128x512xbf16, #nki.memory<sbuf>>
    %p = nki.alloc {offset = 2048} : memref<128x512xf32, #nki.memory<psum>>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Res<AnyStaticShapeMemRef, "the tile",
                          [MemAlloc<DefaultResource>]>:$tile);
  let assemblyFormat = "attr-dict `:` type($tile)";
}

def NKI_BitcastOp : NKI_Op<"bitcast",
    [Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>]> {
  let summary = "the same bytes as another element type";
  let description = [{
    A view of a whole tile or HBM buffer (identity layout) whose elements
    are reinterpreted: the innermost dim scales by the ratio of the element
    sizes, every other dim and the memory stay. It moves no data; kernels
    use it to move bytes as wider words (four fp8 values as one f32 through
    a PE transpose) or to hand packed bytes to the PE.

    ```mlir
    %w = nki.bitcast %t : memref<128x512xf8E4M3FN, #nki.memory<sbuf>>
                        to memref<128x128xf32, #nki.memory<sbuf>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
}

def NKI_DmaOp : NKI_TileOp<"dma"> {
  let summary = "DMA copy between HBM and SBUF (or within either)";
  let description = [{
    Copies the elements of `src` to `dst`, both visited in row-major order;
    their element counts must agree. Neither side may be PSUM. A dtype change
    is a cast.

    ```mlir
    nki.dma %a_view to %tile : memref<128x512xbf16, strided<[4096, 1], offset: 8192>>
                            to memref<128x512xbf16, #nki.memory<sbuf>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst);
  let assemblyFormat =
      "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
}

def NKI_MatmulOp : NKI_TileOp<"matmul"> {
  let summary = "PE matmul: acc[M,N] (+)= stationary[K,M]^T x moving[K,N]";
  let description = [{
    Contraction over the partition axis K (<= 128); M <= 128, N <= 512; the
    accumulator is an fp32 PSUM tile within one bank. Without `accumulate` the
    result overwrites `acc` (the ISA's start flag).

    `rows 2` is the fp8 double row: both sources are fp8 tiles [K/2, M, 2]
    and [K/2, N, 2] whose element [p, j, r] is contraction row 2p + r, so K
    is up to 256.
  }];
  let arguments = (ins Arg<AnyMemRef, "stationary [K,M]", [MemRead]>:$stationary,
                       Arg<AnyMemRef, "moving [K,N]", [MemRead]>:$moving,
                       Arg<AnyMemRef, "PSUM accumulator [M,N]",
                           [MemRead, MemWrite]>:$acc,
                       UnitAttr:$accumulate,
                       DefaultValuedAttr<I64Attr, "1">:$rows);
  let assemblyFormat = [{
    $stationary `,` $moving `into` $acc (`accumulate` $accumulate^)?
    (`rows` $rows^)? attr-dict
    `:` type($stationary) `,` type($moving) `into` type($acc)
  }];
}

def NKI_MatmulMxOp : NKI_TileOp<"matmul_mx"> {
  let summary = "PE MX quad row (trn3): acc[M,N] (+)= scaled stationary^T x "
                "scaled moving";
  let description = [{
    Each source is an MXFP8 tile [K/4, M, 4] or [K/4, N, 4] (f8E4M3FN or
    f8E5M2) whose element [p, j, r] is contraction row 4p + r, so K is up
    to 512, or an MXFP4 tile [K/4, columns, 2] of vector<2xf4E2M1FN> (a
    byte of two e2m1 values, rows 4p + 2r and 4p + 2r + 1, low nibble
    first); the formats may mix. The scales are f8E8M0FNU tiles [K/32, M] and [K/32, N], one per
    32 contraction rows of a column. The ISA's matmul_mx.

    ```mlir
    nki.matmul_mx %a, %b scales %sa, %sb into %acc
        : memref<128x128x4xf8E4M3FN, #nki.memory<sbuf>>,
          memref<128x512x4xf8E4M3FN, #nki.memory<sbuf>>,
          memref<16x128xf8E8M0FNU, #nki.memory<sbuf>>,
          memref<16x512xf8E8M0FNU, #nki.memory<sbuf>>
          into memref<128x512xf32, #nki.memory<psum>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "stationary [K/4,M,4]", [MemRead]>:$stationary,
                       Arg<AnyMemRef, "moving [K/4,N,4]", [MemRead]>:$moving,
                       Arg<AnyMemRef, "stationary scales [K/32,M]",
                           [MemRead]>:$stationary_scale,
                       Arg<AnyMemRef, "moving scales [K/32,N]",
                           [MemRead]>:$moving_scale,
                       Arg<AnyMemRef, "PSUM accumulator [M,N]",
                           [MemRead, MemWrite]>:$acc,
                       UnitAttr:$accumulate);
  let assemblyFormat = [{
    $stationary `,` $moving `scales` $stationary_scale `,` $moving_scale
    `into` $acc (`accumulate` $accumulate^)? attr-dict
    `:` type($stationary) `,` type($moving) `,` type($stationary_scale) `,`
    type($moving_scale) `into` type($acc)
  }];
}

def NKI_TransposeOp : NKI_TileOp<"transpose"> {
  let summary = "PE transpose: dst[F,P] (PSUM) = src[P,F]^T";
  let arguments = (ins Arg<AnyMemRef, "source [P,F]", [MemRead]>:$src,
                       Arg<AnyMemRef, "PSUM destination [F,P]",
                           [MemWrite]>:$dst);
  let assemblyFormat =
      "$src `into` $dst attr-dict `:` type($src) `into` type($dst)";
}

def NKI_ActivationOp : NKI_TileOp<"activation", [AttrSizedOperandSegments]> {
  let summary = "ACT: dst = func(src * scale + bias), optional row sums";
  let description = [{
    `scale` and `bias` are immediates unless a [P,1] tile is given.
    `accum`, when present, receives the free-axis sum of the result ([P,1]).

    ```mlir
    nki.activation "exp" %x into %y bias %negmax : memref<128x1xf32, #nki.memory<sbuf>>
        accum %sum : memref<128x1xf32, #nki.memory<sbuf>>
        : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x512xbf16, #nki.memory<sbuf>>
    ```
  }];
  let arguments = (ins StrAttr:$func,
                       Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       Arg<Optional<AnyMemRef>, "[P,1] scale", [MemRead]>:$scaleTile,
                       Arg<Optional<AnyMemRef>, "[P,1] bias", [MemRead]>:$biasTile,
                       Arg<Optional<AnyMemRef>, "[P,1] row sums", [MemWrite]>:$accum,
                       DefaultValuedAttr<F32Attr, "1.0">:$scale,
                       DefaultValuedAttr<F32Attr, "0.0">:$bias);
  let assemblyFormat = [{
    $func $src `into` $dst
    (`scale` $scaleTile^ `:` type($scaleTile))?
    (`bias` $biasTile^ `:` type($biasTile))?
    (`accum` $accum^ `:` type($accum))?
    attr-dict `:` type($src) `into` type($dst)
  }];
}

def NKI_TensorTensorOp : NKI_TileOp<"tensor_tensor"> {
  let summary = "DVE/POOL elementwise: dst = lhs <op> rhs";
  let arguments = (ins StrAttr:$op,
                       Arg<AnyMemRef, "lhs", [MemRead]>:$lhs,
                       Arg<AnyMemRef, "rhs", [MemRead]>:$rhs,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $op $lhs `,` $rhs `into` $dst attr-dict
    `:` type($lhs) `,` type($rhs) `into` type($dst)
  }];
}

def NKI_TensorScalarOp : NKI_TileOp<"tensor_scalar", [AttrSizedOperandSegments]> {
  let summary = "DVE/POOL: dst = (src <op0> s0) <op1> s1";
  let description = [{
    Each scalar is an immediate (`imm0`, `imm1`) unless a [P,1] tile is
    given. `op1` defaults to `bypass`. `reverse0`/`reverse1` swap the operands
    of the corresponding op (s0 <op0> src).
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       Arg<Optional<AnyMemRef>, "[P,1] s0", [MemRead]>:$scalar0,
                       Arg<Optional<AnyMemRef>, "[P,1] s1", [MemRead]>:$scalar1,
                       StrAttr:$op0,
                       DefaultValuedAttr<F32Attr, "0.0">:$imm0,
                       DefaultValuedAttr<StrAttr, "\"bypass\"">:$op1,
                       DefaultValuedAttr<F32Attr, "0.0">:$imm1,
                       UnitAttr:$reverse0, UnitAttr:$reverse1);
  let assemblyFormat = [{
    $src `into` $dst
    (`s0` $scalar0^ `:` type($scalar0))?
    (`s1` $scalar1^ `:` type($scalar1))?
    attr-dict `:` type($src) `into` type($dst)
  }];
}

def NKI_ReduceOp : NKI_TileOp<"reduce"> {
  let summary = "DVE: reduce the trailing `axes` free dims with add/max/min";
  let description = [{
    A sum over every free dim with a `scratch` tile of the source's shape
    may run on the ACT instead, as an identity activation writing `scratch`
    with its free-axis sum in `dst`; the scheduler picks the engine.
    Nothing else may read `scratch`.

    ```mlir
    nki.reduce "add" %x into %sum scratch %s : memref<128x512xf32, #nki.memory<sbuf>>
        : memref<128x512xf32, #nki.memory<sbuf>> into memref<128x1xf32, #nki.memory<sbuf>>
    ```
  }];
  let arguments = (ins StrAttr:$op,
                       Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       DefaultValuedAttr<I64Attr, "1">:$axes,
                       Arg<Optional<AnyMemRef>, "what an ACT pass writes",
                           [MemWrite]>:$scratch);
  let assemblyFormat =
      "$op $src `into` $dst (`scratch` $scratch^ `:` type($scratch))? "
      "attr-dict `:` type($src) `into` type($dst)";
}

def NKI_CopyOp : NKI_TileOp<"copy"> {
  let summary = "engine copy between tiles (with dtype cast)";
  let description = [{
    A DVE or POOL `tensor_copy`, or an ACT identity activation (x * 1 + 0,
    which turns -0 into +0 and quiets NaNs). With `exact` (a copy of bits
    that are not the type's values, such as MX data moved as f32 words) it
    is never an activation.
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       UnitAttr:$exact);
  let assemblyFormat =
      "$src `into` $dst attr-dict `:` type($src) `into` type($dst)";
}

def NKI_MemsetOp : NKI_TileOp<"memset"> {
  let summary = "fill a tile with a value";
  let arguments = (ins Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       F32Attr:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` type($dst)";
}

def NKI_SelectOp : NKI_TileOp<"select"> {
  let summary = "DVE: dst = pred != 0 ? on_true : on_false";
  let arguments = (ins Arg<AnyMemRef, "predicate", [MemRead]>:$pred,
                       Arg<AnyMemRef, "", [MemRead]>:$onTrue,
                       Arg<AnyMemRef, "", [MemRead]>:$onFalse,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $pred `,` $onTrue `,` $onFalse `into` $dst attr-dict
    `:` type($pred) `,` type($onTrue) `,` type($onFalse) `into` type($dst)
  }];
}

def NKI_IotaOp : NKI_TileOp<"iota"> {
  let summary = "POOL: dst[p, i...] = offset + pcoef * p + sum(coefs[k] * i_k)";
  let arguments = (ins Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       I64Attr:$offset, I64Attr:$pcoef,
                       DenseI64ArrayAttr:$coefs);
  let assemblyFormat = "$dst attr-dict `:` type($dst)";
}

def NKI_AffineSelectOp : NKI_TileOp<"affine_select"> {
  let summary = "POOL: keep src where (affine value <cmp> 0), else fill";
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       StrAttr:$cmp, F32Attr:$fill,
                       I64Attr:$offset, I64Attr:$pcoef,
                       DenseI64ArrayAttr:$coefs);
  let assemblyFormat =
      "$src `into` $dst attr-dict `:` type($src) `into` type($dst)";
}

#endif // NKI_DIALECT_NKI_NKIOPS_TD
