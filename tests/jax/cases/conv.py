"""Convolutions and window reductions: lax.conv_general_dilated (strides, padding strings and pairs, negative padding,
input and kernel dilation, layouts, feature and batch groups), lax.conv, lax.conv_with_general_padding,
lax.conv_transpose, jnp.convolve / jnp.correlate, lax.reduce_window (max and average pooling, a
moving sum, a user's function), and their derivatives and vmap (Note [Convolutions], Note [Window
reductions])."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from case import Case, floats


def normal(r, shape, dtype=np.float32):
    return floats(r, shape, dtype=dtype, special=False)


def cnn_loss(w1, w2, x):
    """A two-layer NHWC conv net's loss: conv, relu, strided conv, mean of squares."""
    dn = ("NHWC", "HWIO", "NHWC")
    h = jax.nn.relu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
    y = lax.conv_general_dilated(h, w2, (2, 2), "VALID", dimension_numbers=dn)
    return jnp.mean(y * y)


CNN_LOSS = ('|w1, w2| {\n'
            '  let dn = ("NHWC", "HWIO", "NHWC")\n'
            '  let h = relu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))\n'
            '  let y = lax.conv_general_dilated(h, w2, (2, 2), "VALID", dimension_numbers=dn)\n'
            '  mean(y * y)\n'
            '}')

