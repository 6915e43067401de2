// Baseline (a), eager (docs/baselines.md, "Eager"): every op is its own kernel; reshapes are free
// aliases, broadcasts optionally views, a Split one kernel writing all its outputs.
#include "search/baselines/EagerPlanner.h"

#include <map>

namespace gir::search {

Expected<Plan> planEager(const PlanProblem& p, const EagerOptions& options) {
  Plan plan;
  plan.planner = "eager";
  plan.options = std::string("broadcast_as_view=") + (options.broadcastAsView ? "1" : "0");
  std::map<int32_t, size_t> splitKernel;  // Split op -> its kernel
  int step = 0;
  for (const PlanNode& n : p.nodes) {
    // A broadcast the problem must hand out cannot stay a view: it is stored like any result.
    bool view = n.kind == OpKind::Broadcast && options.broadcastAsView && !p.isOutput[index(n.out)];
    if (view) {
      plan.views.push_back(n.id);
      plan.decisions.push_back({step++, n.id, -1, "eager.broadcast_as_view", true, "read as a stride-0 view by its consumers"});
      continue;
    }
    if (n.fromSplit) {
      if (auto it = splitKernel.find(index(n.op)); it != splitKernel.end()) {
        plan.kernels[it->second].instances.push_back(n.id);
        plan.kernels[it->second].exports.push_back(n.id);
        continue;
      }
      splitKernel[index(n.op)] = plan.kernels.size();
    }
    PlannedKernel k;
    k.kind = compute::isLibraryKind(n.kind) ? KernelKind::Library : KernelKind::Eager;
    k.instances = {n.id};
    k.exports = {n.id};
    plan.kernels.push_back(std::move(k));
  }
  if (auto st = finalizePlan(p, plan); !st) return st.takeError();
  return plan;
}

}  // namespace gir::search
