// viz::findNodes, the find box's query (issue #18, point 4): every node whose name, label or details
// hold the query, case-insensitively, and no other; on the Model view by ONNX node name, op type and
// tensor; on the GIR view by buffer and level, and move labels that say what they move.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/compute/Preprocess.h"
#include "core/gir/Parser.h"
#include "core/onnx/OnnxImporter.h"
#include "tests/support/TestSupport.h"
#include "tests/viz/SyntheticGir.h"
#include "viz/Find.h"
#include "viz/GirView.h"
#include "viz/ModelView.h"

using namespace gir;
using namespace gir::viz;

namespace {

VizGraph layerNormModel() {
  auto g = compute::importOnnxFile(test::sourcePath("scenarios/layernorm.onnx"));
  REQUIRE(g);
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto pre = compute::preprocess(*g, *hw);
  REQUIRE(pre);
  return modelToViz(*g, *pre);
}

std::vector<std::string> keysOf(const VizGraph& g, const std::vector<int>& hits) {
  std::vector<std::string> keys;
  for (int i : hits) keys.push_back(g.nodes[i].key);
  return keys;
}

}  // namespace

TEST_CASE("find on the Model view: ONNX node names, op types and tensors, case-insensitively", "[viz][find]") {
  VizGraph v = layerNormModel();
  REQUIRE(v.nodes.size() == 15);
  CHECK(findNodes(v, "").empty());
  CHECK(findNodes(v, "no such thing").empty());
  // 'ln#3' is the subtract: one node by its exact name (the op names 'ln#1'..'ln#14' share prefixes).
  CHECK(keysOf(v, findNodes(v, "ln#3:")) == std::vector<std::string>{"o3"});
  // The op type: every op came from LayerNormalization, in any case.
  CHECK(findNodes(v, "layernormalization").size() == 15);
  CHECK(findNodes(v, "LAYERNORM").size() == 15);
  // Tensors: the input x f32[64,768] is read by 'ln' (the mean's sum) and 'ln#3' (x - mean); gamma by 'ln#11'.
  CHECK(keysOf(v, findNodes(v, "in: x f32[64,768]")) == std::vector<std::string>{"o0", "o3"});
  CHECK(keysOf(v, findNodes(v, "ln_gamma")) == std::vector<std::string>{"o11"});
  // The kinds in the labels: two reductions.
  CHECK(findNodes(v, "reduce").size() == 2);
}

TEST_CASE("find on the GIR view: buffers, levels, and move labels that say what they move", "[viz][find]") {
  auto g = parseGirText(test::syntheticGirText(3, 2), "synthetic");
  REQUIRE(g);
  VizGraph v = girToViz(*g);
  // Each kernel: a load from DRAM to registers and a store back, labelled with the source buffer.
  std::vector<std::string> moves;
  for (const auto& n : v.nodes)
    if (n.kind == ItemKind::Movement) moves.push_back(n.label);
  CHECK(moves == std::vector<std::string>{"move t0\ndram -> reg", "move r0_2\nreg -> dram", "move t1\ndram -> reg", "move r1_2\nreg -> dram",
                                          "move t2\ndram -> reg", "move r2_2\nreg -> dram"});
  // A register buffer of kernel 1 is read by one op and written by another (their IR lines name it).
  auto hits = findNodes(v, "r1_1 (reg)");
  REQUIRE(hits.size() == 2);
  for (int i : hits) CHECK(v.nodes[i].cluster == 1);
  // Every node that touches DRAM: the six moves, the two syncs and the input and output terminals.
  auto dram = findNodes(v, "dram");
  CHECK(std::count_if(dram.begin(), dram.end(), [&](int i) { return v.nodes[i].kind == ItemKind::Movement; }) == 6);
  CHECK(std::count_if(dram.begin(), dram.end(), [&](int i) { return v.nodes[i].kind == ItemKind::Terminal; }) == 2);
  // Collapsed kernels are not hits; their members are, in the full graph.
  VizGraph collapsed = collapseClusters(v, {0, 1, 2});
  CHECK(findNodes(collapsed, "kernel").empty());
}
