// RUN: nki-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Each case breaks one rule of docs/machine-model.md (or of the program
// structure). The messages are the ISA library's (lib/ISA/Verify.cpp).

// Partition count above 128.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{'nisa.tensor_copy' op tensor_copy: dst partition count 129 exceeds 128}}
    nisa.tensor_copy sbuf[0:129, 0, f32][(1,64)], sbuf[0:128, 1024, f32][(1,64)]
  }
}

// -----

// Start-partition rule: 33-64 partitions start at 0 or 64.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @act {
    // expected-error @+1 {{src0 starts at partition 32 with 64 partitions; a tile of 33-64 partitions must start at 0 or 64}}
    nisa.activation relu sbuf[0:64, 0, f32][(1,64)], sbuf[32:96, 1024, f32][(1,64)] scale 1.0 bias 0.0
  }
}

// -----

// Start-partition rule: 1-32 partitions start at a multiple of 32.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{dst starts at partition 16 with 16 partitions; a tile of 1-32 partitions must start at 0, 32, 64 or 96}}
    nisa.memset sbuf[16:32, 0, f32][(1,64)], 0.0
  }
}

// -----

// More than 64 partitions start at 0.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{dst starts at partition 32 with 96 partitions; a tile of more than 64 partitions must start at 0}}
    nisa.memset sbuf[32:128, 0, f32][(1,64)], 0.0
  }
}

// -----

// A PSUM tile may not cross a 2 KiB bank.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{'nisa.matmul' op matmul: dst bytes [1024, 3072) cross a PSUM bank boundary (banks are 2048 bytes)}}
    nisa.matmul psum[0:128, 1024, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start
  }
}

// -----

// SBUF out of bounds (224 KiB per partition on trn2).
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{src0 touches bytes [229370, 229386) of sbuf, outside [0, 229376) per partition}}
    nisa.tensor_copy sbuf[0:128, 0, f32][(1,4)], sbuf[0:128, 229370, f32][(1,4)]
  }
}

// -----

// The same offset is in bounds on trn2 but not on trn1 (192 KiB).
nisa.program target("trn1") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{dst touches bytes [200000, 200016) of sbuf, outside [0, 196608) per partition}}
    nisa.memset sbuf[0:128, 200000, f32][(1,4)], 0.0
  }
}

// -----

// PSUM out of bounds (16 KiB per partition).
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{dst touches bytes [16384, 16388) of psum, outside [0, 16384) per partition}}
    nisa.memset psum[0:128, 16384, f32][(1,1)], 0.0
  }
}

// -----

// HBM out of bounds.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dma0 {
    // expected-error @+1 {{src0 touches bytes [12884901884, 12884901892) of hbm, outside [0, 12884901888)}}
    nisa.dma_copy sbuf[0:1, 0, f32][(1,2)], hbm[12884901884, f32][(1,2)]
  }
}

// -----

// Matmul K (the contraction, on partitions) at most 128.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{src0 (stationary) partition count 129 exceeds 128}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:129, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start
  }
}

// -----

// Matmul M at most 128.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul: src0 (stationary) free size M = 256 exceeds 128}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,256)], sbuf[0:128, 1024, bf16][(1,512)] start
  }
}

// -----

// fp8 double row: bf16 inputs.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul: fp8 double row (rows = 2) needs f8e4m3/f8e5m2 inputs, got bf16 and f8e4m3}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(2,128),(1,2)], sbuf[0:128, 1024, f8e4m3][(2,512),(1,2)] start rows 2
  }
}

// -----

// fp8 double row: not on trn1.
nisa.program target("trn1") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul: target trn1 has no fp8 double row (rows = 2); it contracts 1 row a partition}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(2,128),(1,2)], sbuf[0:128, 1024, f8e4m3][(2,512),(1,2)] start rows 2
  }
}

// -----

// fp8 double row: a source's two rows must be adjacent.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul: src0 (stationary)'s innermost free dim is (stride 128, size 2); fp8 double row needs (1, 2): k = 2 x partition + row}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(1,128),(128,2)], sbuf[0:128, 1024, f8e4m3][(2,512),(1,2)] start rows 2
  }
}

// -----

// Three rows a partition do not exist.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul: rows = 3; a matmul contracts 1 row a partition, or 2 (fp8 double row)}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(3,128),(1,3)], sbuf[0:128, 1024, f8e4m3][(3,512),(1,3)] start rows 3
  }
}

// -----

// rows is a byte.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{attribute 'rows' failed to satisfy constraint}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(2,128),(1,2)], sbuf[0:128, 1024, f8e4m3][(2,512),(1,2)] start rows 256
  }
}

