// The rule list, in the greedy optimizer's order (paper Algorithm 1: sync insertion, swap, merge).
#include "rewrite/MergeRules.h"
#include "rewrite/RewriteRule.h"
#include "rewrite/SliceAnalysis.h"
#include "rewrite/Swap.h"
#include "rewrite/SyncInsertion.h"

namespace gir {

std::vector<std::unique_ptr<RewriteRule>> allRules() {
  std::vector<std::unique_ptr<RewriteRule>> rules;
  rules.push_back(std::make_unique<SyncInsertion>());
  rules.push_back(std::make_unique<Swap>());
  rules.push_back(std::make_unique<MergeRaw>());
  rules.push_back(std::make_unique<MergeRar>());
  rules.push_back(std::make_unique<DeadStore>());
  return rules;
}

const RewriteRule* findRule(const std::vector<std::unique_ptr<RewriteRule>>& rules, std::string_view name) {
  for (const auto& r : rules)
    if (r->name() == name) return r.get();
  return nullptr;
}

std::vector<Site> RewriteRule::match(const Graph& g) const { return match(g, computeUseDef(g)); }

std::vector<Site> RewriteRule::match(const Graph& g, const UseDef& ud) const {
  MatchContext ctx(g, ud);  // the graph stands still for the pass: one schedule for every fits check
  std::vector<Site> out;
  matchAll(ctx, out);
  return out;
}

void RewriteRule::matchAll(const MatchContext& ctx, std::vector<Site>& out) const {
  const Graph& g = ctx.graph();
  for (uint32_t i = 0; i < g.nodes().size(); ++i)
    if (!g.nodes()[i].erased) matchAt(ctx, NodeId(i), out);
}

std::vector<MatchRefusal> matchRefusals(const std::vector<std::unique_ptr<RewriteRule>>& rules, const Graph& g) {
  UseDef ud = computeUseDef(g);
  std::vector<MatchRefusal> log;
  MatchContext ctx(g, ud);
  ctx.recordRefusalsIn(&log);
  std::vector<Site> ignored;
  for (const auto& rule : rules) rule->matchAll(ctx, ignored);
  return log;
}

Status foreignSite(std::string_view rule, const Site& site) {
  return makeError("rule '" + std::string(rule) + "' cannot apply a site of rule '" + site.rule + "' (" + site.key() + ")");
}

std::string Site::key() const {
  std::string k;
  for (NodeId n : nodes) k += (k.empty() ? "n" : ",n") + std::to_string(n.value);
  k += "|";
  for (SliceId s : slices) k += "s" + std::to_string(s.value) + ",";
  if (buffer.valid()) k += "b" + std::to_string(buffer.value);
  return k;
}

}  // namespace gir
