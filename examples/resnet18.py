#!/usr/bin/env python3
"""A torchvision ResNet-18 through nki from Python, in one call.

    PYTHONPATH=build/python /usr/bin/python3 examples/resnet18.py \\
        [--target trn2] [--auto-cast matmul] [--trace resnet18.json]

Builds the model from Debian's python3-torchvision with seeded weights
(nothing is downloaded), compiles it with nki.torch.compare (export through
torch.onnx.export, compile, simulate), and prints the error against torch
eager, the simulated time against the model's roofline floor, and the
layers that take the most simulated time.
"""

import argparse

import torch
import torchvision

import nki
import nki.torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="trn2",
                        choices=["trn1", "trn2", "trn3"])
    parser.add_argument("--auto-cast", default=None,
                        choices=["matmul", "fp8", "mxfp8", "mxfp4"])
    parser.add_argument("--trace", help="write a Perfetto trace here")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    image = torch.randn(1, 3, 224, 224,
                        generator=torch.Generator().manual_seed(1))
    # Looser tolerances when matmuls are rounded to narrower types.
    tol = 1e-3 if args.auto_cast is None else 1e-1
    result = nki.torch.compare(model, (image,), target=args.target,
                               auto_cast=args.auto_cast, rtol=tol, atol=tol,
                               trace=args.trace)
    print(result)

    # The roofline floor: the larger of the conv/matmul FLOPs (as the
    # simulator counts them) at the PE peak for the matmuls' input type and
    # the weights + input + output at the DMA peak.
    report = result.report
    peak = report.pe_peak_flops[{None: "fp32", "matmul": "bf16", "fp8": "fp8",
                                 "mxfp8": "mx", "mxfp4": "mx"}[args.auto_cast]]
    weight_bytes = sum(p.numel() * 4 for p in model.parameters())
    io_bytes = (image.numel() + 1000) * 4
    floor_us = 1e6 * max(report.matmul_flops / peak,
                         (weight_bytes + io_bytes) /
                         report.dma_peak_bytes_per_second)
    print(f"roofline floor {floor_us:.1f} us: "
          f"{100 * floor_us / report.total_us:.1f} % of it")
    print("slowest layers:")
    for op in report.ops[:5]:
        print(f"  {op.attributed_us:8.1f} us  {op.bound:4s} bound  "
              f"{op.source}")
    if args.trace:
        print(f"timeline: {args.trace} (open in ui.perfetto.dev)")


if __name__ == "__main__":
    main()
