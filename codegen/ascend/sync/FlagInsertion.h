// The sync insertion pipeline (docs/ascend.md, "The insertion"), one linear function with a dump after
// every stage: deps, normalize, virtual, redundant, parity, merge, physical.
#pragma once

#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"
#include "core/Expected.h"

namespace gir::ascend {

// One way to run the heuristic; the portfolio runs several and keeps the fastest output.
struct InsertVariant {
  std::string name;
  bool coverCross = true;          // cross-iteration flags of one loop may cover each other
  bool fewestReversePairs = true;  // ID fallback: fewest unordered wait/set pairs, else the first ID
  bool liftIfs = false;            // hoist sets and waits out of ifs too, not only out of loops
};

// The heuristic's variants, best first on the pattern kernels (docs/ascend.md, "The portfolio"). The
// last is the paper's rules as first built: the baselines run it alone.
const std::vector<InsertVariant>& insertVariants();
int paperRulesVariant();

struct InsertOptions {
  int flags = 4;              // physical IDs per pipe pair
  bool keepDumps = false;     // render every stage's dump
  bool mergeVirtual = true;   // false: the one-flag-per-dependency baseline (fails past N live)
  bool removeRedundant = true;
  // Latencies for the portfolio's simulations (docs/ascend.md, "The portfolio"); null: Target{}.
  const Target* target = nullptr;
  // -1: the portfolio. k: only insertVariants()[k], one pass, no barrier-all candidate.
  int variant = -1;
};

// One candidate of the portfolio: the oracle's mean cycles at nominal latencies, and whether the
// oracle accepted it there (a candidate it rejects is never kept).
struct PortfolioEntry {
  std::string name;
  double cycles = 0;
  bool correct = true;
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
  double millis = 0;           // insertion time, every candidate of the portfolio
  // The portfolio: every candidate simulated, the kept one's name, the best flag placement's and
  // barrier-all's cycles, and whether barrier-all was kept because every flag placement was slower.
  std::vector<PortfolioEntry> portfolio;
  std::string kept;
  std::string portfolioNote;  // why candidates were skipped, if any
  double flagCycles = 0, barrierAllCycles = 0;
  bool keptBarrierAll = false;
};

// "kept: NAME (N cycles); also tried: ..." in one or two lines, for --stats and the app.
std::string portfolioText(const InsertStats& s);

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
