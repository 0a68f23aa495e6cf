#!/usr/bin/python3
"""The model zoo of the model benchmark (bench/models/run.py) and of the
end-to-end model tests (test/e2e/models/): one home for the definitions.

    models.py list
    models.py export NAME --batch B --dir DIR [--opset N] [--fold-bn]

Every model is a torch module in eval mode with seeded random weights
(nothing is downloaded: torchvision architectures with `weights=None`).
BatchNorm layers get non-trivial parameters: seeded random affine weight and
bias, and running statistics measured by one train-mode pass over a seeded
random calibration batch (so mean/var are not 0/1 and activations stay at a
sane magnitude through deep nets). The export keeps the BatchNormalization
nodes (TrainingMode.PRESERVE of an eval-mode module: inference BN), so that
nki folds them; `--fold-bn` lets torch's exporter fold them into the
convolutions instead (TrainingMode.EVAL). `export` writes DIR/model.onnx
(static shapes, constant folding), DIR/input.npy and torch's own output as
DIR/expected.npy (float32). The ONNX graph's input is named `input`, its
output `output`; they are the tensor names of the compiled binary.

Runs under /usr/bin/python3 (Debian's python3-torch, python3-torchvision,
python3-onnx, python3-numpy).
"""
import argparse
import os
import sys

INPUT_NAME = "input"
OUTPUT_NAME = "output"
SEED = 1234
CALIBRATION_BATCH = 16


# --- a U-Net-style segmentation net -----------------------------------------

def _unet_class():
    import torch
    from torch import nn

    def block(cin, cout):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class UNet(nn.Module):
        """Encoder: `levels` blocks of 2x (conv3x3 + BN + ReLU), each but the
        bottom followed by a 2x2 maxpool. Decoder: upsample by 2 (nearest
        Upsample, or ConvTranspose2d when `transpose`), concatenate the
        encoder's skip, a block. Final 1x1 conv to `classes` channels."""

        def __init__(self, in_ch=3, classes=2, base=16, levels=4,
                     transpose=False):
            super().__init__()
            widths = [base * 2 ** i for i in range(levels)]
            self.down = nn.ModuleList()
            cin = in_ch
            for w in widths:
                self.down.append(block(cin, w))
                cin = w
            self.pool = nn.MaxPool2d(2)
            self.up = nn.ModuleList()
            self.dec = nn.ModuleList()
            for w in reversed(widths[:-1]):
                if transpose:
                    self.up.append(nn.ConvTranspose2d(cin, w, 2, stride=2))
                    up_ch = w
                else:
                    self.up.append(nn.Upsample(scale_factor=2,
                                               mode="nearest"))
                    up_ch = cin
                self.dec.append(block(up_ch + w, w))
                cin = w
            self.head = nn.Conv2d(cin, classes, 1)

        def forward(self, x):
            skips = []
            for i, d in enumerate(self.down):
                x = d(x)
                if i + 1 < len(self.down):
                    skips.append(x)
                    x = self.pool(x)
            for up, dec in zip(self.up, self.dec):
                x = up(x)
                x = dec(torch.cat([x, skips.pop()], dim=1))
            return self.head(x)

    return UNet


def unet(**kwargs):
    return _unet_class()(**kwargs)


# --- the zoo ----------------------------------------------------------------

def _tv(name, **kwargs):
    def make():
        import torchvision.models as tvm
        return getattr(tvm, name)(weights=None, **kwargs)
    return make


def small_resnet(widths=(16, 32, 64), blocks=1, classes=10):
    """resnet-style at reduced width: a 3x3 stem conv + BN + ReLU, then per
    stage `blocks` torchvision BasicBlocks (the first of each stage after
    the first with stride 2 and a 1x1 conv + BN downsample), global average
    pool and a linear classifier."""
    from torch import nn
    from torchvision.models.resnet import BasicBlock
    layers = [nn.Conv2d(3, widths[0], 3, padding=1, bias=False),
              nn.BatchNorm2d(widths[0]), nn.ReLU(inplace=True)]
    cin = widths[0]
    for i, w in enumerate(widths):
        for j in range(blocks):
            stride = 2 if i > 0 and j == 0 else 1
            down = None
            if stride != 1 or cin != w:
                down = nn.Sequential(nn.Conv2d(cin, w, 1, stride, bias=False),
                                     nn.BatchNorm2d(w))
            layers.append(BasicBlock(cin, w, stride, down))
            cin = w
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def resnet50_layer1(classes=10):
    """torchvision resnet50's stem and layer1 (56 x 56, a 256-channel
    residual stream), then global average pool and a linear classifier: at
    batch 4 in f32 the residual stream does not fit in SBUF with the whole
    batch, with two images it does (nki-split-batch)."""
    import torchvision.models as tvm
    from torch import nn
    m = tvm.resnet50(weights=None)
    return nn.Sequential(m.conv1, m.bn1, m.relu, m.maxpool, m.layer1,
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(256, classes))


