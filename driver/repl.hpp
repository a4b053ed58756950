// The interactive REPL: line editing (editline) on a terminal, a plain mode for pipes.
#pragma once

#include <istream>
#include <ostream>

#include "driver/session.hpp"

namespace scn {

/// What a REPL session shows besides answers; `:stats on|off` changes `stats`.
struct ReplState {
  bool stats = false;  // --stats: a line per compiled call after each entry, a summary at the end
  bool color = false;  // the prompt in colour (diagnostics are coloured by the sink's renderer)
};

/// Runs the REPL on stdin until :quit, `exit`, `quit` or end of input. Returns true unless
/// stdin failed. On a terminal it uses editline (history in ~/.scn_history, Ctrl-R, tab
/// completion); otherwise it reads lines plainly and prints no prompt, so sessions can be piped
/// and tested.
bool runRepl(Session& session, ReplState state);

/// Makes SIGINT (Ctrl-C) set the session's interrupt flag (Note [Ctrl-C] in repl.cpp): the
/// running entry stops with E0507; a second Ctrl-C before the first was seen ends the process.
/// For the REPL and for scripts; one session per process.
void installInterruptHandler(Session& session);

/// One REPL entry (possibly several lines): a `:command` or scn code. Output goes to `out`,
/// diagnostics to the session's sink. Returns false when the entry asks to quit.
bool replEntry(Session& session, const std::string& entry, std::ostream& out, ReplState& state);

}  // namespace scn
