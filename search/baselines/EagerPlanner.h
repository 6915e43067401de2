// Baseline (a), eager: one kernel per op, as PyTorch eager or ONNX Runtime without graph fusion
// run a model (docs/baselines.md, "Eager").
#pragma once

#include "search/baselines/PlanModel.h"

namespace gir::search {

struct EagerOptions {
  // A broadcast is a stride-0 view read by its consumer (PyTorch, ORT); false materializes it.
  bool broadcastAsView = true;
};

Expected<Plan> planEager(const PlanProblem& p, const EagerOptions& options = {});

}  // namespace gir::search
