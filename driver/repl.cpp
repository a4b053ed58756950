// The REPL loop and its `:commands`.
#include "driver/repl.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <poll.h>
#include <unistd.h>

#ifdef SCN_HAVE_EDITLINE
#include <editline/readline.h>
#endif

#include "driver/cli_output.hpp"
#include "driver/emit.hpp"
#include "driver/repl_internal.hpp"
#include "driver/stats.hpp"
#include "lang/syntax/parser.hpp"

namespace scn {

namespace {

// Note [Ctrl-C]
// A signal handler can only set a flag: it sets the session's interrupt flag (a lock-free
// atomic), reached through the process's only global, a pointer set once by
// installInterruptHandler. At the prompt Ctrl-C abandons the line being typed; while an entry
// runs, the evaluator polls the flag between statements and loop iterations, and the cpu and
// interp backends once per compiled loop iteration (Note [Interrupting compiled code]), and the
// entry stops with E0507, keeping the session. A second Ctrl-C while the first is still unseen
// (one long kernel, a CUDA run, LLVM compiling) ends the process the default way, so Ctrl-C
// always gets you out.
std::atomic<int32_t>* gInterruptFlag = nullptr;

void onInterrupt(int) {
  if (gInterruptFlag->exchange(1) != 0) {
    std::signal(SIGINT, SIG_DFL);  // both async-signal-safe
    std::raise(SIGINT);
  }
}

const char* kReplHelp = R"(scn REPL. Enter code; definitions persist. A line continues while a bracket is open.
  :help              this text
  :help NAME         the signature and description of a builtin, e.g. :help sum, or of a
                     function: its signature and the signatures compiled so far (also ?NAME)
  :type EXPR         dtype and shape of a value
  :ir CALL           the IR of a function call after optimisation, e.g. :ir f(x)
  :kernels CALL      its loop-level kernel IR (fused loops and buffers)
  :llvm CALL         its optimised LLVM IR        :asm CALL   its machine code
  :cuda CALL         its CUDA kernels              :ptx CALL   its PTX (NVRTC; no GPU needed)
  :cuda prelude      the CUDA prelude every translation unit starts with
  :time EXPR         compile once (its time shown apart), then time runs (median, min, max)
  :mem EXPR          peak bytes of host and device buffers of each compiled call EXPR makes
  :stats [on|off]    a line per compiled call after each entry (on), or the summary so far
  :backend [NAME]    show or set the backend: cpu, interp, cuda, auto
  :load FILE         run a file in this session
  :reset             forget every definition and compiled function
  :quit              leave (also exit, quit, exit() or Ctrl-D)
)";

/// `:cuda CALL` prints the call's kernels without the prelude every translation unit starts with
/// (hundreds of lines, the same for every call, which would hide them); `:cuda prelude` prints
/// the prelude. `--emit=cuda` prints both: a translation unit nvcc compiles as it is.
void showCuda(Session& session, const std::string& name, const std::string& rest, std::ostream& out) {
  if (rest == "prelude") {
    try {
      out << emitCudaPrelude();
    } catch (const UserError& e) {
      session.diagnostics().report(e.diag);
    }
    return;
  }
  std::string text;
  if (!session.emitForCall("cuda", name, rest, text, /*cudaPrelude=*/false)) return;
  out << "// the CUDA prelude is left out (`:cuda prelude` prints it; --emit=cuda prints both)\n" << text
      << (text.empty() || text.back() == '\n' ? "" : "\n");
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// The compile part of the calls `records[from..]` traced, and their run time.
struct FirstRun {
  double compileMs = 0, runMs = 0;
  int compiles = 0;
};
FirstRun firstRunOf(const std::vector<CallRecord>& records, size_t from) {
  FirstRun f;
  for (size_t i = from; i < records.size(); ++i) {
    const CallRecord& r = records[i];
    if (r.traced) ++f.compiles;
    f.compileMs += r.traceMs + r.optimiseMs + r.codegenMs;
    f.runMs += r.runMs;
  }
  return f;
}

void timeIt(Session& session, const std::string& name, const std::string& expr, std::ostream& out) {
  size_t before = session.records().size();
  auto t0 = std::chrono::steady_clock::now();
  if (!session.run(name, expr)) return;  // first run: trace + compile
  double firstMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  FirstRun first = firstRunOf(session.records(), before);
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  while (ms.size() < 7 || (ms.size() < 1000 &&
                           std::chrono::steady_clock::now() - start < std::chrono::seconds(1))) {
    auto t1 = std::chrono::steady_clock::now();
    if (!session.run(name, expr)) return;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
  }
  std::sort(ms.begin(), ms.end());
  char buf[300];
  if (first.compiles > 0)
    std::snprintf(buf, sizeof buf, "first run %.4g ms: compile %.4g ms (%d function%s), compiled code %.4g ms\n",
                  firstMs, first.compileMs, first.compiles, first.compiles == 1 ? "" : "s", first.runMs);
  else
    std::snprintf(buf, sizeof buf, "first run %.4g ms: nothing compiled (already compiled, or eager code)\n", firstMs);
  out << buf;
  std::snprintf(buf, sizeof buf, "median %.4g ms, min %.4g ms, max %.4g ms over %zu runs\n",
                ms[ms.size() / 2], ms.front(), ms.back(), ms.size());
  out << buf;
}

/// `:stats on|off`, or `:stats`: the summary of every call so far.
void statsCommand(Session& session, const std::string& arg, ReplState& state, std::ostream& out) {
  if (arg == "on" || arg == "off") {
    state.stats = arg == "on";
    out << "stats: " << arg << "\n";
  } else if (arg.empty()) {
    out << formatStatsSummary(session.records());
  } else {
    Diagnostic d;
    d.code = "E0506";
    d.message = "`:stats` takes `on`, `off` or nothing, not `" + arg + "`";
    d.help = "`:stats on` shows a line per compiled call after each entry; `:stats` the summary so far";
    session.diagnostics().report(d);
  }
}

/// `exit`, `quit`, `exit()` and `quit()` leave, as in Python (when no definition has that name).
bool isExitWord(Session& session, const std::string& entry) {
  bool call = entry.size() > 2 && entry.compare(entry.size() - 2, 2, "()") == 0;
  std::string word = call ? entry.substr(0, entry.size() - 2) : entry;
  return (word == "exit" || word == "quit") && !session.evaluator().globals()->lookup(word);
}

}  // namespace

void installInterruptHandler(Session& session) {
  gInterruptFlag = &session.interruptFlag();
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns, so the prompt can start over
  sigaction(SIGINT, &sa, nullptr);
}

bool replEntry(Session& session, const std::string& entryRaw, std::ostream& out, ReplState& state) {
  std::string entry = trim(entryRaw);
  if (entry.empty()) return true;
  if (isExitWord(session, entry)) return false;
  if (entry[0] == '?' && entry.size() > 1) entry = ":help " + trim(entry.substr(1));
  std::string name = session.nextReplEntryName();
  if (entry[0] != ':') {
    Value v;
    if (session.run(name, entry, &v) && !v.isNone()) out << session.displayValue(v) << "\n";
    return true;
  }
  size_t sp = entry.find_first_of(" \t");
  std::string cmd = entry.substr(0, sp), rest = sp == std::string::npos ? "" : trim(entry.substr(sp));
  if (cmd == ":quit" || cmd == ":q") return false;
  if (cmd == ":help") {
    if (rest.empty()) out << kReplHelp;
    else helpFor(session, rest, out);
  } else if (cmd == ":type") {
    Value v;
    if (session.run(name, rest, &v)) {
      if (v.isArray()) {
        const AVal& a = *v.array;
        out << typeString(surfaceType(a)) << (a.weak ? " (weakly typed)" : "") << (a.isStatic() ? ", static" : ", traced") << "\n";
      } else {
        out << describe(v) << "\n";
      }
    }
  } else if (cmd == ":cuda") {
    showCuda(session, name, rest, out);
  } else if (isFuncStage(cmd.substr(1))) {
    std::string text;
    if (session.emitForCall(cmd.substr(1), name, rest, text)) out << text << (text.empty() || text.back() == '\n' ? "" : "\n");
  } else if (cmd == ":mem") {
    size_t before = session.records().size();
    if (session.run(name, rest)) {
      if (session.records().size() == before) out << "no compiled function ran (top-level code runs eagerly)\n";
      for (size_t i = before; i < session.records().size(); ++i) {
        const CallRecord& r = session.records()[i];
        out << r.fn << ": host peak ";
        if (r.measured) out << r.peakBytes << " bytes";
        else out << "not measured (interpreter)";
        out << ", device ";
        if (r.device) out << "peak " << r.devicePeakBytes << " bytes";
        else out << "none";
        out << ", " << r.copiedBytes << " bytes copied for loop carries\n";
      }
    }
  } else if (cmd == ":time") {
    timeIt(session, name, rest, out);
  } else if (cmd == ":stats") {
    statsCommand(session, rest, state, out);
  } else if (cmd == ":backend") {
    if (!rest.empty()) session.setBackend(rest);
    out << "backend: " << session.backendName() << "\n";
  } else if (cmd == ":load") {
    session.runFile(rest);
  } else if (cmd == ":reset") {
    session.reset();
    out << "session reset\n";
  } else {
    Diagnostic d;
    d.code = "E0506";
    d.message = "unknown REPL command `" + cmd + "`";
    d.help = "type :help for the list";
    session.diagnostics().report(d);
  }
  return true;
}

#ifdef SCN_HAVE_EDITLINE
namespace {
Session* gCompletionSession = nullptr;  // editline's completion callbacks have no user pointer

// Word breaks for editline: not `/`, `.` or `:`, so paths and `:commands` are one word.
char kWordBreaks[] = " \t\n\"'(),[]{}=+-*<>!&|;%^~@";

char** completeLine(const char* text, int, int) {
  static std::vector<std::string> matches;
  rl_attempted_completion_over = 1;  // never editline's own file-name completion
  matches = completionsAt(*gCompletionSession, rl_line_buffer, static_cast<size_t>(rl_point));
  // No space after a keyword argument (`axis=`) or a directory (`lib/`).
  bool open = matches.size() == 1 && (matches[0].back() == '=' || matches[0].back() == '/');
  rl_completion_append_character = open ? '\0' : ' ';
  static size_t next;
  next = 0;
  return rl_completion_matches(text, [](const char*, int) -> char* {
    return next < matches.size() ? strdup(matches[next++].c_str()) : nullptr;
  });
}

// Ctrl-C at the prompt (Note [Ctrl-C]): editline would retry its read after the signal and
// keep the line, so keys are read here, and a set interrupt flag ends the line, which runRepl
// then drops. The flag is checked before each wait, and the wait is a poll with a timeout: a
// signal that lands between the check and a blocking read() would otherwise leave the prompt
// waiting for the next key (seen under load in CI).
int readKey(FILE*) {
  for (;;) {
    if (gInterruptFlag && gInterruptFlag->load() != 0) return '\n';
    pollfd in{0, POLLIN, 0};
    int ready = ::poll(&in, 1, 100);
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    if (ready < 0) return EOF;
    unsigned char c;
    ssize_t n = ::read(0, &c, 1);
    if (n == 1) return c;
    if (n < 0 && errno == EINTR) continue;
    return EOF;
  }
}

std::string prompt(bool continued, bool color) {
  const char* text = continued ? "...> " : "scn> ";
  // \001 and \002 tell editline the escape sequence takes no room on the screen.
  return color ? std::string("\001\033[1;34m\002") + text + "\001\033[0m\002" : text;
}
}  // namespace
#endif

namespace {

/// After an entry: its answers must have reached stdout (Note [Output errors]). A failed write
/// is reported and the session goes on; false when the reader went away (then stop quietly).
bool outputReached(Session& session) {
  if (std::optional<Diagnostic> d = flushStdout()) session.diagnostics().report(*d);
  return !stdoutReaderGone();
}

/// Runs one entry; with stats on, its compiled calls' lines follow on stderr.
bool runEntry(Session& session, const std::string& entry, ReplState& state) {
  size_t before = session.records().size();
  bool go = replEntry(session, entry, std::cout, state);
  if (state.stats) {
    std::cout.flush();
    for (size_t i = before; i < session.records().size(); ++i) std::cerr << formatCallStats(session.records()[i]);
  }
  return go;
}

void finish(Session& session, const ReplState& state) {
  if (!state.stats) return;
  std::cout.flush();
  std::cerr << formatStatsSummary(session.records());
}

}  // namespace

bool runRepl(Session& session, ReplState state) {
  bool tty = isatty(0) && isatty(1);
  installInterruptHandler(session);
#ifdef SCN_HAVE_EDITLINE
  if (tty) {
    gCompletionSession = &session;
    rl_attempted_completion_function = completeLine;
    rl_completer_word_break_characters = kWordBreaks;
    rl_getc_function = readKey;
    rl_catch_signals = 0;  // our handler (installInterruptHandler), not editline's
    std::string histFile = std::string(getenv("HOME") ? getenv("HOME") : ".") + "/.scn_history";
    read_history(histFile.c_str());
    std::cout << "scn " << SCN_VERSION << " — :help for commands, Ctrl-D to quit\n";
    std::string entry;
    for (;;) {
      session.clearInterrupt();
      char* line = readline(prompt(!entry.empty(), state.color).c_str());
      if (session.interruptFlag().load() != 0) {  // Ctrl-C at the prompt: drop what was typed
        free(line);
        entry.clear();
        std::cout << "\n";
        continue;
      }
      if (!line) break;
      entry += line;
      entry += "\n";
      free(line);
      if (isIncomplete(entry)) continue;
      if (!trim(entry).empty()) {
        add_history(trim(entry).c_str());
        write_history(histFile.c_str());
      }
      session.clearInterrupt();
      bool go = runEntry(session, entry, state);
      entry.clear();
      if (!outputReached(session) || !go) break;
    }
    finish(session, state);
    return true;
  }
#endif
  (void)tty;
  std::string entry, line;
  while (std::getline(std::cin, line)) {
    entry += line + "\n";
    if (isIncomplete(entry)) continue;
    session.clearInterrupt();
    bool go = runEntry(session, entry, state);
    session.clearInterrupt();
    entry.clear();
    if (!outputReached(session) || !go) {
      finish(session, state);
      return true;
    }
  }
  if (!trim(entry).empty()) runEntry(session, entry, state);
  outputReached(session);
  finish(session, state);
  return true;
}

}  // namespace scn