// -----

// Matmul N at most 512.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul: src1 (moving) free size N = 1024 exceeds 512}}
    nisa.matmul psum[0:128, 0, f32][(1,4)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,1024)] start
  }
}

// -----

// Matmul K must agree between the operands.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{src1 (moving) has 64 partitions but src0 (stationary) has 128; both are the contraction K}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:64, 256, bf16][(1,512)] start
  }
}

// -----

// Matmul dst must be [M, N].
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{dst is [128, 256] but must be [M, N] = [128, 512]}}
    nisa.matmul psum[0:128, 0, f32][(1,256)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start
  }
}

// -----

// Matmul inputs: narrow types may mix, fp32 only with fp32.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{src0 (stationary) is f32 and src1 (moving) bf16; inputs must be bf16/f16/f8e4m3/f8e5m2 (mixed) or both f32}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f32][(1,128)], sbuf[0:128, 1024, bf16][(1,512)] start
  }
}

// -----

// The tensor engine accumulates in fp32.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{dst dtype is bf16; the tensor engine writes f32}}
    nisa.matmul psum[0:128, 0, bf16][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start
  }
}

// -----

// PE writes PSUM only.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{dst is in sbuf; the tensor engine writes PSUM only}}
    nisa.matmul sbuf[0:128, 0, f32][(1,512)], sbuf[0:128, 4096, bf16][(1,128)], sbuf[0:128, 8192, bf16][(1,512)] start
  }
}

// -----

// PE reads SBUF only.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{src0 is in psum; the tensor engine reads SBUF only}}
    nisa.transpose psum[0:64, 0, f32][(1,128)], psum[0:128, 2048, f32][(1,64)]
  }
}

// -----

// POOL reads and writes SBUF only.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pool {
    // expected-error @+1 {{'nisa.tensor_copy' op tensor_copy: src0 is in psum; the gpsimd engine accesses SBUF only}}
    nisa.tensor_copy sbuf[0:128, 0, f32][(1,64)], psum[0:128, 0, f32][(1,64)]
  }
}

// -----

// DMA never touches PSUM.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dma2 {
    // expected-error @+1 {{'nisa.dma_copy' op dma_copy: src0 is in psum; DMA cannot access PSUM}}
    nisa.dma_copy hbm[0, f32][(1,64)], psum[0:1, 0, f32][(1,64)]
  }
}

// -----

// Compute engines do not reach HBM.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @act {
    // expected-error @+1 {{src0 is in hbm; compute engines access SBUF and PSUM only}}
    nisa.activation exp sbuf[0:1, 0, f32][(1,64)], hbm[0, f32][(1,64)] scale 1.0 bias 0.0
  }
}

// -----

// At most one PSUM input per DVE instruction.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{tensor_tensor: 2 inputs are in PSUM; at most one PSUM input is allowed}}
    nisa.tensor_tensor add sbuf[0:128, 0, f32][(1,64)], psum[0:128, 0, f32][(1,64)], psum[0:128, 2048, f32][(1,64)]
  }
}

// -----

// An instruction on an engine its opcode does not run on.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{'nisa.matmul' op matmul: cannot run on stream dve (runs on pe)}}
    nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @act {
    // expected-error @+1 {{tensor_reduce: cannot run on stream act (runs on dve)}}
    nisa.tensor_reduce add sbuf[0:128, 0, f32][(1,1)], sbuf[0:128, 0, f32][(1,64)] axes(1)
  }
}

// -----

// Shapes of elementwise operands agree.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{src1 is [128 partitions x 32 elements] but dst is [128 x 64]}}
    nisa.tensor_tensor mul sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)], sbuf[0:128, 512, f32][(1,32)]
  }
}

// -----

// Bitwise ALU ops are for integers.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{xor needs integer dtypes; src0 is f32}}
    nisa.tensor_tensor xor sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)], sbuf[0:128, 512, f32][(1,64)]
  }
}

// -----

// Reductions are add, max or min.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{reduction mul is not one of add, max, min}}
    nisa.tensor_reduce mul sbuf[0:128, 0, f32][(1,1)], sbuf[0:128, 0, f32][(1,64)] axes(1)
  }
}

// -----

// A [P,1] scale must match dst's partitions.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @act {
    // expected-error @+1 {{scalar0 (scale) must be [128, 1] like dst's partitions, got [128, 2]}}
    nisa.activation exp sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)] scale sbuf[0:128, 512, f32][(1,2)] bias 0.0
  }
}

// -----

