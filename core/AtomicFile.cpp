// Atomic save: temp file in the target's directory, fsync, rename(2).
#include "core/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace gir {

Expected<std::string> readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(std::string("cannot open file: ") + std::strerror(errno), SourceLocation{path, 0, 0, ""});
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return makeError("read error", SourceLocation{path, 0, 0, ""});
  return ss.str();
}

namespace {

// The process's umask, read without changing it (umask(2) would, for every thread, for a moment).
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "Umask:") {
      std::string octal;
      status >> octal;
      return static_cast<mode_t>(std::strtoul(octal.c_str(), nullptr, 8));
    }
  }
  return 022;
}

// mkstemp creates 0600: a save keeps the replaced file's mode, and a new file gets what open(2) would
// have given it, so saving never makes a user's file private or executable.
mode_t modeForSave(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
  return 0666 & ~currentUmask();
}

}  // namespace

Status writeFileAtomically(const std::string& path, const std::string& contents) {
  std::string tmpl = path + ".tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) return makeError(std::string("cannot create a temporary file: ") + std::strerror(errno), SourceLocation{path, 0, 0, ""});
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(name.data());
      return makeError("write failed: " + why, SourceLocation{path, 0, 0, ""});
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  bool synced = ::fchmod(fd, modeForSave(path)) == 0 && ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(name.data(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(name.data());
    return makeError("cannot replace the file: " + why, SourceLocation{path, 0, 0, ""});
  }
  return success();
}

}  // namespace gir
