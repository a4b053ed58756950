// --stats and the REPL's :stats and :time (Note [Stats fields], Note [Retrace reasons]): the
// signature of each call, why a function was traced again, the summary per function; the
// options' two spellings, --cache-clear and --cache-max-size, the cache warning shown once.
#include <gtest/gtest.h>

#include "test_backends.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int status = -1;
  std::string out, err;
};

/// Runs `scn ARGS` (a shell word list) with `input` on stdin.
Outcome scn(const std::string& args, const std::string& input = "", const std::string& env = "") {
  fs::path tmp = fs::temp_directory_path() / ("scn_stats_" + std::to_string(getpid()));
  std::ofstream(tmp.string() + ".in") << input;
  std::string cmd = env + " '" + std::string(SCN_BINARY) + "' " + args + " < '" + tmp.string() + ".in' > '" +
                    tmp.string() + ".out' 2> '" + tmp.string() + ".err'";
  int raw = std::system(cmd.c_str());
  Outcome r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = readAll(tmp.string() + ".out");
  r.err = readAll(tmp.string() + ".err");
  for (const char* ext : {".in", ".out", ".err"}) fs::remove(tmp.string() + ext);
  return r;
}

/// Milliseconds vary from run to run: "trace=0.12ms" becomes "trace=#ms".
std::string withoutTimes(const std::string& s) {
  return std::regex_replace(s, std::regex("[0-9]+\\.[0-9]+ms"), "#ms");
}

const char* kProgram =
    "fn f(x) = x * 2.0\n"
    "fn g(x, static n) = x * n\n"
    "let scale = 2.0\n"
    "fn h(x) = x * scale\n"
    "f(arange(3.0))\n"
    "f(arange(3.0))\n"
    "f(arange(4.0))\n"
    "g(arange(3.0), 2)\n"
    "g(arange(3.0), 3)\n"
    "h(arange(3.0))\n"
    "scale = 3.0\n"
    "h(arange(3.0))\n";

const char* kProgramStats =
    "stats: f traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=f(f32[3])\n"
    "stats: f cached backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 sig=f(f32[3])\n"
    "stats: f traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=f(f32[4]) retraced: new shape or dtype of `x`: f32[4] (was f32[3])\n"
    "stats: g traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=g(f32[3], n=2)\n"
    "stats: g traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=g(f32[3], n=3) retraced: new static value of `n`: 3 (was 2)\n"
    "stats: h traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=h(f32[3])\n"
    "stats: h traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=h(f32[3]) retraced: rebound global `scale`\n"
    "stats: summary of 3 functions\n"
    "stats:   f: calls=3 compiles=2 cache-hits=0 compile=#ms run=#ms peak=- compiled for f(f32[3]), f(f32[4])\n"
    "stats:   g: calls=2 compiles=2 cache-hits=0 compile=#ms run=#ms peak=- compiled for g(f32[3], n=2), g(f32[3], n=3)\n"
    "stats:   h: calls=2 compiles=2 cache-hits=0 compile=#ms run=#ms peak=- compiled for h(f32[3])\n";

TEST(Stats, SignaturesRetraceReasonsAndASummary) {
  fs::path prog = fs::temp_directory_path() / ("scn_stats_prog_" + std::to_string(getpid()) + ".scn");
  std::ofstream(prog) << kProgram;
  Outcome r = scn("--backend=interp --stats '" + prog.string() + "'");
  fs::remove(prog);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(withoutTimes(r.err), kProgramStats);
}

TEST(Stats, TheSummaryCountsCacheHitsAndPeaks) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  fs::path dir = fs::temp_directory_path() / ("scn_stats_cache_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string args = "--backend cpu --stats --cache-dir '" + dir.string() + "' -e 'fn f(x) = x + 1.0; f(arange(3.0)); f(arange(3.0))'";
  ASSERT_EQ(scn(args).status, 0);
  Outcome second = scn(args);
  EXPECT_EQ(second.status, 0) << second.err;
  EXPECT_NE(withoutTimes(second.err).find("stats:   f: calls=2 compiles=1 cache-hits=1 compile=#ms run=#ms peak=12B compiled for f(f32[3])\n"),
            std::string::npos) << second.err;
  fs::remove_all(dir);
}

