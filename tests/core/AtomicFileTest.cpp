// Saving is atomic and keeps the file's mode: mkstemp's 0600 used to replace a user's 0644 file (and new
// files ignored the umask).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "core/AtomicFile.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

mode_t modeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("an atomic save keeps the replaced file's mode and gives a new file the umask's", "[atomic]") {
  std::string path = test::binaryPath("tests/atomic-save.txt");
  std::filesystem::remove(path);
  mode_t old = ::umask(022);
  REQUIRE(writeFileAtomically(path, "first\n"));
  CHECK(modeOf(path) == 0644);
  ::chmod(path.c_str(), 0640);
  REQUIRE(writeFileAtomically(path, "second\n"));
  CHECK(modeOf(path) == 0640);
  CHECK(test::readText(path) == "second\n");
  ::umask(old);
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    CHECK(e.path().filename().string().rfind("atomic-save.txt.tmp-", 0) != 0);  // no temporary left behind
}
