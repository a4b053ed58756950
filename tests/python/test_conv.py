# A convolution layer called from Python: lax.conv_general_dilated with NumPy arrays in and out,
# against a direct NumPy convolution, and its gradient against central differences.
import numpy as np

import scn

LAYER = """
fn layer(x, w) = relu(lax.conv_general_dilated(x, w, (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
fn layer_loss(x, w) = sum(layer(x, w) ** 2)
fn layer_grad(x, w) = grad(layer_loss, argnums=1)(x, w)
"""


def numpy_layer(x, w, strides):
    """relu of the SAME-padded NHWC convolution, by loops over the output."""
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    out_h, out_w = -(-h // strides[0]), -(-wd // strides[1])
    pad_h = max((out_h - 1) * strides[0] + kh - h, 0)
    pad_w = max((out_w - 1) * strides[1] + kw - wd, 0)
    xp = np.pad(x, ((0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    y = np.zeros((n, out_h, out_w, o))
    for i in range(out_h):
        for j in range(out_w):
            window = xp[:, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw, :]
            y[:, i, j, :] = np.einsum("nhwc,hwco->no", window, w)
    return np.maximum(y, 0)


def test_a_convolution_layer_matches_numpy_and_its_gradient_the_differences(ctx):
    ctx.run(LAYER)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 6, 3))
    w = rng.standard_normal((3, 2, 3, 4))
    y = ctx.layer(x, w)
    assert y.shape == (2, 5, 3, 4) and y.dtype == np.float64
    np.testing.assert_allclose(y, numpy_layer(x, w, (1, 2)), rtol=1e-12, atol=1e-12)
    g = ctx.layer_grad(x, w)
    assert g.shape == w.shape
    for index in [(0, 0, 0, 0), (2, 1, 2, 3), (1, 0, 1, 2)]:
        e = np.zeros_like(w)
        e[index] = 1e-6
        loss = lambda v: np.sum(numpy_layer(x, v, (1, 2)) ** 2)
        numeric = (loss(w + e) - loss(w - e)) / 2e-6
        np.testing.assert_allclose(g[index], numeric, rtol=1e-5)