// affine_select needs a comparison.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pool {
    // expected-error @+1 {{predicate add is not a comparison}}
    nisa.affine_select sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], (0 + 1 * p) add fill 0.0
  }
}

// -----

// On-chip access patterns have at most 4 free dimensions.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{dst has 5 dims; sbuf access patterns have at most 4}}
    nisa.memset sbuf[0:128, 0, f32][(1,1),(1,1),(1,1),(1,1),(1,1)], 0.0
  }
}

// -----

// Semaphore ids below the program's count.
nisa.program target("trn2") semaphores(4) {
  nisa.stream @dve {
    // expected-error @+1 {{memset: wait 1 uses semaphore 4 but the program has 4 semaphores}}
    nisa.memset sbuf[0:128, 0, f32][(1,64)], 0.0 wait(s0 >= 1, s4 >= 1)
  }
}

// -----

nisa.program target("trn2") semaphores(2) {
  nisa.stream @dma0 {
    // expected-error @+1 {{signal uses semaphore 7 but the program has 2 semaphores}}
    nisa.dma_copy sbuf[0:1, 0, f32][(1,2)], hbm[0, f32][(1,2)] signal(s7)
  }
}

// -----

// expected-error @+1 {{'nisa.program' op unknown target 'trn9'; expected trn1, trn2 or trn3}}
nisa.program target("trn9") semaphores(0) {
}

// -----

// expected-error @+1 {{'nisa.program' op semaphore count -1 is not a 32-bit unsigned number}}
nisa.program target("trn2") semaphores(-1) {
}

// -----

// One region per stream.
nisa.program target("trn2") semaphores(0) {
  // expected-note @+1 {{the stream's first region}}
  nisa.stream @pe {
  }
  // expected-error @+1 {{'nisa.stream' op duplicates stream 'pe'; a program has one region per stream}}
  nisa.stream @pe {
  }
}

// -----

// Tensor names are unique.
// expected-error @+1 {{'nisa.program' op tensor 'x': declared twice}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @x input f32 [2] at 0
  nisa.tensor @x output f32 [2] at 8
}

// -----

nisa.program target("trn2") semaphores(0) {
  // expected-error @+1 {{'nisa.stream' op unknown stream 'gpsimd'; expected pe, act, dve, pool, dma0 .. dma15}}
  nisa.stream @gpsimd {
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  // expected-error @+1 {{'nisa.stream' op DMA queue 16 does not exist: trn2 has 16 queues}}
  nisa.stream @dma16 {
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{'test.op' op is not an instruction; a nisa.stream holds nisa instruction ops only}}
    "test.op"() : () -> ()
  }
}

// -----

// expected-error @+1 {{'nisa.matmul' op expects parent op 'nisa.stream'}}
nisa.matmul psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, bf16][(1,128)], sbuf[0:128, 256, bf16][(1,512)] start

// -----

// Tensors may not overlap in HBM.
// expected-error @+1 {{'nisa.program' op tensors 'a' [0, 64) and 'b' [32, 96) overlap in HBM}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @a input f32 [16] at 0
  nisa.tensor @b output f32 [16] at 32
}

// -----

// Only constants carry data, and it must match the declared type.
// expected-error @+1 {{tensor 'a': input tensor carries 8 data bytes; only constants have data}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @a input f32 [2] at 0 = dense<1.0> : tensor<2xf32>
}

// -----

nisa.program target("trn2") semaphores(0) {
  // expected-error @+1 {{'nisa.tensor' op data must be a dense attribute of type 'tensor<2xf32>', got dense<1> : tensor<2xi32>}}
  nisa.tensor @a const f32 [2] at 0 = dense<1> : tensor<2xi32>
}

// -----

// expected-error @+1 {{tensor 'w': constant has 0 data bytes but its type needs 8}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @w const f32 [2] at 0
}

// -----

// PE transposes floating-point data.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{transpose: src0 dtype i32 is not a floating-point type}}
    nisa.transpose psum[0:64, 0, f32][(1,128)], sbuf[0:128, 0, i32][(1,64)]
  }
}

// -----

// transpose32 works on whole 32x32 blocks.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{transpose32: src0 is [32, 48]; both must be multiples of 32 (32x32 blocks)}}
    nisa.transpose32 sbuf[0:32, 0, f32][(1,48)], sbuf[0:32, 256, f32][(1,48)]
  }
}

// -----

// Only tensor_scalar's second op may be bypass.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{tensor_scalar: alu0 may not be bypass (only the second op is optional)}}
    nisa.tensor_scalar sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 0, f32][(1,64)], bypass 0.0, add 1.0
  }
}

// -----

