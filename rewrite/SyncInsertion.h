// sync-insertion (paper 5.1, figure 5): for the data that a sync hands from writers to readers,
// find the smallest scope covering every (writer unit, reader unit) pair, promote the buffer to
// the fastest level that scope shares, and replace the sync with one of that scope (none for lane).
#pragma once

#include "rewrite/RewriteRule.h"

namespace gir {

class SyncInsertion : public RewriteRule {
 public:
  std::string_view name() const override { return "sync-insertion"; }
  GreedyPhase phase() const override { return GreedyPhase::SyncInsertion; }
  void matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& out) const override;
  Status apply(GraphEditor& editor, const Site& site) const override;
  std::string explain(const Graph& g, const Site& site) const override;

  // The exchange analysis (the TVM-style planner half): scope needed for buffer `b` across sync `s`.
  // nullopt when some element read after the sync was not written before it.
  static std::optional<Scope> neededScope(const Graph& g, const UseDef& ud, NodeId sync, BufferId b);
  // The same answer, recalled from `ctx` where the sync's slices of `b`, their writers and readers,
  // and the unit layout are what they were when it was last answered there (MatchContext::recall).
  static std::optional<Scope> neededScope(const MatchContext& ctx, NodeId sync, BufferId b);
};

}  // namespace gir
