// Standard output of the command line and the REPL: a write that fails is a diagnostic (E0513),
// a reader that went away (a closed pipe) a quiet stop (Note [Output errors]).
#pragma once

#include <optional>
#include <string_view>

#include "base/diagnostics.hpp"

namespace scn {

/// Call first in main: ignores SIGPIPE (a closed pipe becomes EPIPE) and puts /dev/null, open
/// read-only, in place of a closed stdin, stdout or stderr, so writes to a closed stream fail.
void prepareStandardStreams();

/// Writes program output to stdout and flushes it; a failed write throws a UserError (E0513).
void writeStdout(std::string_view text);

/// Flushes stdout (std::cout and the C stream alike). A failure gives its E0513 diagnostic and
/// clears the stream's error state, so a REPL can go on.
std::optional<Diagnostic> flushStdout();

/// True once a write found that the reader of stdout went away (EPIPE): E0513 is then not
/// shown, and the command exits 0.
bool stdoutReaderGone();

}  // namespace scn
