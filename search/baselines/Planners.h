// The baseline planners by name, so the CLI, the benchmarks and (later) the app run them alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "search/baselines/PlanModel.h"

namespace gir::search {

// "eager", "xla", "tvm", in the order tables show them.
const std::vector<std::string>& baselinePlannerNames();
// Default options of each planner; an unknown name is an error.
Expected<Plan> runBaselinePlanner(std::string_view name, const PlanProblem& p);

}  // namespace gir::search
