// Negative tests: deliberately wrong rule variants are caught by the per-step verification, with a
// message naming the rule and the site.
#include <catch2/catch.hpp>

#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "rewrite/MergeRules.h"
#include "rewrite/Stepper.h"
#include "rewrite/SyncInsertion.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

// Sync insertion that picks a scope one step too small (block -> unit, device -> block).
class SyncInsertionOneTooSmall : public SyncInsertion {
 public:
  std::string_view name() const override { return "sync-insertion-too-small"; }
  void matchAt(const MatchContext& ctx, NodeId i, std::vector<Site>& out) const override {
    const Graph& g = ctx.graph();
    const Node& n = g.node(i);
    if (n.erased || !n.isSync()) return;
    BufferId b = g.slice(n.inputs[0]).buffer;
    auto needed = neededScope(g, ctx.useDef(), i, b);
    if (!needed || *needed <= Scope::Unit) return;
    Scope wrong = static_cast<Scope>(static_cast<int>(*needed) - 1);
    out.push_back(Site{std::string(name()), {i}, {}, b, g.editVersion, SyncInsertionFacts{wrong, "", {}}});
  }
};

// A dead-store rule that forgets to check for readers.
class DeadStoreIgnoringReaders : public DeadStore {
 public:
  std::string_view name() const override { return "dead-store-ignoring-readers"; }
  void matchAt(const MatchContext& ctx, NodeId i, std::vector<Site>& out) const override {
    const Graph& g = ctx.graph();
    const Node& n = g.node(i);
    if (!n.erased && n.isMove() && g.buffer(g.slice(n.outputs[0]).buffer).role == BufferRole::Temp)
      out.push_back(Site{std::string(name()), {i}, n.outputs, {}, g.editVersion, DeadStoreFacts{n.outputs}});
  }
};

Graph load(const std::string& name) {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/" + name + ".gir"));
  REQUIRE(g);
  return *g;
}

// The rule's first site on the stepper's graph, applied (a checked stepper checks it).
Expected<StepRecord> applyFirstSite(Stepper& st, const RewriteRule& rule) {
  auto sites = rule.match(st.graph());
  REQUIRE_FALSE(sites.empty());
  return st.applySite(rule, sites[0], 0);
}

}  // namespace

TEST_CASE("sync insertion one scope too small is caught naming rule and site", "[rewrite][negative]") {
  for (const char* name : {"softmax_device", "two_kernels", "shufflenet_dest"}) {
    INFO(name);
    Graph g = load(name);
    Stepper st(g, std::nullopt, true);
    auto rec = applyFirstSite(st, SyncInsertionOneTooSmall());
    REQUIRE_FALSE(rec);
    CHECK_THAT(rec.error().message, Catch::Contains("rule 'sync-insertion-too-small' at site 0") && Catch::Contains("race"));
    CHECK(st.position() == 0);  // the failed step was rolled back
  }
}

TEST_CASE("a dead-store rule that ignores readers is caught", "[rewrite][negative]") {
  Graph g = load("relu");
  Stepper st(g, std::nullopt, true);
  auto rec = applyFirstSite(st, DeadStoreIgnoringReaders());
  REQUIRE_FALSE(rec);
  CHECK_THAT(rec.error().message, Catch::Contains("rule 'dead-store-ignoring-readers' at site 0"));
}

namespace {

// Sync insertion that also renames a buffer behind GraphEditor's back: the graph stays valid and
// computes the same outputs, so only replaying the recorded edits can see it.
class SyncInsertionRenamingBehindTheEditor : public SyncInsertion {
 public:
  std::string_view name() const override { return "sync-insertion-renaming"; }
  Status apply(GraphEditor& ed, const Site& site) const override {
    if (auto st = SyncInsertion::apply(ed, site); !st) return st;
    ed.graph().buffer(site.buffer).name += "_renamed";
    return success();
  }
};

}  // namespace

TEST_CASE("a rule that edits the graph behind GraphEditor's back is caught by replaying its edits", "[rewrite][negative]") {
  Graph g = load("softmax_device");
  Stepper st(g, std::nullopt, true);
  std::string before = printGraph(st.graph());
  auto rec = applyFirstSite(st, SyncInsertionRenamingBehindTheEditor());
  REQUIRE_FALSE(rec);
  CHECK_THAT(rec.error().message, Catch::Contains("rule 'sync-insertion-renaming' at site 0") && Catch::Contains("beyond its recorded edits"));
  CHECK(st.position() == 0);
  CHECK(printGraph(st.graph()) == before);  // rolled back, the rename too
  // The honest rule at the same site is accepted.
  CHECK(applyFirstSite(st, SyncInsertion()));
}

TEST_CASE("match refusals name the rule, the anchor and the reason, and leave the sites as they were", "[rewrite]") {
  Graph g = load("softmax_device");
  auto rules = allRules();
  auto refusals = matchRefusals(rules, g);
  // The exp reads a temporary that an elementwise op wrote: swap has nothing to cross.
  bool swapRefused = false;
  for (const auto& r : refusals)
    if (r.rule == "swap" && g.node(r.anchor).kind() == NodeKind::Elementwise)
      swapRefused = r.reason == "across a sync: its input is not written by a sync; across its producer: its producer is neither a broadcast nor a reduce";
  CHECK(swapRefused);
  // A refusal and a site of one rule never share an anchor where the rule has one candidate per
  // anchor (merge-raw, swap, dead-store); logging changes no site.
  for (const auto& rule : rules) {
    auto sites = rule->match(g);
    UseDef ud = computeUseDef(g);
    std::vector<MatchRefusal> log;
    MatchContext ctx(g, ud);
    ctx.recordRefusalsIn(&log);
    std::vector<Site> logged;
    rule->matchAll(ctx, logged);
    REQUIRE(logged.size() == sites.size());
    for (size_t i = 0; i < sites.size(); ++i) CHECK(logged[i].key() == sites[i].key());
    if (rule->name() == "sync-insertion" || rule->name() == "merge-rar") continue;
    for (const auto& r : log)
      for (const auto& s : sites) CHECK(s.nodes[0] != r.anchor);
  }
}

TEST_CASE("a rule given another rule's site refuses it by its facts' type, naming both rules", "[rewrite][negative]") {
  Graph g = load("softmax_device");
  auto syncSites = SyncInsertion().match(g);
  REQUIRE_FALSE(syncSites.empty());
  REQUIRE(syncSites[0].factsAs<SyncInsertionFacts>());
  CHECK(syncSites[0].factsAs<MergeRawFacts>() == nullptr);
  // Every other rule refuses it and leaves the graph as it was.
  std::string before = printGraph(g);
  for (const auto& rule : allRules()) {
    if (rule->name() == "sync-insertion") continue;
    INFO(rule->name());
    Graph copy = g;
    GraphEditor ed(copy);
    auto st = rule->apply(ed, syncSites[0]);
    REQUIRE_FALSE(st);
    CHECK_THAT(st.error().message, Catch::Contains("rule '" + std::string(rule->name()) + "' cannot apply a site of rule 'sync-insertion'"));
    CHECK(printGraph(copy) == before);
  }
}
