// Atomic save: temp file in the target's directory, fsync, rename(2).
#include "core/AtomicFile.h"

#include <fcntl.h>
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
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(name.data(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(name.data());
    return makeError("cannot replace the file: " + why, SourceLocation{path, 0, 0, ""});
  }
  return success();
}

}  // namespace gir
