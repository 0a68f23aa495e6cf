//===- NISAOps.td - Programs, tensors, streams, instructions -*- tablegen -*-===//
//
// Instruction ops print their operands like assembly: destination first, then
// sources, then the opcode's flags, then the semaphore clause
// (`wait(...) signal(...)`). Operand roles follow include/nki/ISA/Instruction.h.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NISA_NISAOPS_TD
#define NKI_DIALECT_NISA_NISAOPS_TD

include "nki/Dialect/NISA/NISAAttrs.td"
include "nki/Dialect/NISA/NISAInterfaces.td"
include "mlir/IR/OpBase.td"

class NISA_Op<string mnemonic, list<Trait> traits = []>
    : Op<NISA_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def NISA_ProgramOp : NISA_Op<"program", [IsolatedFromAbove, NoTerminator,
                                         SingleBlock]> {
  let summary = "A whole program: target, tensors, semaphores, streams";
  let description = [{
    The unit `nki-translate --nisa-to-binary` turns into one `.nkb` file.
    The body holds `nisa.tensor` and `nisa.stream` ops only.

    ```mlir
    nisa.program target("trn2") semaphores(2) {
      nisa.tensor @x input f32 [128, 64] at 0
      nisa.stream @dma0 { ... }
    }
    ```
  }];
  let arguments = (ins StrAttr:$target, I64Attr:$semaphores);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `target` `(` $target `)` `semaphores` `(` $semaphores `)`
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$target,
                                 "uint32_t":$semaphores)>];
  let extraClassDeclaration = [{
    /// The target description, or null for an unknown target name.
    const ::nki::isa::TargetDesc *getTargetDesc();
    /// The semaphore count, or nullopt when it is not a uint32.
    std::optional<uint32_t> getNumSemaphores();
  }];
}