TEST(Stats, CheckpointedScansShowStoredCarriesAndRecomputedSteps) {
  // 10 steps, checkpoints="sqrt" (4): segments of 3, 3, 3 and 1; each call stores 4 carries and
  // recomputes the 10 steps (Note [Scan checkpoints]).
  Outcome r = scn("--backend=interp --stats",
                  "fn g(w) = grad(|a| sum(scan(|c, x| (c * a + x, c), 1.0, arange(10.0), checkpoints=\"sqrt\").1))(w)\n"
                  "g(0.5)\ng(0.5)\n:stats\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(withoutTimes(r.out).find("stats:   g: calls=2 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- "
                                     "checkpointed-carries=8 recomputed-steps=20 compiled for g(f32[])\n"),
            std::string::npos) << r.out;
}

TEST(Stats, AScanOverTheGradMemoryBudgetIsCheckpointedAndSaysWhy) {
  // 100 steps of an f32 carry store 400 bytes; a 100-byte budget checkpoints the scan with
  // ceil(sqrt(100)) = 10 carries (Note [Grad memory budget]), and the gradient is unchanged.
  const char* program =
      "let xs = linspace(-1.0, 1.0, 100)\n"
      "fn g(w) = grad(|a| sum(scan(|c, x| (tanh(a * c + x), c * c), 0.5, xs).1))(w)\n"
      "fn stored(w) = grad(|a| sum(scan(|c, x| (tanh(a * c + x), c * c), 0.5, xs, checkpoints=0).1))(w)\n"
      "fn sqrtk(w) = grad(|a| sum(scan(|c, x| (tanh(a * c + x), c * c), 0.5, xs, checkpoints=\"sqrt\").1))(w)\n"
      "print(g(0.9) == sqrtk(0.9), stored(0.9) == sqrtk(0.9))\n";
  Outcome r = scn("--backend=interp --stats --grad-memory-budget=100", program);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("true true\n"), std::string::npos) << r.out;
  std::string err = withoutTimes(r.err);
  EXPECT_NE(err.find("stats:   g: calls=1 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- checkpointed-carries=10 "
                     "recomputed-steps=100 auto-checkpointed=1 uncheckpointed-residuals=400B grad-memory-budget=100B "
                     "compiled for g(f32[])\n"),
            std::string::npos) << err;
  EXPECT_NE(err.find("stats:   sqrtk: calls=2 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- checkpointed-carries=20 "
                     "recomputed-steps=200 compiled for sqrtk(f32[])\n"),
            std::string::npos) << err;
  // checkpoints=0 stores every carry whatever the budget.
  EXPECT_NE(err.find("stats:   stored: calls=1 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- compiled for stored(f32[])\n"),
            std::string::npos) << err;
  // The default budget (1 GiB) stores these 400 bytes, and so does one of 1 KiB from the
  // environment; one of 399 bytes does not.
  for (const char* env : {"", "SCN_GRAD_MEMORY_BUDGET=1K"}) {
    Outcome d = scn("--backend=interp --stats", program, env);
    EXPECT_EQ(d.status, 0) << d.err;
    EXPECT_EQ(d.err.find("auto-checkpointed"), std::string::npos) << env << d.err;
  }
  Outcome e = scn("--backend=interp --stats", program, "SCN_GRAD_MEMORY_BUDGET=399");
  EXPECT_NE(e.err.find("auto-checkpointed=1 uncheckpointed-residuals=400B grad-memory-budget=399B"), std::string::npos)
      << e.err;
  Outcome bad = scn("--grad-memory-budget=lots -e 1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "scn: error: --grad-memory-budget needs a size such as 1G, 512M or 1048576, not `lots`\n"
                     "(run `scn --help` for usage)\n");
}

