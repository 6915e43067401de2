// Parser, printer round trip and validator errors with file:line:col and a caret line.
#include <catch2/catch.hpp>

#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "tests/ascend/AscendTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir::ascend;

namespace {

// The first error for `text` (parse, then input validation); empty when it is accepted.
std::string firstError(const std::string& text) {
  auto p = parseAsck(text, "k.asck");
  if (!p) return p.error().str();
  auto ok = validateInput(*p, text);
  return ok ? "" : ok.error().str();
}

const char* kHeader = "kernel k\nbuffer x GM 4096 tile=1024\nbuffer u UB 1024\n";

}  // namespace

TEST_CASE("every corpus kernel round-trips through the printer", "[ascend][parser]") {
  auto corpus = gir::test::ascendCorpus();
  REQUIRE(corpus.size() >= 30);
  for (const auto& path : corpus) {
    Program p = gir::test::loadKernelOrFail(path);
    std::string once = printAsck(p);
    auto again = parseAsck(once, path);
    INFO(path << "\n" << once);
    REQUIRE(again.ok());
    CHECK(printAsck(*again) == once);
  }
}

TEST_CASE("sync lines, else blocks and index forms round-trip", "[ascend][parser]") {
  std::string text = std::string(kHeader) +
                     "buffer r UB 4096 tile=1024\n\nset_flag MTE2 V 3\nloop i 4 {\n  wait_flag MTE2 V 3\n"
                     "  if c {\n    V relu r[(2*i+1)%4] <- u cycles=5 name=act\n  } else {\n    pipe_barrier V\n  }\n"
                     "  MTE2 copy r[i%4], u <- x[3-i]\n}\npipe_barrier ALL\n";
  auto p = parseAsck(text, "k.asck");
  REQUIRE(p.ok());
  std::string once = printAsck(*p);
  CHECK(once.find("r[(2*i+1)%4]") != std::string::npos);
  CHECK(once.find("x[-i+3]") != std::string::npos);
  CHECK(once.find("name=act") != std::string::npos);
  auto again = parseAsck(once, "k.asck");
  REQUIRE(again.ok());
  CHECK(printAsck(*again) == once);
}

TEST_CASE("parse and validation errors name file, line and column with a caret", "[ascend][parser]") {
  struct Case {
    std::string body;
    std::string where;
    std::string what;
  };
  std::vector<Case> cases = {
      {"FOO copy u <- x[0]\n", "k.asck:4:1", "unknown pipe"},
      {"MTE2 copy u <- nope\n", "k.asck:4:16", "unknown buffer 'nope'"},
      {"V relu u <- x[0]\n", "k.asck:4:13", "pipe V cannot read GM"},
      {"MTE3 copy u <- u\n", "k.asck:4:11", "pipe MTE3 cannot write UB"},
      {"loop i 8 {\n  MTE2 copy u <- x[i]\n}\n", "k.asck:5:18", "has 4 tiles"},
      {"MTE2 copy u[0] <- x[0]\n", "k.asck:4:11", "which has no tile="},
      {"loop i 0 {\n}\n", "k.asck:4:8", "at least 1"},
      {"loop i 2 {\n  MTE2 copy u <- x[i]\n", "k.asck:4:10", "never closed"},
      {"}\n", "k.asck:4:1", "unbalanced '}'"},
      {"set_flag MTE2 V 0\n", "k.asck:4:1", "no sync lines"},
      {"MTE2 copy u <- x[j]\n", "k.asck:4:18", "not an enclosing loop variable"},
      {"MTE2 copy u x[0]\n", "k.asck:4:10", "expected 'DSTS <- SRCS'"},
      {"MTE2 copy u <- x[0] cycles=-3\n", "k.asck:4:21", "cycles=N"},
  };
  for (const auto& c : cases) {
    std::string err = firstError(std::string(kHeader) + c.body);
    INFO(c.body << " -> " << err);
    CHECK(err.find(c.where) != std::string::npos);
    CHECK(err.find(c.what) != std::string::npos);
    CHECK(err.find("^") != std::string::npos);
  }
}

TEST_CASE("outputs with flag IDs beyond the target are rejected", "[ascend][parser]") {
  std::string text = std::string(kHeader) + "set_flag MTE2 V 5\nwait_flag MTE2 V 5\n";
  auto p = parseAsck(text, "k.asck");
  REQUIRE(p.ok());
  auto bad = validateOutput(*p, text, 4);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().str().find("k.asck:4:1") != std::string::npos);
  CHECK(validateOutput(*p, text, 8).ok());
}
