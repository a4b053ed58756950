// Reading program files: regular files only, bounded in size, stoppable by an interrupt.
#include "driver/source_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diagnostics.hpp"

namespace scn {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;  // the interrupt is polled once per chunk

[[noreturn]] void cannotRead(const std::string& path, const std::string& why,
                             const std::string& help = "check the path and its permissions") {
  fail("E0502", Span{}, "cannot read \"" + path + "\": " + why, help);
}

/// The system's reason for `err`, starting lower-case like every message.
std::string reason(int err) {
  std::string s = std::strerror(err);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && !(s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z'))
    s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

const char* kindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void tooLarge(const std::string& path) {
  fail("E0508", Span{}, "\"" + path + "\" is larger than " + std::to_string(kMaxSourceBytes >> 20) +
                            " MiB, the limit for a source file",
       "split the program into files that `import` each other");
}

struct Fd {
  int fd;
  ~Fd() { ::close(fd); }
};

}  // namespace

std::optional<std::string> readSourceFile(const std::string& path, const std::function<bool()>& interrupted) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is rejected just below); it
  // changes nothing for a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return std::nullopt;
    cannotRead(path, reason(err));
  }
  Fd guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) cannotRead(path, reason(errno));
  if (S_ISDIR(st.st_mode))
    cannotRead(path, "it is a directory, not a source file", "give the path of a .scn file");
  if (!S_ISREG(st.st_mode))
    cannotRead(path, std::string("it is ") + kindOf(st.st_mode) + ", not a regular file",
               "scn reads programs from regular files only; save the text to a file first");
  if (static_cast<uint64_t>(st.st_size) > kMaxSourceBytes) tooLarge(path);
  // The size is only a hint: /proc files say 0, and a file may grow while it is read.
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  std::string chunk(std::clamp<size_t>(static_cast<size_t>(st.st_size) + 1, 4096, kChunkBytes), '\0');
  for (;;) {
    if (interrupted && interrupted()) failInterrupted();
    ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) cannotRead(path, reason(errno));
    if (n == 0) return text;
    if (text.size() + static_cast<size_t>(n) > kMaxSourceBytes) tooLarge(path);
    text.append(chunk.data(), static_cast<size_t>(n));
  }
}

std::string readProgramFile(const std::string& path, const std::function<bool()>& interrupted) {
  std::optional<std::string> text = readSourceFile(path, interrupted);
  if (!text) cannotRead(path, "no such file");
  return std::move(*text);
}

}  // namespace scn
