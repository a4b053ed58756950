# Calling scn functions from Python: lookup, positional and keyword arguments, Python numbers,
# tuples and None as results, loading files, scn.compile, print() output.
import numpy as np
import pytest

import scn


def test_run_and_call_by_item_and_attribute(backend):
    ctx = scn.Context(backend=backend)
    assert ctx.backend == backend
    ctx.run("fn axpy(a, x, y) = a * x + y")
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, dtype=np.float32)
    out = ctx["axpy"](2.0, x, y)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, [1, 3, 5, 7])
    np.testing.assert_array_equal(ctx.axpy(2.0, x, y), out)
    assert ctx.axpy.name == "axpy" and ctx.axpy.arity == 3


def test_keywords_and_static_parameters(ctx):
    ctx.run("fn gp(static n, x0, a) {\n"
            "  let (_, xs) = scan(|c, _| (a * c, a * c), x0, None, length=n - 1)\n"
            "  concat((x0[None], xs))\n}")
    gp = ctx["gp"]
    assert gp.parameters == [("n", True), ("x0", False), ("a", False)]
    x0, a = np.float64(1.0), np.float64(2.0)
    np.testing.assert_array_equal(gp(5, x0, a), [1, 2, 4, 8, 16])
    np.testing.assert_array_equal(gp(x0=x0, a=a, n=3), [1, 2, 4])
    np.testing.assert_array_equal(gp(x0, a, static_n=3), [1, 2, 4])  # the others in order
    np.testing.assert_array_equal(gp(a=a, x0=x0, static_n=4), [1, 2, 4, 8])
    with pytest.raises(TypeError, match="unexpected keyword argument `m`"):
        gp(x0=x0, a=a, n=3, m=1)
    with pytest.raises(TypeError, match="missing its argument `a`"):
        gp(x0, n=3)
    with pytest.raises(scn.Error, match="takes 3 arguments but 2 were given"):
        gp(3, x0)
    with pytest.raises(TypeError, match="got the parameter `n` twice"):
        gp(x0=x0, a=a, n=3, static_n=3)


def test_parameters_with_defaults_may_be_left_out(ctx):
    ctx.run("fn affine(x, w=2.0, b=0.5) = x * w + b")
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(ctx.affine(x), [2.5, 2.5])
    np.testing.assert_array_equal(ctx.affine(x, 3.0), [3.5, 3.5])
    np.testing.assert_array_equal(ctx.affine(x, b=1.0), [3, 3])  # w omitted: its default
    np.testing.assert_array_equal(ctx.affine(x=x, w=1.0), [1.5, 1.5])
    with pytest.raises(scn.Error, match="takes 1 to 3 arguments but 0 were given"):
        ctx.affine()


def test_python_numbers_are_weak(ctx):
    ctx.run("fn scale(x, k) = x * k\nfn alone(k) = k * 1")
    x32 = np.ones(3, np.float32)
    assert ctx.scale(x32, 2.5).dtype == np.float32  # like `x * 2.5` in scn source
    assert ctx.scale(np.ones(3, np.float64), 2.5).dtype == np.float64
    assert ctx.scale(np.ones(3, np.int64), 3).dtype == np.int64
    assert ctx.alone(3).dtype == np.int32 and ctx.alone(3) == 3  # a weak int alone is i32
    assert ctx.alone(1.5).dtype == np.float32
    assert ctx.alone(True).dtype == np.int32  # a weak int meeting a bool is i32
    # A Python complex is weak too (c64 alone, as `1j` in scn); NumPy scalars are strong,
    # np.float64 included although it subclasses float (JAX: the same dtypes).
    assert ctx.alone(1j).dtype == np.complex64
    assert ctx.scale(x32, 1j).dtype == np.complex64
    assert ctx.alone(np.float64(1.5)).dtype == np.float64
    assert ctx.scale(np.ones(2, np.float16), np.float64(2)).dtype == np.float64


