// Reduced instances (docs/scale.md): which axes of a DRAM-scale subgraph shrink and which must not,
// that the reduced instance is a graph the reference evaluator runs, and that a plan searched on it
// and lowered at full size is the same GIR text, only with more units.
#include <catch2/catch.hpp>

#include "core/compute/Preprocess.h"
#include "core/compute/ReducedInstance.h"
#include "core/compute/ReferenceEvaluator.h"
#include "core/gir/SymbolicCheck.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/SliceAnalysis.h"
#include "search/GirSearch.h"
#include "search/lowering/TemplateState.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

struct Scale {
  compute::Graph model;
  compute::Subgraph sub;
  HardwareDesc hw;
};

Scale load(const std::string& name) {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto model = compute::importOnnxFile(test::sourcePath("scenarios/scale/" + name + ".onnx"));
  INFO(name << (model ? "" : ": " + model.error().str()));
  REQUIRE(model);
  auto pre = compute::preprocess(*model, *hw);
  REQUIRE(pre);
  REQUIRE(pre->subgraphs.size() == 1);
  return Scale{std::move(*model), pre->subgraphs[0], std::move(*hw)};
}

compute::ReducedInstance reduce(const Scale& s) {
  auto r = compute::reduceSubgraph(s.model, s.sub, search::boxElementBudget(s.hw));
  INFO((r ? r->summary() : r.error().str()));
  REQUIRE(r);
  return std::move(*r);
}

const compute::Tensor& tensorNamed(const compute::Graph& g, const std::string& name) {
  for (const auto& t : g.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  return g.tensors.front();
}

// The reduced graph runs: random inputs through the reference evaluator give outputs of its shapes.
void evaluates(const compute::ReducedInstance& r) {
  std::vector<compute::TensorData> inputs;
  for (compute::TensorId t : r.graph.inputs) {
    const auto& tensor = r.graph.tensor(t);
    inputs.push_back(compute::TensorData{tensor.dtype, tensor.dims, std::vector<double>(static_cast<size_t>(compute::numElements(tensor.dims)), 0.5)});
  }
  auto out = compute::evaluate(r.graph, inputs);
  INFO((out ? "" : out.error().str()));
  REQUIRE(out);
  REQUIRE(out->size() == r.graph.outputs.size());
  for (size_t i = 0; i < out->size(); ++i) CHECK((*out)[i].dims == r.graph.tensor(r.graph.outputs[i]).dims);
}

}  // namespace

TEST_CASE("reduced instance: a layernorm's rows shrink, its row length and gamma never do", "[scale]") {
  Scale s = load("layernorm_8192x1024");
  auto r = reduce(s);
  const auto& x = tensorNamed(r.graph, "x");
  CHECK(x.dims[1] == 1024);
  CHECK(x.dims[0] < 8192);
  CHECK(x.dims[0] >= 2);
  CHECK(r.sub.ops.size() == s.sub.ops.size());
  CHECK(compute::subgraphElements(r.graph, r.sub) <= (int64_t{1} << 17));
  evaluates(r);
}

TEST_CASE("reduced instance: softmax over attention scores keeps the rows no box holds whole", "[scale]") {
  Scale s = load("softmax_64x12x128x128");
  auto r = reduce(s);
  const auto& x = tensorNamed(r.graph, "x");
  CHECK(x.dims[3] == 128);  // reduced axis: pinned
  // 128 x 128 is over any box at full size, so the rows kept must be too (twice the box budget)
  CHECK(x.dims[2] * x.dims[3] > 2 * search::boxElementBudget(s.hw));
  CHECK(x.dims[0] < 64);
  evaluates(r);
}

TEST_CASE("reduced instance: the channel shuffle keeps its channels (concat, regrouping and split pin them)", "[scale]") {
  Scale s = load("channel_shuffle_b32");
  auto r = reduce(s);
  const auto& x0 = tensorNamed(r.graph, "x0");
  CHECK(x0.dims[0] < 32);
  CHECK(x0.dims[1] == 116);
  CHECK(x0.dims[2] * x0.dims[3] <= 28 * 28);  // a plane any box holds whole at full size may shrink
  evaluates(r);
}

