// Reading and writing data files: whole reads, memory-mapped .npy loads and atomic writes.
#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>

#include "base/diagnostics.hpp"
#include "jit/array.hpp"

namespace scn {

/// .npy data at least this large is memory-mapped instead of read (Note [Mapped arrays]).
constexpr size_t kMapMinBytes = size_t{1} << 20;

/// The whole contents of the regular file at `path`; E0514 naming it when it cannot be read
/// or is not a regular file (a directory, a device, a pipe).
std::string readWholeFile(const std::string& path, Span span);

/// Loads a .npy file. Large data already in scn's layout is memory-mapped (the array owns the
/// mapping); the rest is read into one allocation, then byte-swapped or transposed in place.
Array loadNpyFile(const std::string& path, Span span);

/// The write(2) a save uses; tests pass one that fails.
using WriteFn = ssize_t (*)(int fd, const void* data, size_t bytes);

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename
/// (Note [Atomic saves]). A failure (a full disk, no permission) is E0520 and leaves `path` as it
/// was and no temporary file behind. A path that exists and is not a regular file (/dev/stdout,
/// a pipe) is written directly.
void writeFileAtomically(const std::string& path, std::string_view bytes, Span span, WriteFn write = nullptr);

}  // namespace scn
