// The baseline planners by name.
#include "search/baselines/Planners.h"

#include "search/baselines/EagerPlanner.h"
#include "search/baselines/TvmPlanner.h"
#include "search/baselines/XlaPlanner.h"

namespace gir::search {

const std::vector<std::string>& baselinePlannerNames() {
  static const std::vector<std::string> names{"eager", "xla", "tvm"};
  return names;
}

Expected<Plan> runBaselinePlanner(std::string_view name, const PlanProblem& p) {
  if (name == "eager") return planEager(p);
  if (name == "xla") return planXla(p);
  if (name == "tvm") return planTvm(p);
  return makeError("unknown planner '" + std::string(name) + "' (expected eager, xla or tvm)");
}

}  // namespace gir::search
