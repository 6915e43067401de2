// The oracle on hand-written outputs: each of the contract's four failure kinds, robustness, figures.
#include <catch2/catch.hpp>

#include "codegen/ascend/asck/AsckOracle.h"
#include "codegen/ascend/asck/AsckParser.h"
#include "codegen/ascend/asck/AsckSimulator.h"
#include "codegen/ascend/asck/AsckTrace.h"

using namespace gir::ascend;

namespace {

const char* kHead = "kernel k\nbuffer x GM 8192 tile=1024\nbuffer y GM 8192 tile=1024\nbuffer u UB 1024\n";

OracleReport judge(const std::string& body) {
  auto p = parseAsck(std::string(kHead) + body, "k.asck");
  REQUIRE(p.ok());
  return runOracle(*p, Target{}, normativeOracleOptions());
}

}  // namespace

TEST_CASE("a correctly synchronized loop passes and is robust", "[ascend][oracle]") {
  auto r = judge(
      "set_flag MTE3 MTE2 0\nloop i 8 {\n  wait_flag MTE3 MTE2 0\n  MTE2 copy u <- x[i] cycles=100\n"
      "  set_flag MTE2 MTE3 0\n  wait_flag MTE2 MTE3 0\n  MTE3 copy y[i] <- u cycles=100\n  set_flag MTE3 MTE2 0\n}\n"
      "wait_flag MTE3 MTE2 0\n");
  INFO(r.violation);
  CHECK(r.correct);
  CHECK(r.robust);
  CHECK(r.idealMean == Approx(1600));
  CHECK(r.cyclesMean >= r.idealMean);
  CHECK(r.barrierAllMean > r.idealMean);
  CHECK(r.flagsUsed == 2);
  CHECK(r.setsMean == Approx(17));  // 1 + 8 MTE3->MTE2, 8 MTE2->MTE3
}

TEST_CASE("a missing wait is a conflict naming the pair and the iteration", "[ascend][oracle]") {
  auto r = judge("loop i 2 {\n  MTE2 copy u <- x[i] cycles=100\n  MTE3 copy y[i] <- u cycles=10\n}\n");
  REQUIRE_FALSE(r.correct);
  CHECK(r.violation.find("conflict RAW on u") != std::string::npos);
  CHECK(r.violation.find("'MTE2 copy' (line 6, i=0)") != std::string::npos);
  CHECK(r.violation.find("'MTE3 copy' (line 7, i=0)") != std::string::npos);
}

TEST_CASE("setting a flag that is already set is reported", "[ascend][oracle]") {
  // V is busy, so its wait arrives long after the second set has fired.
  auto r = judge("V relu u <- u cycles=50\nset_flag MTE2 V 1\nset_flag MTE2 V 1\nwait_flag MTE2 V 1\nwait_flag MTE2 V 1\n");
  REQUIRE_FALSE(r.correct);
  CHECK(r.violation.find("set-on-set") != std::string::npos);
  CHECK(r.violation.find("set_flag MTE2 V 1 (line 7, outside loops) fires at 2") != std::string::npos);
}

TEST_CASE("a wait without a set deadlocks", "[ascend][oracle]") {
  auto r = judge("MTE2 copy u <- x[0]\nwait_flag MTE2 V 2\nV relu u <- u\n");
  REQUIRE_FALSE(r.correct);
  CHECK(r.violation.find("deadlock") != std::string::npos);
  CHECK(r.violation.find("wait_flag MTE2 V 2 (line 6, outside loops)") != std::string::npos);
}

TEST_CASE("a flag still set at the end is reported", "[ascend][oracle]") {
  auto r = judge("MTE2 copy u <- x[0]\nset_flag MTE2 V 0\n");
  REQUIRE_FALSE(r.correct);
  CHECK(r.violation.find("flag left set") != std::string::npos);
}

TEST_CASE("an output correct only because of timing is correct but not robust", "[ascend][oracle]") {
  // The store waits for a long scalar op instead of the load: right at these latencies, not by order.
  auto r = judge("MTE2 copy u <- x[0] cycles=10\nS wait_a_bit - <- - cycles=1000\nset_flag S MTE3 0\n"
                 "wait_flag S MTE3 0\nMTE3 copy y[0] <- u cycles=10\n");
  CHECK(r.correct);
  CHECK_FALSE(r.robust);
  CHECK(r.robustMessage.find("RAW") != std::string::npos);
}

TEST_CASE("branches are enumerated: a wait missing on one path only is found", "[ascend][oracle]") {
  auto r = judge("MTE2 copy u <- x[0]\nset_flag MTE2 MTE3 0\nif c {\n  wait_flag MTE2 MTE3 0\n} else {\n}\n"
                 "MTE3 copy y[0] <- u\n");
  REQUIRE_FALSE(r.correct);
  CHECK(r.exhaustive);
  CHECK(r.violation.find("path E") != std::string::npos);
}

TEST_CASE("more than 4096 paths are sampled", "[ascend][oracle]") {
  auto r = judge("loop i 13 {\n  if c {\n    V relu u <- u\n  }\n}\n");
  CHECK(r.correct);
  CHECK_FALSE(r.exhaustive);
  CHECK(r.paths >= 258);
}

TEST_CASE("ideal and barrier-all figures follow their definitions", "[ascend][oracle]") {
  auto p = parseAsck(std::string(kHead) + "MTE2 copy u <- x[0] cycles=100\nV relu u <- u cycles=10\n"
                                           "MTE3 copy y[1] <- x[2] cycles=50\n",
                     "k.asck");
  REQUIRE(p.ok());
  Trace t = buildTrace(*p, Target{}, [] { return true; });
  CHECK(idealMakespan(t) == 110);              // MTE3 is independent and overlaps
  CHECK(barrierAllMakespan(t, 1) == 100 + 1 + 10 + 1 + 50);
}