def test_results_tuples_and_scalars(ctx):
    ctx.run("fn pair(x) = (x + 1.0, sum(x))")
    a, s = ctx.pair(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(a, [1, 2, 3])
    assert s.shape == () and s == 3.0 and s.dtype == np.float32


def test_lists_and_numpy_scalars_are_converted(ctx):
    ctx.run("fn total(x) = sum(x)")
    assert ctx.total([1.0, 2.0, 3.5]) == 6.5
    assert ctx.total(np.float32(2.0)) == 2.0


def test_load_file_and_names(ctx, tmp_path):
    path = tmp_path / "model.scn"
    path.write_text("fn double(x) = 2.0 * x\nlet scale = 3.0\n")
    ctx.load(str(path))
    assert "double" in ctx.names() and "scale" in ctx.names()
    np.testing.assert_array_equal(ctx.double(np.ones(2, np.float32)), [2, 2])


def test_compile_one_function():
    f = scn.compile("fn f(x) = x * x", backend="cpu")
    np.testing.assert_array_equal(f(np.arange(3.0)), [0, 1, 4])
    g = scn.compile("fn a(x) = x\nfn b(x) = x + 1", name="b", backend="cpu")
    np.testing.assert_array_equal(g(np.zeros(1)), [1])
    with pytest.raises(ValueError, match="defines 2 functions"):
        scn.compile("fn a(x) = x\nfn b(x) = x + 1")


def test_print_goes_to_sys_stdout(ctx, capsys):
    ctx.run('print("hello from scn")')
    ctx.run("fn show(x) { print(x); x }")
    ctx.show(np.arange(2, dtype=np.int32))
    out = capsys.readouterr().out
    assert out == "hello from scn\ntraced i32[2]\n"  # print in a fn shows the traced value


def test_print_callback():
    lines = []
    ctx = scn.Context(backend="cpu", on_print=lines.append)
    ctx.run('print("to the callback")')
    assert "".join(lines) == "to the callback\n"


def test_stats_say_what_was_compiled(ctx):
    ctx.run("fn inc(x) = x + 1.0")
    x = np.zeros(8, np.float32)
    ctx.inc(x)
    assert ctx.last_stats[0]["compiled"] is True
    ctx.inc(x)
    assert ctx.last_stats[0]["compiled"] is False and ctx.last_stats[0]["function"] == "inc"


def test_grad_memory_budget_keeps_the_gradient(backend):
    # A 40 KB budget checkpoints the 400 KB of carries of this scan's gradient; the values stay.
    program = ("fn g(w) = grad(|a| sum(scan(|c, x| (tanh(c * a + x), 0.0), ones(100), "
               "linspace(-1.0, 1.0, 1000)).0))(w)")
    results = []
    for budget in (None, 40000):
        ctx = scn.Context(backend=backend, grad_memory_budget=budget)
        ctx.run(program)
        results.append(ctx.g(np.float32(0.9)))
    assert results[0] == results[1]


def test_mpi_communicator_must_be_mpi4py():
    # Only an mpi4py.MPI.Comm is a communicator (docs/distributed.md); the MPI runs themselves are
    # tests/distributed/embed_host.py under mpirun.
    for not_a_communicator in (3, "world", object()):
        with pytest.raises(TypeError, match="mpi_communicator must be an mpi4py communicator"):
            scn.Context(backend="cpu", mpi_communicator=not_a_communicator)
    assert scn.Context(backend="cpu", mpi_communicator=None).backend == "cpu"


def test_denormal_results_are_flushed_and_numpy_keeps_its_own(backend):
    # Note [Denormals flushed to zero]: scn flushes while it computes, then restores the mode.
    ctx = scn.Context(backend=backend)
    ctx.run("fn scale(x, s) = x * s")
    out = ctx.scale(np.full(1 << 16, 1e-38, dtype=np.float32), np.float32(0.01))
    assert not out.any()
    assert np.float32(1e-38) * np.float32(0.01) > 0


def test_transformations_bound_by_let_take_host_arrays(ctx):
    # A NumPy array passed to a let-bound grad or vmap that does not transform it was kept by the
    # traced code (E9999); arrays are traced, scalars stay static for a `static` parameter.
    ctx.run("fn loss(w, x) = sum(w * x)\nlet d = grad(loss)\nlet vl = vmap(loss, in_axes=(0, None))\n"
            "let vg = value_and_grad(loss)\nfn scale(x, static n) = x * n\nlet ds = grad(scale)")
    v = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(ctx.d(np.ones(3, np.float32), v), v)
    np.testing.assert_array_equal(ctx.vl(np.ones((2, 3), np.float32), v), [6, 6])
    value, g = ctx.vg(v, v)
    assert value == 14.0
    np.testing.assert_array_equal(g, v)
    assert ctx.ds(np.float32(1.0), np.int32(3)) == 3.0


def test_forms_found_porting_jax_programs(ctx):
    # JAX's derivatives at zeros, a static argument through vmap, a tuple as the whole index,
    # and linspace of f64 bounds, called from Python (the same as tests/repl/jax_ports.repl).
    ctx.run("fn dprod(x) = grad(|y| prod(y))(x)\n"
            "fn scale(x, static n) = x * n\n"
            "fn scaled(x) = vmap(scale, in_axes=(0, None))(x, 2.)\n"
            "fn picked(m) = m[nonzero(m > 5., size=3)]\n"
            "fn grid(a, b) = linspace(a, b, 3)")
    np.testing.assert_array_equal(ctx.dprod(np.array([2.0, 0.0, 3.0], np.float32)), [0, 6, 0])
    np.testing.assert_array_equal(ctx.scaled(np.arange(3, dtype=np.float32)), [0, 2, 4])
    np.testing.assert_array_equal(ctx.picked(np.arange(12.0, dtype=np.float32).reshape(3, 4)), [6, 7, 8])
    g = ctx.grid(np.array(0.0), np.array(1.0))  # 0-d f64 arrays: strong
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, [0, 0.5, 1])
