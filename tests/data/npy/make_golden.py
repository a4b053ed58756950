#!/usr/bin/env python3
"""Writes the golden .npy/.npz files under tests/data/npy/ with NumPy (run from any directory).

Every scn dtype in both byte orders, C and Fortran order, 0-d and empty shapes, format versions
1.0, 2.0 and 3.0, .npz archives (stored and deflated), text tables, and broken files for the error
tests (tests/programs/io/errors_*.scn). The values are small and exact, so the programs that load
them print known text.
"""
import os
import numpy as np
from numpy.lib import format as npf

here = os.path.dirname(os.path.abspath(__file__))
os.chdir(here)

def save(name, a, version=None):
    with open(name, "wb") as f:
        npf.write_array(f, a, version=version, allow_pickle=False)

# Every dtype, little and big endian: values 0..5 shaped (2, 3).
for code, scn in [("b1", "bool"), ("i4", "i32"), ("i8", "i64"), ("u4", "u32"), ("u8", "u64"),
                  ("f2", "f16"), ("f4", "f32"), ("f8", "f64")]:
    base = np.arange(6).reshape(2, 3) % (2 if code == "b1" else 6)
    for order, tag in [("<", "le"), (">", "be")]:
        dt = np.dtype(("|" if code == "b1" else order) + code)
        save(f"{scn}_{tag}.npy", base.astype(dt))
# Values that need every bit: f64 thirds and extremes, u64 above 2^63, i64 below -2^62.
save("f64_bits.npy", np.array([1 / 3, -0.1, 5e-324, 1.7976931348623157e308, np.inf, -0.0]))
save("f32_bits.npy", np.array([1 / 3, -0.1, 1e-45, 3.4028235e38], dtype=np.float32))
save("u64_big.npy", np.array([2**64 - 1, 2**63], dtype=np.uint64))
save("i64_small.npy", np.array([-2**63, -2**62 - 1], dtype=">i8"))
# Fortran order: the same (2, 3, 4) values stored column-major, both byte orders.
c = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
save("fortran_i32.npy", np.asfortranarray(c))
save("fortran_f64_be.npy", np.asfortranarray(c.astype(">f8")))
# 0-d and empty.
save("scalar_f64.npy", np.array(2.5))
save("empty_f32.npy", np.zeros((0, 3), dtype=np.float32))
save("empty_1d_i64.npy", np.zeros((0,), dtype=np.int64))
# Format versions 2.0 and 3.0 (3.0 is 2.0 with a UTF-8 header).
save("v2_f32.npy", np.array([1.5, 2.5], dtype=np.float32), version=(2, 0))
save("v3_i32.npy", np.array([7, 8, 9], dtype=np.int32), version=(3, 0))


# Archives: positional names arr_0, arr_1 and a keyword name, stored and deflated.
np.savez("pair.npz", np.arange(3, dtype=np.int32), np.array([[1.5, 2.5]]), weights=np.ones(2, dtype=np.float32))
np.savez_compressed("pair_compressed.npz", np.arange(3, dtype=np.int32), np.array([[1.5, 2.5]]))
# Text tables.
np.savetxt("table.txt", np.array([[1.0, 2.5, -3.0], [4.0, 5.0, 6.25]]))
np.savetxt("table.csv", np.array([[1, 2], [3, 4]]), delimiter=",", fmt="%d", header="a,b")

# ---- broken files (each error test names its file) ----
good = npf.magic(1, 0) + b""
def raw(name, data):
    with open(name, "wb") as f:
        f.write(data)
def header(text, version=(1, 0)):
    h = text.encode("latin1")
    if version == (1, 0):
        return npf.magic(1, 0) + len(h).to_bytes(2, "little") + h
    return npf.magic(*version) + len(h).to_bytes(4, "little") + h
ok = open("f64_le.npy", "rb").read()
raw("bad_magic.npy", b"PK\x03\x04 not numpy at all")
raw("bad_version.npy", npf.magic(1, 0)[:6] + b"\x04\x00" + ok[8:])
raw("truncated.npy", ok[:-10])
raw("too_long.npy", ok + b"\0" * 8)
raw("truncated_header.npy", ok[:40])
raw("object.npy", header("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }\n"))
raw("structured.npy", header("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }\n") + b"\0" * 16)
raw("int16.npy", header("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }\n") + b"\0" * 4)
raw("lying_shape.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }\n") + b"\0" * 8)
raw("overflow_shape.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"))
raw("huge_dim.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"))
raw("negative_dim.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }\n"))
raw("bad_dict.npy", header("{'descr': '<f8', 'fortran_order': False 'shape': (2,), }\n") + b"\0" * 16)
raw("missing_key.npy", header("{'descr': '<f8', 'shape': (2,), }\n") + b"\0" * 16)
raw("long_header.npy", npf.magic(2, 0) + (20000).to_bytes(4, "little") + b"{" + b" " * 19999)
raw("bad_zip.npz", b"PK\x03\x04" + b"\0" * 40)
z = open("pair_compressed.npz", "rb").read()
raw("truncated.npz", z[: len(z) // 2] + z[-22:])
raw("bad_table.txt", b"1 2 3\n4 x 6\n")
raw("ragged_table.txt", b"1 2 3\n4 5\n")
