// The correctness oracle and the figures for an output kernel (docs/ascend.md, "Correctness and figures").
#pragma once

#include <cstdint>
#include <string>

#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"

namespace gir::ascend {

struct OracleOptions {
  int64_t exhaustiveLimit = 4096;  // whole-run paths enumerated when at most this many
  int randomPaths = 256;           // otherwise: this many random paths + all-then + all-else
  int latencySeeds = 3;            // per path, besides nominal latencies
  uint64_t seed = 0x5eed;
  bool robust = true;              // also check the latency-independent property
};

// The contract's normative sampling; tests may pass smaller numbers only for speed.
OracleOptions normativeOracleOptions();

struct OracleReport {
  bool correct = true;
  std::string violation;  // the first violation, with the path and latency seed it occurred on
  bool robust = true;
  std::string robustMessage;
  bool exhaustive = false;
  int64_t paths = 0, runs = 0;
  int64_t cyclesAllThen = 0, cyclesAllElse = 0, idealAllThen = 0, idealAllElse = 0;
  double cyclesMean = 0, idealMean = 0, barrierAllMean = 0;
  double overhead = 0;  // cyclesMean / idealMean
  int flagsUsed = 0, maxFlagsPerPair = 0;
  double setsMean = 0, waitsMean = 0;
};

OracleReport runOracle(const Program& output, const Target& target, const OracleOptions& opt);
std::string formatOracleReport(const OracleReport& r, const std::string& kernel);
std::string oracleReportJson(const OracleReport& r, const std::string& kernel);

}  // namespace gir::ascend
