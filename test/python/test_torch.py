"""nki.torch: modules compiled through torch.onnx.export, compared with
torch eager."""

import numpy as np
import pytest
import torch

import nki
import nki.torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, image):
        h = torch.relu(self.bn(self.conv(image)))
        return self.fc(h.mean(dim=(2, 3))), h.amax(dim=1)


def test_compare_matches_eager_and_restores_the_mode():
    torch.manual_seed(0)
    net = Net().train()  # compare runs eval mode, then restores train
    x = torch.randn(2, 3, 12, 12)
    result = nki.torch.compare(net, (x,))
    assert net.training and net.bn.training
    assert result.matches, str(result)
    assert list(result.outputs) == ["output0", "output1"]
    assert [t.name for t in result.program.inputs] == ["image"]
    assert result.outputs["output0"].shape == (2, 5)
    assert max(result.rel_l2_error) < 1e-5
    assert result.simulated_us > 0
    assert "matches" in str(result) and "simulated" in str(result)


def test_compile_module_and_run_tensors():
    torch.manual_seed(1)
    lin = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU())
    x = torch.randn(4, 16)
    program = nki.compile(lin, x)  # a single tensor is one input
    (y,) = program.run([x])[0].values()
    with torch.no_grad():
        np.testing.assert_allclose(y, lin(x).numpy(), rtol=1e-4, atol=1e-5)


def test_module_needs_example_inputs():
    with pytest.raises(ValueError, match="needs example_inputs"):
        nki.compile(torch.nn.ReLU())


def test_resnet18_in_one_call():
    """The issue's acceptance: a torchvision ResNet-18 from torch.nn.Module
    to simulated outputs in one call, matching torch."""
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None, num_classes=1000)
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    result = nki.torch.compare(model, (x,), rtol=1e-3, atol=1e-3)
    assert result.matches, str(result)
    assert result.rel_l2_error[0] < 1e-4
    print(result)
