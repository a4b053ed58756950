// The command line where its surroundings fail: output that cannot be written (a full device,
// a closed stdout, a reader that went away; Note [Output errors]) and a compile cache directory
// holding entries it must not trust or that others could write to (Note [Trusting the object
// cache]).
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

/// Runs `bash -c SCRIPT` where $SCN is the scn binary and $ERR a file for scn's stderr; returns
/// what the script printed to its stdout (the script's own redirections decide what that is).
struct Shell {
  std::string out, err;
  int status = -1;  // the script's exit status
};

Shell shell(const std::string& script) {
  fs::path tmp = fs::temp_directory_path() / ("scn_cli_io_" + std::to_string(getpid()));
  std::ofstream(tmp.string() + ".sh") << "SCN='" << SCN_BINARY << "'\nERR='" << tmp.string() << ".err'\n"
                                      << script << "\n";
  std::string cmd = "timeout 120 bash '" + tmp.string() + ".sh' > '" + tmp.string() + ".out' 2> '" +
                    tmp.string() + ".sherr'";
  int raw = std::system(cmd.c_str());
  Shell r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = readAll(tmp.string() + ".out");
  r.err = readAll(tmp.string() + ".err");
  for (const char* ext : {".sh", ".out", ".sherr", ".err"}) fs::remove(tmp.string() + ext);
  return r;
}

const std::string kFullHelp =
    "help: send the output somewhere writable: a full disk, a closed descriptor (`>&-`) and a "
    "read-only file all fail\n";

