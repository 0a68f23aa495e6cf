//===- NISADialect.td - The nisa dialect -------------------*- tablegen -*-===//
//
// nisa is the ISA level of the compiler: one op per machine instruction of
// docs/machine-model.md, grouped into one region per instruction stream.
// It is a thin MLIR view of the ISA library (include/nki/ISA): every
// constraint check is the ISA library's, so the dialect, the binary decoder
// and the simulator can never disagree.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NISA_NISADIALECT_TD
#define NKI_DIALECT_NISA_NISADIALECT_TD

include "mlir/IR/OpBase.td"

def NISA_Dialect : Dialect {
  let name = "nisa";
  let cppNamespace = "::nki::nisa";
  let summary = "Machine instructions of the Trainium-style target";
  let description = [{
    A `nisa.program` holds what a `.nkb` binary holds: the target, the HBM
    tensor table (`nisa.tensor`), the semaphore count and one `nisa.stream`
    region per engine (`@pe`, `@act`, `@dve`, `@pool`) and per DMA queue
    (`@dma0` .. `@dma15`). Inside a stream, instructions run in order; streams
    run concurrently and are ordered only by semaphores.

    Operands are access patterns written inline, for example
    `sbuf[0:128, 4096, bf16][(1,512)]` (partitions 0..127, byte offset 4096
    in each partition, bf16 elements, one free dimension of 512 elements with
    stride 1) or `hbm[1024, f32][(4096,128),(1,512)]`. docs/nisa.md describes
    the syntax in full.

    Every instruction op converts to an `nki::isa::Instruction` and is checked
    by `nki::isa::verifyInstruction` against the enclosing program's target
    and the stream it sits in. `nki-translate --nisa-to-binary` and
    `--binary-to-nisa` convert between this dialect and `.nkb` files.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif // NKI_DIALECT_NISA_NISADIALECT_TD
