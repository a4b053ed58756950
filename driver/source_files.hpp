// Reading program files from disk for scripts, `:load`, `import` and scn_load_file.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace scn {

/// The largest source file scn reads (E0508): far beyond any written program, small enough that
/// a mistaken `import "/var/log/huge.log"` fails at once instead of filling memory.
constexpr size_t kMaxSourceBytes = size_t{64} << 20;

/// The text of the program file at `path`; nullopt when no file is there. Only regular files are
/// read (a directory, FIFO or device is E0502, never a hang or an endless read), at most
/// kMaxSourceBytes (E0508), in chunks, polling `interrupted` between them (E0507). Other
/// failures (no permission, a symlink loop, a name too long) are E0502 with the system's reason.
/// Errors carry no location: an `import` gives them its own.
std::optional<std::string> readSourceFile(const std::string& path, const std::function<bool()>& interrupted);
/// As readSourceFile, for a file named by the user (a script, `:load`): a missing one is E0502.
std::string readProgramFile(const std::string& path, const std::function<bool()>& interrupted);

}  // namespace scn