// activation's accumulation output is [P,1].
nisa.program target("trn2") semaphores(0) {
  nisa.stream @act {
    // expected-error @+1 {{activation: accum must be [128, 1], got [128, 4]}}
    nisa.activation exp sbuf[0:128, 0, f32][(1,64)], sbuf[0:128, 256, f32][(1,64)] scale 1.0 bias 0.0 accum sbuf[0:128, 512, f32][(1,4)]
  }
}

// -----

// A reduction cannot remove more axes than its source has.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{tensor_reduce: reduces 2 trailing axes but src0 has 1 free dims}}
    nisa.tensor_reduce add sbuf[0:128, 0, f32][(1,1)], sbuf[0:128, 256, f32][(1,64)] axes(2)
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{'nisa.tensor_reduce' op axes 300 is not an 8-bit unsigned number}}
    nisa.tensor_reduce add sbuf[0:128, 0, f32][(1,1)], sbuf[0:128, 256, f32][(1,64)] axes(300)
  }
}

// -----

// A DMA moves as many elements as it writes.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dma0 {
    // expected-error @+1 {{dma_copy: src0 has 8192 elements but dst has 4096}}
    nisa.dma_copy sbuf[0:64, 0, f32][(1,64)], hbm[0, f32][(64,128),(1,64)]
  }
}

// -----

// Sizes are at least 1.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{memset: dst dim 0 has size 0; sizes must be >= 1}}
    nisa.memset sbuf[0:128, 0, f32][(1,0)], 0.0
  }
}

// -----

// A broadcast (stride 0) may not visit more elements than a partition holds.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{tensor_copy: src0 visits more than 57344 elements per partition (sbuf capacity at f32)}}
    nisa.tensor_copy sbuf[0:128, 0, f32][(1,4)], sbuf[0:128, 256, f32][(0,57345)]
  }
}

// -----

nisa.program target("trn2") semaphores(0) {
  // expected-error @+1 {{'test.op' op is not allowed in a nisa.program, which holds nisa.tensor and nisa.stream ops only}}
  "test.op"() : () -> ()
}

// -----

// expected-error @+1 {{'nisa.tensor' op expects parent op 'nisa.program'}}
nisa.tensor @a input f32 [2] at 0

// -----

nisa.program target("trn2") semaphores(0) {
  // expected-error @+1 {{'nisa.tensor' op unknown host type "i128"}}
  nisa.tensor @a input i32 [2] at 0 host "i128"
}

// -----

// expected-error @+1 {{tensor 'a': host type i64 is carried as i32, not f32}}
nisa.program target("trn2") semaphores(0) {
  nisa.tensor @a input f32 [2] at 0 host "i64"
}

// -----

// matmul_mx: not on trn2.
nisa.program target("trn2") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul_mx: target trn2 has no matmul_mx (the MX quad row is trn3's)}}
    nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(4,128),(1,4)], sbuf[0:128, 512, f8e4m3][(4,512),(1,4)] scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,512)] start
  }
}

// -----

// matmul_mx: a scale tensor of the wrong shape.
nisa.program target("trn3") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul_mx: src3 (moving_scale) is [16, 256] but must be [K/32, 512] = [16, 512]}}
    nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f8e4m3][(4,128),(1,4)], sbuf[0:128, 512, f8e4m3][(4,512),(1,4)] scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,256)] start
  }
}

// -----

// matmul_mx: packed fp4 sources are [K/4, columns, 2] bytes.
nisa.program target("trn3") semaphores(0) {
  nisa.stream @pe {
    // expected-error @+1 {{matmul_mx: src0 (stationary)'s innermost free dim is (stride 1, size 4); the MX quad row needs (1, 2) bytes of two f4e2m1: k = 4 x partition + row}}
    nisa.matmul_mx psum[0:128, 0, f32][(1,512)], sbuf[0:128, 0, f4e2m1x2][(4,128),(1,4)], sbuf[0:128, 512, f4e2m1x2][(2,512),(1,2)] scales sbuf[0:16, 4096, e8m0][(1,128)], sbuf[0:16, 4224, e8m0][(1,512)] start
  }
}

// -----

// The packed fp4 pairs are not an engine's element type.
nisa.program target("trn3") semaphores(0) {
  nisa.stream @dve {
    // expected-error @+1 {{tensor_copy: dst is f4e2m1x2 (two values a byte), which only matmul_mx reads and only a DMA copy to f4e2m1x2 moves; use f4e2m1 or u8 to compute on it}}
    nisa.tensor_copy sbuf[0:128, 0, f4e2m1x2][(1,64)], sbuf[0:128, 512, f32][(1,64)]
  }
}