TEST_CASE("reduced instance: a strided depthwise convolution keeps every kind of band", "[scale]") {
  Scale s = load("depthwise_silu_b32");
  auto r = reduce(s);
  const auto& x = tensorNamed(r.graph, "x");
  const auto& y = tensorNamed(r.graph, "y");
  CHECK(x.dims[1] == 96);          // channels: bands hold every channel of a row
  CHECK(x.dims[3] == 112);         // columns: held whole
  CHECK(x.dims[2] == 2 * y.dims[2]);  // two input rows per output row, as at full size
  CHECK(y.dims[2] >= 8);
  CHECK(y.dims[2] < 56);
  evaluates(r);
}

TEST_CASE("scale: a plan that fits the reduced instance but overflows a level at full size is not chosen", "[scale]") {
  // With a 48 KiB `local`, a padded 114x114 plane per unit fits the reduced instance's shorter planes
  // and takes 89 KB per unit at full size; the search used to return it, and the planner's check
  // then failed every candidate.
  Scale s = load("depthwise_silu_b32");
  for (auto& level : s.hw.levels)
    if (level.name == "local") level.capacityBytes = 48 * 1024;
  auto found = search::searchTemplates(s.model, s.sub, s.hw);
  INFO((found ? "" : found.error().str()));
  REQUIRE(found);
  std::string why;
  CHECK(fitsCapacities(found->optimized, &why));
  INFO(why);
  CHECK(found->cost.dramBytes == s.sub.minBytes);
}

TEST_CASE("reduced instance: a subgraph with nothing to shrink says why", "[scale]") {
  compute::Graph g;
  compute::TensorId x = g.addTensor("x", compute::DType::F32, {4096, 4096});
  compute::TensorId y = g.addTensor("y", compute::DType::F32, {1});
  g.inputs = {x};
  g.outputs = {y};
  g.ops.push_back(compute::Op{compute::OpId(0), "sum_all", "ReduceSum", {x}, {y}, compute::ReduceAttrs{ReduceOp::Sum, {0, 1}, false}, ""});
  compute::Subgraph sub{{compute::OpId(0)}, {x}, {y}, 0};
  auto r = compute::reduceSubgraph(g, sub, 2730);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("no axis") != std::string::npos);
}

TEST_CASE("scale: a layernorm over 8192x1024 plans to the same GIR text as its reduced instance, with more units", "[scale]") {
  Scale s = load("layernorm_8192x1024");
  auto full = search::searchTemplates(s.model, s.sub, s.hw);
  INFO((full ? "" : full.error().str()));
  REQUIRE(full);
  CHECK_FALSE(full->stats.reducedInstance.empty());
  // One kernel at full size too: on the reduced instance a choice with the mean over 4 rows per unit
  // and the variance over one row per unit is one kernel with a block sync, which at full size is a
  // device sync; such a choice is not the DRAM floor there and is compared at full size with the best
  // choice without block syncs (docs/scale.md, "Reduced instances").
  CHECK(full->cost.kernels == 1);
  CHECK(full->cost.dramBytes == s.sub.minBytes);
  // Units hold whole rows (one or two per unit).
  CHECK((full->optimized.units == 8192 || full->optimized.units == 4096));
  auto report = checkMemoryModelSymbolic(full->optimized);
  REQUIRE(report);
  CHECK(report->clean());
  auto r = reduce(s);
  auto small = search::lowerAndOptimize(r.graph, r.sub, s.hw, full->choice, {});
  REQUIRE(small);
  CHECK(small->second.liveNodeCount() == full->optimized.liveNodeCount());
  CHECK(small->second.units < full->optimized.units);
}

TEST_CASE("scale: the channel shuffle searched on its reduced instance moves a whole plane per unit at full size", "[scale]") {
  // The reduced instance shrinks the planes' rows to one, where a row per unit and a plane per unit
  // are the same box; at full size the plane is 28 times fewer units (docs/scale.md).
  Scale s = load("channel_shuffle_b32");
  auto full = search::searchTemplates(s.model, s.sub, s.hw);
  INFO((full ? "" : full.error().str()));
  REQUIRE(full);
  CHECK_FALSE(full->stats.reducedInstance.empty());
  CHECK(full->cost.kernels == 1);
  CHECK(full->cost.dramBytes == s.sub.minBytes);
  CHECK(full->optimized.units == 32 * 232);  // one 28x28 plane of one image's channel per unit
}
