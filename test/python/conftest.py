"""Fixtures of the Python package's tests (run by CTest as python.pytest;
by hand: PYTHONPATH=build/python NKI_TOOLS_DIR=build/bin /usr/bin/python3
-m pytest test/python)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def tools_dir() -> pathlib.Path:
    """build/bin, for programs built by nki-sim-example."""
    path = os.environ.get("NKI_TOOLS_DIR")
    assert path, "set NKI_TOOLS_DIR to the build's bin folder"
    return pathlib.Path(path)


@pytest.fixture
def examples_dir() -> pathlib.Path:
    return ROOT / "examples"
