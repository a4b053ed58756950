"""jax.numpy.linalg: cholesky solve inv det slogdet triangular_solve qr eigh svd norm (Note [Linear algebra ops]).

Inputs are seeded and well conditioned (a random matrix times its transpose plus n on the
diagonal) unless a case is about a singular or empty one. Eigenvectors and singular vectors are
unique only up to sign, so those cases compare sign-free values: the reconstruction and the
absolute values of the vectors.
"""
import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from case import Case


def eighths(x):
    """x rounded to multiples of 1/8: products and sums of a few such numbers are exact, so the
    inputs made from them are the same bits whichever BLAS kernel numpy's matmul runs on this CPU."""
    return np.round(x * 8) / 8


def spd(r, batch, n, dtype=np.float32):
    """Symmetric positive definite matrices with a spread of eigenvalues."""
    m = eighths(r.standard_normal(batch + (n, n)))
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(dtype)


def general(r, shape, dtype=np.float32):
    """Random matrices, shifted towards the identity so they are far from singular."""
    n = shape[-1]
    return (r.standard_normal(shape) + 2 * np.eye(shape[-2], n)).astype(dtype)


def hpd(r, batch, n, dtype=np.complex64):
    """Hermitian positive definite complex matrices: m m^H plus n on the diagonal."""
    m = eighths(r.standard_normal(batch + (n, n))) + 1j * eighths(r.standard_normal(batch + (n, n)))
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)).astype(dtype)


def cgeneral(r, shape, dtype=np.complex64):
    """Random complex matrices shifted towards the identity."""
    n = shape[-1]
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape) + 2 * np.eye(shape[-2], n)).astype(dtype)


def cvec(r, shape, dtype=np.complex64):
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)


def lower(r, shape, dtype=np.float32):
    return np.tril(general(r, shape, dtype))


def singular(r, n, dtype=np.float32):
    m = general(r, (n, n), dtype)
    m[-1] = m[0] + m[1]  # dependent rows: det 0 up to rounding, exactly 0 after these ones
    return np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], dtype=dtype) if n == 3 else m


