//===- NKIDialect.td - The tile-level nki dialect ----------*- tablegen -*-===//
//
// The `nki` dialect is the compiler's tile level: loops over tiles that live
// in SBUF or PSUM (memrefs in the #nki.memory<sbuf|psum> spaces, dim 0 the
// partition axis) and tile operations that each become one machine
// instruction. Engines, addresses and semaphores are not chosen yet: memory
// planning gives every nki.alloc an offset and engine scheduling turns the
// ops into `nisa` instructions.
//
//===----------------------------------------------------------------------===//
#ifndef NKI_DIALECT_NKI_NKIDIALECT_TD
#define NKI_DIALECT_NKI_NKIDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def NKI_Dialect : Dialect {
  let name = "nki";
  let cppNamespace = "::nki::tile";
  let summary = "Tile-level operations on SBUF/PSUM tiles";
  let description = [{
    Tiles are memrefs whose memory space is `#nki.memory<sbuf>` or
    `#nki.memory<psum>`; their first dimension is the partition axis (at most
    128) and the remaining dimensions are the free axes, row-major within a
    partition. HBM tensors are memrefs in the default memory space. Tile
    operations read and write such memrefs (or subviews of them) and
    correspond one to one to machine instructions, with the engine left open
    where several can run them (tensor_tensor on DVE or POOL, ...).

    A kernel that knows better than the scheduler's earliest-finish choice
    may pin a tile op to one of its engines with the discardable attribute
    `nki.engine = "act" | "dve" | "pool"` (nki-schedule reports a name that
    is none of these, or an engine that cannot run the op). The attention
    kernel pins its `[q, 1]` softmax bookkeeping to the POOL, which it
    otherwise leaves idle, while the ACT and DVE bound it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def NKI_MemorySpace : I32EnumAttr<"MemorySpace", "on-chip memory", [
    I32EnumAttrCase<"SBUF", 1, "sbuf">,
    I32EnumAttrCase<"PSUM", 2, "psum">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nki::tile";
}

def NKI_MemorySpaceAttr : EnumAttr<NKI_Dialect, NKI_MemorySpace, "memory"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // NKI_DIALECT_NKI_NKIDIALECT_TD