def NISA_TensorOp : NISA_Op<"tensor", [HasParent<"ProgramOp">]> {
  let summary = "An HBM tensor of the program's tensor table";
  let description = [{
    A row-major, contiguous tensor at byte `OFFSET` of HBM. Kinds: `input`,
    `output`, `const` (with its data) and `scratch`. Names are unique within
    the program. Tensor and stream names are written like symbols but are
    plain names, in separate namespaces (a tensor may be called `@act`);
    instructions address HBM by byte offset.

    An input or output may name the element type the host reads and
    writes (`host "i64"`, `"f64"`, `"bool"`, `"u8"`, `"i16"`, `"u16"`,
    `"u32"`, `"u64"`) when it differs from the device dtype: ONNX INT64
    tensors are carried as i32, DOUBLE as f32, BOOL as u8 (isa::HostType).

    ```mlir
    nisa.tensor @a input bf16 [256, 256] at 0
    nisa.tensor @w const f32 [2] at 131072 = dense<[1.0, 2.0]> : tensor<2xf32>
    nisa.tensor @idx input i32 [4] at 131136 host "i64"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, NISA_TensorKindAttr:$kind,
                       NISA_DTypeAttr:$dtype, DenseI64ArrayAttr:$shape,
                       I64Attr:$offset,
                       OptionalAttr<ElementsAttr>:$data,
                       OptionalAttr<StrAttr>:$host);
  let assemblyFormat = [{
    $sym_name custom<Bare>($kind) custom<Bare>($dtype) $shape `at` $offset
    (`host` $host^)? (`=` $data^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The declaration; a constant's bytes are borrowed from `data` (valid
    /// while the context lives), a splat's expanded.
    ::nki::isa::TensorDecl toISA();
  }];
}

def NISA_StreamOp : NISA_Op<"stream", [HasParent<"ProgramOp">,
                                       NoTerminator, SingleBlock]> {
  let summary = "The in-order instructions of one engine or DMA queue";
  let description = [{
    `@pe`, `@act`, `@dve`, `@pool` or `@dma0` .. `@dma15` names the stream.
    A program has at most one region per stream.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    /// The stream this region is, or nullopt for an unknown name.
    std::optional<::nki::isa::StreamId> getStreamId();
  }];
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

// An instruction: sits in a stream. `waits` holds (semaphore, value) pairs,
// `signal` a (semaphore, increment) pair; both print as one clause,
// `wait(s0 >= 2, s3 >= 1) signal(s1)`. The mnemonic must equal the ISA mnemonic of Opcodes.def.
class NISA_InstOp<string mnemonic, string assembly>
    : NISA_Op<mnemonic, [HasParent<"StreamOp">,
          DeclareOpInterfaceMethods<NISA_InstructionOpInterface>]> {
  let assemblyFormat = assembly # " `` custom<Sync>($waits, $signal) attr-dict";
}

defvar AP = NISA_AccessPatternAttr;
// An immediate or a [P,1] access pattern.
def NISA_ScalarAttr : AnyAttrOf<[F32Attr, NISA_AccessPatternAttr]>;

def NISA_MatmulOp : NISA_InstOp<"matmul",
    "custom<Bare>($dst) `,` custom<Bare>($stationary) `,` "
    "custom<Bare>($moving) (`start` $start^)? (`rows` $rows^)?"> {
  let summary = "PE: dst[M,N] (+)= stationary[K,M]^T x moving[K,N]";
  let description = [{
    Contracts over the K partitions of both sources and writes or, without
    `start`, accumulates into a PSUM tile in fp32.

    ```mlir
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)],
                sbuf[0:128, 256, bf16][(1,512)] start
    ```

    `rows 2` is the fp8 double row (trn2, trn3): both sources are fp8 with
    an innermost free dim of (stride 1, size 2), and partition p's element
    of row r is contraction index k = 2p + r, so K is up to 256 in the time
    of a K = 128 matmul.

    ```mlir
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(2,128),(1,2)],
                sbuf[0:128, 256, f8e4m3][(2,512),(1,2)] start rows 2
    ```
  }];
  let arguments = (ins AP:$dst, AP:$stationary, AP:$moving, UnitAttr:$start,
                       DefaultValuedAttr<ConfinedAttr<I64Attr,
                           [IntMinValue<1>, IntMaxValue<255>]>, "1">:$rows,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_MatmulMxOp : NISA_InstOp<"matmul_mx",
    "custom<Bare>($dst) `,` custom<Bare>($stationary) `,` "
    "custom<Bare>($moving) `scales` custom<Bare>($stationary_scale) `,` "
    "custom<Bare>($moving_scale) (`start` $start^)?"> {
  let summary = "PE (trn3): the MX quad row, dst[M,N] (+)= scaled "
                "stationary[K,M]^T x scaled moving[K,N]";
  let description = [{
    Both sources are OCP MX blocks: f8e4m3 or f8e5m2 values laid out
    [K/4, M or N, 4] (innermost dim (stride 1, size 4)), or f4e2m1x2 bytes
    [K/4, M or N, 2] holding two e2m1 values each (low nibble first), with
    contraction index k = 4p + r, so K is up to 512 in the time of a
    K = 128 matmul. Each run of 32 consecutive k of a column shares one e8m0
    scale: `stationary_scale` is [K/32, M] and `moving_scale` [K/32, N],
    scale partition g covering source partitions 8g..8g+7. Each product is
    scaled by both scales, rounded once to fp32 and accumulated k ascending.

    ```mlir
    nisa.matmul_mx psum[0:128, 0, f32][(1,512)],
        sbuf[0:128, 0, f8e4m3][(4,128),(1,4)],
        sbuf[0:128, 512, f8e4m3][(4,512),(1,4)]
        scales sbuf[0:16, 2560, e8m0][(1,128)], sbuf[0:16, 2688, e8m0][(1,512)]
        start
    ```
  }];
  let arguments = (ins AP:$dst, AP:$stationary, AP:$moving,
                       AP:$stationary_scale, AP:$moving_scale,
                       UnitAttr:$start,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_TransposeOp : NISA_InstOp<"transpose",
    "custom<Bare>($dst) `,` custom<Bare>($src)"> {
  let summary = "PE: dst[F,P] (PSUM) = src[P,F]^T";
  let description = [{
    P, F <= 128; dst is fp32.

    ```mlir
    nisa.transpose psum[0:64, 0, f32][(1,128)], sbuf[0:128, 0, bf16][(1,64)]
    ```
  }];
  let arguments = (ins AP:$dst, AP:$src, OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_ActivationOp : NISA_InstOp<"activation",
    "custom<Bare>($func) custom<Bare>($dst) `,` custom<Bare>($src) "
    "`scale` custom<Scalar>($scale) `bias` custom<Scalar>($bias) "
    "`` custom<Accum>($accum)"> {
  let summary = "ACT: dst = func(src * scale + bias)";
  let description = [{
    `scale` and `bias` are fp32 immediates or [P,1] access patterns. With
    `accum AP`, the free-axis sum of the result is also written to AP ([P,1]).

    ```mlir
    nisa.activation exp sbuf[0:128, 0, f32][(1,64)], psum[0:128, 0, f32][(1,64)]
        scale 1.0 bias sbuf[0:128, 512, f32][(1,1)]
    ```
  }];
  let arguments = (ins NISA_ActFuncAttr:$func, AP:$dst, AP:$src,
                       NISA_ScalarAttr:$scale, NISA_ScalarAttr:$bias,
                       OptionalAttr<AP>:$accum,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_TensorTensorOp : NISA_InstOp<"tensor_tensor",
    "custom<Bare>($op) custom<Bare>($dst) `,` custom<Bare>($lhs) `,` "
    "custom<Bare>($rhs)"> {
  let summary = "DVE/POOL: dst = lhs <op> rhs";
  let description = [{
    Element by element; at most one input in PSUM (DVE), none on POOL.

    ```mlir
    nisa.tensor_tensor add sbuf[0:128, 0, f32][(1,64)],
        sbuf[0:128, 256, f32][(1,64)], psum[0:128, 0, f32][(1,64)]
    ```
  }];
  let arguments = (ins NISA_AluOpAttr:$op, AP:$dst, AP:$lhs, AP:$rhs,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_TensorScalarOp : NISA_InstOp<"tensor_scalar",
    "custom<Bare>($dst) `,` custom<Bare>($src) `,` custom<Bare>($op0) "
    "custom<Scalar>($scalar0) (`reversed` $reverse0^)? `,` "
    "custom<Bare>($op1) custom<Scalar>($scalar1) (`reversed` $reverse1^)?"> {
  let summary = "DVE/POOL: dst = (src <op0> scalar0) <op1> scalar1";
  let description = [{
    Scalars are fp32 immediates or [P,1] access patterns; `op1` may be
    `bypass`. `reversed` swaps the operands of that step
    (`scalar0 <op0> src`).

    ```mlir
    nisa.tensor_scalar sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)],
        mul 2.0, add 1.0
    ```
  }];
  let arguments = (ins AP:$dst, AP:$src, NISA_AluOpAttr:$op0,
                       NISA_ScalarAttr:$scalar0, UnitAttr:$reverse0,
                       NISA_AluOpAttr:$op1, NISA_ScalarAttr:$scalar1,
                       UnitAttr:$reverse1, OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_TensorReduceOp : NISA_InstOp<"tensor_reduce",
    "custom<Bare>($op) custom<Bare>($dst) `,` custom<Bare>($src) "
    "`axes` `(` $axes `)`"> {
  let summary = "DVE: dst = reduce<op>(src) over the trailing `axes` free dims";
  let description = [{
    `op` is add, max or min; dst keeps src's partitions and leading dims.

    ```mlir
    nisa.tensor_reduce max sbuf[0:128, 512, f32][(1,4)],
        sbuf[0:128, 0, f32][(16,4),(1,16)] axes(1)
    ```
  }];
  let arguments = (ins NISA_AluOpAttr:$op, AP:$dst, AP:$src, I64Attr:$axes,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_TensorCopyOp : NISA_InstOp<"tensor_copy",
    "custom<Bare>($dst) `,` custom<Bare>($src)"> {
  let summary = "DVE/POOL: dst = src, cast to dst's dtype";
  let description = [{
    ```mlir
    nisa.tensor_copy sbuf[0:128, 1024, bf16][(1,64)], psum[0:128, 0, f32][(1,64)]
    ```
  }];
  let arguments = (ins AP:$dst, AP:$src, OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_MemsetOp : NISA_InstOp<"memset", "custom<Bare>($dst) `,` $value"> {
  let summary = "DVE/POOL: dst = value";
  let description = [{
    ```mlir
    nisa.memset sbuf[0:128, 0, f32][(1,64)], 0.0
    ```
  }];
  let arguments = (ins AP:$dst, F32Attr:$value,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_SelectOp : NISA_InstOp<"select",
    "custom<Bare>($dst) `,` custom<Bare>($predicate) `,` "
    "custom<Bare>($on_true) `,` custom<Bare>($on_false)"> {
  let summary = "DVE: dst = predicate != 0 ? on_true : on_false";
  let description = [{
    ```mlir
    nisa.select sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, u8][(1,64)],
        sbuf[0:128, 512, f32][(1,64)], sbuf[0:128, 768, f32][(0,64)]
    ```
  }];
  let arguments = (ins AP:$dst, AP:$predicate, AP:$on_true, AP:$on_false,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_Transpose32Op : NISA_InstOp<"transpose32",
    "custom<Bare>($dst) `,` custom<Bare>($src)"> {
  let summary = "DVE: dst = src transposed in 32x32 blocks";
  let description = [{
    ```mlir
    nisa.transpose32 sbuf[0:32, 0, f32][(1,32)], sbuf[0:32, 128, f32][(1,32)]
    ```
  }];
  let arguments = (ins AP:$dst, AP:$src, OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_IotaOp : NISA_InstOp<"iota",
    "custom<Bare>($dst) `,` custom<Bare>($expr)"> {
  let summary = "POOL: dst[p, i...] = expr(p, i...)";
  let description = [{
    ```mlir
    nisa.iota sbuf[0:128, 0, f32][(1,64)], (0 + 64 * p + 1 * i0)
    ```
  }];
  let arguments = (ins AP:$dst, NISA_AffineExprAttr:$expr,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_AffineSelectOp : NISA_InstOp<"affine_select",
    "custom<Bare>($dst) `,` custom<Bare>($src) `,` custom<Bare>($expr) "
    "custom<Bare>($cmp) `fill` $fill"> {
  let summary = "POOL: dst = expr(p, i...) <cmp> 0 ? src : fill";
  let description = [{
    Keeps `src` where the affine predicate holds and writes `fill` elsewhere,
    e.g. a causal mask keeps i0 <= p:

    ```mlir
    nisa.affine_select sbuf[0:128, 0, f32][(1,128)], sbuf[0:128, 0, f32][(1,128)],
        (0 + 1 * p - 1 * i0) ge fill -1.0e+30
    ```
  }];
  let arguments = (ins AP:$dst, AP:$src, NISA_AffineExprAttr:$expr,
                       NISA_AluOpAttr:$cmp, F32Attr:$fill,
                       OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

def NISA_DmaCopyOp : NISA_InstOp<"dma_copy",
    "custom<Bare>($dst) `,` custom<Bare>($src)"> {
  let summary = "DMA: dst = src between HBM and SBUF (cast to dst's dtype)";
  let description = [{
    ```mlir
    nisa.dma_copy sbuf[0:128, 0, bf16][(1,256)], hbm[0, bf16][(256,128),(1,256)]
        signal(s0)
    ```
  }];
  let arguments = (ins AP:$dst, AP:$src, OptionalAttr<DenseI64ArrayAttr>:$waits,
                       OptionalAttr<DenseI64ArrayAttr>:$signal);
}

#endif // NKI_DIALECT_NISA_NISAOPS_TD
