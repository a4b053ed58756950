// The REPL loop and its `:commands`.
#include "driver/repl.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

#ifdef SCN_HAVE_EDITLINE
#include <editline/readline.h>
#endif

#include "driver/cli_output.hpp"
#include "driver/emit.hpp"
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
  :help NAME         the signature and description of a builtin, e.g. :help sum
  :type EXPR         dtype and shape of a value
  :ir CALL           the IR of a function call after optimisation, e.g. :ir f(x)
  :kernels CALL      its loop-level kernel IR (fused loops and buffers)
  :llvm CALL         its optimised LLVM IR        :asm CALL   its machine code
  :cuda CALL         its CUDA C++                  :ptx CALL   its PTX (NVRTC; no GPU needed)
  :time EXPR         compile once, then time runs (median, min, max, count)
  :mem EXPR          peak bytes of host and device buffers of each compiled call EXPR makes
  :backend [NAME]    show or set the backend: cpu, interp, cuda, auto
  :load FILE         run a file in this session
  :reset             forget every definition and compiled function
  :quit              leave (also Ctrl-D)
)";

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

void timeIt(Session& session, const std::string& name, const std::string& expr, std::ostream& out) {
  if (!session.run(name, expr)) return;  // first run: trace + compile
  std::vector<double> ms;
  auto start = std::chrono::steady_clock::now();
  while (ms.size() < 7 || (ms.size() < 1000 &&
                           std::chrono::steady_clock::now() - start < std::chrono::seconds(1))) {
    auto t0 = std::chrono::steady_clock::now();
    if (!session.run(name, expr)) return;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  char buf[200];
  std::snprintf(buf, sizeof buf, "median %.4g ms, min %.4g ms, max %.4g ms over %zu runs\n",
                ms[ms.size() / 2], ms.front(), ms.back(), ms.size());
  out << buf;
}

/// `:help NAME`: the record of a builtin (Note [Builtin records] in lang/builtin_table.cpp).
void helpFor(Session& session, const std::string& name, std::ostream& out) {
  auto it = builtins().find(name);
  if (it == builtins().end()) {
    Diagnostic d;
    d.code = "E0243";
    d.message = "no builtin named `" + name + "`";
    d.help = "`:help NAME` describes a builtin function, e.g. `:help sum`; `:help` lists the commands";
    session.diagnostics().report(d);
    return;
  }
  out << it->second.signature << "\n  " << it->second.description << "\n";
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

bool replEntry(Session& session, const std::string& entryRaw, std::ostream& out) {
  std::string entry = trim(entryRaw);
  if (entry.empty()) return true;
  std::string name = session.nextReplEntryName();
  if (entry[0] != ':') {
    Value v;
    if (session.run(name, entry, &v) && !v.isNone()) out << session.formatValue(v) << "\n";
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
Session* gCompletionSession = nullptr;  // editline's completion callback has no user pointer

char* completeName(const char* text, int state) {
  static std::vector<std::string> matches;
  static size_t next;
  if (state == 0) {
    matches.clear();
    next = 0;
    std::string prefix = text;
    for (const auto& [name, b] : builtins())
      if (name.rfind(prefix, 0) == 0) matches.push_back(name);
    if (gCompletionSession)
      for (const auto& [name, v] : gCompletionSession->evaluator().globals()->vars())
        if (name.rfind(prefix, 0) == 0) matches.push_back(name);
  }
  return next < matches.size() ? strdup(matches[next++].c_str()) : nullptr;
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

}  // namespace

bool runRepl(Session& session, const SessionOptions& opts) {
  bool tty = isatty(0) && isatty(1);
  installInterruptHandler(session);
#ifdef SCN_HAVE_EDITLINE
  if (tty) {
    gCompletionSession = &session;
    rl_completion_entry_function = completeName;
    std::string histFile = std::string(getenv("HOME") ? getenv("HOME") : ".") + "/.scn_history";
    read_history(histFile.c_str());
    std::cout << "scn " << SCN_VERSION << " — :help for commands, Ctrl-D to quit\n";
    std::string entry;
    for (;;) {
      session.clearInterrupt();
      char* line = readline(entry.empty() ? "scn> " : "...> ");
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
      bool go = replEntry(session, entry, std::cout);
      entry.clear();
      if (!outputReached(session) || !go) break;
    }
    return true;
  }
#endif
  (void)tty;
  (void)opts;
  std::string entry, line;
  while (std::getline(std::cin, line)) {
    entry += line + "\n";
    if (isIncomplete(entry)) continue;
    session.clearInterrupt();
    bool go = replEntry(session, entry, std::cout);
    session.clearInterrupt();
    entry.clear();
    if (!outputReached(session) || !go) return true;
  }
  if (!trim(entry).empty()) replEntry(session, entry, std::cout);
  outputReached(session);
  return true;
}

}  // namespace scn
