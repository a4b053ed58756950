// What the REPL's files share: `:help NAME` and tab completion.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "driver/session.hpp"

namespace scn {

/// `:help NAME` / `?NAME`: a builtin's record, or a function's signature, the comment above its
/// `fn`, where it is defined and the signatures it is compiled for; E0243 for an unknown name.
void helpFor(Session& session, const std::string& name, std::ostream& out);

/// The REPL's commands, for `:help` and completion.
const std::vector<std::string>& replCommands();

/// The completions of the word ending at `cursor` in `line` (Note [Completion] in
/// repl_complete.cpp): `:commands`, names, dtypes, keyword arguments, file paths.
std::vector<std::string> completionsAt(Session& session, const std::string& line, size_t cursor);

}  // namespace scn
