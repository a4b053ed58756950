// The interactive REPL: line editing (editline) on a terminal, a plain mode for pipes.
#pragma once

#include <istream>
#include <ostream>

#include "driver/session.hpp"

namespace scn {

/// Runs the REPL on stdin until :quit or end of input. Returns true unless stdin failed.
/// On a terminal it uses editline (history in ~/.scn_history, Ctrl-R, tab completion);
/// otherwise it reads lines plainly and prints no prompt, so sessions can be piped and tested.
bool runRepl(Session& session, const SessionOptions& opts);

/// Makes SIGINT (Ctrl-C) set the session's interrupt flag (Note [Ctrl-C] in repl.cpp): the
/// running entry stops with E0507; a second Ctrl-C before the first was seen ends the process.
/// For the REPL and for scripts; one session per process.
void installInterruptHandler(Session& session);

/// One REPL entry (possibly several lines): a `:command` or scn code. Output goes to `out`,
/// diagnostics to the session's sink. Returns false when the entry asks to quit.
bool replEntry(Session& session, const std::string& entry, std::ostream& out);

}  // namespace scn
