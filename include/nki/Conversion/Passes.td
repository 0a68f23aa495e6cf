//===- Passes.td - The compiler's passes ------------------*- tablegen -*-===//
//
// Every stage of the pipeline (docs/compiler.md, "Phases and `nki-compile`
// options"): graph preparation, bufferization into HBM, tiling into the nki
// dialect, unrolling, memory planning, engine scheduling and the lowering to
// nisa. Each runs on its own in nki-opt; `nki-pipeline` chains them
// (Pipeline/Pipeline.h).
//
//===----------------------------------------------------------------------===//
#ifndef NKI_CONVERSION_PASSES_TD
#define NKI_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def NKISetTarget : Pass<"nki-set-target", "mlir::ModuleOp"> {
  let summary = "Name the target the module is compiled for";
  let description = [{
    Writes `nki.target = "<name>"` on the module, which every later pass
    reads (nki-tile, nki-plan-memory, nki-schedule; `nki::tile::getTarget`)
    instead of taking a target option of its own. An unknown name is an
    error here, and so is a module attribute that names none when a pass
    reads it. A module without the attribute is compiled for trn2. The
    nki pipeline runs this pass first with its `target` option.

    ```mlir
    module attributes {nki.target = "trn1"} { ... }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"trn2\"",
           "trn1 | trn2 | trn3">,
  ];
}

def NKIPrepareGraph : Pass<"nki-prepare-graph", "mlir::ModuleOp"> {
  let summary = "Check the input and bring it to the form tiling expects";
  let description = [{
    Selects the entry function (`main`, the only public function, or
    `entry`), rejects what the compiler does not support (dynamic shapes,
    element types other than f32/bf16, unknown ops) with a diagnostic naming
    the op, decomposes `linalg.softmax`, folds the per-channel factor of an
    elementwise op on a convolution's result (an inference
    BatchNormalization's gamma / sqrt(var + eps), computed from constants)
    into the convolution's constant f32 filter and bias, before auto-cast
    rounds them, generalizes named ops other than
    matmul, batch_matmul, fill and transpose, writes 2-D NCHW convolutions as
    the implicit-GEMM generic (`conv=implicit-gemm`, docs/compiler.md) and
    the other convolutions and poolings as im2col matmuls and windowed
    elementwise ops, and with `auto-cast=matmul` rounds matmul inputs to
    bf16; `auto-cast=fp8` quantises a matmul of an f32 activation and a
    constant weight to fp8 e4m3 (the weight with one scale at compile time,
    each activation row with its own at run time, the product rescaled by
    an elementwise op that tiling fuses into the PSUM evacuation) and rounds
    the other matmul inputs and convolutions to bf16; `auto-cast=mxfp8`
    (trn3) makes such a matmul an MX matmul instead: OCP MXFP8 blocks of 32
    along K with e8m0 scales, the weight's at compile time, the
    activation's at run time (the matmul's kernel quantises it per M block),
    the scales applied by matmul_mx; `auto-cast=mxfp4` (trn3) the same in
    MXFP4 (e2m1) blocks. A stride-1 convolution with a constant filter of a nearest
    integer-factor upsample (also through a channel concatenation, a
    decoder's skip connection) becomes one convolution of the small tensor
    per output phase, written into its strided slice of the result
    (`sub-pixel`; a 3x3 kernel after a 2x upsample: four 2x2 convolutions),
    when that multiplies less (nki-group-phases, after nki-split-batch,
    makes the phases that fill the PE's columns together one convolution).
    Two reshapes become views: a `linalg.transpose` that moves only
    dims of size 1 (a batch-first to sequence-first swap at batch 1) is a
    collapse_shape and expand_shape, and an expand_shape of a
    collapse_shape goes through the finest shape both ends refine rather
    than a coarser one (ONNX's Reshape of `[S, 1, H]` to `[S, heads, d]`,
    imported through the flat `[S * H]`, goes through `[S, H]`), so that a
    strided slice such as the q, k or v part of a fused projection is not
    copied to be flattened.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Name of the entry function (default: main or the only public one)">,
    Option<"autoCast", "auto-cast", "std::string", /*default=*/"\"none\"",
           "none | matmul: round matmul inputs to bf16 | fp8: matmuls of an "
           "activation and a weight in fp8 e4m3 (a scale per weight tensor "
           "and per activation row), other matmuls in bf16 | mxfp8 (trn3): "
           "those matmuls in MXFP8 blocks of 32 with e8m0 scales | mxfp4 "
           "(trn3): in MXFP4 (e2m1) blocks">,
    Option<"convLowering", "conv", "std::string",
           /*default=*/"\"implicit-gemm\"",
           "implicit-gemm | im2col: how 2-D NCHW convolutions are lowered "
           "(implicit-gemm falls back to im2col where it does not apply)">,
    Option<"subPixel", "sub-pixel", "bool", /*default=*/"true",
           "Convolve a nearest upsample's input once per output phase">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def NKIFuseElementwise : Pass<"nki-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops, keeping reshapes out of matmuls";
  let description = [{
    The patterns of upstream's `linalg-fuse-elementwise-ops` (elementwise
    producer/consumer fusion, reshape folding by expansion, bubbling
    expand_shape up, constant folding, the canonicalizations it adds), with
    one difference: a reshape is not folded into a contraction (a matmul,
    batch_matmul or a generic that is one), nor into an elementwise consumer
    of one. Folding an `expand_shape` of a matmul's result into it
    generalizes the matmul into a generic with several M, N or K dims, which
    nki-tile would run on the vector engines instead of the PE, or reject
    when its K dims are not contiguous; ONNX MatMul on rank-3 or rank-4
    operands is imported as exactly that reshape, 2-D matmul, reshape.
    Instead, an elementwise generic that reads a contraction's result
    through an `expand_shape` is collapsed to the contraction's shape
    (linalg's folding by collapsing), so that nki-tile runs it on the PSUM
    tiles as the matmul's epilogue, and the `expand_shape` moves after it.

    Before fusion, an elementwise generic whose inputs are all constants
    and whose result has at most 4096 elements is replaced by the constant
    it computes (each body op evaluated by its folder): an inference
    BatchNormalization's scale and shift then cost no kernel, and the
    normalisation follows its convolution or matmul directly, where nki-tile
    fuses it as the epilogue. A permutation of a constant (a transposed
    weight: ONNX Gemm's B) is folded on the constant's raw bytes, ahead of
    upstream's constant transpose fold, which builds an APFloat per element
    (an eighth of ResNet-50's compile time).

    After fusion, the leading parallel dims (before the last) of every
    generic that is not a contraction are collapsed into one where all its
    operands walk them in order, with fill inits following: softmax and
    layernorm over `[B, S, H]` become generics over `[B*S, H]`, which
    nki-tile runs as one row group. An operand read with a constant 0 over
    a dim of size 1 (ONNX's keepdims mean `[B, S, 1]` read through
    `(d0, d1, 0)`) is first read without that dim, so that it does not
    keep its generic from collapsing. An elementwise op over a tensor
    assembled (by insert_slices along the channels) from convolutions'
    channel blocks, how a depthwise convolution of more than 128 channels
    is written, runs once per block right after the block's convolution,
    on its result and its slice of the other operands: each is that
    convolution's epilogue (computed while its PSUM tiles are evacuated).

    Last, a clamp rounded to a narrower float, `truncf(min(max(y, lo),
    hi))` (or max outermost), rounds its inner side instead when the outer
    bound is exact in the narrow type: `min(truncf(max(y, lo)), hi)` is
    bit-identical (rounding to nearest even is monotone), and an auto-cast
    ReLU6 epilogue then stores its ReLU in bf16 from the ACT and clamps in
    bf16, the DVE's fast path.

    ```mlir
    %m = linalg.matmul ins(%a, %b : tensor<6x4xf32>, tensor<4x5xf32>) outs(%z : tensor<6x5xf32>) -> tensor<6x5xf32>
    %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
    %y = linalg.generic ... ins(%e, %bias : tensor<2x3x5xf32>, tensor<5xf32>) ...
    ```
    becomes
    ```mlir
    %m = linalg.matmul ins(%a, %b : tensor<6x4xf32>, tensor<4x5xf32>) outs(%z : tensor<6x5xf32>) -> tensor<6x5xf32>
    %g = linalg.generic ... ins(%m, %bias : tensor<6x5xf32>, tensor<5xf32>) ...
    %y = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::tensor::TensorDialect"];
}

def NKIComposeConvs : Pass<"nki-compose-convs", "mlir::func::FuncOp"> {
  let summary = "Compose a 1x1 convolution with the convolution it reads";
  let description = [{
    A convolution whose result, plus at most a per-channel bias, only a
    1x1 stride-1 convolution reads (a linear bottleneck's projection, then
    the next block's expansion, with no residual or activation between) is
    one convolution: `conv(conv(x, W1) + b1, W2) = conv(x, W)` with
    `W[c, kh, kw, f] = sum_m W1[c, kh, kw, m] * W2[m, 0, 0, f]`, and
    `W2^T b1` joins the bias the second convolution's epilogue adds. The
    intermediate tensor, its PSUM evacuation and its HBM traffic go, and
    the narrow layer's matmuls (16 of the PE's 128 rows or columns in
    MobileNetV2 and EfficientNet-B0) with it. Both filters are constants
    (f32 or bf16, computed in double and rounded once to their type); the
    second convolution's result has one reader, an elementwise op adding a
    per-channel constant (its bias, BatchNormalization's shift) unless the
    first adds none. Taken when the composite needs at most as many
    matmuls per output column as the two (taps x input blocks x output
    blocks of 128 channels against the sum of both), so a wide projection
    into a wider expansion (MobileNetV2's 960 -> 320 -> 1280) stays two.
    Runs after nki-fuse-elementwise (BatchNormalization folded, biases
    constant), on the convolution generics nki-prepare-graph writes.

    ```mlir
    %p = linalg.generic {conv} ins(%x, %w1 : tensor<1x32x8x8xf32>, tensor<32x1x1x16xf32>) outs(%zero16) ...
    %q = linalg.generic {add} ins(%p, %b1 : tensor<1x16x8x8xf32>, tensor<16x1x1xf32>) ...
    %e = linalg.generic {conv} ins(%q, %w2 : tensor<1x16x8x8xf32>, tensor<16x1x1x96xf32>) outs(%zero96) ...
    %y = linalg.generic {add, clamp} ins(%e, %b2 : tensor<1x96x8x8xf32>, tensor<96x1x1xf32>) ...
    ```
    becomes
    ```mlir
    %e = linalg.generic {conv} ins(%x, %w : tensor<1x32x8x8xf32>, tensor<32x1x1x96xf32>) outs(%zero96) ...
    %y = linalg.generic {add, clamp} ins(%e, %b : tensor<1x96x8x8xf32>, tensor<96x1x1xf32>) ...
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect"];
}

def NKIAccumulateConvs : Pass<"nki-accumulate-convs", "mlir::func::FuncOp"> {
  let summary = "Two convolutions an elementwise op adds, in one accumulator";
  let description = [{
    An elementwise op that reads two convolutions (each from zero, each
    read only there, one of them 1x1) only through their sum, each plus at
    most a per-channel constant (a ResNet's projection shortcut:
    `relu(conv3(y) + b3 + downsample(x) + bd)`), reads instead one
    convolution that starts from the 1x1's result, plus the two constants
    added once: `relu(conv(x, Wd, init = conv(y, W3)) + (b3 + bd))`. The
    tiling computes the 1x1's matmuls into the other's PSUM accumulator
    (docs/compiler.md, "Accumulated convolutions"), so the sum and both
    shifts are one pass of the evacuation instead of three, and the 1x1's
    result is never stored. The sum is reassociated (the PE accumulates in
    a fixed but arbitrary order anyway); the constants are added in double
    and rounded once to f32. Runs after nki-fuse-elementwise (batch norms
    folded, shifts constant).

    ```mlir
    %p = linalg.generic {conv 1x1} ins(%y, %w3 : ...) outs(%zero) ...
    %d = linalg.generic {conv 1x1 stride 2} ins(%x, %wd : ...) outs(%zero) ...
    %r = linalg.generic {(p + b3) + (d + bd), relu} ins(%p, %b3, %d, %bd : ...) ...
    ```
    becomes
    ```mlir
    %p = linalg.generic {conv 1x1} ins(%y, %w3 : ...) outs(%zero) ...
    %s = linalg.generic {conv 1x1 stride 2} ins(%x, %wd : ...) outs(%p) ...
    %r = linalg.generic {s + b, relu} ins(%s, %b : ...) ...
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect"];
}

def NKISplitConvSlices : Pass<"nki-split-conv-slices", "mlir::func::FuncOp"> {
  let summary = "A convolution per channel slice its readers take";
  let description = [{
    A convolution with a constant filter and more filters than partitions,
    not a whole number of blocks, whose result (through its elementwise
    epilogue, if any) only whole-image channel slices read (the blocks of
    the depthwise layer after an expansion: MobileNetV2's and
    EfficientNet-B0's 24 -> 144, read as 128 + 16), becomes one
    convolution and epilogue per slice, the filter and per-channel
    constants sliced at compile time. The remainder's kernel then chooses
    its own layout (packed bands of rows side by side on the partitions),
    where as the whole's last filter block it evacuated its 16 partitions
    at the cost of 128.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def NKIGroupPhases : Pass<"nki-group-phases", "mlir::func::FuncOp"> {
  let summary = "One convolution for the upsampled phases that fill the PE's "
                "columns together";
  let description = [{
    nki-prepare-graph writes a convolution of a nearest upsample as one
    convolution per output phase, each of the low-resolution input padded
    by its own window, inserted into the result with row and column steps.
    A phase of at most 64 filters fills a quadrant or a half of the PE's
    columns; this pass makes the phases that fill them together one
    convolution of the input padded by their union window (phase k's
    filters at columns [k * cols, k * cols + F), zero elsewhere, its taps at
    their offset in the union) and slices each phase's block of its result,
    when the union windows take fewer matmuls a pixel than the phases one by
    one (nki-tile's kernel folds fp32 kernel rows onto the partitions).

    Only for a result that stays in SBUF (at most half a partition with the
    channels on the partitions, per the chosen target; nki-interleave-phases
    assembles larger ones) and that an epilogue adds (the skip connection's
    convolution): then it is an operand of that epilogue. It runs after
    nki-split-batch, so that the size is a group's: the f32 U-Net at batch
    8 runs in two groups of four images, and its middle decoder's 32
    filters at 64 x 64 (128 KiB a partition with the whole batch, 64 with a
    group) are grouped in pairs of phases.

    ```mlir
    %p0 = linalg.generic {...} ins(%x0, %w0 : tensor<4x64x33x33xf32>, tensor<64x2x2x32xf32>) ...
    %0 = tensor.insert_slice %p0 into %y[0, 0, 0, 0] [4, 32, 32, 32] [1, 1, 2, 2]
    %p1 = linalg.generic {...} ins(%x1, %w1 : tensor<4x64x33x33xf32>, tensor<64x2x2x32xf32>) ...
    %1 = tensor.insert_slice %p1 into %0[0, 0, 0, 1] [4, 32, 32, 32] [1, 1, 2, 2]
    ```
    becomes
    ```mlir
    %g = linalg.generic {...} ins(%x, %w : tensor<4x64x33x34xf32>, tensor<64x2x3x128xf32>) ...
    %p0 = tensor.extract_slice %g[0, 0, 0, 0] [4, 32, 32, 32] [1, 1, 1, 1]
    %0 = tensor.insert_slice %p0 into %y[0, 0, 0, 0] [4, 32, 32, 32] [1, 1, 2, 2]
    %p1 = tensor.extract_slice %g[0, 64, 0, 0] [4, 32, 32, 32] [1, 1, 1, 1]
    %1 = tensor.insert_slice %p1 into %0[0, 0, 0, 1] [4, 32, 32, 32] [1, 1, 2, 2]
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def NKIInterleavePhases
    : Pass<"nki-interleave-phases", "mlir::func::FuncOp"> {
  let summary = "Assemble large phase results on chip, not element by element";
  let description = [{
    A transposed convolution, and a convolution of a nearest upsample
    (nki-prepare-graph), write each output phase (the pixels at one
    position modulo the strides) into a slice of the result with row and
    column steps. When the result stays in SBUF each phase's evacuation
    writes its view in place; in HBM every element of such a slice is a DMA
    descriptor of its own (512 bytes of queue time for 2 or 4 bytes). So a
    4-D result that would take more than half of an SBUF partition (the
    channels on the partitions, per the chosen target), or results that
    one op reads together and that together take more than the partition
    less a kernel's scratch, is assembled differently: the phases go
    unit-stride into a tensor that stacks them,
    `[fh * fw, N, C, H / fh, W / fw]`, and one generic interleaves them,
    which nki-tile runs on chip (loads of whole phase rows, copies into
    strided views of an output band, stores of whole output rows).
    Runs after nki-fuse-elementwise, so that no elementwise op is fused
    into the interleave.

    ```mlir
    %y = tensor.empty() : tensor<8x16x256x256xf32>
    %0 = tensor.insert_slice %p0 into %y[0, 0, 0, 0] [8, 16, 128, 128] [1, 1, 2, 2]
    ...
    %3 = tensor.insert_slice %p3 into %2[0, 0, 1, 1] [8, 16, 128, 128] [1, 1, 2, 2]
    ```
    becomes
    ```mlir
    %s = tensor.empty() : tensor<4x8x16x128x128xf32>
    %0 = tensor.insert_slice %p0 into %s[0, 0, 0, 0, 0] [1, 8, 16, 128, 128] [1, 1, 1, 1, 1]
    ...
    %r = linalg.generic {indexing_maps = [
           affine_map<(n, c, h, w) -> ((h mod 2) * 2 + w mod 2, n, c, h floordiv 2, w floordiv 2)>,
           affine_map<(n, c, h, w) -> (n, c, h, w)>], ...}
           ins(%3 : tensor<4x8x16x128x128xf32>) outs(%y : tensor<8x16x256x256xf32>)
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"-1",
           "Interleave results of more bytes per partition than this, "
           "and results one op reads of more together (-1: half of the "
           "chosen target's SBUF partition, and the partition less a "
           "kernel's scratch together)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def NKISplitBatch : Pass<"nki-split-batch", "mlir::func::FuncOp"> {
  let summary = "Run the first layers once per group of images so that their "
                "tensors stay in SBUF";
  let description = [{
    At batch N the first activations of a network may not fit in SBUF with
    their channels on the partitions, so they go through HBM between
    kernels; those of N / G images do. The ops from the function's start up
    to the last one whose result does not fit, or later until no such
    result is read after them (each of them batch-parallel:
    its result and the operands it reads the batch from have the batch as
    their first dim; a linalg op, `tensor.pad`, a `tensor.extract_slice`
    or `tensor.insert_slice` of the whole batch, a
    `tensor.collapse_shape` or `tensor.expand_shape` that keeps each
    image's rows together, such as the importer's global pooling of
    `[N * C, H * W]`) are cloned once per group, the groups one after
    another, reading slices of the batch operands from outside (an empty
    tensor or a filled one, such as a pooling's zero init, is made anew per
    group), and the results later ops read are concatenated with
    `tensor.insert_slice`. A value computed from neither the function's
    batch arguments (the images) nor what depends on them (an empty tensor, a fill, a
    depthwise layer's diagonal filter built from its weights) is shared by
    the groups, and sliced only for an op that reads it along its batch
    loop: at batch 32 a 32-channel layer's `[32, 3, 3, 32]` filter is no
    batch value. G is the smallest divisor of N
    at which every one of those results fits in a quarter of an SBUF
    partition of the chosen target (a result shares SBUF with its input, a
    residual and the kernel's own tiles). The split is made when the HBM time of the
    results that do not fit (written once, read by each reader, at the
    target's DMA bandwidth) exceeds `margin` times the estimated compute
    time of those ops (PE time, or ACT + DVE + POOL time per engine, plus
    `barrier-us` per global pooling and group: what follows a
    squeeze-and-excitation's squeeze waits for its group's whole layer),
    `pe-bound-margin` times when the PE time is at least twice the vector
    time per engine: then the groups
    run the same matmuls, narrower, and the split costs little (ResNet-50
    and MobileNetV2 in f32 at batch 8), while where the vector engines
    bound the layers (MobileNetV2's depthwise layers under auto-cast) each
    group's pipeline fills and drains on them. The groups of a PE-bound
    split overlap: each starts when the previous one is half way through
    its layers (a layer: a contraction with the ops before it and its
    epilogue), so that one group's first convolutions fill the PE while the
    other's last drain; otherwise they run one after another. Before that
    comparison, the
    ops of the prefix that neither compute a result that does not fit nor
    read one (through channel-block slices and pads), nor feed such an op,
    move after it and run on the whole batch.

    Where that split does not pay (or after it), windows: for a result
    that takes more than half a partition (more than the resident plan
    keeps), the fewest layers from its writer that hold every reader of
    each such result and of each view in them (a contraction's product its
    epilogue consumes, a pad or reshape, a channel scale a convolution
    takes into its filter), the views before them they read and the views
    after them that read their results through, run per group (G: their
    results fit a quarter) when their HBM time exceeds `window-margin`
    times their compute; the layers before and after keep the whole batch.
    Candidates are taken best ratio first, disjoint. While the results the
    resident plan would leave in HBM (above half a partition even packed)
    take the estimated traffic above `traffic-ratio` times the program's
    own bytes, the candidates the margin declined are taken too, when they
    save more than their weights loaded again (trn3's MobileNetV2 and
    EfficientNet-B0 under auto-cast at batch 8).

    Where the PE bounds the first layers and the time comparison declines
    their split, the traffic rule may still take it. It estimates what the
    resident plan keeps: each result held from its op to its last reader,
    channel-major within half a partition, else packed (a narrow result's
    rows spread over the partitions its channels leave free, nki-tile's
    band tiles), and where those held at once exceed SBUF less two
    kernels' scratch, one packed or sent to HBM. G is the smallest at
    which none goes to HBM, and the split is taken when the estimated HBM
    traffic (the function's inputs, outputs and constants, plus the
    results sent to HBM) exceeds `traffic-ratio` times the program's own
    bytes at the whole batch but not in groups (each group loading the
    constants again). Such groups run one after another: two in flight
    would hold the tensors that did not fit (the f32 U-Nets at batch 8:
    two groups of four images on trn2 and trn3, four of two on trn1).
    Where that estimate spills results at the whole batch beyond the ratio
    and some G holds them all, but neither the first layers are split nor
    a window taken, the estimate cannot tell whether the resident plan
    spills them too: that G is named as a second candidate
    (`alternative`), which nki-compile compiles too, keeping the program
    whose schedule ends first. Where windows are taken instead, the first
    layers not split, and a window holds a result of few channels (fewer
    bytes packed than channel-major), the batch unsplit is the second
    candidate (`alternative` = 1): at the whole batch such a layer packs
    bands of rows beside one another with its result in HBM, in a window
    it does not. So is it where the PE-bound margin splits the first layers
    by less than 1.5 times what it asks (a PE-bound kernel's forms change
    with its images). nki-compile keeps it only when its schedule ends at
    least 2 % sooner.

    Chains: at a batch above `chain-images` where some result does not
    fit, the whole network once per chain of at most that many images, one
    chain after another, each chain split as the pass would split a batch
    of its size. They take the place of a split of the first layers that
    holds more than half of the estimated compute in more groups than
    chains (MobileNetV2 in f32 at batch 32: 32 groups of one image,
    7,684.7 us; four chains of eight, 6,483.9), else are named as a second
    candidate (`alternative_chains`, in place of one of groups), which
    nki-compile compiles too, keeping the shorter schedule: the margins
    and ratios above were measured at batch 8. `chains=K` forces K chains,
    `chains=1` none.

    `nki/Analysis/BatchGroups.h` makes the
    choice; the function gets an `nki.batch_groups` attribute with the
    decision, its estimates, why the first layers were not split, the
    second candidates, the chains and the windows (first layer, layers, groups,
    estimates, source ops), which `nki-compile --report` prints. Runs
    after fusion.

    ```mlir
    %0 = linalg.generic ... ins(%x : tensor<8x256x56x56xf32>) ...
    %1 = linalg.generic ... ins(%0 : tensor<8x256x56x56xf32>) ...
    %2 = <later op> %1
    ```
    becomes, in 4 groups,
    ```mlir
    %s0 = tensor.extract_slice %x[0, 0, 0, 0] [2, 256, 56, 56] [1, 1, 1, 1]
    %a0 = linalg.generic ... ins(%s0 : tensor<2x256x56x56xf32>) ...
    %b0 = linalg.generic ... ins(%a0 : tensor<2x256x56x56xf32>) ...
    ... (groups 1 to 3)
    %e = tensor.empty() : tensor<8x256x56x56xf32>
    %i0 = tensor.insert_slice %b0 into %e[0, 0, 0, 0] [2, 256, 56, 56] [1, 1, 1, 1]
    ...
    %2 = <later op> %i3
    ```
  }];
  let options = [
    Option<"groups", "groups", "int64_t", /*default=*/"0",
           "0: choose; 1: never split; G > 1: G groups whenever some "
           "first result does not fit and all fit with N / G images (one "
           "group after another when they fit only as the traffic rule "
           "holds them), without the time comparison">,
    Option<"chains", "chains", "int64_t", /*default=*/"0",
           "0: choose (may name chains as a second candidate); 1: no "
           "chains; K > 1: the whole network in K chains of N / K images, "
           "one after another, each split as the pass chooses">,
    Option<"chainImages", "chain-images", "int64_t", /*default=*/"8",
           "Above this batch the whole network may run in chains of at "
           "most this many images (0: never)">,
    Option<"margin", "margin", "double", /*default=*/"1.5",
           "Split when the HBM time saved exceeds the compute time split "
           "by this factor">,
    Option<"peBoundMargin", "pe-bound-margin", "double", /*default=*/"0.25",
           "The factor instead when the PE time of the ops split is at "
           "least twice their vector time per engine">,
    Option<"barrierUs", "barrier-us", "double", /*default=*/"5.0",
           "Compute time each global pooling of the ops split adds per "
           "group, in microseconds (its group's engines drain)">,
    Option<"windows", "windows", "bool", /*default=*/"true",
           "Also split windows of layers around a result that does not fit, "
           "after the first layers or where their split does not pay">,
    Option<"windowMargin", "window-margin", "double", /*default=*/"0.7",
           "Split a window when the HBM time saved exceeds its compute "
           "time by this factor">,
    Option<"trafficRatio", "traffic-ratio", "double", /*default=*/"3.0",
           "Where the PE bounds the first layers and the time comparison "
           "declines their split, split them anyway, groups one after "
           "another, when their results fit packed in groups, the HBM "
           "traffic at the whole batch exceeds this many times the "
           "program's weights, inputs and outputs and in groups it does "
           "not; and take windows the time comparison declines while the "
           "results left in HBM take the traffic above it (0: never)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def NKIUnsharePartialTensors
    : Pass<"nki-unshare-partial-tensors", "mlir::func::FuncOp"> {
  let summary = "Give each user of a partly built or filled tensor its own copy";
  let description = [{
    Runs before one-shot bufferization. A chain of `tensor.insert_slice`s
    into a `tensor.empty` leaves the elements no piece wrote undefined until
    the chain ends. When such a partial value feeds two insert_slices (CSE
    merges the common prefix of two gathers that start alike),
    bufferization copies the whole partial buffer for one of them and reads
    elements nothing wrote, which the simulator reports as an uninitialised
    read. Every insert_slice user but the first gets a clone of the chain
    (the empty tensor and the insert_slices before it) instead, so the
    pieces are copied again rather than the partial buffer.

    ```mlir
    %e = tensor.empty() : tensor<2x2xf32>
    %p = tensor.insert_slice %a into %e[0, 0] [2, 1] [1, 1] : ...
    %y1 = tensor.insert_slice %b into %p[0, 1] [2, 1] [1, 1] : ...
    %y2 = tensor.insert_slice %c into %p[0, 1] [2, 1] [1, 1] : ...
    ```
    becomes, for `%y2`, `tensor.insert_slice %c into %p2[...]` with `%p2` a
    fresh `tensor.empty` and a clone of the insert of `%a`.

    Likewise a `linalg.fill` of a `tensor.empty` that is the init of several
    linalg ops (CSE merges the zero fills of every convolution and matmul of
    one shape): bufferization would fill one buffer and copy it for every
    other user, an HBM copy each, and those matmuls and convolutions would
    not see a fill to turn into their start flag. Every user but the first
    gets its own fill of its own empty tensor, built right before it.

    And a `tensor.empty` that is the init of several linalg ops (CSE merges
    every empty of one shape) is cloned for each init use but the first
    (for all of them when it has other uses too): bufferization would give
    them one buffer, each op writing over the previous one's dead result,
    which ties unrelated tensors together (a convolution's epilogue writing
    the buffer its input was padded from; a tensor nki-tile could keep in
    SBUF sharing a buffer with one it cannot).
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def NKIEliminateEmptyTensors
    : Pass<"nki-eliminate-empty-tensors", "mlir::func::FuncOp"> {
  let summary = "Compute inserted tensors in place, nests of inserts too";
  let description = [{
    Runs before one-shot bufferization. Upstream empty-tensor elimination
    replaces the `tensor.empty` an op writes with the slice of the tensor
    its result is inserted into, so that bufferization computes it in place
    instead of in a buffer of its own that is then copied; it does so chain
    by chain and only where the destination dominates the empty. A nest of
    chains (the phases of a transposed convolution inserted into its
    result, which a concat inserts into its own tensor) is handled here:
    the empties insert chains start from move to the top of their block,
    upstream elimination runs, the slices of empties it leaves fold to new
    empties, and it runs again, so every level is written in place.

    ```mlir
    %cat = tensor.empty() : tensor<1x8x4x4xf32>   // moved to the top
    %y = tensor.empty() : tensor<1x4x4x4xf32>
    %p0 = linalg.generic ... outs(%e0 : tensor<1x4x2x2xf32>)
    %y0 = tensor.insert_slice %p0 into %y[0, 0, 0, 0] [1, 4, 2, 2] [1, 1, 2, 2]
    ...
    %r = tensor.insert_slice %y3 into %cat[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1]
    ```
    ends with `%e0` a strided slice of a slice of `%cat`.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def NKITile : Pass<"nki-tile", "mlir::func::FuncOp"> {
  let summary = "Tile linalg on HBM memrefs into loops of nki tile ops";
  let description = [{
    Runs after bufferization: every linalg op (and memref.copy) on HBM
    memrefs becomes loops over tiles of at most 128 partitions: DMA loads
    into SBUF tiles, engine ops, DMA stores.

    - Elementwise `linalg.generic` (broadcasting maps allowed): rows on
      partitions, columns in chunks of `free-chunk`; one tile op per body op.
    - Reductions over trailing dims: per-chunk `nki.reduce` combined in a
      [P,1] accumulator.
    - `linalg.matmul` / `batch_matmul` (and transposed forms): M in blocks of
      128 partitions, N in blocks of 512 (one PSUM bank), K accumulated in
      PSUM in steps of 128, the stationary operand reused across N blocks;
      A is transposed on the PE; a zero `linalg.fill` of the output becomes
      the start flag, an elementwise consumer becomes the PSUM epilogue.
    - 2-D convolutions (implicit GEMM) and poolings: channels on the
      partitions, input rows in SBUF bands. An NCHW tensor that only such
      kernels (and convolution epilogues) write and read stays in SBUF
      between them when the whole-program residency plan finds room
      (`sbuf-resident`); its HBM buffer goes away.
    - Attention, `softmax(Q K^T [* c] [+ mask]) V` as matmuls, an
      elementwise prologue and the decomposed softmax, with K and V of one
      batch fitting in half of SBUF: one flash-style kernel (online
      softmax over blocks of 512 keys, P V accumulated in PSUM, blocks a
      constant mask fills with -inf skipped); the scores never reach HBM
      (`fuse-attention`).

    Before:
    ```mlir
    linalg.matmul ins(%a, %b : memref<256x256xbf16>, memref<256x256xbf16>)
                  outs(%c : memref<256x256xf32>)
    ```
    After (abridged):
    ```mlir
    scf.for %m = %c0 to %c256 step %c128 {
      %acc = nki.alloc : memref<128x256xf32, #nki.memory<psum>>
      ...
      nki.matmul %at, %bt, %acc : ...
      nki.copy %acc into %out : ...
      nki.dma %out to %c_view : ...
    }
    ```
  }];
  let options = [
    Option<"freeChunk", "free-chunk", "int64_t", /*default=*/"2048",
           "Elements per partition of an elementwise tile">,
    Option<"sbufResident", "sbuf-resident", "bool", /*default=*/"true",
           "Keep NCHW tensors that convolutions and poolings exchange in "
           "SBUF when they fit (docs/memory-planning.md)">,
    Option<"residentMargin", "resident-margin", "int64_t", /*default=*/"0",
           "Bytes per partition that tensors kept in SBUF leave free at "
           "every position beyond the kernels' estimates (nki-compile "
           "retries a plan that fragments with more)">,
    Option<"packBands", "pack-bands", "bool", /*default=*/"true",
           "Convolutions with few channels and filters compute several "
           "bands of output rows side by side on the partitions">,
    Option<"foldColumns", "fold-columns", "bool", /*default=*/"true",
           "Convolutions with few fp32 input channels fold kernel columns "
           "into the contraction beside the kernel rows">,
    Option<"packResidents", "pack-residents", "bool", /*default=*/"true",
           "A tensor kept in SBUF that one convolution writes and one "
           "convolution with packed bands or stacked rows reads is kept in "
           "that reader's band tile, which it reads in place">,
    Option<"stackRows", "stack-rows", "bool", /*default=*/"true",
           "Stride-1 convolutions with few channels and filters compute "
           "several consecutive output rows at once, their input rows on "
           "the partitions once">,
    Option<"fusePools", "fuse-pools", "bool", /*default=*/"true",
           "A 2x2 stride-2 max pooling right after a convolution (unless "
           "the convolution would then give up stacked rows that take "
           "fewer matmul columns: over several images, or over one whose "
           "input the program computes in rows of at least a DMA "
           "descriptor's minimum), and a global "
           "average or sum pooling of convolutions' results, are computed "
           "by the convolutions' kernels">,
    Option<"chainConvs", "chain-convs", "bool", /*default=*/"true",
           "A 1x1 convolution that alone reads a convolution's result "
           "(a segmentation head) is computed by that convolution's kernel "
           "from each chunk it evacuates; the result in between is never "
           "stored">,
    Option<"accumulatePhases", "accumulate-phases", "bool",
           /*default=*/"true",
           "The phases of a nearest upsample's convolution that a skip "
           "convolution's epilogue adds (a U-Net decoder's) are computed "
           "into that convolution's accumulator from stacked rows of their "
           "input; their stacked result is never stored">,
    Option<"fuseAttention", "fuse-attention", "bool", /*default=*/"true",
           "softmax(Q K^T) V runs as one kernel whose scores stay on chip "
           "(docs/compiler.md, \"Attention\")">,
  ];
  let dependentDialects = ["nki::tile::NKIDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def NKIUnroll : Pass<"nki-unroll", "mlir::func::FuncOp"> {
  let summary = "Fully unroll tile loops into straight-line tile code";
  let description = [{
    The machine's instruction streams have no branches: every scf.for over
    tiles is unrolled and index arithmetic folded, so every subview has
    static offsets.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def NKIForwardStores : Pass<"nki-forward-stores", "mlir::func::FuncOp"> {
  let summary = "Read a tile stored to HBM scratch where a later DMA loads it back";
  let description = [{
    Runs on straight-line tile code (after nki-unroll). Kernels that no
    residency plan keeps in SBUF hand each other results through HBM
    scratch: a store of a whole tile, then a load of that view, or of a box
    of it on the same partitions, into a tile of the box's shape (a
    layernorm's row block and the matmul after it). Where nothing writes
    the view's bytes or the stored tile in between, the load goes: its
    readers read the stored tile (or a subview of it), or, where the load
    casts or the loaded tile needs its own layout, an engine copy of the
    box fills the loaded tile; a load that several stored views tile
    exactly (attention's heads side by side) becomes a copy of each. A
    scratch buffer no DMA reads any more loses its stores and its
    allocation. The stored tile then lives until
    the loaded tile's last reader: which stores are forwarded is the
    residency problem of `nki/Analysis/Residency.h` over the positions in
    between, against the SBUF the other tiles leave there minus half of
    SBUF (for the kernels' own tiles and the planner's fragmentation) and
    `margin`.

    ```mlir
    nki.dma %y to %scratch_view : memref<80x128xf32, #nki.memory<sbuf>> to ...
    %t = nki.alloc : memref<80x128xf32, #nki.memory<sbuf>>
    nki.dma %scratch_view2 to %t : ... to memref<80x128xf32, #nki.memory<sbuf>>
    nki.transpose %t into %p : ...
    ```
    becomes `nki.transpose %y into %p`, and the store and `%scratch` go
    when nothing else reads it.
  }];
  let options = [
    Option<"margin", "margin", "int64_t", /*default=*/"0",
           "Bytes per partition forwarded tiles leave free at every "
           "position beyond half of SBUF (nki-compile passes its "
           "resident margin, which grows when a plan fragments)">,
  ];
}

def NKIGatherConstants : Pass<"nki-gather-constants", "mlir::ModuleOp"> {
  let summary = "Gather small constant tiles into tables loaded once each";
  let description = [{
    Runs on straight-line tile code (after nki-unroll). A small SBUF tile
    (at most 128 bytes per partition: a per-channel scale, shift or bias
    column, a depthwise convolution's taps) that is written only by DMAs
    from constant globals before anything reads it is not loaded by those
    DMAs, which cost a 512-byte descriptor per partition each: its contents
    are computed at compile time (the DMA's rounding included) and placed
    in the columns of a table, a `[P, K]` constant of at most 512 bytes per
    partition (P the tallest tile's partitions), loaded by one DMA right
    before the first reader of any of its columns; readers read a view of
    the table. Identical tiles share columns. Tiles in tables are ordered by their first reader, so a table
    serves a stretch of the program.

    ```mlir
    %t = nki.alloc : memref<32x1xf32, #nki.memory<sbuf>>
    nki.dma %scale to %t : memref<32x1xf32, strided<[1, 1]>> to ...
    nki.activation "relu" %x into %y scale %t : ...
    ```
    becomes
    ```mlir
    %g = memref.get_global @__nki_constant_table : memref<32x128xf32>
    %table = nki.alloc : memref<32x128xf32, #nki.memory<sbuf>>
    nki.dma %g to %table : ...
    %t = memref.subview %table[0, 5] [32, 1] [1, 1] : ...
    nki.activation "relu" %x into %y scale %t : ...
    ```

    Then a large constant (`compact-min-bytes`, 1 MiB) of which DMAs read at most half,
    through views with static offsets and nothing else, is replaced by one
    holding only the regions read, each distinct region once and
    row-major: a causal attention mask of which the kernel loads only the
    blocks on the diagonal (docs/compiler.md) no longer goes whole into
    HBM and the binary.
  }];
  let options = [
    Option<"compactMinBytes", "compact-min-bytes", "int64_t",
           /*default=*/"1 << 20",
           "Constants of at least this many bytes are compacted to the "
           "regions DMAs read">,
  ];
}

def NKIPlanMemory : Pass<"nki-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Assign SBUF/PSUM offsets to tiles and HBM offsets to tensors";
  let description = [{
    Runs on straight-line tile code. Every nki.alloc gets an `offset` from
    the planner (lib/Analysis/Planner.cpp) using its live range; slots freed
    longest ago are reused first, so consecutive tiles rotate through several
    buffers and DMA overlaps compute (multi-buffering). HBM tensors (function
    arguments and scratch allocations) get `nki.hbm_offset`. When the working
    set does not fit, the error prints the memory map at the peak.
  }];
}

def NKISchedule : Pass<"nki-schedule", "mlir::ModuleOp"> {
  let summary = "Lower planned tile code to a scheduled nisa.program";
  let description = [{
    Runs on planned, straight-line tile code (after nki-plan-memory).
    Instruction selection: every tile op becomes one machine instruction (a
    DMA costing 32 KiB or more of queue time between whole 32-partition
    blocks and an HBM window or within SBUF: one per block, spread over
    queues), with access patterns read
    from the operand's view type and the root's planned offset, and may run
    on the streams whose ISA checks accept it (tensor_tensor on DVE or POOL,
    copy on DVE, POOL or ACT, DMA on any of the 16 queues). Dependences come
    from the bytes each instruction reads and writes. The list scheduler
    (critical-path priority, lib/Analysis/Scheduler.cpp) then picks a stream
    and a start time for every instruction with the target's costs; the PE
    keeps program order (stationary reuse).

    The entry function (`main` or the only public one) and the globals it
    reads are replaced by a `nisa.program`: inputs named by `nki.name` (else
    arg0, ...), outputs out0, ... in return order, constants with their
    data, scratch; one `nisa.stream` per used stream holding its
    instructions in the order they run. Each instruction carries
    `nisa.seq`, its place in the program order (the tile op's), which
    nki-synchronize needs; the program carries `nisa.makespan_ps`, the
    schedule's estimated end. There are no semaphores yet.

    Before (abridged):
    ```mlir
    func.func @main(%x: memref<128x32xf32> {nki.hbm_offset = 0 : i64}) -> memref<128x32xf32> {
      %o = memref.alloc() {nki.hbm_offset = 16384 : i64} : memref<128x32xf32>
      %t = nki.alloc {offset = 0 : i64} : memref<128x32xf32, #nki.memory<sbuf>>
      nki.dma %x to %t : ...
      nki.activation "exp" %t into %t : ...
      nki.dma %t to %o : ...
      return %o : memref<128x32xf32>
    }
    ```
    After:
    ```mlir
    nisa.program target("trn2") semaphores(0) attributes {nisa.makespan_ps = 6269392 : i64} {
      nisa.tensor @arg0 input f32 [128, 32] at 0
      nisa.tensor @out0 output f32 [128, 32] at 16384
      nisa.stream @act {
        nisa.activation exp sbuf[0:128, 0, f32][(1,32)], sbuf[0:128, 0, f32][(1,32)]
            scale 1.0 bias 0.0 {nisa.seq = 1 : i64}
      }
      nisa.stream @dma0 {
        nisa.dma_copy sbuf[0:128, 0, f32][(1,32)], hbm[0, f32][(1,4096)] {nisa.seq = 0 : i64}
        nisa.dma_copy hbm[16384, f32][(1,4096)], sbuf[0:128, 0, f32][(1,32)] {nisa.seq = 2 : i64}
      }
    }
    ```
  }];
  let dependentDialects = ["nki::nisa::NISADialect"];
}

def NKISynchronize : Pass<"nki-synchronize", "mlir::ModuleOp"> {
  let summary = "Place the semaphores of a scheduled nisa.program";
  let description = [{
    Runs on the nisa.program nki-schedule writes, reading only the
    instructions: `nisa.seq` is each one's place in the program order, its
    access patterns the bytes it reads and writes (one interval per 32
    partition block on chip, the hull in HBM), and the streams the order
    each runs in. Every read-after-write, write-after-read and
    write-after-write dependence between streams, and between two transfers
    of one DMA queue (whose data lands 1.3 us after the queue moves on), is
    ordered by a semaphore wait (lib/Analysis/Sync.cpp, one counting
    semaphore per signalling stream, no wait that program order or an
    earlier wait already implies); the plan is verified race- and
    deadlock-free, then written on the instructions, and `nisa.seq` is
    dropped. Dependences and placement take O(n log n) in the number of
    instructions.

    A program without `nisa.seq` is left as it is (already synchronised).
    An instruction without `nisa.seq` among others that have one, one that
    already has semaphores, two with the same `nisa.seq`, or a stream order
    that runs a dependent pair backwards is an error.

    ```mlir
    nisa.stream @act {
      nisa.activation exp ... scale 1.0 bias 0.0 {nisa.seq = 1 : i64}
    }
    nisa.stream @dma0 {
      nisa.dma_copy sbuf[...], hbm[0, f32][(1,4096)] {nisa.seq = 0 : i64}
      nisa.dma_copy hbm[16384, f32][(1,4096)], sbuf[...] {nisa.seq = 2 : i64}
    }
    ```
    becomes, in `nisa.program target("trn2") semaphores(2)`:
    ```mlir
    nisa.stream @act {
      nisa.activation exp ... scale 1.0 bias 0.0 wait(s1 >= 1) signal(s0)
    }
    nisa.stream @dma0 {
      nisa.dma_copy sbuf[...], hbm[0, f32][(1,4096)] signal(s1)
      nisa.dma_copy hbm[16384, f32][(1,4096)], sbuf[...] wait(s0 >= 1)
    }
    ```
  }];
}

#endif // NKI_CONVERSION_PASSES_TD