TEST(Stats, WhereEvenSegmentsExceedTheBudgetTheBinomialSlotsThatFitAreTaken) {
  // 100 steps of a 4-byte carry: segments store 10 carries and a 10-step segment, 80 bytes. A
  // 60-byte budget holds 14 carries beside one step: the binomial schedule with 14 slots, the
  // same as checkpoints=14, and the gradient is unchanged. A 12-byte budget holds 2, whose
  // schedule would recompute far more than 3 evaluations a step: segments, over the budget.
  const char* program =
      "let xs = linspace(-1.0, 1.0, 100)\n"
      "fn g(w) = grad(|a| sum(scan(|c, x| (tanh(a * c + x), c * c), 0.5, xs).1))(w)\n"
      "fn stored(w) = grad(|a| sum(scan(|c, x| (tanh(a * c + x), c * c), 0.5, xs, checkpoints=0).1))(w)\n"
      "fn slots14(w) = grad(|a| sum(scan(|c, x| (tanh(a * c + x), c * c), 0.5, xs, checkpoints=14).1))(w)\n"
      "print(g(0.9) == slots14(0.9), stored(0.9) == slots14(0.9))\n";
  Outcome r = scn("--backend=interp --stats --grad-memory-budget=60", program);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("true true\n"), std::string::npos) << r.out;
  std::string err = withoutTimes(r.err);
  EXPECT_NE(err.find("stats:   g: calls=1 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- checkpointed-carries=14 "
                     "recomputed-steps=87 auto-checkpointed=1 uncheckpointed-residuals=400B grad-memory-budget=60B "
                     "compiled for g(f32[])\n"),
            std::string::npos) << err;
  EXPECT_NE(err.find("stats:   slots14: calls=2 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- checkpointed-carries=28 "
                     "recomputed-steps=174 compiled for slots14(f32[])\n"),
            std::string::npos) << err;
  Outcome small = scn("--backend=interp --stats --grad-memory-budget=12", program);
  EXPECT_EQ(small.status, 0) << small.err;
  EXPECT_NE(small.out.find("true true\n"), std::string::npos) << small.out;
  EXPECT_NE(withoutTimes(small.err).find("g: calls=1 compiles=1 cache-hits=0 compile=#ms run=#ms peak=- "
                                         "checkpointed-carries=10 recomputed-steps=100 auto-checkpointed=1"),
            std::string::npos) << small.err;
}

/// The peak= bytes of function `fn` in a --stats summary; -1 when absent.
double summaryPeak(const std::string& err, const std::string& fn) {
  size_t at = err.find("stats:   " + fn + ": ");
  if (at == std::string::npos) return -1;
  at = err.find(" peak=", at);
  return at == std::string::npos ? -1 : std::atof(err.c_str() + at + 6);
}

TEST(Stats, CheckpointedBlocksKeepOneBlocksIntermediatesAtATime) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  // Four chained blocks: the plain gradient keeps every block's intermediates for the backward
  // pass, the checkpointed one only the blocks' inputs and one block's intermediates at a time
  // (Note [Rematerialisation]); the gradients are the same.
  Outcome r = scn("--backend=cpu --stats",
                  "fn blk(x) = sin(sin(sin(x)) * x) * x\n"
                  "fn plain(x) = grad(|v| sum(blk(blk(blk(blk(v))))))(x)\n"
                  "fn remat4(x) = grad(|v| sum(checkpoint(blk)(checkpoint(blk)(checkpoint(blk)(checkpoint(blk)(v))))))(x)\n"
                  "let x = linspace(-1.0, 1.0, 100000)\n"
                  "print(all(plain(x) == remat4(x)))\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("true\n"), std::string::npos) << r.out;
  double plain = summaryPeak(r.err, "plain"), remat = summaryPeak(r.err, "remat4");
  EXPECT_GT(plain, 0) << r.err;
  EXPECT_GT(remat, 0) << r.err;
  EXPECT_LT(remat, 0.6 * plain) << r.err;  // 3.6 MB against 7.6 MB when this was written
}

