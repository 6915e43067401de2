// The sync insertion pipeline (docs/ascend.md, "The insertion"), one linear function with a dump after
// every stage: deps, normalize, virtual, redundant, parity, merge, physical.
#pragma once

#include <string>
#include <vector>

#include "codegen/ascend/AsckProgram.h"
#include "codegen/ascend/AsckTarget.h"
#include "core/Expected.h"

namespace gir::ascend {

struct InsertOptions {
  int flags = 4;              // physical IDs per pipe pair
  bool keepDumps = false;     // render every stage's dump
  bool mergeVirtual = true;   // false: the one-flag-per-dependency baseline (fails past N live)
  bool removeRedundant = true;
  // When set, the placement is simulated against barrier-all on the all-then and all-else runs and
  // the faster one is kept (docs/ascend.md, "Never slower than barrier-all").
  const Target* target = nullptr;
};

struct StageDump {
  std::string name;
  std::string text;  // parseable .asck with '#' comment lines (deps: a list)
};

struct InsertStats {
  int deps = 0;
  int virtualIds = 0;          // after redundant removal, before merging
  int maxVirtualPerPair = 0;   // most virtual IDs of one pipe pair
  int maxLiveVirtual = 0;      // most live at one point, one pipe pair
  int physicalMaxPerPair = 0;  // physical IDs used by the busiest pipe pair
  int merges = 0, reversePairs = 0, barriers = 0, rounds = 0;
  double millis = 0;           // insertion time (dumps excluded)
  // With a target: nominal cycles (mean of all-then and all-else) of the placement and of
  // barrier-all, and whether barrier-all was kept because the placement was slower.
  double flagCycles = 0, barrierAllCycles = 0;
  bool keptBarrierAll = false;
};

struct InsertResult {
  Program output;
  std::vector<StageDump> dumps;
  InsertStats stats;
};

const std::vector<std::string>& insertionStages();
Expected<InsertResult> insertSync(const Program& input, const InsertOptions& opt);

// Baseline: pipe_barrier ALL before every instruction that may follow one on another pipe.
Program barrierAllBaseline(const Program& input);

}  // namespace gir::ascend