def small_efficientnet():
    """torchvision's EfficientNet (MBConv: depthwise convs, SiLU,
    squeeze-and-excitation) with efficientnet_b0's stages at a quarter of the
    width and a third of the depth (one block per stage), 10 classes."""
    from torchvision.models.efficientnet import EfficientNet, _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.25,
                                       depth_mult=0.34)
    return EfficientNet(setting, dropout=0.2, last_channel=last,
                        num_classes=10)


def small_vit():
    """torchvision's VisionTransformer at 32 x 32: 8 x 8 patches (the patch
    embedding is a convolution whose kernel is its stride), two layers of
    four heads, 10 classes. torchvision zero-initialises the head; it is
    drawn at random here so that the output depends on the network."""
    import torch
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                              num_heads=4, hidden_dim=64, mlp_dim=128,
                              num_classes=10)
    torch.nn.init.normal_(model.heads.head.weight, std=0.5)
    return model


def expansion_window(se=True, classes=10):
    """EfficientNet-B0's stem and first two MBConv blocks (with se=False and
    ReLU6, MobileNetV2's): a stride-2 3x3 convolution to 32 channels at 112
    x 112, a 32-channel depthwise block, then a 16 -> 96 expansion read by a
    stride-2 depthwise layer, a projection, a global average pool and a
    linear classifier. At batch 8 under auto-cast the expansion takes 200
    KiB a partition, more than the resident plan keeps; nki-split-batch
    runs the layers around it per group of images
    (test/e2e/models/batch_windows.test)."""
    from torch import nn
    from torchvision.ops import SqueezeExcitation
    act = nn.SiLU if se else nn.ReLU6

    def cba(cin, cout, k, stride=1, groups=1, activation=True):
        layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups,
                            bias=False), nn.BatchNorm2d(cout)]
        return layers + ([act()] if activation else [])

    def squeeze(c, r):
        return [SqueezeExcitation(c, r, activation=nn.SiLU)] if se else []

    return nn.Sequential(*cba(3, 32, 3, 2), *cba(32, 32, 3, groups=32),
                         *squeeze(32, 8),
                         *cba(32, 16, 1, activation=False), *cba(16, 96, 1),
                         *cba(96, 96, 3, 2, groups=96), *squeeze(96, 4),
                         *cba(96, 24, 1, activation=False),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(24, classes))


def concat_block(classes=10):
    """An Inception-like block: a stem, two branches (1x1 and 3x3, each
    BatchNorm + ReLU6) concatenated, a depthwise 3x3 (BatchNorm + ReLU6) over
    the concatenation, then global pooling and a classifier."""
    import torch
    from torch import nn

    def cbr(cin, cout, k, groups=1):
        return nn.Sequential(
            nn.Conv2d(cin, cout, k, padding=k // 2, groups=groups,
                      bias=False),
            nn.BatchNorm2d(cout), nn.ReLU6(inplace=True))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = cbr(3, 16, 3)
            self.a = cbr(16, 24, 1)
            self.b = cbr(16, 8, 3)
            self.dw = cbr(32, 32, 3, groups=32)
            self.head = nn.Linear(32, classes)

        def forward(self, x):
            x = self.stem(x)
            x = self.dw(torch.cat([self.a(x), self.b(x)], dim=1))
            return self.head(x.mean(dim=(2, 3)))

    return Block()


# --- transformers (issue 12's benchmark) -------------------------------------

def causal_mask(n):
    """The additive causal mask [n, n]: -inf above the diagonal, 0 on and
    below it (a constant of the exported graph)."""
    import torch
    i = torch.arange(n)
    return torch.where(i[None, :] > i[:, None], float("-inf"), 0.0)


