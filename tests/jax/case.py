"""The record of one JAX parity case and input generators (tests/jax/README.md)."""
import dataclasses
from typing import Callable, List

import numpy as np


@dataclasses.dataclass
class Case:
    name: str                 # the scn function's name, unique within its topic
    scn: str                  # scn source defining `fn <name>(...)`
    jax: Callable             # the JAX function of the same inputs
    inputs: Callable          # numpy.random.Generator -> list of numpy arrays
    rtol: float = 1e-6
    atol: float = 0.0
    x64: bool = False         # run JAX with jax_enable_x64 (f64 / i64 inputs)


def floats(rng: np.random.Generator, shape, dtype=np.float32, special=True, scale=1.0) -> np.ndarray:
    """Normal draws times `scale`; with `special`, some elements replaced by NaN, ±inf, ±0.0."""
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    if special and x.size >= 8:
        flat = x.reshape(-1)
        picks = rng.choice(flat.size, size=6, replace=False)
        flat[picks] = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], dtype=dtype)
    return x


def ints(rng: np.random.Generator, shape, low=-10, high=10, dtype=np.int32, extremes=False) -> np.ndarray:
    """Uniform integers in [low, high); with `extremes`, the dtype's min and max mixed in."""
    x = rng.integers(low, high, size=shape).astype(dtype)
    if extremes and x.size >= 4:
        info = np.iinfo(dtype)
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, size=2, replace=False)] = [info.min, info.max]
    return x


def flatten_outputs(out) -> List[np.ndarray]:
    """A JAX result (an array or a tuple of them) as a list of NumPy arrays."""
    if isinstance(out, (tuple, list)):
        return [np.asarray(o) for o in out]
    return [np.asarray(out)]