CASES = [
    Case("conv_valid", 'fn conv_valid(x, w) = lax.conv(x, w, (1, 1), "VALID")',
         lambda x, w: lax.conv(x, w, (1, 1), "VALID"),
         lambda r: [normal(r, (2, 3, 7, 6)), normal(r, (4, 3, 3, 2))], rtol=1e-5, atol=1e-5),
    Case("conv_same_strided", 'fn conv_same_strided(x, w) = lax.conv(x, w, (2, 3), "SAME")',
         lambda x, w: lax.conv(x, w, (2, 3), "SAME"),
         lambda r: [normal(r, (2, 3, 9, 8)), normal(r, (5, 3, 4, 3))], rtol=1e-5, atol=1e-5),
    Case("conv_same_lower", 'fn conv_same_lower(x, w) = lax.conv_general_dilated(x, w, (2,), "SAME_LOWER")',
         lambda x, w: lax.conv_general_dilated(x, w, (2,), "SAME_LOWER"),
         lambda r: [normal(r, (3, 2, 10)), normal(r, (4, 2, 4))], rtol=1e-5, atol=1e-5),
    Case("conv_pads_and_dilations",
         'fn conv_pads_and_dilations(x, w) = lax.conv_general_dilated(x, w, (1, 2), ((2, 1), (1, -1)), '
         'lhs_dilation=(2, 1), rhs_dilation=(1, 2))',
         lambda x, w: lax.conv_general_dilated(x, w, (1, 2), ((2, 1), (1, -1)), lhs_dilation=(2, 1), rhs_dilation=(1, 2)),
         lambda r: [normal(r, (2, 3, 5, 9)), normal(r, (2, 3, 3, 2))], rtol=1e-5, atol=1e-5),
    Case("conv_nhwc_f64",
         'fn conv_nhwc_f64(x, w) = lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))',
         lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
         lambda r: [normal(r, (2, 6, 5, 3), np.float64), normal(r, (3, 3, 3, 4), np.float64)], rtol=1e-12, atol=1e-12, x64=True),
    Case("conv_mixed_layouts",
         'fn conv_mixed_layouts(x, w) = lax.conv_general_dilated(x, w, (2, 1), "VALID", dimension_numbers=("CWNH", "IHOW", "HNCW"))',
         lambda x, w: lax.conv_general_dilated(x, w, (2, 1), "VALID", dimension_numbers=("CWNH", "IHOW", "HNCW")),
         lambda r: [normal(r, (3, 6, 2, 7)), normal(r, (3, 3, 4, 2))], rtol=1e-5, atol=1e-5),
    Case("conv_feature_groups",
         'fn conv_feature_groups(x, w) = lax.conv_general_dilated(x, w, (1,), ((1, 1),), feature_group_count=3)',
         lambda x, w: lax.conv_general_dilated(x, w, (1,), ((1, 1),), feature_group_count=3),
         lambda r: [normal(r, (2, 6, 8)), normal(r, (9, 2, 3))], rtol=1e-5, atol=1e-5),
    Case("conv_depthwise_nhwc",
         'fn conv_depthwise_nhwc(x, w) = lax.conv_general_dilated(x, w, (1, 1), "SAME", '
         'dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=4)',
         lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                               feature_group_count=4),
         lambda r: [normal(r, (2, 5, 5, 4)), normal(r, (3, 3, 1, 8))], rtol=1e-5, atol=1e-5),
    Case("conv_batch_groups",
         'fn conv_batch_groups(x, w) = lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2)',
         lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2),
         lambda r: [normal(r, (4, 3, 5, 5)), normal(r, (6, 3, 2, 2))], rtol=1e-5, atol=1e-5),
    Case("conv_int32", 'fn conv_int32(x, w) = lax.conv(x, w, (1,), "SAME")',
         lambda x, w: lax.conv(x, w, (1,), "SAME"),
         lambda r: [r.integers(-5, 5, (2, 2, 7)).astype(np.int32), r.integers(-3, 3, (3, 2, 3)).astype(np.int32)]),
    Case("conv_with_general_padding",
         'fn conv_with_general_padding(x, w) = lax.conv_with_general_padding(x, w, (1, 1), ((1, 2), (0, 1)), (1, 2), (2, 1))',
         lambda x, w: lax.conv_with_general_padding(x, w, (1, 1), ((1, 2), (0, 1)), (1, 2), (2, 1)),
         lambda r: [normal(r, (1, 2, 6, 5)), normal(r, (3, 2, 2, 3))], rtol=1e-5, atol=1e-5),
    Case("conv_transpose_same", 'fn conv_transpose_same(x, w) = lax.conv_transpose(x, w, (2, 2), "SAME")',
         lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME"),
         lambda r: [normal(r, (2, 4, 5, 3)), normal(r, (3, 3, 3, 2))], rtol=1e-5, atol=1e-5),
    Case("conv_transpose_valid_kernel",
         'fn conv_transpose_valid_kernel(x, w) = lax.conv_transpose(x, w, (3,), "VALID", transpose_kernel=true)',
         lambda x, w: lax.conv_transpose(x, w, (3,), "VALID", transpose_kernel=True),
         lambda r: [normal(r, (2, 5, 3)), normal(r, (4, 2, 3))], rtol=1e-5, atol=1e-5),
    Case("conv_transpose_pairs",
         'fn conv_transpose_pairs(x, w) = lax.conv_transpose(x, w, (2, 1), ((1, 0), (2, 2)), rhs_dilation=(1, 2), '
         'dimension_numbers=("NCHW", "OIHW", "NCHW"))',
         lambda x, w: lax.conv_transpose(x, w, (2, 1), ((1, 0), (2, 2)), rhs_dilation=(1, 2),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW")),
         lambda r: [normal(r, (1, 2, 4, 4)), normal(r, (3, 2, 3, 2))], rtol=1e-5, atol=1e-5),
    Case("convolve_modes",
         'fn convolve_modes(a, v) = (convolve(a, v), convolve(a, v, mode="same"), convolve(a, v, mode="valid"), convolve(v, a))',
         lambda a, v: (jnp.convolve(a, v), jnp.convolve(a, v, mode="same"), jnp.convolve(a, v, mode="valid"), jnp.convolve(v, a)),
         lambda r: [normal(r, (11,)), normal(r, (4,))], rtol=1e-5, atol=1e-5),
    Case("correlate_modes",
         'fn correlate_modes(a, v) = (correlate(a, v), correlate(a, v, mode="same"), correlate(a, v, mode="full"), correlate(v, a, mode="full"))',
         lambda a, v: (jnp.correlate(a, v), jnp.correlate(a, v, mode="same"), jnp.correlate(a, v, mode="full"),
                       jnp.correlate(v, a, mode="full")),
         lambda r: [normal(r, (9,)), normal(r, (4,))], rtol=1e-5, atol=1e-5),
    Case("correlate_complex", 'fn correlate_complex(a, v) = correlate(a, v, mode="full")',
         lambda a, v: jnp.correlate(a, v, mode="full"),
         lambda r: [(normal(r, (6,)) + 1j * normal(r, (6,))).astype(np.complex64),
                    (normal(r, (3,)) + 1j * normal(r, (3,))).astype(np.complex64)], rtol=1e-5, atol=1e-5),
    Case("convolve_ints_long_filter", 'fn convolve_ints_long_filter(a, v) = convolve(a, v, mode="same")',
         lambda a, v: jnp.convolve(a, v, mode="same"),  # 80 taps: the gathered patches
         lambda r: [r.integers(-4, 4, (120,)).astype(np.int32), r.integers(-2, 3, (80,)).astype(np.int32)], rtol=1e-6),
    Case("conv_grad", "fn conv_grad(w1, w2, x) = grad(" + CNN_LOSS + ", argnums=(0, 1))(w1, w2)",
         lambda w1, w2, x: jax.grad(cnn_loss, argnums=(0, 1))(w1, w2, x),
         lambda r: [normal(r, (3, 3, 2, 4)) * 0.5, normal(r, (2, 2, 4, 3)) * 0.5, normal(r, (2, 6, 6, 2))], rtol=1e-4, atol=1e-5),
    Case("conv_input_grad", 'fn conv_input_grad(x, w) = grad(|a| sum(sin(lax.conv(a, w, (2, 1), ((1, 2), (0, 1))))))(x)',
         lambda x, w: jax.grad(lambda a: jnp.sum(jnp.sin(lax.conv(a, w, (2, 1), ((1, 2), (0, 1))))))(x),
         lambda r: [normal(r, (2, 2, 6, 5)), normal(r, (3, 2, 3, 2))], rtol=1e-4, atol=1e-5),
    Case("conv_vmap", 'fn conv_vmap(x, w) = vmap(|a, b| lax.conv(a, b, (1,), "SAME"), in_axes=(0, 2))(x, w)',
         lambda x, w: jax.vmap(lambda a, b: lax.conv(a, b, (1,), "SAME"), in_axes=(0, 2))(x, w),
         lambda r: [normal(r, (3, 2, 2, 7)), normal(r, (4, 2, 3, 3))], rtol=1e-5, atol=1e-5),
    Case("max_pool", 'fn max_pool(x) = lax.reduce_window(x, -inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")',
         lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
         lambda r: [normal(r, (2, 6, 5, 3))]),
    Case("max_pool_same_grad",
         'fn max_pool_same_grad(x) = grad(|a| sum(lax.reduce_window(relu(a), -inf, lax.max, (3, 3), (2, 2), "SAME") ** 2))(x)',
         lambda x: jax.grad(lambda a: jnp.sum(lax.reduce_window(jax.nn.relu(a), -jnp.inf, lax.max, (3, 3), (2, 2), "SAME") ** 2))(x),
         lambda r: [normal(r, (7, 6))], rtol=1e-6),  # relu's zeros tie in windows: the first one takes the cotangent
    Case("min_pool_ties_grad",
         'fn min_pool_ties_grad(x) = grad(|a| sum(lax.reduce_window(round(a), inf, lax.min, (2, 3), (1, 1), "VALID") * [1.0, 2.0, 3.0]))(x)',
         lambda x: jax.grad(lambda a: jnp.sum(lax.reduce_window(jnp.round(a), jnp.inf, lax.min, (2, 3), (1, 1), "VALID")
                                             * jnp.array([1.0, 2.0, 3.0])))(x),
         lambda r: [normal(r, (4, 5))]),
    Case("avg_pool", 'fn avg_pool(x) = lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 1))) / 9.0',
         lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 1))) / 9.0,
         lambda r: [normal(r, (2, 3, 7, 8))], rtol=1e-5, atol=1e-6),
    Case("avg_pool_grad",
         'fn avg_pool_grad(x) = grad(|a| sum(sin(lax.reduce_window(a, 0.0, lax.add, (2, 2), (2, 1), "SAME"))))(x)',
         lambda x: jax.grad(lambda a: jnp.sum(jnp.sin(lax.reduce_window(a, 0.0, lax.add, (2, 2), (2, 1), "SAME"))))(x),
         lambda r: [normal(r, (5, 6))], rtol=1e-5, atol=1e-6),
    Case("moving_sum_dilated",
         'fn moving_sum_dilated(x) = lax.reduce_window(x, 0, lax.add, (3,), (2,), ((2, 1),), base_dilation=(2,), window_dilation=(2,))',
         lambda x: lax.reduce_window(x, 0, lax.add, (3,), (2,), ((2, 1),), base_dilation=(2,), window_dilation=(2,)),
         lambda r: [r.integers(-9, 9, (11,)).astype(np.int32)]),
    Case("reduce_window_user_fn",
         'fn reduce_window_user_fn(x) = lax.reduce_window(x, 1.0, |a, b| a * b + 0.5, (2, 2), (1, 1), "VALID")',
         lambda x: lax.reduce_window(x, 1.0, lambda a, b: a * b + 0.5, (2, 2), (1, 1), "VALID"),
         lambda r: [normal(r, (4, 4))], rtol=1e-5, atol=1e-6),
    Case("max_pool_vmap",
         'fn max_pool_vmap(x) = vmap(|a| lax.reduce_window(a, -inf, lax.max, (2, 2), (2, 2), "SAME"), in_axes=1)(x)',
         lambda x: jax.vmap(lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (2, 2), (2, 2), "SAME"), in_axes=1)(x),
         lambda r: [normal(r, (5, 3, 5))]),
]
