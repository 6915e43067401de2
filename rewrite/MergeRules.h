// gOperator merge (paper 5.1): merge-raw (a movement into a slice and a movement out of that same
// slice become one movement; gone entirely when the copy is redundant), merge-rar (two movements of
// one slice become one), dead-store (a slice nobody reads that is not an output goes).
#pragma once

#include "rewrite/RewriteRule.h"

namespace gir {

class MergeRaw : public RewriteRule {
 public:
  std::string_view name() const override { return "merge-raw"; }
  GreedyPhase phase() const override { return GreedyPhase::Merge; }
  void matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& out) const override;
  Status apply(GraphEditor& editor, const Site& site) const override;
  std::string explain(const Graph& g, const Site& site) const override;
};

class MergeRar : public RewriteRule {
 public:
  std::string_view name() const override { return "merge-rar"; }
  GreedyPhase phase() const override { return GreedyPhase::Merge; }
  void matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& out) const override;
  Status apply(GraphEditor& editor, const Site& site) const override;
  std::string explain(const Graph& g, const Site& site) const override;
};

class DeadStore : public RewriteRule {
 public:
  std::string_view name() const override { return "dead-store"; }
  GreedyPhase phase() const override { return GreedyPhase::Merge; }
  void matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& out) const override;
  Status apply(GraphEditor& editor, const Site& site) const override;
  std::string explain(const Graph& g, const Site& site) const override;
};

}  // namespace gir
