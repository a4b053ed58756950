# Ctrl-C while scn runs on the main thread raises KeyboardInterrupt; the context stays usable.
import os
import signal
import threading
import time

import numpy as np
import pytest

import scn


def send_sigint_until(done, delay=0.2):
    """Sends SIGINT to this process after `delay`, again every 0.2 s until `done` is set (one
    may come in the instant a call starts, when scn drops it)."""

    def body():
        time.sleep(delay)
        while not done.is_set():
            os.kill(os.getpid(), signal.SIGINT)
            done.wait(0.2)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


@pytest.fixture(autouse=True)
def first_ctrl_c_only():
    """Python's handler while a test runs raises KeyboardInterrupt for the first SIGINT only, so
    one that the sender sends after the call stopped cannot hit the rest of the test."""
    seen = []

    def handler(signum, frame):
        if not seen:
            seen.append(signum)
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_ctrl_c_interrupts_a_running_call(ctx):
    ctx.run("fn spin(x) = while_loop(|c| c == c, |c| c + 1.0, x)\nfn inc(x) = x + 1.0")
    done = threading.Event()
    sender = send_sigint_until(done)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            ctx.spin(np.float32(0))
    finally:
        done.set()
        sender.join()
    assert time.monotonic() - start < 30
    np.testing.assert_array_equal(ctx.inc(np.zeros(2, np.float32)), [1, 1])  # still usable


def test_ctrl_c_interrupts_a_running_program(ctx):
    done = threading.Event()
    sender = send_sigint_until(done)
    try:
        with pytest.raises(KeyboardInterrupt):
            ctx.run("let y = while_loop(|c| c == c, |c| c + 1.0, 0.0f32)")
    finally:
        done.set()
        sender.join()
    ctx.run("let z = 1")