TEST(Stats, InTheRepl) {
  // --stats: the lines of each entry after it, the summary at the end; :stats off stops the
  // lines, :stats prints the summary so far.
  Outcome r = scn("--backend=interp --stats",
              "fn f(x) = x * 2.0\nf(arange(2.0))\n:stats off\nf(arange(3.0))\n:stats\n:stats on\nf(arange(3.0))\n:stats maybe\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(withoutTimes(r.out),
            "[0.0, 2.0]\n"
            "stats: off\n"
            "[0.0, 2.0, 4.0]\n"
            "stats: summary of 1 function\n"
            "stats:   f: calls=2 compiles=2 cache-hits=0 compile=#ms run=#ms peak=- compiled for f(f32[2]), f(f32[3])\n"
            "stats: on\n"
            "[0.0, 2.0, 4.0]\n");
  EXPECT_EQ(withoutTimes(r.err),
            "stats: f traced backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 cache=miss sig=f(f32[2])\n"
            "stats: f cached backend=interp trace=#ms optimise=#ms codegen=#ms run=#ms kernels=0 peak=- device=none copied=0B in-place=0 sig=f(f32[3])\n"
            "scn: error[E0506]: `:stats` takes `on`, `off` or nothing, not `maybe`\n"
            "help: `:stats on` shows a line per compiled call after each entry; `:stats` the summary so far\n"
            "stats: summary of 1 function\n"
            "stats:   f: calls=3 compiles=2 cache-hits=0 compile=#ms run=#ms peak=- compiled for f(f32[2]), f(f32[3])\n");
}

TEST(Stats, TimeShowsTheFirstCompileApart) {
  Outcome r = scn("--backend=interp", "fn f(x) = x * 2.0\n:time f(arange(3.0))\n:time f(arange(3.0))\n:time 1 + 2\n");
  EXPECT_EQ(r.status, 0) << r.err;
  std::string out = std::regex_replace(r.out, std::regex("[0-9.e+-]+ ms"), "# ms");
  out = std::regex_replace(out, std::regex("over [0-9]+ runs"), "over # runs");
  EXPECT_EQ(out,
            "first run # ms: compile # ms (1 function), compiled code # ms\n"
            "median # ms, min # ms, max # ms over # runs\n"
            "first run # ms: nothing compiled (already compiled, or eager code)\n"
            "median # ms, min # ms, max # ms over # runs\n"
            "first run # ms: nothing compiled (already compiled, or eager code)\n"
            "median # ms, min # ms, max # ms over # runs\n");
}

TEST(Options, TakeTheirValueInOneWordOrTwo) {
  Outcome joined = scn("--backend=interp --emit=ir -e 'fn f(x) = x + 1; f(2.0)'");
  Outcome split = scn("--backend interp --emit ir -e 'fn f(x) = x + 1; f(2.0)'");
  EXPECT_EQ(joined.status, 0) << joined.err;
  EXPECT_EQ(split.status, 0) << split.err;
  EXPECT_EQ(split.out, joined.out);
  EXPECT_NE(split.out.find("func f(%0: f32[])"), std::string::npos) << split.out;
  Outcome missing = scn("-e 1 --emit");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "scn: error: --emit needs a value (--emit=VALUE or --emit VALUE)\n(run `scn --help` for usage)\n");
  Outcome badSize = scn("--cache-max-size=lots -e 1");
  EXPECT_EQ(badSize.status, 2);
  EXPECT_EQ(badSize.err,
            "scn: error: --cache-max-size needs a size such as 1G, 512M or 1048576, not `lots`\n(run `scn --help` for usage)\n");
  Outcome badColor = scn("--color sometimes -e 1");
  EXPECT_EQ(badColor.status, 2);
  EXPECT_EQ(badColor.err, "scn: error: --color takes auto, always or never, not `sometimes`\n(run `scn --help` for usage)\n");
}