def attention(seq, causal=False, mask=None, heads=1, kv_heads=None):
    """Scaled dot-product attention, softmax(Q K^T / sqrt(d) [+ mask]) V,
    as an exporter writes it (MatMul, Transpose, Mul, Add of the mask,
    Softmax, MatMul). The zoo's models take one input, so Q, K and V come
    stacked: x [1, 3, S, heads * d]. `causal` adds a constant -inf
    triangle; `mask="padding"` a constant [S] key mask (the last quarter of
    the keys -inf) broadcast over the queries; `mask="input"` one computed
    from the input (-10 where q[i, 0] + k[j, 0] > 1), not a constant. With
    `heads` the head dims split into that many heads; `kv_heads`
    (grouped-query attention) keeps only that many K and V heads, each
    shared by heads / kv_heads query heads (expanded as Llama's repeat_kv
    does)."""
    import torch
    from torch import nn

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            if causal:
                self.register_buffer("mask", causal_mask(seq))
            elif mask == "padding":
                keys = torch.zeros(seq)
                keys[seq - seq // 4:] = float("-inf")
                self.register_buffer("mask", keys)

        def forward(self, x):
            q, k, v = x[0, 0], x[0, 1], x[0, 2]          # [S, heads * d]
            d = q.shape[-1] // heads
            if heads > 1:                                 # [heads, S, d]
                q = q.reshape(seq, heads, d).transpose(0, 1)
                k = k.reshape(seq, heads, d).transpose(0, 1)
                v = v.reshape(seq, heads, d).transpose(0, 1)
            if kv_heads:  # Llama's repeat_kv: [kv, S, d] -> [heads, S, d]
                group = heads // kv_heads
                k = k[::group, None].expand(kv_heads, group, seq, d)
                v = v[::group, None].expand(kv_heads, group, seq, d)
                k = k.reshape(heads, seq, d)
                v = v.reshape(heads, seq, d)
            kt = k.transpose(-2, -1)
            s = q @ kt * (d ** -0.5)
            if causal or mask == "padding":
                s = s + self.mask
            elif mask == "input":
                s = s - 10.0 * (q[..., :1] + kt[..., :1, :] > 1.0).float()
            o = s.softmax(dim=-1) @ v
            if heads == 1:
                return o
            return o.transpose(0, 1).reshape(seq, heads * d)

    Attention.one_sequence = True
    return Attention()


def transformer_layer(d=768, heads=12, ff=3072, causal=False, seq=512):
    """A BERT-base-like encoder layer (post-norm, GELU MLP), or with
    `causal` a GPT-2-small-like decoder layer (pre-norm, causal mask),
    from torch.nn.TransformerEncoderLayer; input [N, S, d]."""
    import torch
    from torch import nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(
                d, heads, ff, dropout=0.0, activation="gelu",
                batch_first=True, norm_first=causal)
            if causal:
                self.register_buffer("mask", causal_mask(seq))

        def forward(self, x):
            if not causal:
                return self.layer(x)
            return self.layer(x, src_mask=self.mask)

    return Layer()


def llama_layer(d=768, heads=12, kv_heads=4, ff=2048, seq=512):
    """A Llama-style decoder layer as Hugging Face's LlamaDecoderLayer
    writes it, input [S, d]: RMSNorm (x * rsqrt(mean(x^2) + eps) * w),
    q/k/v projections without bias, rotary position embeddings on q and k
    (rotate_half with constant cos/sin tables), grouped-query causal
    attention (`kv_heads` K/V heads, repeat_kv), the output projection and
    residual, RMSNorm, a SiLU-gated MLP (down(silu(gate(x)) * up(x))) and
    residual."""
    import torch
    from torch import nn

    dh = d // heads

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d))

        def forward(self, x):
            var = x.pow(2).mean(-1, keepdim=True)
            return x * torch.rsqrt(var + 1e-6) * self.weight

    def rotate_half(x):
        return torch.cat([-x[..., dh // 2:], x[..., :dh // 2]], dim=-1)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = RMSNorm(), RMSNorm()
            self.q = nn.Linear(d, heads * dh, bias=False)
            self.k = nn.Linear(d, kv_heads * dh, bias=False)
            self.v = nn.Linear(d, kv_heads * dh, bias=False)
            self.o = nn.Linear(heads * dh, d, bias=False)
            self.gate = nn.Linear(d, ff, bias=False)
            self.up = nn.Linear(d, ff, bias=False)
            self.down = nn.Linear(ff, d, bias=False)
            inv = 1.0 / (10000 ** (torch.arange(0, dh, 2).float() / dh))
            freqs = torch.outer(torch.arange(seq).float(), inv)
            emb = torch.cat([freqs, freqs], dim=-1)          # [S, dh]
            self.register_buffer("cos", emb.cos())
            self.register_buffer("sin", emb.sin())
            self.register_buffer("mask", causal_mask(seq))

        def forward(self, x):
            h = self.norm1(x)
            q = self.q(h).reshape(seq, heads, dh).transpose(0, 1)
            k = self.k(h).reshape(seq, kv_heads, dh).transpose(0, 1)
            v = self.v(h).reshape(seq, kv_heads, dh).transpose(0, 1)
            q = q * self.cos + rotate_half(q) * self.sin
            k = k * self.cos + rotate_half(k) * self.sin
            group = heads // kv_heads
            k = k[:, None].expand(kv_heads, group, seq, dh)
            v = v[:, None].expand(kv_heads, group, seq, dh)
            k = k.reshape(heads, seq, dh)
            v = v.reshape(heads, seq, dh)
            s = q @ k.transpose(-2, -1) * (dh ** -0.5) + self.mask
            a = (s.softmax(dim=-1) @ v).transpose(0, 1).reshape(seq, d)
            x = x + self.o(a)
            h = self.norm2(x)
            g = self.gate(h)
            return x + self.down(g * torch.sigmoid(g) * self.up(h))

    Layer.one_sequence = True
    return Layer()


def decode_step(d=768, heads=12, cached=2048):
    """One new token's self-attention against a KV cache of `cached`
    entries (a GPT-2-small-sized layer's attention): the token's q, k and v
    projections, its attention over the cache and itself, the output
    projection. The cache comes in the one input beside the token:
    x [1, 1 + 2 * cached, d] = the token's hidden state, then the cached
    keys, then the cached values (heads x head dim along d)."""
    import torch
    from torch import nn

    class Decode(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(d, 3 * d)
            self.out = nn.Linear(d, d)

        def forward(self, x):
            h, dh = heads, d // heads
            t = x[:, :1]                            # [1, 1, d]
            kc = x[:, 1:1 + cached]                 # [1, S, d]
            vc = x[:, 1 + cached:]
            q, k, v = self.qkv(t).split(d, dim=-1)  # [1, 1, d] each
            keys = torch.cat([kc, k], dim=1).reshape(1, -1, h, dh)
            vals = torch.cat([vc, v], dim=1).reshape(1, -1, h, dh)
            q = q.reshape(1, 1, h, dh).transpose(1, 2)     # [1, h, 1, dh]
            keys = keys.transpose(1, 2)                    # [1, h, S+1, dh]
            vals = vals.transpose(1, 2)
            s = q @ keys.transpose(2, 3) * (dh ** -0.5)    # [1, h, 1, S+1]
            o = torch.softmax(s, dim=-1) @ vals            # [1, h, 1, dh]
            return self.out(o.transpose(1, 2).reshape(1, 1, d))

    Decode.one_sequence = True
    return Decode()


# --- OCR-style models of the compile-time benchmark ---------------------------

def text_recognizer(classes=97, d=128, heads=4, layers=2):
    """A CNN + attention text recogniser (CRNN with a transformer encoder
    in place of the LSTM): conv + BN + ReLU stages that pool the 48-pixel
    height to 1, the width as a sequence of d features, `layers` encoder
    layers (multi-head self-attention, GELU MLP, layernorm) and a per-step
    linear classifier."""
    from torch import nn

    class Recognizer(nn.Module):
        def __init__(self):
            super().__init__()
            chans, stages, cin = (32, 64, 128, d), [], 3
            for i, c in enumerate(chans):
                stages += [nn.Conv2d(cin, c, 3, padding=1, bias=False),
                           nn.BatchNorm2d(c), nn.ReLU(inplace=True)]
                # Height 48 -> 24 -> 12 -> 6 -> 3; width halves twice.
                stages.append(nn.MaxPool2d((2, 2) if i < 2 else (2, 1)))
                cin = c
            stages += [nn.Conv2d(d, d, (3, 1), bias=False),
                       nn.BatchNorm2d(d), nn.ReLU(inplace=True)]
            self.cnn = nn.Sequential(*stages)
            layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0,
                                               activation="gelu",
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers,
                                                 enable_nested_tensor=False)
            self.head = nn.Linear(d, classes)

        def forward(self, x):
            f = self.cnn(x)                       # [N, d, 1, W/4]
            seq = f.flatten(2).transpose(1, 2)    # [N, W/4, d]
            return self.head(self.encoder(seq))   # [N, W/4, classes]

    return Recognizer()


def audio_frontend(mels=80, d=128):
    """1-D convolutions of speech models: Whisper's front end (a 3-tap
    convolution and a 3-tap one at stride 2, each with a GELU) over log-mel
    frames, then a QuartzNet-like separable block (a depthwise 5-tap and a
    pointwise convolution with batch norm and ReLU, a residual) and a
    wav2vec-like 4-tap convolution at stride 2 and dilation 2."""
    from torch import nn

    class Frontend(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
            self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
            self.dw = nn.Conv1d(d, d, 5, padding=2, groups=d, bias=False)
            self.pw = nn.Conv1d(d, d, 1, bias=False)
            self.bn = nn.BatchNorm1d(d)
            self.conv3 = nn.Conv1d(d, 2 * d, 4, stride=2, dilation=2)

        def forward(self, x):
            x = nn.functional.gelu(self.conv1(x))
            x = nn.functional.gelu(self.conv2(x))
            x = x + nn.functional.relu(self.bn(self.pw(self.dw(x))))
            return self.conv3(x)

    return Frontend()


def text_detector():
    """A DB-style text detector: torchvision's MobileNetV3-Large features
    (hardswish, squeeze-and-excitation), an FPN neck over the stride 4, 8,
    16 and 32 outputs (1x1 lateral convs, nearest 2x upsampling and adds),
    the four levels upsampled to stride 4 and concatenated, and a head of
    conv + BN + ReLU, twice a nearest 2x upsampling and a 3x3 conv, and a
    sigmoid: a probability map at the input's resolution."""
    import torch
    from torch import nn
    import torchvision.models as tvm

    class Detector(nn.Module):
        def __init__(self, inner=64):
            super().__init__()
            self.features = tvm.mobilenet_v3_large(weights=None).features
            # Outputs after blocks 3, 6, 12 and 16: strides 4, 8, 16, 32.
            self.taps, chans = (3, 6, 12, 16), (24, 40, 112, 960)
            self.lateral = nn.ModuleList(nn.Conv2d(c, inner, 1) for c in chans)
            self.smooth = nn.ModuleList(
                nn.Conv2d(inner, inner // 4, 3, padding=1) for _ in chans)
            up = lambda s: nn.Upsample(scale_factor=s, mode="nearest")  # noqa
            self.up = nn.ModuleList(up(2 ** i) for i in range(4))
            self.head = nn.Sequential(
                nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False),
                nn.BatchNorm2d(inner // 4), nn.ReLU(inplace=True), up(2),
                nn.Conv2d(inner // 4, inner // 4, 3, padding=1), up(2),
                nn.Conv2d(inner // 4, 1, 3, padding=1), nn.Sigmoid())

        def forward(self, x):
            feats = []
            for i, block in enumerate(self.features):
                x = block(x)
                if i in self.taps:
                    feats.append(x)
            lat = [conv(f) for conv, f in zip(self.lateral, feats)]
            for i in range(3, 0, -1):  # top-down: coarse into fine
                lat[i - 1] = lat[i - 1] + self.up[1](lat[i])
            fused = torch.cat([up(conv(f)) for up, conv, f in
                               zip(self.up, self.smooth, lat)], dim=1)
            return self.head(fused)

    return Detector()


# name -> (constructor, input shape of one batch entry [C, H, W], note).
# `bench` models are the benchmark's defaults, `compile` ones those of the
# compile-time benchmark; the others are the small models of
# test/e2e/models/.
ZOO = {
    # benchmark (classifiers at 224 x 224)
    "resnet50": (_tv("resnet50"), (3, 224, 224), "bench"),
    "mobilenet_v2": (_tv("mobilenet_v2"), (3, 224, 224), "bench"),
    "efficientnet_b0": (_tv("efficientnet_b0"), (3, 224, 224), "bench"),
    "unet": (lambda: unet(base=16, levels=4), (3, 128, 128), "bench"),
    "unet_convt": (lambda: unet(base=16, levels=4, transpose=True),
                   (3, 128, 128), "bench"),
    # small models for the lit tests
    "tiny_resnet": (small_resnet, (3, 32, 32), "test"),
    "tiny_resnet18": (_tv("resnet18", num_classes=10), (3, 32, 32), "test"),
    "tiny_resnet50": (_tv("resnet50", num_classes=10), (3, 32, 32), "test"),
    "tiny_mobilenet_v2": (_tv("mobilenet_v2", width_mult=0.25,
                              num_classes=10), (3, 32, 32), "test"),
    "tiny_efficientnet_b0": (_tv("efficientnet_b0", num_classes=10),
                             (3, 32, 32), "test"),
    "tiny_efficientnet": (small_efficientnet, (3, 32, 32), "test"),
    # grouped convolutions of 8 (RegNetY, with squeeze-and-excitation) and
    # 4 to 32 channels a group (ResNeXt)
    "tiny_regnet_y": (_tv("regnet_y_400mf", num_classes=10), (3, 32, 32),
                      "test"),
    "tiny_resnext50": (_tv("resnext50_32x4d", num_classes=10), (3, 32, 32),
                       "test"),
    # shifted windows whose 8 x 8 patches the 7 x 7 window pads
    "tiny_swin": (_tv("swin_t", num_classes=10), (3, 32, 32), "test"),
    "tiny_vit": (small_vit, (3, 32, 32), "test"),
    "tiny_concat": (concat_block, (3, 32, 32), "test"),
    # 1-D convolutions (strided, dilated, depthwise) over 300 frames
    "tiny_audio": (audio_frontend, (80, 300), "test"),
    "resnet50_layer1": (resnet50_layer1, (3, 224, 224), "test"),
    "expansion_window": (expansion_window, (3, 224, 224), "test"),
    "expansion_window_relu6": (lambda: expansion_window(se=False),
                               (3, 224, 224), "test"),
    "tiny_unet": (lambda: unet(base=4, levels=3), (3, 32, 32), "test"),
    "tiny_unet_convt": (lambda: unet(base=4, levels=3, transpose=True),
                        (3, 32, 32), "test"),
    # attention at odd sequence lengths (test/e2e/models/attention.test)
    "tiny_attn": (lambda: attention(300), (3, 300, 64), "test"),
    "tiny_attn_causal": (lambda: attention(600, causal=True), (3, 600, 64),
                         "test"),
    "tiny_attn_padding": (lambda: attention(700, mask="padding"),
                          (3, 700, 32), "test"),
    "tiny_attn_input_mask": (lambda: attention(200, mask="input"),
                             (3, 200, 64), "test"),
    "tiny_mha": (lambda: attention(260, heads=4), (3, 260, 128), "test"),
    # Two heads too long to share one pipeline in f32 (their K^T, V and
    # Q^T take more than a quarter of SBUF each), not in bf16.
    "long_mha": (lambda: attention(6144, heads=2), (3, 6144, 256), "test"),
    "tiny_gqa": (lambda: attention(260, heads=4, kv_heads=2),
                 (3, 260, 128), "test"),
    "tiny_gpt_layer": (lambda: transformer_layer(d=128, heads=4, ff=256,
                                                 causal=True, seq=100),
                       (100, 128), "test"),
    "tiny_llama_layer": (lambda: llama_layer(d=128, heads=4, kv_heads=2,
                                             ff=256, seq=100),
                         (100, 128), "test"),
    "tiny_decode": (lambda: decode_step(d=128, heads=4, cached=300),
                    (1 + 2 * 300, 128), "test"),
    # transformers (run.py --group attention / transformer): attention
    # prefill for one head, bf16 under --mode matmul; a BERT-base-like and
    # a GPT-2-small-like layer at sequence 512; a decode step against 2,048
    # cached entries.
    **{f"attn_s{s}_d{d}" + ("_causal" if c else ""):
       ((lambda s=s, c=c: attention(s, c)), (3, s, d), "attention")
       for s in (512, 2048, 8192) for d in (64, 128) for c in (False, True)},
    "bert_layer": (lambda: transformer_layer(), (512, 768), "transformer"),
    "gpt2_layer": (lambda: transformer_layer(causal=True), (512, 768),
                   "transformer"),
    "gpt2_decode": (decode_step, (1 + 2 * 2048, 768), "transformer"),
    "llama_layer": (llama_layer, (512, 768), "transformer"),
    # compile-time benchmark (bench/compile_time.py --models): the sizes
    # of an OCR pipeline's classifier, recogniser and detector
    "mobilenet_v3_cls": (_tv("mobilenet_v3_small", num_classes=4),
                         (3, 48, 192), "compile"),
    "text_recognizer": (text_recognizer, (3, 48, 320), "compile"),
    "text_detector": (text_detector, (3, 320, 320), "compile"),
}

BENCH_MODELS = [n for n, v in ZOO.items() if v[2] == "bench"]
GROUPS = sorted({v[2] for v in ZOO.values()})
COMPILE_MODELS = [n for n, v in ZOO.items() if v[2] == "compile"]


def one_sequence(name):
    """Whether the zoo's model `name` takes one sequence, its input's
    leading 1 no batch (attention's stacked Q, K and V, the Llama layer's
    [S, d], a decode step's token and cache): it is exported at batch 1
    only."""
    return getattr(ZOO[name][0](), "one_sequence", False)


def build(name):
    """The seeded eval-mode torch module `name` of the zoo."""
    import torch
    from torch import nn
    make, shape, _ = ZOO[name]
    torch.manual_seed(SEED)
    model = make()
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    g = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for bn in bns:
            c = bn.num_features
            bn.weight.copy_(0.75 + 0.5 * torch.rand(c, generator=g))
            bn.bias.copy_(0.2 * (torch.rand(c, generator=g) - 0.5))
            bn.reset_running_stats()
            bn.momentum = None  # cumulative average over the calibration
        # Only the BatchNorms in train mode: dropout and stochastic depth
        # stay off, so the statistics are those of the eval-mode network.
        model.eval()
        for bn in bns:
            bn.train()
        if bns:
            model(torch.randn(CALIBRATION_BATCH, *shape, generator=g))
    model.eval()
    return model


def round_matmul_inputs(model):
    """Makes `model`'s nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d and nn.Linear layers
    round their input and weight to bf16 and compute in fp32, as
    nki-compile --auto-cast=matmul does: the reference that separates bf16
    rounding (which random-weight nets amplify) from a compiler error."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    def r(t):
        return t.to(torch.bfloat16).to(torch.float32)

    for mod in model.modules():
        if isinstance(mod, nn.Conv1d):
            mod.forward = lambda x, m=mod: F.conv1d(
                r(x), r(m.weight), m.bias, m.stride, m.padding, m.dilation,
                m.groups)
        elif isinstance(mod, nn.Conv2d):
            mod.forward = lambda x, m=mod: F.conv2d(
                r(x), r(m.weight), m.bias, m.stride, m.padding, m.dilation,
                m.groups)
        elif isinstance(mod, nn.ConvTranspose2d):
            mod.forward = lambda x, m=mod: F.conv_transpose2d(
                r(x), r(m.weight), m.bias, m.stride, m.padding,
                m.output_padding, m.groups, m.dilation)
        elif isinstance(mod, nn.Linear):
            mod.forward = lambda x, m=mod: F.linear(r(x), r(m.weight), m.bias)
    return model


def fold_batch_norms(model):
    """`model` traced, with each BatchNorm2d that alone reads a Conv2d's
    output folded into it as nki-prepare-graph folds it (FoldConvScales.h):
    the weight and bias times the scale a = gamma * rsqrt(var + eps), then
    the shift b = beta - mean * a added; each step in fp32 as the compiler
    evaluates it (the reciprocal square root in double, rounded once), so
    that round_matmul_inputs rounds the weights the compiler rounds."""
    import copy
    import numpy as np
    import torch
    import torch.fx
    from torch import nn

    class Shift(nn.Module):
        def __init__(self, b):
            super().__init__()
            self.register_buffer("b", torch.from_numpy(b).view(1, -1, 1, 1))

        def forward(self, x):
            return x + self.b

    gm = torch.fx.symbolic_trace(copy.deepcopy(model))
    mods = dict(gm.named_modules())
    f32 = np.float32
    for node in gm.graph.nodes:
        src = node.args[0] if node.args else None
        if (node.op != "call_module" or
                not isinstance(mods[node.target], nn.BatchNorm2d) or
                not isinstance(src, torch.fx.Node) or
                src.op != "call_module" or
                not isinstance(mods[src.target], nn.Conv2d) or
                len(src.users) != 1):
            continue
        conv, bn = mods[src.target], mods[node.target]
        var = bn.running_var.numpy().astype(f32) + f32(bn.eps)
        a = bn.weight.detach().numpy().astype(f32) * (
            1.0 / np.sqrt(var.astype(np.float64))).astype(f32)
        b = bn.bias.detach().numpy().astype(f32) - (
            bn.running_mean.numpy().astype(f32) * a)
        with torch.no_grad():
            conv.weight.mul_(torch.from_numpy(a).view(-1, 1, 1, 1))
            if conv.bias is not None:
                conv.bias.mul_(torch.from_numpy(a))
        gm.add_submodule(node.target, Shift(b))
    gm.recompile()
    return gm


def export(name, batch, out_dir, opset=13, fold_bn=False, bf16=False):
    """Writes out_dir/{model.onnx,input.npy,expected.npy}, and with `bf16`
    expected_bf16.npy (fold_batch_norms, round_matmul_inputs); returns
    (onnx path, input path, expected path)."""
    import numpy as np
    import torch
    model = build(name)
    if batch != 1 and getattr(model, "one_sequence", False):
        raise ValueError(f"{name} takes one sequence: batch 1 only, not "
                         f"{batch}")
    shape = (batch, *ZOO[name][1])
    g = torch.Generator().manual_seed(SEED + 2)
    x = torch.randn(*shape, generator=g)
    with torch.no_grad():
        y = model(x)
    os.makedirs(out_dir, exist_ok=True)
    paths = tuple(os.path.join(out_dir, f) for f in
                  ("model.onnx", "input.npy", "expected.npy"))
    torch.onnx.export(model, (x,), paths[0], opset_version=opset,
                      do_constant_folding=True, input_names=[INPUT_NAME],
                      output_names=[OUTPUT_NAME], dynamic_axes=None,
                      training=(torch.onnx.TrainingMode.EVAL if fold_bn
                                else torch.onnx.TrainingMode.PRESERVE))
    np.save(paths[1], x.numpy().astype(np.float32))
    np.save(paths[2], y.numpy().astype(np.float32))
    if bf16:
        with torch.no_grad():
            yb = round_matmul_inputs(fold_batch_norms(model))(x)
        np.save(os.path.join(out_dir, "expected_bf16.npy"),
                yb.numpy().astype(np.float32))
    return paths


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="print the zoo")
    e = sub.add_parser("export", help="export one model")
    e.add_argument("name", choices=sorted(ZOO))
    e.add_argument("--batch", type=int, default=1)
    e.add_argument("--dir", required=True)
    e.add_argument("--opset", type=int, default=13, choices=range(13, 18))
    e.add_argument("--fold-bn", action="store_true",
                   help="let torch fold BatchNorm into the convolutions")
    e.add_argument("--bf16-reference", action="store_true",
                   help="also write expected_bf16.npy: torch's output with "
                   "convolution and linear inputs and weights rounded to "
                   "bf16, as --auto-cast=matmul computes")
    args = p.parse_args(argv)
    if args.cmd == "list":
        for n, (_, shape, kind) in ZOO.items():
            print(f"{n}\t{'x'.join(map(str, shape))}\t{kind}")
        return 0
    if args.batch != 1 and one_sequence(args.name):
        p.error(f"{args.name} takes one sequence: --batch 1 only, not "
                f"{args.batch}")
    # torch.onnx.export prints diagnostics on stdout; keep it for callers.
    export(args.name, args.batch, args.dir, args.opset, args.fold_bn,
           args.bf16_reference)
    return 0


if __name__ == "__main__":
    sys.exit(main())
