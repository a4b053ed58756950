# Fixtures of the Python package's tests: a context on the CPU JIT (and the interpreter where a
# test runs on both), and the repository's root for the documentation tests.
import os
import pathlib

import pytest

import scn  # noqa: F401 - fails loudly when the package is not built

ROOT = pathlib.Path(os.environ.get("SCN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(params=["cpu", "interp"])
def backend(request):
    return request.param


@pytest.fixture
def ctx():
    return scn.Context(backend="cpu")


@pytest.fixture
def root():
    return ROOT
