// Every corpus kernel: inserted output is well formed, passes the oracle on ascend910 (4 IDs) and
// ascend910b (8 IDs), and matches its golden file (GIR_BLESS=1 rewrites goldens, but only after the
// oracle accepted the output, and stored goldens are themselves re-judged).
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "codegen/ascend/sync/SyncStages.h"
#include "tests/ascend/AscendTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir::ascend;
using gir::test::blessMode;
using gir::test::readText;
using gir::test::sourcePath;

namespace {

std::string goldenPath(const std::string& target, const std::string& name) {
  return sourcePath("tests/golden/ascend/" + target + "/" + name + ".asck");
}

// The output keeps every instruction in its block and order: stripping syncs gives the normalized input.
void checkWellFormed(const Program& input, const std::string& outText, const Target& t) {
  auto out = parseAsck(outText, "out.asck");
  REQUIRE(out.ok());
  auto ok = validateOutput(*out, outText, t.flags);
  INFO((ok ? "" : ok.error().str()));
  REQUIRE(ok.ok());
  Program stripped = *out;
  stripSync(stripped.body);
  CHECK(printAsck(stripped) == printAsck(normalizeCfg(input)));
}

void runTarget(const std::string& targetName) {
  Target target = gir::test::targetOrFail(targetName);
  std::vector<std::string> notRobust;
  for (const auto& path : gir::test::ascendCorpus()) {
    std::string name = gir::test::stem(path);
    INFO(name << " on " << targetName);
    Program in = gir::test::loadKernelOrFail(path);
    InsertOptions opt;
    opt.flags = target.flags;
    opt.target = &target;
    auto res = insertSync(in, opt);
    INFO((res ? "" : res.error().str()));
    REQUIRE(res.ok());
    CHECK(res->stats.physicalMaxPerPair <= target.flags);
    std::string text = printAsck(res->output);
    checkWellFormed(in, text, target);
    OracleReport rep = runOracle(res->output, target, normativeOracleOptions());
    INFO(rep.violation);
    REQUIRE(rep.correct);
    if (!rep.robust) notRobust.push_back(name + ": " + rep.robustMessage);
    std::string golden = goldenPath(targetName, name);
    if (blessMode()) {
      std::filesystem::create_directories(std::filesystem::path(golden).parent_path());
      gir::test::writeText(golden, text);
    }
    CHECK(readText(golden) == text);
  }
  std::cout << "[ascend] " << targetName << ": " << notRobust.size() << " corpus outputs not robust\n";
  for (const auto& n : notRobust) std::cout << "  " << n << "\n";
}

}  // namespace

TEST_CASE("corpus outputs pass the oracle on ascend910 and match goldens", "[ascend][corpus]") { runTarget("ascend910"); }

TEST_CASE("corpus outputs pass the oracle on ascend910b and match goldens", "[ascend][corpus]") { runTarget("ascend910b"); }

TEST_CASE("stored goldens are themselves judged by the oracle", "[ascend][corpus]") {
  for (const char* targetName : {"ascend910", "ascend910b"}) {
    Target target = gir::test::targetOrFail(targetName);
    for (const auto& path : gir::test::ascendCorpus()) {
      std::string golden = goldenPath(targetName, gir::test::stem(path));
      auto p = loadAsck(golden);
      INFO(golden << ": " << (p ? "" : p.error().str()));
      REQUIRE(p.ok());
      REQUIRE(validateOutput(*p, readText(golden), target.flags).ok());
      OracleReport rep = runOracle(*p, target, gir::test::quickOracle());
      INFO(rep.violation);
      CHECK(rep.correct);
    }
  }
}

TEST_CASE("every stage dump is inspectable and the .asck ones re-parse", "[ascend][corpus]") {
  Program in = gir::test::loadKernelOrFail(sourcePath("tests/ascend/corpus/if_else_unreachable.asck"));
  InsertOptions opt;
  opt.keepDumps = true;
  auto res = insertSync(in, opt);
  REQUIRE(res.ok());
  std::vector<std::string> names;
  for (const auto& d : res->dumps) {
    names.push_back(d.name);
    if (d.name == "deps") {
      CHECK(d.text.find("mutually-unreachable") != std::string::npos);
      continue;
    }
    INFO(d.name << "\n" << d.text);
    CHECK(parseAsck(d.text, d.name).ok());
  }
  CHECK(names == insertionStages());
}

TEST_CASE("more than 4 live dependencies of one pipe pair are merged down to the flags", "[ascend][corpus]") {
  Program in = gir::test::loadKernelOrFail(sourcePath("tests/ascend/corpus/many_live_loop.asck"));
  InsertOptions opt;
  auto res = insertSync(in, opt);
  REQUIRE(res.ok());
  CHECK(res->stats.maxLiveVirtual > 4);
  CHECK(res->stats.merges > 0);
  CHECK(res->stats.physicalMaxPerPair <= 4);
  opt.mergeVirtual = false;
  opt.removeRedundant = false;
  opt.variant = paperRulesVariant();
  auto base = insertSync(in, opt);
  REQUIRE_FALSE(base.ok());
  CHECK(base.error().str().find("one flag per dependency needs") != std::string::npos);
}

// Its time is bench_ascend's (insertion ms per kernel): speed is measured there, not asserted here.
TEST_CASE("a 1000-instruction kernel runs the whole portfolio and keeps its flags", "[ascend][corpus]") {
  Program in = gir::test::loadKernelOrFail(sourcePath("tests/ascend/corpus/big_vec_1024.asck"));
  REQUIRE(maxDynamicInstrs(in.body) >= 1000);
  auto res = insertSync(in, InsertOptions{});
  REQUIRE(res.ok());
  CHECK(res->stats.portfolio.size() == insertVariants().size());  // no if: the lifting variant is skipped
  CHECK_FALSE(res->stats.keptBarrierAll);
  CHECK(res->stats.flagCycles < res->stats.barrierAllCycles);
  WARN("insertion took " << res->stats.millis << " ms");
}

TEST_CASE("baselines: barrier-all always passes, one flag per dependency passes when it fits", "[ascend][corpus]") {
  Target t = gir::test::targetOrFail("ascend910");
  int fits = 0, fails = 0;
  for (const auto& path : gir::test::ascendCorpus()) {
    INFO(path);
    Program in = gir::test::loadKernelOrFail(path);
    OracleReport bar = runOracle(barrierAllBaseline(in), t, gir::test::quickOracle());
    INFO(bar.violation);
    CHECK(bar.correct);
    InsertOptions opt;
    opt.mergeVirtual = opt.removeRedundant = false;
    opt.variant = paperRulesVariant();
    auto one = insertSync(in, opt);
    if (!one) {
      ++fails;
      continue;
    }
    ++fits;
    OracleReport r = runOracle(one->output, t, gir::test::quickOracle());
    INFO(r.violation);
    CHECK(r.correct);
  }
  CHECK(fails >= 3);  // the many-live kernels need more than 4 flags without merging
  CHECK(fits > 0);
}