TEST(CliOutput, AFullDeviceIsAnError) {
  // A print stops the program there (one diagnostic, at the print).
  Shell r = shell("$SCN -e 'print(1); print(2)' > /dev/full 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err,
            "<-e>:1:1: error[E0513]: cannot write to standard output: No space left on device\n"
            " 1 | print(1); print(2)\n"
            "   | ^~~~~~~~\n" + kFullHelp);
  // The value of -e, and text written at the end (--help), get it too.
  for (const std::string& args : {std::string("-e '1 + 1'"), std::string("--help")}) {
    SCOPED_TRACE(args);
    r = shell("$SCN " + args + " > /dev/full 2> \"$ERR\"; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(r.err, "scn: error[E0513]: cannot write to standard output: No space left on device\n" + kFullHelp);
  }
}

TEST(CliOutput, AClosedStdoutIsAnError) {
  Shell r = shell("$SCN -e 'print(1)' >&- 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err,
            "<-e>:1:1: error[E0513]: cannot write to standard output: Bad file descriptor\n"
            " 1 | print(1)\n"
            "   | ^~~~~~~~\n" + kFullHelp);
  r = shell("$SCN -e '2 + 2' >&- 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err, "scn: error[E0513]: cannot write to standard output: Bad file descriptor\n" + kFullHelp);
}

TEST(CliOutput, AReaderThatWentAwayStopsItQuietly) {
  // Far more than a pipe holds, so scn writes after `head` has gone.
  Shell r = shell("$SCN -e 'for i in 0..5000 { print(arange(20)) }' 2> \"$ERR\" | head -1; "
                  "echo \"status ${PIPESTATUS[0]}\"");
  EXPECT_EQ(r.out, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]\nstatus 0\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliOutput, TheReplReportsAFailedWriteAndGoesOn) {
  Shell r = shell("printf 'print(1)\\n2 + 2\\nnot_defined\\n' | $SCN > /dev/full 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "0\n");
  std::string header = "error[E0513]: cannot write to standard output: No space left on device\n";
  // Both answers fail to be written, and the session is still there for the third entry.
  EXPECT_EQ(r.err.rfind("<repl:1>:1:1: " + header + " 1 | print(1)\n   | ^~~~~~~~\n" + kFullHelp +
                            "scn: " + header + kFullHelp + "<repl:3>:1:1: error[",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("not_defined"), std::string::npos) << r.err;
}

TEST(CliOutput, TheReplStopsQuietlyWhenItsReaderWentAway) {
  Shell r = shell("for i in $(seq 3000); do echo 'print(arange(20))'; done | $SCN 2> \"$ERR\" | head -1; "
                  "echo \"status ${PIPESTATUS[1]}\"");
  EXPECT_EQ(r.out, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]\nstatus 0\n");
  EXPECT_EQ(r.err, "");
}

/// A private temporary directory for a cache, removed at the end.
struct CacheDir {
  fs::path path = fs::temp_directory_path() / ("scn_cli_cache_io_" + std::to_string(getpid()));
  CacheDir() { fs::remove_all(path); }
  ~CacheDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(CliCache, AForgedEntryIsRejectedAndShownInStats) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  CacheDir dir;
  std::string run = "$SCN --backend=cpu --stats --cache-dir='" + dir.path.string() +
                    "' -e 'fn f(x) = x * 2.0; f(arange(3.0))' 2> \"$ERR\"";
  Shell first = shell(run);
  ASSERT_EQ(first.out, "[0.0, 2.0, 4.0]\n") << first.err;
  std::vector<fs::path> objects;
  for (const auto& e : fs::directory_iterator(dir.path / "cpu"))
    if (e.path().extension() == ".o") objects.push_back(e.path());
  ASSERT_EQ(objects.size(), 1u);
  // Flip one byte of the machine code: the entry still parses as an object.
  std::string bytes = readAll(objects[0]);
  bytes[bytes.size() / 2] ^= 0x5a;
  std::ofstream(objects[0], std::ios::binary | std::ios::trunc) << bytes;
  Shell planted = shell(run);
  EXPECT_EQ(planted.out, "[0.0, 2.0, 4.0]\n");
  EXPECT_NE(planted.err.find("stats: f traced backend=cpu"), std::string::npos) << planted.err;
  EXPECT_NE(planted.err.find(" cache=rejected sig=f(f32[3])\n"), std::string::npos) << planted.err;
  Shell again = shell(run);
  EXPECT_EQ(again.out, "[0.0, 2.0, 4.0]\n");
  EXPECT_NE(again.err.find(" cache=hit sig=f(f32[3])\n"), std::string::npos) << again.err;
}

TEST(CliCache, ADirectoryOthersCanWriteIsRefusedWithAWarning) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  CacheDir dir;
  fs::create_directories(dir.path);
  fs::permissions(dir.path, fs::perms::all);  // 0777
  std::string run = "$SCN --backend=cpu --stats --cache-dir='" + dir.path.string() +
                    "' -e 'fn f(x) = x * 2.0; f(arange(3.0))' 2> \"$ERR\"; echo $?";
  Shell r = shell(run);
  EXPECT_EQ(r.out, "[0.0, 2.0, 4.0]\n0\n");
  EXPECT_EQ(r.err.substr(0, r.err.find("stats:")),
            "scn: warning[E0411]: not using the compile cache directory \"" + (dir.path / "cpu").string() +
                "\": its parent is writable by other users (mode 0777)\n"
                "help: others could put code there that scn would run as you; make the directory and its "
                "parent yours and private (chmod 700), or use another cache directory\n");
  EXPECT_NE(r.err.find(" cache=miss sig=f(f32[3])\n"), std::string::npos) << r.err;
  Shell again = shell(run);
  EXPECT_NE(again.err.find(" cache=miss sig=f(f32[3])\n"), std::string::npos) << again.err;  // nothing was kept
}

// ---- the stages of a compiled call: --emit=kernels and the pipeline's `lower` stage ----

const std::string kSinPlusOne = "printf 'fn f(x) = sin(x) + 1.0\\nprint(f(ones(4)))\\n' > \"$ERR.scn\"; ";
const std::string kSinPlusOneKernels =
    "program f {\n"
    "  buffer b0: f32[4] param 0\n"
    "  buffer b1: f32[4] temp\n"
    "  kernel k0 [4] {\n"
    "    b1[i0] = add(sin(b0[i0]), 0x1p+0f32)\n"
    "  }\n"
    "  steps {\n"
    "    launch k0\n"
    "  }\n"
    "  results b1\n"
    "}\n";

TEST(CliStages, EmitKernelsPrintsTheProgramOfEachCompiledFunction) {
  Shell r = shell(kSinPlusOne + "$SCN --backend=cpu --emit=kernels \"$ERR.scn\" 2> \"$ERR\"; echo $?; rm -f \"$ERR.scn\"");
  EXPECT_EQ(r.out, kSinPlusOneKernels + "[1.841471, 1.841471, 1.841471, 1.841471]\n0\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliStages, PrintAfterLowerPrintsTheKernelIrOfTheBackendInUse) {
  Shell r = shell(kSinPlusOne + "$SCN --backend=cpu --print-after=lower \"$ERR.scn\" 2> \"$ERR\"; echo $?; rm -f \"$ERR.scn\"");
  EXPECT_EQ(r.out, "// after lower of f(f32[4])\n" + kSinPlusOneKernels + "[1.841471, 1.841471, 1.841471, 1.841471]\n0\n");
  EXPECT_EQ(r.err, "");
  // The interpreter runs the IR: there is no kernel IR to print.
  r = shell(kSinPlusOne + "$SCN --backend=interp --print-after=lower \"$ERR.scn\" 2> \"$ERR\"; echo $?; rm -f \"$ERR.scn\"");
  EXPECT_EQ(r.out, "// after lower of f(f32[4]): not run (the interp backend runs the IR)\n"
                   "[1.841471, 1.841471, 1.841471, 1.841471]\n0\n");
  // `all` ends with it, after the IR passes.
  r = shell(kSinPlusOne + "$SCN --backend=cpu --print-after=all \"$ERR.scn\" 2> \"$ERR\"; echo $?; rm -f \"$ERR.scn\"");
  EXPECT_EQ(r.out, "// after inline-custom-calls of f(f32[4]): unchanged\n"
                   "// after widen-low-precision of f(f32[4]): unchanged\n"
                   "// after hoist-scan-products of f(f32[4]): unchanged\n"
                   "// after scan-to-map of f(f32[4]): unchanged\n"
                   "// after join-disjoint-blocks of f(f32[4]): unchanged\n"
                   "// after drop-identity-reshapes of f(f32[4]): unchanged\n"
                   "// after dce of f(f32[4]): unchanged\n// after lower of f(f32[4])\n" + kSinPlusOneKernels +
                   "[1.841471, 1.841471, 1.841471, 1.841471]\n0\n");
}

TEST(CliStages, AnUnknownPassListsEveryStage) {
  Shell r = shell("$SCN --print-after=fuse -e 1 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "2\n");
  EXPECT_EQ(r.err, "scn: error: unknown pass `fuse` for --print-after (all, "
                   "inline-custom-calls, widen-low-precision, expand-associative-scans, hoist-scan-products, scan-to-map, join-disjoint-blocks, drop-identity-reshapes, dce, lower)\n(run `scn --help` for usage)\n");
}

}  // namespace

// ---- in-place updates (Note [Scatter kernels]): a scan writing its carry table per step ----

// The benchmark shape of issue 16: a 2^16-step scan whose body does `t.at[k].set(v)` on a 2^16
// table updates the carry in place on every step: no carry copy, one in-place update per step.
TEST(CliStats, AScanSettingItsCarryTableCopiesNothing) {
  for (const char* backend : {"cpu", "cuda-emu"}) {
    if (!scn::test::backendBuilt(backend)) continue;
    std::string run = std::string("$SCN --backend=") + backend +
                      " --stats -e 'fn fill(n) = scan(|t, k| (t.at[k].set(k % 7), ()), zeros(65536, "
                      "dtype=i32), xs=arange(65536)).0; print(sum(fill(0)))' 2> \"$ERR\"";
    Shell r = shell(run);
    EXPECT_EQ(r.out, "196603\n") << backend;
    EXPECT_NE(r.err.find(" copied=0B in-place=65536 "), std::string::npos) << backend << ": " << r.err;
  }
}

// A dynamic-programming step reads the table it updates: the small right-hand side is computed
// first, and the table is still updated in place (no carry copy, one in-place update per step).
TEST(CliStats, AnUpdateThatReadsItsTableIsStillInPlace) {
  for (const char* backend : {"cpu", "cuda-emu"}) {
    if (!scn::test::backendBuilt(backend)) continue;
    std::string run = std::string("$SCN --backend=") + backend +
                      " --stats -e 'fn dp(n) = scan(|t, k| (t.at[k].set(t[k - 1] + 1), ()), zeros(4096, "
                      "dtype=i32), xs=arange(1, 4096)).0; print(sum(dp(0)), dp(0)[4095])' 2> \"$ERR\"";
    Shell r = shell(run);
    EXPECT_EQ(r.out, "8386560 4095\n") << backend;
    EXPECT_NE(r.err.find(" copied=0B in-place=4095 "), std::string::npos) << backend << ": " << r.err;
  }
}

// Note [Choosing NCCL]: SCN_COLLECTIVES=nccl is checked when the run starts, before any code
// runs: an unknown transport or NCCL's library missing is E0445, a run not on a GPU E0446 (the
// E0447 of a GPU run with NCCL present needs a GPU; docs/errors/distributed.md shows it).
TEST(CliCollectives, NcclIsCheckedBeforeAnythingRuns) {
  Shell r = shell("SCN_COLLECTIVES=tcp $SCN -e 'print(1)' 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err.rfind("scn: error[E0445]: unknown collectives transport `tcp`\n", 0), 0u) << r.err;
  r = shell("SCN_COLLECTIVES=nccl SCN_NCCL=/nonexistent/libnccl.so.2 $SCN --backend=cpu -e 'print(1)' 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err.rfind("scn: error[E0445]: NCCL collectives cannot be used: ", 0), 0u) << r.err;
  if (!scn::test::backendBuilt("cuda-emu")) return;  // no CUDA backend: E0445 says so (above)
  EXPECT_NE(r.err.find("/nonexistent/libnccl.so.2"), std::string::npos) << r.err;
  for (const char* backend : {"cpu", "interp", "cuda-emu"}) {
    r = shell(std::string("SCN_COLLECTIVES=nccl $SCN --backend=") + backend + " -e 'print(1)' 2> \"$ERR\"; echo $?");
    EXPECT_EQ(r.out, "1\n") << backend;
    if (r.err.find("scn: error[E0445]: NCCL collectives cannot be used: NCCL (libnccl.so.2) was not found") == 0) continue;
    EXPECT_EQ(r.err.rfind(std::string("scn: error[E0446]: NCCL collectives need the cuda backend on a GPU, but this "
                                      "run's backend is ") + backend + "\n", 0), 0u) << r.err;
  }
  // The default and `mpi` are the MPI path, on one process as without the variable.
  r = shell("SCN_COLLECTIVES=mpi $SCN -e 'print(1)' 2> \"$ERR\"; echo $?");
  EXPECT_EQ(r.out, "1\n0\n") << r.err;
}