TEST(Options, EmitLlvmAndAsmNameTheFunction) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  Outcome llvm = scn("--backend=cpu --cache-dir=- --emit llvm -e 'fn f(x, static k) = x * k; f(arange(3.0), 2)'");
  EXPECT_EQ(llvm.status, 0) << llvm.err;
  EXPECT_EQ(llvm.out.substr(0, llvm.out.find('\n') + 1), "; function f(f32[3]) -> f32[3]\n");
  Outcome assembly = scn("--backend=cpu --cache-dir=- --emit=asm -e 'fn f(x) = (x, x + 1); f(2.0)'");
  EXPECT_EQ(assembly.status, 0) << assembly.err;
  EXPECT_EQ(assembly.out.substr(0, assembly.out.find('\n') + 1), "# function f(f32[]) -> (f32[], f32[])\n");
}

TEST(Cache, ClearEmptiesTheCacheDirectory) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  fs::path dir = fs::temp_directory_path() / ("scn_cache_clear_cli_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string prog = " -e 'fn f(x) = x * 3.0; f(arange(3.0))'";
  ASSERT_EQ(scn("--backend=cpu --cache-dir='" + dir.string() + "'" + prog).status, 0);
  Outcome cleared = scn("--cache-dir '" + dir.string() + "' --cache-clear");
  EXPECT_EQ(cleared.status, 0) << cleared.err;
  EXPECT_EQ(cleared.out, "removed 1 cached entry from " + dir.string() + "\n");
  Outcome again = scn("--backend=cpu --stats --cache-dir='" + dir.string() + "'" + prog);
  EXPECT_NE(again.err.find("cache=miss"), std::string::npos) << again.err;
  // The default directory follows the environment, as for a run.
  Outcome byEnv = scn("--cache-clear", "", "SCN_CACHE_DIR='" + dir.string() + "'");
  EXPECT_EQ(byEnv.out, "removed 1 cached entry from " + dir.string() + "\n");
  Outcome none = scn("--cache-dir=- --cache-clear");
  EXPECT_EQ(none.status, 2);
  fs::remove_all(dir);
}

TEST(Cache, AMaxSizeOfZeroKeepsNothing) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  fs::path dir = fs::temp_directory_path() / ("scn_cache_cap_cli_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string prog = " -e 'fn f(x) = x * 3.0; f(arange(3.0))'";
  ASSERT_EQ(scn("--backend=cpu --cache-max-size=0 --cache-dir='" + dir.string() + "'" + prog).status, 0);
  EXPECT_EQ(scn("--cache-dir='" + dir.string() + "' --cache-clear").out, "removed 0 cached entries from " + dir.string() + "\n");
  ASSERT_EQ(scn("--backend=cpu --cache-dir='" + dir.string() + "'" + prog, "", "SCN_CACHE_MAX_SIZE=0").status, 0);
  EXPECT_EQ(scn("--cache-dir='" + dir.string() + "' --cache-clear").out, "removed 0 cached entries from " + dir.string() + "\n");
  fs::remove_all(dir);
}

TEST(Cache, AnUnusableDirectoryWarnsOnce) {
  SCN_SKIP_WITHOUT_CPU_BACKEND();
  fs::path file = fs::temp_directory_path() / ("scn_cache_file_" + std::to_string(getpid()));
  std::ofstream(file) << "a file, not a directory";
  // The REPL makes the backend again for :backend cpu: still one warning.
  Outcome r = scn("--backend=cpu --cache-dir='" + file.string() + "'", "fn f(x) = x + 1.0\nf(1.0)\n:backend cpu\nf(2.0)\n");
  fs::remove(file);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "2.0\nbackend: cpu\n3.0\n");
  EXPECT_EQ(r.err, "scn: warning[E0430]: compile cache off: cannot use \"" + file.string() + "/cpu\": Not a directory\n");
}

}  // namespace
