// Standard output of the command line and the REPL (Note [Output errors]).
#include "driver/cli_output.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include <fcntl.h>
#include <stdio_ext.h>
#include <unistd.h>

namespace scn {

// Note [Output errors]
// Output that cannot be written must not vanish with exit status 0. Every piece of program
// output (print, the value of -e, the REPL's answers) is flushed and checked as it is written,
// and stdout once more at the end (--emit's text, --help). A failure is E0513, "cannot write to
// standard output: <reason>": a script stops there with exit status 1, a REPL entry stops and
// the session goes on. One failure is normal rather than an error: the reader went away
// (`scn prog.scn | head -1`). Like other Unix tools scn then stops quietly: SIGPIPE is ignored,
// so the write returns EPIPE instead of killing the process (status 141); the program stops
// with E0513 as above, but nothing is shown (a reader that is gone cannot be told) and the
// exit status is 0. A standard stream already closed at start (`>&-`) would otherwise be
// reused by the first file scn opens (the cache directory, a cache entry), and printing would
// write into that file; /dev/null opened read-only takes its place, so writes fail (EBADF)
// and are reported.
namespace {

bool gReaderGone = false;  // the CLI has one stdout: process state, like the stream itself

Diagnostic outputError(int err) {
  if (err == EPIPE) gReaderGone = true;
  std::string reason = err != 0 ? std::strerror(err) : "a write failed";
  return makeDiagnostic("E0513", Span{}, "cannot write to standard output: " + reason,
                        "send the output somewhere writable: a full disk, a closed descriptor "
                        "(`>&-`) and a read-only file all fail");
}

/// Forgets what failed to be written (it would fail again, and be reported twice) and the
/// stream's error state, so later output is tried afresh.
void dropUnwritten() {
  __fpurge(stdout);
  std::clearerr(stdout);
  std::cout.clear();
}

}  // namespace

void prepareStandardStreams() {
  std::signal(SIGPIPE, SIG_IGN);
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) ::open("/dev/null", O_RDONLY);  // takes fd
}

void writeStdout(std::string_view text) {
  errno = 0;
  bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  int err = errno;
  if (ok && std::fflush(stdout) != 0) {
    ok = false;
    err = errno;
  }
  if (ok) return;
  dropUnwritten();
  throw UserError(outputError(err));
}

std::optional<Diagnostic> flushStdout() {
  errno = 0;
  std::cout.flush();
  bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.bad();
  int err = errno;
  if (!failed) return std::nullopt;
  dropUnwritten();
  return outputError(err);
}

bool stdoutReaderGone() { return gReaderGone; }

}  // namespace scn
