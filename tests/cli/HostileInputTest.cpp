// Issue #19's hostile inputs (tests/data/hostile/MANIFEST): each `gir` command exits 2 with an error naming
// the limit or the bad value, within 1 s and 100 MB. Under the sanitizers (CI's clang build) the time and
// memory bounds do not apply, and a sanitizer report would show as an exit code other than 2.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/TestSupport.h"

namespace {

struct Hostile {
  std::string args, expect;
};

std::vector<Hostile> hostileInputs() {
  std::vector<Hostile> out;
  std::ifstream in(gir::test::sourcePath("tests/data/hostile/MANIFEST"));
  std::string line;
  while (std::getline(in, line)) {
    auto bar = line.find(" | ");
    if (line.empty() || line[0] == '#' || bar == std::string::npos) continue;
    std::string args = line.substr(0, bar);
    auto space = args.find(' ');
    out.push_back({args.substr(0, space) + " " + gir::test::sourcePath(args.substr(space + 1)), line.substr(bar + 3)});
  }
  return out;
}

struct Run {
  int code = -1;
  std::string output;
  double seconds = 0;
  long maxRssKb = 0;
};

// One child, waited for with wait4 so that its own peak memory is known (popen's is not).
Run runMeasured(const std::string& args) {
  Run r;
  std::string log = gir::test::binaryPath("tests/hostile-output.txt");
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = std::string("exec ") + GIR_EXE + " " + args + " > " + log + " 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.maxRssKb = usage.ru_maxrss;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = gir::test::readText(log);
  return r;
}

}  // namespace

TEST_CASE("issue #19's hostile inputs exit 2 naming the limit, within 1 s and 100 MB", "[cli][malformed]") {
  auto cases = hostileInputs();
  REQUIRE(cases.size() >= 14);
  for (const auto& c : cases) {
    Run r = runMeasured(c.args);
    INFO("gir " << c.args << "\n" << r.output << "\n" << r.seconds << " s, " << r.maxRssKb << " KB");
    CHECK(r.code == 2);
    CHECK_THAT(r.output, Catch::Contains("error:") && Catch::Contains(c.expect));
    if (!gir::test::kSanitizedBuild) {
      CHECK(r.seconds < 1.0);
      CHECK(r.maxRssKb < 100 * 1024);
    }
  }
}
