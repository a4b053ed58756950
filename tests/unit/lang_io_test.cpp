// Data files: every broken-file diagnostic (whole message), atomic saves and their failures,
// memory-mapped loads, and round trips with NumPy both ways, bit for bit (skipped cleanly where
// python3 cannot import numpy). The golden files come from tests/data/npy/make_golden.py.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "lang/data_files.hpp"
#include "lang/npy.hpp"
#include "lang/npz.hpp"
#include "lang/text_table.hpp"

namespace fs = std::filesystem;
using namespace scn;

namespace {

const fs::path kData = fs::path(SCN_SOURCE_DIR) / "tests/data/npy";

/// Loads a file the way load()/loadtxt() do; returns "CODE: message" of the diagnostic.
std::string loadError(const std::string& file) {
  fs::current_path(kData);
  try {
    if (file.ends_with(".npz")) decodeNpz(readWholeFile(file, Span{}), file, Span{});
    else if (file.ends_with(".txt")) parseTextTable(readWholeFile(file, Span{}), DType::F64, {}, file, Span{});
    else loadNpyFile(file, Span{});
  } catch (const UserError& e) {
    return e.diag.code + ": " + e.diag.message;
  }
  return "no error";
}

struct BrokenFile {
  const char* file;
  const char* error;
};

const BrokenFile kBroken[] = {
    {"missing.npy", "E0514: cannot load `missing.npy`: no such file or directory"},
    {"/dev/zero", "E0514: cannot load `/dev/zero`: it is not a regular file (a device, pipe or socket)"},
    {"bad_magic.npy", "E0515: cannot load `bad_magic.npy`: not a .npy file (it does not start with \\x93NUMPY)"},
    {"bad_version.npy", "E0515: cannot load `bad_version.npy`: unsupported .npy format version 4.0"},
    {"truncated.npy", "E0518: cannot load `truncated.npy`: the file is truncated: shape (2, 3) of f64 needs 48 bytes of data, the file has 38"},
    {"too_long.npy", "E0518: cannot load `too_long.npy`: the file is longer than its header says: shape (2, 3) of f64 needs 48 bytes of data, the file has 56"},
    {"truncated_header.npy", "E0518: cannot load `truncated_header.npy`: the file is truncated inside the header (it says 118 bytes, 30 are there)"},
    {"object.npy", "E0517: cannot load `object.npy`: object arrays cannot be loaded (dtype '|O' holds Python objects)"},
    {"structured.npy", "E0517: cannot load `structured.npy`: structured arrays cannot be loaded (the dtype has named fields)"},
    {"int16.npy", "E0517: cannot load `int16.npy`: unsupported dtype '<i2'"},
    {"lying_shape.npy", "E0518: cannot load `lying_shape.npy`: the file is truncated: shape (1000000000000,) of f64 needs 8000000000000 bytes of data, the file has 8"},
    {"overflow_shape.npy", "E0519: cannot load `overflow_shape.npy`: the shape (4294967296, 4294967296) of f64 overflows: its size in bytes does not fit in 64 bits"},
    {"huge_dim.npy", "E0519: cannot load `huge_dim.npy`: a dimension of the shape does not fit in 64 bits"},
    {"negative_dim.npy", "E0519: cannot load `negative_dim.npy`: the shape has a negative dimension"},
    {"bad_dict.npy", "E0516: cannot load `bad_dict.npy`: malformed header: expected ',' or '}' at byte 40 of the header"},
    {"missing_key.npy", "E0516: cannot load `missing_key.npy`: malformed header: it must have exactly the keys 'descr', 'fortran_order' and 'shape'"},
    {"long_header.npy", "E0516: cannot load `long_header.npy`: the header is 20000 bytes long, more than NumPy's limit of 10000"},
    {"bad_zip.npz", "E0522: cannot load `bad_zip.npz`: not a zip archive (no end of central directory record)"},
    {"truncated.npz", "E0522: cannot load `truncated.npz`: its central directory is corrupt (entry 0)"},
    {"bad_table.txt", "E0523: cannot load `bad_table.txt`: line 2, column 3: `x` is not a number (reading f64)"},
    {"ragged_table.txt", "E0523: cannot load `ragged_table.txt`: line 2: it has 2 columns, line 1 has 3"},
};

TEST(LangIo, EveryBrokenFileIsADiagnostic) {
  fs::path cwd = fs::current_path();
  for (const BrokenFile& b : kBroken) EXPECT_EQ(loadError(b.file), b.error) << b.file;
  fs::current_path(cwd);
}

// Every prefix of a good file (each truncation point) is a diagnostic, never a crash or a read
// past the end; so is every single-byte corruption of its header.
TEST(LangIo, TruncationsAndCorruptionsAreDiagnostics) {
  std::string good = readWholeFile((kData / "fortran_f64_be.npy").string(), Span{});
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(decodeNpy(std::string_view(good).substr(0, n), "x.npy", Span{}), UserError) << n;
  for (size_t i = 0; i < 128; ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      try {
        decodeNpy(bad, "x.npy", Span{});
      } catch (const UserError&) {
      }
    }
  std::string zip = readWholeFile((kData / "pair_compressed.npz").string(), Span{});
  for (size_t n = 0; n < zip.size(); n += 7) {
    try {
      decodeNpz(std::string_view(zip).substr(0, n), "x.npz", Span{});
    } catch (const UserError&) {
    }
  }
}

Array iotaF64(int64_t n) {
  Array a(DType::F64, {n});
  for (int64_t i = 0; i < n; ++i) a.data<double>()[i] = static_cast<double>(i) / 3;
  return a;
}

fs::path tempDir() {
  fs::path d = fs::temp_directory_path() / ("scn_io_test_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

TEST(LangIo, EncodeDecodeRoundTripsEveryDtypeAndShape) {
  for (DType t : kAllDTypes)
    for (const Shape& s : {Shape{}, Shape{0}, Shape{3}, Shape{2, 0, 4}, Shape{2, 3}}) {
      if (t == DType::BF16) continue;  // NumPy has no bf16 (save refuses it: E0521)
      Array a(t, s);
      for (int64_t i = 0; i < a.size(); ++i) a.setInt(i, (i * 7) % 5);
      Array b = decodeNpy(encodeNpy(a), "x.npy", Span{});
      EXPECT_EQ(b.dtype, t);
      EXPECT_EQ(b.shape, s);
      EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.bytes()), 0);
      EXPECT_EQ(encodeNpy(a).find("\n") % 64, 63u) << "the data starts at a multiple of 64";
    }
  std::vector<NamedArray> arrays{{"a", iotaF64(5)}, {"b", Array::scalar(DType::I32, 4)}};
  for (bool compress : {false, true}) {
    std::vector<NamedArray> back = decodeNpz(encodeNpz(arrays, compress, "x.npz", Span{}), "x.npz", Span{});
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].name, "a");
    EXPECT_EQ(back[1].name, "b");
    EXPECT_EQ(std::memcmp(back[0].array.raw(), arrays[0].array.raw(), 40), 0);
  }
}

