// gemm_epilogue: library calls absorb their epilogue nodes (see XlaGemmEpilogue.h).
#include "search/baselines/XlaGemmEpilogue.h"

#include <map>

#include "core/compute/LibraryFusion.h"

namespace gir::search {

bool foldGemmEpilogues(const PlanProblem& p, XlaGroups& gs, Plan& plan) {
  const compute::Graph& g = *p.graph;
  // The problem's non-library ops form one region. Reshapes are aliases, not nodes: one can only
  // sit inside an epilogue between two of the problem's nodes, so every reshape may join.
  std::vector<int> regionOf(g.ops.size(), -1);
  std::map<int32_t, int> nodeOf;
  for (const PlanNode& n : p.nodes) {
    nodeOf[index(n.op)] = n.id;
    if (!compute::isLibraryKind(n.kind)) regionOf[index(n.op)] = 0;
  }
  for (const compute::Op& op : g.ops)
    if (op.kind() == OpKind::Reshape) regionOf[index(op.id)] = 0;
  bool changed = false;
  for (const PlanNode& n : p.nodes) {
    if (!compute::isLibraryKind(n.kind) || !gs.alive(n.id)) continue;
    auto e = compute::findLibraryEpilogue(g, n.op, regionOf);
    if (!e) continue;
    std::string detail = "stores " + g.tensor(e->output).name + ":";
    for (compute::OpId id : e->ops) {
      detail += " " + g.op(id).name;
      auto it = nodeOf.find(index(id));
      if (it != nodeOf.end()) gs.absorb(n.id, it->second);  // groups are still single nodes: group id == node id
    }
    logDecision(plan, n.id, nodeOf.count(index(e->output)) ? nodeOf[index(e->output)] : -1, "xla.gemm_epilogue", true, detail);
    changed = true;
  }
  return changed;
}

}  // namespace gir::search
