"""Contractions: einsum tensordot inner vdot kron (Note [Einsum] in lang/builtins_contract.cpp)."""
import jax.numpy as jnp
import numpy as np

from case import Case, ints


def f(r, *shape):
    return r.standard_normal(shape).astype(np.float32)


def einsum_case(name, spec, shapes, rtol=1e-5, atol=1e-5):
    scn_args = ", ".join(f"x{i}" for i in range(len(shapes)))
    return Case(name, f'fn {name}({scn_args}) = einsum("{spec}", {scn_args})',
                lambda *xs: jnp.einsum(spec, *xs), lambda r: [f(r, *s) for s in shapes], rtol=rtol, atol=atol)


CASES = [
    einsum_case("einsum_matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
    einsum_case("einsum_implicit", "ij,jk", [(3, 4), (4, 2)]),
    einsum_case("einsum_batched_attention", "bqd,bkd->bqk", [(2, 5, 8), (2, 6, 8)]),
    einsum_case("einsum_trace", "ii", [(4, 4)]),
    einsum_case("einsum_diagonal", "ii->i", [(4, 4)]),
    einsum_case("einsum_sum_one_operand", "ijk->j", [(2, 3, 4)]),
    einsum_case("einsum_transpose", "ijk->kij", [(2, 3, 4)]),
    einsum_case("einsum_outer", "i,j->ij", [(3,), (4,)]),
    einsum_case("einsum_ellipsis", "...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    einsum_case("einsum_ellipsis_broadcast", "...ij,jk->...ik", [(2, 2, 3, 4), (4, 5)]),
    einsum_case("einsum_three_chain", "ij,jk,k->i", [(5, 6), (6, 7), (7,)]),
    einsum_case("einsum_four", "ab,bc,cd,da->", [(3, 4), (4, 5), (5, 6), (6, 3)], rtol=1e-4, atol=1e-4),
    einsum_case("einsum_repeated_across", "iij,jk->ik", [(3, 3, 4), (4, 2)]),
    einsum_case("einsum_scalar_like", "i,i->", [(6,), (6,)]),
    Case("einsum_int", 'fn einsum_int(a, b) = einsum("ij,j->i", a, b)', lambda a, b: jnp.einsum("ij,j->i", a, b),
         lambda r: [ints(r, (3, 4)), ints(r, (4,))]),
    Case("tensordot_default", "fn tensordot_default(a, b) = tensordot(a, b)", lambda a, b: jnp.tensordot(a, b),
         lambda r: [f(r, 2, 3, 4), f(r, 3, 4, 5)], rtol=1e-5, atol=1e-5),
    Case("tensordot_pairs", "fn tensordot_pairs(a, b) = tensordot(a, b, axes=((0, 2), (1, 0)))",
         lambda a, b: jnp.tensordot(a, b, axes=((0, 2), (1, 0))), lambda r: [f(r, 2, 3, 4), f(r, 4, 2, 5)], rtol=1e-5, atol=1e-5),
    Case("tensordot_zero", "fn tensordot_zero(a, b) = tensordot(a, b, axes=0)", lambda a, b: jnp.tensordot(a, b, axes=0),
         lambda r: [f(r, 2, 3), f(r, 4)]),
    Case("inner_nd", "fn inner_nd(a, b) = inner(a, b)", lambda a, b: jnp.inner(a, b), lambda r: [f(r, 2, 3), f(r, 4, 3)],
         rtol=1e-5, atol=1e-5),
    Case("vdot_flat", "fn vdot_flat(a, b) = vdot(a, b)", lambda a, b: jnp.vdot(a, b), lambda r: [f(r, 2, 3), f(r, 3, 2)],
         rtol=1e-5, atol=1e-5),
    Case("kron_mixed_rank", "fn kron_mixed_rank(a, b) = kron(a, b)", lambda a, b: jnp.kron(a, b),
         lambda r: [f(r, 2, 3), f(r, 2)]),
    Case("kron_int", "fn kron_int(a, b) = kron(a, b)", lambda a, b: jnp.kron(a, b), lambda r: [ints(r, (2, 2)), ints(r, (3, 2))]),
]
