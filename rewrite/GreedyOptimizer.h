// The greedy optimizer (paper Algorithm 1): insert syncs everywhere possible, swap everywhere
// possible, merge until nothing merges; repeat while a merge happened. Built from the step API,
// so every step is a StepRecord the app can play back. Terminates: no rule is applied backwards.
#pragma once

#include "rewrite/Stepper.h"

namespace gir {

// Why a run stopped: nothing applies any more, the step limit, a step that failed its checks, or the
// stepper's gate refused the next step (the app's Cancel).
enum class StopReason { Converged, StepLimit, StepFailed, Cancelled };

struct GreedyResult {
  size_t steps = 0;
  StopReason stop = StopReason::Converged;
  std::string failure;  // when StepFailed: the rule, the site and what broke
};

struct GreedyOptions {
  size_t maxSteps = 1000000;
  bool randomSiteOrder = false;  // tests only: pick among sites at random (MLIR's randomizer)
  uint64_t seed = 1;
};

GreedyResult runGreedy(Stepper& stepper, const GreedyOptions& options = {});
std::string_view stopReasonName(StopReason r);

}  // namespace gir