CASES = [
    Case("cholesky_f32", "fn cholesky_f32(a) = cholesky(a)", jnp.linalg.cholesky, lambda r: [spd(r, (), 5)], rtol=1e-4, atol=1e-5),
    Case("cholesky_batched_f64", "fn cholesky_batched_f64(a) = cholesky(a)", jnp.linalg.cholesky,
         lambda r: [spd(r, (3, 2), 6, np.float64)], rtol=1e-10, atol=1e-12, x64=True),
    # Not positive definite: JAX gives NaNs, so does scn.
    Case("cholesky_not_pd", "fn cholesky_not_pd(a) = cholesky(a)", jnp.linalg.cholesky,
         lambda r: [np.array([[1, 2], [2, 1]], np.float32)]),
    Case("cholesky_empty", "fn cholesky_empty(a) = cholesky(a)", jnp.linalg.cholesky,
         lambda r: [np.zeros((2, 0, 0), np.float32)]),
    Case("solve_vector", "fn solve_vector(a, b) = solve(a, b)", jnp.linalg.solve,
         lambda r: [general(r, (4, 4)), r.standard_normal(4).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("solve_matrix_f64", "fn solve_matrix_f64(a, b) = solve(a, b)", jnp.linalg.solve,
         lambda r: [general(r, (2, 5, 5), np.float64), r.standard_normal((2, 5, 3))], rtol=1e-10, atol=1e-12, x64=True),
    Case("solve_broadcast", "fn solve_broadcast(a, b) = solve(a, b)", jnp.linalg.solve,
         lambda r: [general(r, (3, 3)), r.standard_normal((2, 3, 2)).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("inv_f32", "fn inv_f32(a) = inv(a)", jnp.linalg.inv, lambda r: [general(r, (2, 4, 4))], rtol=1e-4, atol=1e-5),
    Case("det_f32", "fn det_f32(a) = det(a)", jnp.linalg.det, lambda r: [general(r, (3, 4, 4))], rtol=1e-4),
    Case("det_f64", "fn det_f64(a) = det(a)", jnp.linalg.det, lambda r: [general(r, (6, 6), np.float64)], rtol=1e-10, x64=True),
    Case("det_singular", "fn det_singular(a) = det(a)", jnp.linalg.det, lambda r: [singular(r, 3)], atol=1e-6),
    Case("det_empty", "fn det_empty(a) = det(a)", jnp.linalg.det, lambda r: [np.zeros((0, 0), np.float32)]),
    Case("slogdet_f32", "fn slogdet_f32(a) = slogdet(a)", lambda a: tuple(jnp.linalg.slogdet(a)),
         lambda r: [general(r, (3, 5, 5))], rtol=1e-4, atol=1e-5),
    Case("slogdet_singular", "fn slogdet_singular(a) = slogdet(a)", lambda a: tuple(jnp.linalg.slogdet(a)),
         lambda r: [singular(r, 3)]),
    Case("triangular_lower", "fn triangular_lower(a, b) = triangular_solve(a, b, lower=true)",
         lambda a, b: jsl.solve_triangular(a, b, lower=True),
         lambda r: [lower(r, (4, 4)), r.standard_normal((4, 3)).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("triangular_upper_trans", "fn triangular_upper_trans(a, b) = triangular_solve(a, b, trans=1)",
         lambda a, b: jsl.solve_triangular(a, b, trans=1),
         lambda r: [np.triu(general(r, (2, 4, 4))), r.standard_normal((2, 4, 2)).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("triangular_unit_vector", "fn triangular_unit_vector(a, b) = triangular_solve(a, b, lower=true, unit_diagonal=true)",
         lambda a, b: jsl.solve_triangular(a, b, lower=True, unit_diagonal=True),
         lambda r: [lower(r, (5, 5)), r.standard_normal(5).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("qr_reduced", "fn qr_reduced(a) = qr(a)", lambda a: tuple(jnp.linalg.qr(a)),
         lambda r: [general(r, (2, 5, 3))], rtol=1e-4, atol=1e-5),
    Case("qr_complete_f64", "fn qr_complete_f64(a) = qr(a, mode=\"complete\")", lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
         lambda r: [general(r, (4, 3), np.float64)], rtol=1e-10, atol=1e-12, x64=True),
    Case("qr_r_wide", "fn qr_r_wide(a) = qr(a, mode=\"r\")", lambda a: jnp.linalg.qr(a, mode="r"),
         lambda r: [general(r, (3, 5))], rtol=1e-4, atol=1e-5),
    Case("eigh_values_and_vectors", "fn eigh_values_and_vectors(a) = { let (w, v) = eigh(a); (w, abs(v), (v * w[None, :]) @ transpose(v)) }",
         lambda a: (lambda w, v: (w, jnp.abs(v), (v * w[None, :]) @ v.T))(*jnp.linalg.eigh(a)),
         lambda r: [spd(r, (), 5)], rtol=1e-4, atol=1e-4),
    Case("eigh_batched_f64", "fn eigh_batched_f64(a) = eigh(a)[0]", lambda a: jnp.linalg.eigh(a)[0],
         lambda r: [spd(r, (3,), 4, np.float64)], rtol=1e-10, atol=1e-12, x64=True),
    Case("svd_values", "fn svd_values(a) = svd(a, compute_uv=false)", lambda a: jnp.linalg.svd(a, compute_uv=False),
         lambda r: [general(r, (2, 6, 4))], rtol=1e-4, atol=1e-5),
    Case("svd_reduced", "fn svd_reduced(a) = { let (u, s, vt) = svd(a, full_matrices=false); (s, abs(u), abs(vt), (u * s[None, :]) @ vt) }",
         lambda a: (lambda u, s, vt: (s, jnp.abs(u), jnp.abs(vt), (u * s[None, :]) @ vt))(*jnp.linalg.svd(a, full_matrices=False)),
         lambda r: [general(r, (3, 5))], rtol=1e-4, atol=1e-4),
    Case("norm_2_and_nuc", "fn norm_2_and_nuc(a) = (norm(a, 2), norm(a, -2), norm(a, \"nuc\"))",
         lambda a: (jnp.linalg.norm(a, 2), jnp.linalg.norm(a, -2), jnp.linalg.norm(a, "nuc")),
         lambda r: [general(r, (4, 3))], rtol=1e-4),
    Case("vmap_solve", "fn vmap_solve(a, b) = vmap(solve, in_axes=(0, 1))(a, b)",
         lambda a, b: jax.vmap(jnp.linalg.solve, in_axes=(0, 1))(a, b),
         lambda r: [general(r, (3, 4, 4)), r.standard_normal((4, 3)).astype(np.float32)], rtol=1e-4, atol=1e-5),
    # complex matrices (session 16): cholesky of (a + a^H) / 2, the three trans= forms, lu-based
    # solve / inv / det / slogdet (complex sign, real log|det|), qr (LAPACK's real diagonal of r),
    # eigh and svd (their vectors compared through abs and the reconstruction: the phases are not
    # unique), batched, under vmap, c64 and c128
    Case("c_cholesky", "fn c_cholesky(a) = cholesky(a)", jnp.linalg.cholesky, lambda r: [hpd(r, (2,), 4)], rtol=1e-4, atol=1e-5),
    Case("c_cholesky_f64", "fn c_cholesky_f64(a) = cholesky(a)", jnp.linalg.cholesky,
         lambda r: [hpd(r, (), 5, np.complex128)], rtol=1e-12, atol=1e-13, x64=True),
    Case("c_cholesky_not_pd", "fn c_cholesky_not_pd(a) = cholesky(a)", jnp.linalg.cholesky,
         lambda r: [np.array([[1, 2j], [-2j, 1]], np.complex64)]),
    Case("c_triangular", "fn c_triangular(a, b) = (triangular_solve(a, b, lower=true), triangular_solve(a, b, lower=true, trans=1), triangular_solve(a, b, lower=true, trans=\"C\"))",
         lambda a, b: (jsl.solve_triangular(a, b, lower=True), jsl.solve_triangular(a, b, lower=True, trans=1),
                       jsl.solve_triangular(a, b, lower=True, trans="C")),
         lambda r: [np.tril(cgeneral(r, (4, 4))), cvec(r, (4, 2))], rtol=1e-4, atol=1e-5),
    Case("c_solve", "fn c_solve(a, b, v) = (solve(a, b), solve(a, v))", lambda a, b, v: (jnp.linalg.solve(a, b), jnp.linalg.solve(a, v)),
         lambda r: [cgeneral(r, (2, 4, 4)), cvec(r, (2, 4, 3)), cvec(r, (4,))], rtol=1e-4, atol=1e-5),
    Case("c_solve_f64", "fn c_solve_f64(a, b) = solve(a, b)", jnp.linalg.solve,
         lambda r: [cgeneral(r, (5, 5), np.complex128), cvec(r, (5, 2), np.complex128)], rtol=1e-11, atol=1e-12, x64=True),
    Case("c_solve_real_b", "fn c_solve_real_b(a, b) = solve(a, b)", jnp.linalg.solve,
         lambda r: [cgeneral(r, (3, 3)), r.standard_normal((3,)).astype(np.float32)], rtol=1e-4, atol=1e-5),
    Case("c_inv", "fn c_inv(a) = inv(a)", jnp.linalg.inv, lambda r: [cgeneral(r, (2, 4, 4))], rtol=1e-4, atol=1e-5),
    Case("c_det_slogdet", "fn c_det_slogdet(a) = { let (sign, logdet) = slogdet(a); (det(a), sign, logdet) }", lambda a: (jnp.linalg.det(a), *jnp.linalg.slogdet(a)),
         lambda r: [cgeneral(r, (3, 4, 4))], rtol=1e-4, atol=1e-5),
    Case("c_det_f64", "fn c_det_f64(a) = { let (sign, logdet) = slogdet(a); (det(a), sign, logdet) }", lambda a: (jnp.linalg.det(a), *jnp.linalg.slogdet(a)),
         lambda r: [cgeneral(r, (6, 6), np.complex128)], rtol=1e-11, x64=True),
    Case("c_slogdet_singular", "fn c_slogdet_singular(a) = slogdet(a)", lambda a: tuple(jnp.linalg.slogdet(a)),
         lambda r: [np.array([[1 + 1j, 2 + 2j], [2, 4]], np.complex64)]),
    Case("c_qr", "fn c_qr(a) = qr(a)", lambda a: tuple(jnp.linalg.qr(a)), lambda r: [cgeneral(r, (2, 5, 3))], rtol=1e-4, atol=1e-5),
    Case("c_qr_complete_wide", "fn c_qr_complete_wide(a) = qr(a, mode=\"complete\")", lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
         lambda r: [cgeneral(r, (3, 4), np.complex128)], rtol=1e-11, atol=1e-12, x64=True),
    Case("c_eigh", "fn c_eigh(a) = { let (w, v) = eigh(a); (w, abs(v), (v * w[None, :]) @ conj(transpose(v))) }",
         lambda a: (lambda w, v: (w, jnp.abs(v), (v * w[None, :]) @ jnp.conj(v.T)))(*jnp.linalg.eigh(a)),
         lambda r: [hpd(r, (), 5)], rtol=1e-4, atol=1e-4),
    Case("c_eigh_f64", "fn c_eigh_f64(a) = { let (w, v) = eigh(a); (w, abs(v)) }",
         lambda a: (lambda w, v: (w, jnp.abs(v)))(*jnp.linalg.eigh(a)),
         lambda r: [hpd(r, (2,), 4, np.complex128)], rtol=1e-10, atol=1e-11, x64=True),
    Case("c_svd", "fn c_svd(a) = { let (u, s, vt) = svd(a, full_matrices=false); (s, abs(u), abs(vt), (u * s[None, :]) @ vt) }",
         lambda a: (lambda u, s, vt: (s, jnp.abs(u), jnp.abs(vt), (u * s[None, :]) @ vt))(*jnp.linalg.svd(a, full_matrices=False)),
         lambda r: [cgeneral(r, (5, 3))], rtol=1e-4, atol=1e-4),
    Case("c_svd_wide_values", "fn c_svd_wide_values(a) = (svd(a, compute_uv=false), norm(a, 2), norm(a, \"nuc\"))",
         lambda a: (jnp.linalg.svd(a, compute_uv=False), jnp.linalg.norm(a, 2), jnp.linalg.norm(a, "nuc")),
         lambda r: [cgeneral(r, (3, 5), np.complex128)], rtol=1e-11, x64=True),
    # pinv, matrix_rank, eigvalsh (session 16): tall, wide, rank-deficient, complex, batched, empty
    Case("pinv_tall_wide", "fn pinv_tall_wide(a, b) = (pinv(a), pinv(b), linalg.pinv(a, rtol=0.5))",
         lambda a, b: (jnp.linalg.pinv(a), jnp.linalg.pinv(b), jnp.linalg.pinv(a, rtol=0.5)),
         lambda r: [general(r, (2, 5, 3)), general(r, (3, 4))], rtol=1e-4, atol=1e-5),
    Case("pinv_batched_rtol", "fn pinv_batched_rtol(a, t) = pinv(a, rtol=t)", lambda a, t: jnp.linalg.pinv(a, rtol=t),
         lambda r: [np.array([[[1, 2], [2, 4.001]], [[1, 0], [0, 1e-3]]], np.float32), np.array([1e-2, 1e-5], np.float32)],
         rtol=1e-4, atol=1e-4),
    Case("pinv_deficient_f64", "fn pinv_deficient_f64(a) = pinv(a)", jnp.linalg.pinv,
         lambda r: [np.outer(r.standard_normal(4), r.standard_normal(3))], rtol=1e-9, atol=1e-12, x64=True),
    Case("pinv_complex", "fn pinv_complex(a) = pinv(a)", jnp.linalg.pinv, lambda r: [cgeneral(r, (4, 3))], rtol=1e-4, atol=1e-5),
    Case("pinv_empty", "fn pinv_empty(a) = pinv(a)", jnp.linalg.pinv, lambda r: [np.zeros((0, 3), np.float32)]),
    Case("rank_cases", "fn rank_cases(a, d, v) = (linalg.matrix_rank(a), matrix_rank(d), matrix_rank(v), matrix_rank(d, rtol=0.5))",
         lambda a, d, v: (jnp.linalg.matrix_rank(a), jnp.linalg.matrix_rank(d), jnp.linalg.matrix_rank(v), jnp.linalg.matrix_rank(d, rtol=0.5)),
         lambda r: [general(r, (2, 4, 4)), np.outer(r.standard_normal(5), r.standard_normal(4)).astype(np.float32),
                    np.zeros(3, np.float32)]),
    Case("eigvalsh_cases", "fn eigvalsh_cases(a, h) = (linalg.eigvalsh(a), eigvalsh(h))", lambda a, h: (jnp.linalg.eigvalsh(a), jnp.linalg.eigvalsh(h)),
         lambda r: [spd(r, (2,), 4), hpd(r, (), 3)], rtol=1e-4, atol=1e-4),
    Case("lstsq_cases", "fn lstsq_cases(a, b, d, w) = (lstsq(a, b), linalg.lstsq(d, b[:, 0]), lstsq(w, b[:2]), lstsq(a, b, rcond=0.5))",
         lambda a, b, d, w: (*jnp.linalg.lstsq(a, b), *jnp.linalg.lstsq(d, b[:, 0]), *jnp.linalg.lstsq(w, b[:2]), *jnp.linalg.lstsq(a, b, rcond=0.5)),
         lambda r: [general(r, (5, 3)), r.standard_normal((5, 2)).astype(np.float32),
                    np.outer(r.standard_normal(5), r.standard_normal(3)).astype(np.float32), general(r, (2, 4))],
         rtol=1e-4, atol=1e-4),
    Case("lstsq_complex", "fn lstsq_complex(a, b) = lstsq(a, b)", lambda a, b: tuple(jnp.linalg.lstsq(a, b)),
         lambda r: [cgeneral(r, (4, 3)), cvec(r, (4,))], rtol=1e-4, atol=1e-4),
    Case("c_vmap_det", "fn c_vmap_det(a) = vmap(det)(a)", jax.vmap(jnp.linalg.det), lambda r: [cgeneral(r, (3, 3, 3))], rtol=1e-4, atol=1e-5),
]
