// Seeded random kernels (loops, ifs with and without else, tiles by loop variable and modulo, cube and
// vector pipes): the inserted output must pass the oracle with 1, 2, 4 and 8 flags per pipe pair, each
// variant of the portfolio on its own too, and the exact search's bound must prune no optimum.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "codegen/ascend/asck/AsckValidator.h"
#include "codegen/ascend/sync/FlagInsertion.h"
#include "codegen/ascend/sync/FlagOptimal.h"
#include "tests/ascend/AscendTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir::ascend;

namespace {

class KernelGen {
 public:
  explicit KernelGen(uint64_t seed) : rng_(seed) {}
  std::string make();

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::string index(int tiles);
  std::string ub() { return "u" + std::to_string(pick(4)); }
  std::string instr();
  void block(std::ostringstream& os, int depth, int& budget, const std::string& ind);

  std::mt19937_64 rng_;
  std::vector<std::string> vars_;
};

// A tile index in [0, tiles): a constant, a loop variable, or a modulo of one.
std::string KernelGen::index(int tiles) {
  if (vars_.empty() || pick(3) == 0) return std::to_string(pick(tiles));
  const std::string& v = vars_[pick(static_cast<int>(vars_.size()))];
  if (pick(2) == 0) return v + "%" + std::to_string(1 + pick(tiles));
  return "(" + v + "+" + std::to_string(pick(3)) + ")%" + std::to_string(tiles);
}

std::string KernelGen::instr() {
  switch (pick(9)) {
    case 0: return "MTE2 copy " + ub() + " <- x[" + index(16) + "] cycles=" + std::to_string(50 + pick(100));
    case 1: return "MTE2 copy t[" + index(4) + "] <- x[" + index(16) + "]";
    case 2: return "V add " + ub() + " <- " + ub() + ", t[" + index(4) + "] cycles=" + std::to_string(10 + pick(40));
    case 3: return "V relu " + ub() + " <- " + ub();
    case 4: return "MTE3 copy y[" + index(16) + "] <- " + ub();
    case 5: return "S upd " + ub() + " <- " + ub() + " cycles=3";
    case 6: return "MTE2 copy l1 <- x[" + index(16) + "]";
    case 7: return "MTE1 load a0 <- l1";
    default: return pick(2) ? "M mmad c0 <- a0, c0" : "FIX copy " + ub() + " <- c0";
  }
}

void KernelGen::block(std::ostringstream& os, int depth, int& budget, const std::string& ind) {
  int n = 1 + pick(4);
  for (int k = 0; k < n && budget > 0; ++k) {
    int what = depth < 2 ? pick(6) : 0;
    if (what == 4) {
      std::string v = "i" + std::to_string(vars_.size());
      os << ind << "loop " << v << " " << 1 + pick(4) << " {\n";
      vars_.push_back(v);
      block(os, depth + 1, budget, ind + "  ");
      vars_.pop_back();
      os << ind << "}\n";
    } else if (what == 5) {
      os << ind << "if c" << pick(3) << " {\n";
      block(os, depth + 1, budget, ind + "  ");
      if (pick(2)) {
        os << ind << "} else {\n";
        block(os, depth + 1, budget, ind + "  ");
      }
      os << ind << "}\n";
    } else {
      os << ind << instr() << "\n";
      --budget;
    }
  }
}

std::string KernelGen::make() {
  std::ostringstream os;
  os << "kernel fuzz\nbuffer x GM 16384 tile=1024\nbuffer y GM 16384 tile=1024\nbuffer t UB 4096 tile=1024\n"
        "buffer u0 UB 1024\nbuffer u1 UB 1024\nbuffer u2 UB 1024\nbuffer u3 UB 1024\nbuffer l1 L1 1024\n"
        "buffer a0 L0A 1024\nbuffer c0 L0C 1024\n\n";
  int budget = 14;
  vars_.clear();
  block(os, 0, budget, "");
  return os.str();
}

}  // namespace

TEST_CASE("random kernels: inserted outputs pass the oracle for 1, 2, 4 and 8 flags", "[ascend][fuzz]") {
  int notRobust = 0, total = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::string text = KernelGen(seed).make();
    auto p = parseAsck(text, "fuzz.asck");
    INFO("seed " << seed << "\n" << text << (p ? "" : p.error().str()));
    REQUIRE(p.ok());
    auto ok = validateInput(*p, text);
    INFO((ok ? "" : ok.error().str()));
    REQUIRE(ok.ok());
    for (int flags : {1, 2, 4, 8}) {
      Target t;
      t.flags = flags;
      InsertOptions opt;
      opt.flags = flags;
      auto res = insertSync(*p, opt);
      INFO("flags " << flags << (res ? "" : res.error().str()));
      REQUIRE(res.ok());
      INFO(printAsck(res->output));
      CHECK(res->stats.physicalMaxPerPair <= flags);
      OracleOptions o = gir::test::quickOracle();
      o.robust = true;
      OracleReport r = runOracle(res->output, t, o);
      INFO(r.violation);
      CHECK(r.correct);
      if (!r.correct || !r.robust) gir::test::writeText(gir::test::binaryPath("fuzz-" + std::to_string(seed) + ".asck"), text);
      ++total;
      notRobust += r.correct && !r.robust;
      if (r.correct && !r.robust) WARN("seed " << seed << " flags " << flags << ": " << r.robustMessage);
    }
  }
  WARN("random kernels not robust: " << notRobust << " of " << total);
}

TEST_CASE("random kernels: every variant of the portfolio passes the oracle on its own", "[ascend][fuzz]") {
  Target t;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    std::string text = KernelGen(seed).make();
    auto p = parseAsck(text, "fuzz.asck");
    REQUIRE(p.ok());
    for (int v = 0; v < static_cast<int>(insertVariants().size()); ++v) {
      INFO("seed " << seed << ", variant " << insertVariants()[v].name << "\n" << text);
      InsertOptions opt;
      opt.variant = v;
      auto res = insertSync(*p, opt);
      REQUIRE(res.ok());
      OracleReport r = runOracle(res->output, t, gir::test::quickOracle());
      INFO(printAsck(res->output) << r.violation);
      CHECK(r.correct);
    }
  }
}

// The branch and bound is exact only if its bound never cuts off a better candidate: with and without
// the bound the search must find the same makespan.
TEST_CASE("random kernels: the exact search's bound prunes no optimum", "[ascend][fuzz][optimal]") {
  Target t;
  int compared = 0;
  for (uint64_t seed = 1; seed <= 60 && compared < 25; ++seed) {
    auto p = parseAsck(KernelGen(seed).make(), "fuzz.asck");
    REQUIRE(p.ok());
    OptimalOptions opt;
    opt.target = &t;
    opt.maxFlags = 7;
    opt.maxLeaves = 4000;
    opt.sampledPaths = 8;
    auto bounded = searchOptimal(*p, opt);
    REQUIRE(bounded.ok());
    if (!bounded->proved) continue;
    opt.useBound = false;
    auto full = searchOptimal(*p, opt);
    REQUIRE(full.ok());
    if (!full->proved) continue;
    INFO("seed " << seed << "\n" << KernelGen(seed).make() << "\nbest:\n" << printAsck(bounded->output));
    CHECK(bounded->cycles == full->cycles);
    CHECK(bounded->leaves <= full->leaves);
    CHECK(bounded->cycles <= bounded->barrierAll);
    CHECK(bounded->cycles >= bounded->ideal);
    ++compared;
  }
  CHECK(compared >= 10);
}
