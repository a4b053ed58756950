// Data files on disk: whole reads, memory-mapped .npy loads and atomic writes.
#include "lang/data_files.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

#include "lang/npy.hpp"

namespace scn {

namespace {

/// strerror's text, lower-case as diagnostics are ("no such file or directory").
std::string reason(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

[[noreturn]] void readError(const std::string& path, Span span, const std::string& what) {
  fail("E0514", span, "cannot load `" + path + "`: " + what,
       "paths are relative to the directory of the script that names them");
}

/// An open file descriptor, closed on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

int openForReading(const std::string& path, Span span, struct stat& st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) readError(path, span, reason(errno));
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    readError(path, span, reason(err));
  }
  // Only regular files, as for source files (E0502): /dev/zero or a pipe without a writer
  // would fill memory or hang.
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    readError(path, span, S_ISDIR(st.st_mode) ? "it is a directory, not a file" : "it is not a regular file (a device, pipe or socket)");
  }
  return fd;
}

/// Reads exactly `bytes` at `offset`; false at an early end of file.
bool readAt(int fd, void* into, size_t bytes, off_t offset, const std::string& path, Span span) {
  auto* p = static_cast<char*>(into);
  while (bytes > 0) {
    ssize_t n = ::pread(fd, p, bytes, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) readError(path, span, reason(errno));
    if (n == 0) return false;
    p += n, bytes -= static_cast<size_t>(n), offset += n;
  }
  return true;
}

// Note [Mapped arrays]
// A large .npy file whose data is already in scn's layout (native byte order, C order, not
// bool, which must be checked to be 0/1) is mapped, not read: the Array's buffer borrows the
// mapped bytes and the shared_ptr's deleter unmaps them when the last copy of the array goes.
// The mapping is private and writable, so nothing that writes to a buffer can reach the file or
// fault. NumPy pads headers so the data starts at a multiple of 64 bytes, which keeps the
// buffer as aligned as an allocated one; a file whose data is not 64-aligned is read instead.
// Caveat: another process truncating the file while it is mapped makes later reads of the
// lost pages fault (SIGBUS), as with np.load(mmap_mode='r'); scripts that load a file another
// program is rewriting should copy it first.
bool mappable(const NpyHeader& h) {
  return h.dataBytes >= kMapMinBytes && !h.swapBytes && !h.fortranOrder && h.dtype != DType::Bool &&
         h.dataOffset % 64 == 0;
}

Array mapArray(int fd, size_t fileBytes, const NpyHeader& h) {
  void* base = ::mmap(nullptr, fileBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) return Array{};
  Array a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  const char* data = static_cast<const char*>(base) + h.dataOffset;
  a.buffer = std::shared_ptr<Buffer>(new Buffer(Buffer::Borrow{}, data, h.dataBytes), [base, fileBytes](Buffer* b) {
    delete b;
    ::munmap(base, fileBytes);
  });
  return a;
}

}  // namespace

std::string readWholeFile(const std::string& path, Span span) {
  struct stat st {};
  Fd f{openForReading(path, span, st)};
  std::string out;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(f.fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) readError(path, span, reason(errno));
    if (n == 0) return out;
    out.append(chunk, static_cast<size_t>(n));
  }
}

Array loadNpyFile(const std::string& path, Span span) {
  struct stat st {};
  Fd f{openForReading(path, span, st)};
  size_t fileBytes = static_cast<size_t>(st.st_size);
  std::string prefix(std::min(fileBytes, 12 + kNpyMaxHeaderBytes), '\0');
  if (!readAt(f.fd, prefix.data(), prefix.size(), 0, path, span)) readError(path, span, "the file changed while it was read");
  NpyHeader h = parseNpyHeader(prefix, path, span);
  size_t have = fileBytes - h.dataOffset;
  if (have != h.dataBytes)
    fail("E0518", span,
         "cannot load `" + path + "`: " + (have < h.dataBytes ? "the file is truncated" : "the file is longer than its header says") +
             ": shape " + shapeString(h.shape) + " of " + dtypeName(h.dtype) + " needs " + std::to_string(h.dataBytes) +
             " bytes of data, the file has " + std::to_string(have));
  if (mappable(h)) {
    Array mapped = mapArray(f.fd, fileBytes, h);
    if (mapped.buffer) return mapped;
  }
  Array a(h.dtype, h.shape);
  if (h.dataBytes && !readAt(f.fd, a.raw(), h.dataBytes, static_cast<off_t>(h.dataOffset), path, span))
    readError(path, span, "the file changed while it was read");
  normaliseNpyData(a, h);
  return a;
}

// Note [Atomic saves]
// A save must never leave a half-written file where a good one was: the bytes go to a
// temporary file beside the target (same directory, so same file system and rename is atomic),
// are fsync'ed, and only then renamed over it. Any failure on the way (ENOSPC, EIO, EDQUOT, a
// permission error) removes the temporary file and reports E0520 with the system's reason. A
// target that is not a regular file (/dev/stdout, /dev/full, a pipe) cannot be replaced by a
// rename and is written in place.
void writeFileAtomically(const std::string& path, std::string_view bytes, Span span, WriteFn write) {
  if (!write) write = ::write;
  auto failWrite = [&](int err) -> void {
    fail("E0520", span, "cannot save `" + path + "`: " + reason(err),
         err == ENOSPC ? "the disk is full: free some space or save elsewhere; nothing was written" : "nothing was written");
  };
  struct stat st {};
  bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (special && S_ISDIR(st.st_mode)) failWrite(EISDIR);
  std::string tmp;
  Fd f;
  if (special) {
    f.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  } else {
    std::filesystem::path target(path);
    tmp = (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
    f.fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  }
  if (f.fd < 0) failWrite(errno);
  auto abandon = [&](int err) {
    if (!tmp.empty()) ::unlink(tmp.c_str());
    failWrite(err);
  };
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(f.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) abandon(n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
  if (special) return;
  // mkstemp makes the file 0600; a saved file is 0644 as with the usual umask (reading the
  // umask would change it for every thread for a moment).
  if (::fchmod(f.fd, 0644) != 0 || ::fsync(f.fd) != 0) abandon(errno);
  int fd = std::exchange(f.fd, -1);
  if (::close(fd) != 0) abandon(errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) abandon(errno);
}

}  // namespace scn