// Note [Mapped arrays]: a large file is mapped; the mapping lives as long as the array.
TEST(LangIo, LargeFilesAreMemoryMappedAndUnmappedWithTheArray) {
  fs::path dir = tempDir();
  std::string path = (dir / "big.npy").string();
  writeFileAtomically(path, encodeNpy(iotaF64(1 << 18)), Span{});
  auto mapped = [&] {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
      if (line.find(path) != std::string::npos) return true;
    return false;
  };
  {
    Array a = loadNpyFile(path, Span{});
    EXPECT_TRUE(mapped());
    EXPECT_EQ(a.data<double>()[3], 1.0);
    EXPECT_EQ(a.data<double>()[(1 << 18) - 1], static_cast<double>((1 << 18) - 1) / 3);
    a.data<double>()[0] = 5;  // a private mapping: writable, and the file is untouched
  }
  EXPECT_FALSE(mapped());
  EXPECT_EQ(loadNpyFile(path, Span{}).data<double>()[0], 0.0);
  fs::remove_all(dir);
}

size_t filesIn(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

// A writer that fails with ENOSPC after 100 bytes: the half-written temporary is removed and
// the file that was there is unchanged (Note [Atomic saves]).
ssize_t fullAfter100(int fd, const void* data, size_t bytes) {
  static thread_local size_t written = 0;
  if (written >= 100) {
    written = 0;
    errno = ENOSPC;
    return -1;
  }
  size_t n = std::min<size_t>(bytes, 100 - written);
  written += n;
  return ::write(fd, data, n);
}

TEST(LangIo, AFailedSaveLeavesNothingHalfWritten) {
  fs::path dir = tempDir();
  std::string path = (dir / "x.npy").string();
  writeFileAtomically(path, "old contents", Span{});
  try {
    writeFileAtomically(path, encodeNpy(iotaF64(1000)), Span{}, fullAfter100);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code, "E0520");
    EXPECT_EQ(e.diag.message, "cannot save `" + path + "`: no space left on device");
    EXPECT_EQ(e.diag.help, "the disk is full: free some space or save elsewhere; nothing was written");
  }
  EXPECT_EQ(readWholeFile(path, Span{}), "old contents");
  EXPECT_EQ(filesIn(dir), 1u) << "the temporary file is gone";
  fs::remove_all(dir);
}

TEST(LangIo, SavingToAFullDeviceIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  try {
    writeFileAtomically("/dev/full", encodeNpy(iotaF64(10)), Span{});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code + ": " + e.diag.message, "E0520: cannot save `/dev/full`: no space left on device");
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full")) << "a device is written in place, never replaced";
}

TEST(LangIo, SavingIntoAMissingDirectoryIsAnError) {
  try {
    writeFileAtomically("/nonexistent-dir-scn/x.npy", "x", Span{});
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(e.diag.code + ": " + e.diag.message, "E0520: cannot save `/nonexistent-dir-scn/x.npy`: no such file or directory");
  }
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// `scn prog.scn 1000 0.5`: the arguments parse as numbers; bad text is E0524 at the argument.
TEST(LangIo, CommandLineArgumentsBecomeNumbers) {
  fs::path dir = tempDir();
  std::ofstream(dir / "prog.scn") << "let n = int(args[0])\nprint(zeros(n).shape, float(args[1]) * 2.0, i64(args[0]))\n";
  std::string scn = "cd '" + dir.string() + "' && '" + std::string(SCN_BINARY) + "' prog.scn ";
  EXPECT_EQ(run(scn + "1000 0.25"), "(1000,) 0.5 1000\n");
  EXPECT_EQ(run(scn + "ten 0.25"),
            "prog.scn:1:13: error[E0524]: int(\"ten\"): not an integer\n"
            " 1 | let n = int(args[0])\n"
            "   |             ^~~~~~~\n"
            "help: command-line arguments arrive in `args` as strings; run e.g. `scn prog.scn 1000` for int(args[0])\n");
  fs::remove_all(dir);
}

// ---- round trips with NumPy ----

int sh(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

bool haveNumpy() { return sh("python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

// NumPy writes every dtype in both byte orders and both memory orders; scn loads each and
// saves it again; NumPy checks the values are bit-for-bit the same and the files are C-order,
// little-endian arrays that np.load reads. The same for .npz (stored and compressed).
TEST(LangIo, RoundTripsWithNumpyBitForBit) {
  if (!haveNumpy()) GTEST_SKIP() << "python3 cannot import numpy";
  fs::path dir = tempDir();
  std::string py = R"PY(
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
names = []
for code in ["b1", "i4", "i8", "u4", "u8", "f4", "f8"]:
    for order in "<>":
        for fortran in (False, True):
            dt = np.dtype(("|" if code == "b1" else order) + code)
            if code == "b1":
                x = rng.integers(0, 2, (3, 4, 5)).astype(dt)
            elif code[0] == "f":
                x = rng.standard_normal((3, 4, 5)).astype(dt)
            else:
                info = np.iinfo(dt)
                x = rng.integers(info.min, info.max, (3, 4, 5), dtype=dt.newbyteorder("=")).astype(dt)
            if fortran:
                x = np.asfortranarray(x)
            name = "%s%s%s" % (code, "le" if order == "<" else "be", "f" if fortran else "c")
            np.save("%s/%s.npy" % (d, name), x)
            names.append(name)
np.savez("%s/z.npz" % d, rng.standard_normal(7), named=np.arange(4, dtype=np.uint64))
np.savez_compressed("%s/zc.npz" % d, rng.standard_normal((2, 3)).astype(np.float32))
with open("%s/prog.scn" % d, "w") as f:
    for n in names:
        f.write('save("%s_scn.npy", load("%s.npy"))\n' % (n, n))
    # numpy.savez puts keyword arrays first: the archive holds named, arr_0.
    f.write('let (n, a) = load("z.npz")\nsavez("z_scn.npz", a, named=n)\n')
    f.write('let (c,) = load("zc.npz")\nsavez_compressed("zc_scn.npz", c)\n')
)PY";
  std::string check = R"PY(
import sys, glob, numpy as np
d = sys.argv[1]
bad = 0
for f in sorted(glob.glob(d + "/*_scn.npy")):
    a, b = np.load(f.replace("_scn", "")), np.load(f)
    ok = b.dtype == a.dtype.newbyteorder("<") and b.shape == a.shape and b.flags.c_contiguous and \
         np.ascontiguousarray(a).astype(b.dtype).tobytes() == b.tobytes()
    if not ok:
        print("mismatch", f); bad += 1
for z in ("z", "zc"):
    a, b = np.load("%s/%s.npz" % (d, z)), np.load("%s/%s_scn.npz" % (d, z))
    if sorted(a.files) != sorted(b.files) or any(a[k].tobytes() != b[k].tobytes() or a[k].dtype != b[k].dtype for k in a.files):
        print("mismatch", z, a.files, b.files); bad += 1
sys.exit(1 if bad else 0)
)PY";
  std::ofstream((dir / "make.py").string()) << py;
  std::ofstream((dir / "check.py").string()) << check;
  ASSERT_EQ(sh("python3 '" + (dir / "make.py").string() + "' '" + dir.string() + "'"), 0);
  ASSERT_EQ(sh("'" + std::string(SCN_BINARY) + "' '" + (dir / "prog.scn").string() + "'"), 0);
  EXPECT_EQ(sh("python3 '" + (dir / "check.py").string() + "' '" + dir.string() + "'"), 0);
  fs::remove_all(dir);
}

// scn's text tables read back in NumPy with loadtxt's defaults, and the other way.
TEST(LangIo, TextTablesRoundTripWithNumpy) {
  if (!haveNumpy()) GTEST_SKIP() << "python3 cannot import numpy";
  fs::path dir = tempDir();
  std::ofstream((dir / "prog.scn").string()) << "let x = loadtxt(\"in.txt\")\nsavetxt(\"out.txt\", x * 2.0)\n"
                                                   "savetxt(\"out.csv\", reshape(arange(6), (2, 3)), delimiter=\",\")\n";
  std::string d = dir.string();
  ASSERT_EQ(sh("python3 -c 'import numpy as np; np.savetxt(\"" + d + "/in.txt\", np.arange(12.0).reshape(3, 4) / 7)'"), 0);
  ASSERT_EQ(sh("'" + std::string(SCN_BINARY) + "' '" + d + "/prog.scn'"), 0);
  EXPECT_EQ(sh("python3 -c 'import numpy as np, sys; x = np.loadtxt(\"" + d + "/in.txt\"); "
               "sys.exit(0 if (np.loadtxt(\"" + d + "/out.txt\") == x * 2).all() and "
               "(np.loadtxt(\"" + d + "/out.csv\", delimiter=\",\", dtype=int) == np.arange(6).reshape(2, 3)).all() else 1)'"),
            0);
  fs::remove_all(dir);
}

}  // namespace
