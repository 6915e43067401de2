// Each insertion stage on its own, through its dump: figure-13 removal cases, the parity fix, the
// wait-before-set / set-after-wait pairs, cross-iteration preheader/exit, merging, normalization.
#include <catch2/catch.hpp>

#include "codegen/ascend/sync/FlagInsertion.h"
#include "tests/ascend/AscendTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir::ascend;

namespace {

std::string stage(const std::string& kernel, const std::string& name, int flags = 4) {
  Program in = gir::test::loadKernelOrFail(gir::test::sourcePath("tests/ascend/corpus/" + kernel + ".asck"));
  InsertOptions opt;
  opt.flags = flags;
  opt.keepDumps = true;
  opt.variant = 0;  // the stages of one pass (the portfolio would show the kept variant's)
  auto res = insertSync(in, opt);
  REQUIRE(res.ok());
  for (const auto& d : res->dumps)
    if (d.name == name) return d.text;
  FAIL("no stage " << name);
  return "";
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("redundant removal applies the three cases of figure 13", "[ascend][stages]") {
  std::string a = stage("matmul_chain_l1", "redundant");
  INFO(a);
  CHECK(has(a, "case a: same set, its wait dominates"));
  CHECK(has(a, "case b: same wait, its set post-dominates"));
  CHECK(has(a, "case c: set post-dominates and wait dominates"));
}

TEST_CASE("normalization gives every if an else", "[ascend][stages]") {
  std::string n = stage("if_no_else", "normalize");
  INFO(n);
  CHECK(has(n, "} else {"));
}

TEST_CASE("the parity fix balances an if without else", "[ascend][stages]") {
  std::string p = stage("if_no_else", "parity");
  INFO(p);
  CHECK(has(p, "set added at the end of the else branch of 'if scale'"));
  CHECK(has(p, "wait added at the end of the else branch of 'if scale'"));
}

TEST_CASE("mutually unreachable pairs get wait-before-set and set-after-wait", "[ascend][stages]") {
  std::string v = stage("if_else_unreachable", "virtual");
  INFO(v);
  CHECK(has(v, "    wait_flag V MTE2 1\n    set_flag V MTE2 1\n    MTE2 copy buf"));
  CHECK(has(v, "  } else {\n    wait_flag MTE2 V 0\n"));
}

TEST_CASE("cross-iteration flags get a set in the preheader and a wait in the exit", "[ascend][stages]") {
  std::string v = stage("vec_add_relu", "virtual");
  INFO(v);
  CHECK(has(v, "set_flag V MTE2 1\nset_flag MTE3 V 3\nloop i 32 {"));
  CHECK(has(v, "}\nwait_flag V MTE2 1\nwait_flag MTE3 V 3\n"));
}

TEST_CASE("merging keeps at most N flags of a pipe pair live", "[ascend][stages]") {
  std::string m = stage("many_live_loop", "merge", 4);
  INFO(m);
  CHECK(has(m, "merged into flag"));
  CHECK(has(m, "(cross-iteration, "));
  std::string p = stage("many_live_loop", "physical", 4);
  CHECK_FALSE(has(p, "MTE2 V 4"));
}

TEST_CASE("the deps stage lists RAW, WAR and WAW with their shapes", "[ascend][stages]") {
  std::string d = stage("cross_iter_feedback", "deps");
  INFO(d);
  CHECK(has(d, "RAW MTE2 -> V"));
  CHECK(has(d, "WAR V -> MTE2"));
  CHECK(has(d, "cross-iteration"));
  CHECK(has(stage("whole_and_tiles", "deps"), "WAW MTE2 -> V"));
}
