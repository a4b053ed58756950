# The GIL is released while scn runs: other Python threads run meanwhile, contexts run in
# parallel, threads sharing one context take turns, and Context.interrupt() stops a call made
# on another thread.
import threading
import time

import numpy as np

import scn

SPIN = "fn spin(x) = while_loop(|c| c == c, |c| c + 1.0, x)\n"  # runs until interrupted


def spin_in_thread(ctx):
    caught = []

    def body():
        try:
            ctx.spin(np.float32(0))
        except scn.Error as e:
            caught.append(e)

    t = threading.Thread(target=body)
    t.start()
    return t, caught


def stop(ctx, t):
    deadline = time.monotonic() + 60
    while t.is_alive() and time.monotonic() < deadline:
        ctx.interrupt()  # a request made before the call starts is dropped: repeat it
        t.join(0.02)
    assert not t.is_alive(), "the spinning call did not stop"


def test_python_runs_while_scn_spins(ctx):
    ctx.run(SPIN)
    t, caught = spin_in_thread(ctx)
    count, end = 0, time.monotonic() + 0.3
    while time.monotonic() < end:  # needs the GIL the spinning thread gave up
        count += 1
    assert t.is_alive() and count > 1000
    stop(ctx, t)
    assert caught and caught[0].code == "E0507" and caught[0].status == "interrupted"
    np.testing.assert_array_equal(ctx.run("let ok = 1") or ctx["sum"](np.ones(3)), 3.0)


def test_contexts_run_in_parallel():
    results = {}

    def work(i):
        ctx = scn.Context(backend="cpu")
        ctx.run("fn f(x, k) = sum(x * k)")
        results[i] = [float(ctx.f(np.ones(1000, np.float32), float(i))) for _ in range(20)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: [1000.0 * i] * 20 for i in range(4)}


def test_threads_sharing_a_context_take_turns(ctx):
    ctx.run("fn f(x, k) = sum(x * k)")
    f = ctx.f
    x = np.ones(1000, np.float32)
    results, errors = [], []

    def work(i):
        try:
            for _ in range(50):
                results.append((i, float(f(x, float(i)))))
        except Exception as e:  # noqa: BLE001 - the test reports any failure
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == sorted((i, 1000.0 * i) for i in range(4) for _ in range(50))
