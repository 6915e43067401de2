// The app's step is fast because a full match shares one schedule between its fits checks
// (rewrite/MatchContext.h, one context per pass in RewriteRule::match). This checks that the shared
// answers are the answers: at every state of greedy runs on the golden graphs, a synthetic 40-kernel
// graph and the LayerNorm lowering, every rule's sites from match() equal those of matching anchor by
// anchor with a fresh context each, field by field; and one context kept across the states (as the
// greedy driver keeps it across steps) answers every fits check as fitsAtLevel does without one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "app/Session.h"
#include "core/gir/Json.h"
#include "core/gir/Parser.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/GreedyOptimizer.h"
#include "tests/support/TestSupport.h"
#include "tests/viz/SyntheticGir.h"

using namespace gir;

namespace {

std::vector<Site> anchorByAnchor(const RewriteRule& rule, const Graph& g, const UseDef& ud) {
  std::vector<Site> out;
  for (uint32_t i = 0; i < g.nodes().size(); ++i)
    if (!g.nodes()[i].erased) rule.matchAt(MatchContext(g, ud), NodeId(i), out);
  return out;
}

// Temporaries (what sync insertion promotes) at every capacity-limited level, at a footprint under
// and one over the capacity; at most 12 buffers per level and state, spread over the ids, since each
// plain fitsAtLevel is a whole-graph analysis.
void checkFits(const MatchContext& kept, const Graph& g, const UseDef& ud) {
  std::vector<uint32_t> temps;
  for (uint32_t b = 0; b < g.buffers().size(); ++b)
    if (!g.buffers()[b].erased && g.buffers()[b].role == BufferRole::Temp) temps.push_back(b);
  size_t stride = std::max<size_t>(1, temps.size() / 12);
  for (const LevelDecl& l : g.levels) {
    if (l.capacityBytes <= 0) continue;
    for (size_t k = 0; k < temps.size(); k += stride)
      for (int64_t bytes : {l.capacityBytes / 2, l.capacityBytes + 4}) {
        BufferId b(temps[k]);
        INFO("level " << l.name << ", buffer %" << g.buffer(b).name << " at " << bytes << " bytes");
        CHECK(kept.fitsAtLevel(l.name, b, bytes) == fitsAtLevel(g, ud, l.name, b, bytes));
      }
  }
}

void checkEveryState(const Graph& input, const std::string& name) {
  Stepper st(input, loadHardwareByName("nvidia-h100").value(), false, 1, false);
  REQUIRE(runGreedy(st).stop == StopReason::Converged);
  size_t steps = st.history().size();
  while (st.undo()) {}
  MatchContext kept(st.graph(), st.useDef());  // across every state: its analyses follow editVersion
  for (size_t k = 0;; ++k) {
    checkFits(kept, st.graph(), st.useDef());
    for (const auto& rule : st.rules()) {
      INFO(name << " after " << k << " steps, rule " << rule->name());
      auto cached = rule->match(st.graph(), st.useDef());
      auto plain = anchorByAnchor(*rule, st.graph(), st.useDef());
      REQUIRE(cached.size() == plain.size());
      for (size_t i = 0; i < cached.size(); ++i) {
        CHECK(cached[i].key() == plain[i].key());
        CHECK(cached[i].facts == plain[i].facts);
      }
    }
    if (k == steps || !st.redo()) break;
  }
}

}  // namespace

TEST_CASE("a full match with the shared fits checks equals matching anchor by anchor", "[app][rewrite]") {
  for (const auto& e : std::filesystem::directory_iterator(test::sourcePath("tests/golden/gir"))) {
    if (e.path().extension() != ".gir") continue;
    auto g = loadGirFile(e.path().string());
    if (!g) continue;  // goldens of other shapes (printer inputs) are not this test's business
    checkEveryState(*g, e.path().filename().string());
  }
  auto synthetic = parseGirText(test::syntheticGirText(40, 8), "synthetic");
  REQUIRE(synthetic);
  checkEveryState(*synthetic, "synthetic 40 kernels");
  // Register capacities around the peak of live bytes (128 B per unit with a promoted buffer: two
  // 64-byte slices live at a time), where promotions flip between fitting and not.
  for (int capacity : {64, 120, 128, 136, 192, 256}) {
    std::string text = test::syntheticGirText(6, 3);
    std::string from = "level reg unit capacity=32640";
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), "level reg unit capacity=" + std::to_string(capacity));
    auto tight = parseGirText(text, "synthetic");
    REQUIRE(tight);
    checkEveryState(*tight, "synthetic, reg capacity " + std::to_string(capacity));
  }
  auto model = compute::importOnnxFile(test::sourcePath("scenarios/layernorm.onnx"));
  REQUIRE(model);
  auto hw = loadHardwareByName("nvidia-h100");
  auto pre = compute::preprocess(*model, *hw);
  REQUIRE(pre);
  auto lowered = app::lowerSubgraph(*model, pre->subgraphs.at(0), *hw);
  REQUIRE(lowered);
  checkEveryState(lowered->gir, "layernorm subgraph 0");
}
