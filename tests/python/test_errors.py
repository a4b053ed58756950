# Diagnostics raised as scn.Error with their fields; the context survives every error.
import numpy as np
import pytest

import scn


def test_syntax_error_fields(ctx):
    with pytest.raises(scn.Error) as info:
        ctx.run("fn f(x) = x +\n", "bad.scn")
    e = info.value
    assert e.code == "E0010" and e.message == "expected an expression, found end of file" and e.file == "bad.scn" and e.line >= 1 and e.column >= 1
    assert e.status == "program error"
    assert str(e).startswith(f"bad.scn:{e.line}:{e.column}: error[{e.code}]: {e.message}")
    assert "^" in str(e)  # the caret under the source line


def test_shape_error_in_a_call_names_the_shapes(ctx):
    ctx.run("fn add(a, b) = a + b", "add.scn")
    with pytest.raises(scn.Error) as info:
        ctx.add(np.zeros(3, np.float32), np.zeros(4, np.float32))
    e = info.value
    assert "(3,)" in e.message and "(4,)" in e.message and e.file == "add.scn"
    np.testing.assert_array_equal(ctx.add(np.ones(2), np.ones(2)), [2, 2])  # still usable


def test_notes_and_help(ctx):
    ctx.run("fn f(x) = zeros((x,))", "traced.scn")
    with pytest.raises(scn.Error) as info:
        ctx.f(np.int32(3))
    e = info.value
    assert e.help and e.code
    assert all(isinstance(n, scn.Note) for n in e.notes)


def test_call_chain_ends_with_the_host_call(ctx):
    # Note [Call chains]: the notes name each call down to the failing op, the last one the
    # host's call with the signature it was traced for.
    ctx.run("fn inner(a, b) = a + b\nfn outer(x, y) = inner(x, y * 2.0)", "chain.scn")
    with pytest.raises(scn.Error) as info:
        ctx.outer(np.zeros(3, np.float32), np.zeros(4, np.float32))
    e = info.value
    assert e.code == "E0203"
    assert [n.message for n in e.notes] == [
        "in a call of inner(f32[3], f32[4]) at chain.scn:2:18",
        "called from outer(f32[3], f32[4]), called by the host",
    ]
    assert "note: called from outer(f32[3], f32[4]), called by the host" in str(e)


def test_wrong_argument_count(ctx):
    ctx.run("fn f(x) = x")
    with pytest.raises(scn.Error) as info:
        ctx.f(1.0, 2.0)
    assert info.value.code == "E0220" and info.value.status == "invalid argument"
    assert info.value.message == "`f` takes 1 argument but 2 were given"


def test_missing_names(ctx):
    with pytest.raises(KeyError, match="no function named `nope` is defined"):
        ctx["nope"]
    with pytest.raises(AttributeError):
        ctx.nope
    assert not hasattr(ctx, "nope")
    ctx.run("let c = 1.0")
    with pytest.raises(scn.Error) as info:
        ctx["c"]
    assert info.value.code == "E0603"


def test_unknown_backend():
    with pytest.raises(scn.Error) as info:
        scn.Context(backend="tpu")
    assert info.value.status == "invalid argument" and "tpu" in str(info.value)


def test_failed_assert_in_a_loaded_file(ctx, tmp_path):
    path = tmp_path / "fails.scn"
    path.write_text("let x = 1\nassert(x == 2)\n")
    with pytest.raises(scn.Error) as info:
        ctx.load(str(path))
    assert info.value.file.endswith("fails.scn") and info.value.line == 2
