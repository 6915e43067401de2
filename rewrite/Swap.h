// swap (paper 5.1, figure 6): an elementwise gOperator moves towards the producer across
//  - a store and the sync after it (variant 0): f(sync(move(r))) = sync(move(f(r))), any f, as
//    movements only reorder elements;
//  - a broadcast (variant 1): f(broadcast(x)) = broadcast(f(x));
//  - a reduce (variant 2) where exact: monotone non-decreasing f across max/min; x*c and x/c with
//    c > 0 across sum/max/min; x+c and x-c across max/min.
// Only this direction exists, so swap cannot cycle.
#pragma once

#include "rewrite/RewriteRule.h"

namespace gir {

class Swap : public RewriteRule {
 public:
  std::string_view name() const override { return "swap"; }
  GreedyPhase phase() const override { return GreedyPhase::Swap; }
  void matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& out) const override;
  Status apply(GraphEditor& editor, const Site& site) const override;
  std::string explain(const Graph& g, const Site& site) const override;

  // Does f(reduce(x)) == reduce(f(x)) hold exactly for this elementwise node and reduction?
  static bool commutesWithReduce(const ElementwisePayload& ew, ReduceOp r);
};

}  // namespace gir
