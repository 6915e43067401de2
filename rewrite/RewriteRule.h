// A rewrite rule: `match` finds sites that carry every fact `apply` needs; `apply` rewrites one
// site through a GraphEditor; `explain` says why in one sentence (docs/style.md; docs/rewrites.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "rewrite/GraphEditor.h"
#include "rewrite/MatchContext.h"
#include "rewrite/SiteFacts.h"

namespace gir {

// A place where a rule applies: the nodes, slices and buffer it involves (what traces key it by and
// the app highlights), and the rule's own facts about it (SiteFacts.h).
struct Site {
  std::string rule;
  std::vector<NodeId> nodes;      // the gOperators involved, in the rule's own order
  std::vector<SliceId> slices;    // slices the rule rewires
  BufferId buffer;                // the buffer involved, when one is
  uint64_t graphVersion = 0;      // the graph's editVersion when matched; apply rejects stale sites
  SiteFacts facts;
  // The facts as the rule that reads them expects them; null for a site of another rule.
  template <class Facts>
  const Facts* factsAs() const {
    return std::get_if<Facts>(&facts);
  }
  std::string key() const;        // stable text identifying the site ("n3,n5|s4"), for traces
};

// A rule's apply given a site of another rule.
Status foreignSite(std::string_view rule, const Site& site);

// The greedy optimizer's phases, in the order one round runs them (paper Algorithm 1): insert syncs
// everywhere possible, swap everywhere possible, merge until nothing merges. A rule names its phase,
// so the driver groups rule objects and never looks a rule up by its name.
enum class GreedyPhase { SyncInsertion, Swap, Merge };
inline constexpr GreedyPhase kGreedyPhases[] = {GreedyPhase::SyncInsertion, GreedyPhase::Swap, GreedyPhase::Merge};

class RewriteRule {
 public:
  virtual ~RewriteRule() = default;
  virtual std::string_view name() const = 0;
  virtual GreedyPhase phase() const = 0;
  // Sites anchored at one node (the sync, the first movement, the elementwise op, the dead node).
  // A site depends only on its anchor's neighbourhood and the buffers it touches, which is what lets
  // the greedy driver re-match only around what a step changed. Everything it reads comes from `ctx`.
  virtual void matchAt(const MatchContext& ctx, NodeId anchor, std::vector<Site>& out) const = 0;
  virtual Status apply(GraphEditor& editor, const Site& site) const = 0;
  virtual std::string explain(const Graph& g, const Site& site) const = 0;

  // All sites, anchors in id order: pure and deterministic.
  std::vector<Site> match(const Graph& g) const;
  std::vector<Site> match(const Graph& g, const UseDef& ud) const;
  // matchAt at every live node of the context's graph, in id order.
  void matchAll(const MatchContext& ctx, std::vector<Site>& out) const;
};

// Every rule, in the greedy optimizer's order; no static registration (docs/style.md).
std::vector<std::unique_ptr<RewriteRule>> allRules();
const RewriteRule* findRule(const std::vector<std::unique_ptr<RewriteRule>>& rules, std::string_view name);

// Every rule matched at every node of `g`, keeping only why candidate anchors gave no site, in rule
// order and then node order (gir opt --debug-rewrites).
std::vector<MatchRefusal> matchRefusals(const std::vector<std::unique_ptr<RewriteRule>>& rules, const Graph& g);

}  // namespace gir
