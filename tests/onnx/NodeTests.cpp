// ONNX's own backend node tests (libonnx-testdata): every test whose ops the importer claims must
// import and the reference evaluator must reproduce the expected outputs (rtol 1e-4, atol 1e-5);
// a claimed op may refuse a variant it cannot represent, with a clear message, counted and listed;
// a test with an unclaimed op must be refused as unsupported.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include "core/compute/ReferenceEvaluator.h"
#include "core/onnx/OnnxImporter.h"

namespace fs = std::filesystem;
using namespace gir;
using namespace gir::compute;

namespace {

const char* kNodeTestDir = "/usr/share/libonnx-testdata/data/node";

struct Counts {
  int claimed = 0, passed = 0, refusedVariant = 0, refusedUnclaimed = 0;
  std::vector<std::string> variantRefusals, failures;
};

std::vector<fs::path> sortedEntries(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  // input_10 sorts after input_9: order by the number after the prefix.
  std::sort(out.begin(), out.end(), [&](const fs::path& a, const fs::path& b) {
    auto num = [&](const fs::path& p) { return std::atoi(p.filename().string().c_str() + prefix.size()); };
    return num(a) < num(b);
  });
  return out;
}

bool close(double actual, double expected) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  return std::fabs(actual - expected) <= 1e-5 + 1e-4 * std::fabs(expected);
}

// Empty when outputs match; otherwise what differs.
std::string compare(const std::vector<TensorData>& actual, const std::vector<TensorData>& expected) {
  if (actual.size() != expected.size()) return "output count differs";
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i].dims != expected[i].dims)
      return "output " + std::to_string(i) + " shape " + dimsToString(actual[i].dims) + " vs expected " + dimsToString(expected[i].dims);
    for (size_t k = 0; k < actual[i].values.size(); ++k)
      if (!close(actual[i].values[k], expected[i].values[k]))
        return "output " + std::to_string(i) + " element " + std::to_string(k) + ": " + std::to_string(actual[i].values[k]) +
               " vs expected " + std::to_string(expected[i].values[k]);
  }
  return "";
}

// Reads a data set's inputs: f32 ones feed the run, the others are bound as constants.
struct DataSetInputs {
  ImportOptions options;
  std::vector<std::pair<std::string, TensorData>> floats;
  std::string unreadable;  // a file whose tensor the loader refuses (strings, sequences, ...)
};

DataSetInputs readInputs(const fs::path& dataSet) {
  DataSetInputs in;
  for (const auto& p : sortedEntries(dataSet, "input_")) {
    auto data = loadOnnxTensorFile(p.string());
    auto name = onnxTensorFileName(p.string());
    if (!data || !name) {
      in.unreadable = data ? p.string() : data.error().str();
      return in;
    }
    if (data->dtype == DType::F32) in.floats.push_back({*name, std::move(*data)});
    else in.options.constantInputs[*name] = std::move(*data);
  }
  return in;
}

// An f32 input whose test data contradicts the declared shape is bound as a constant too: the
// model is specialized for the data, as for integer inputs.
bool bindMismatchedInputs(const Graph& g, DataSetInputs& in) {
  bool changed = false;
  for (TensorId t : g.inputs)
    for (auto& [name, data] : in.floats)
      if (name == g.tensor(t).name && data.dims != g.tensor(t).dims) {
        in.options.constantInputs[name] = data;
        changed = true;
      }
  return changed;
}

// Imports the model for one data set and checks it. Returns "" on a pass, "refused: ..." on a
// clean refusal by the importer, anything else is a failure.
std::string runDataSet(const fs::path& model, const fs::path& dataSet) {
  DataSetInputs in = readInputs(dataSet);
  if (!in.unreadable.empty()) {
    auto g = importOnnxFile(model.string());
    return g ? "cannot read test input " + in.unreadable : "refused: " + g.error().str();
  }
  auto graph = importOnnxFile(model.string(), in.options);
  if (graph && bindMismatchedInputs(*graph, in)) graph = importOnnxFile(model.string(), in.options);
  if (!graph) return "refused: " + graph.error().str();
  std::vector<TensorData> inputs;
  for (TensorId t : graph->inputs) {
    auto it = std::find_if(in.floats.begin(), in.floats.end(), [&](const auto& f) { return f.first == graph->tensor(t).name; });
    if (it == in.floats.end()) return "no data for input '" + graph->tensor(t).name + "'";
    inputs.push_back(it->second);
  }
  auto outputs = evaluate(*graph, inputs);
  if (!outputs) return "evaluation failed: " + outputs.error().str();
  std::vector<TensorData> expected;
  for (const auto& p : sortedEntries(dataSet, "output_")) {
    auto data = loadOnnxTensorFile(p.string());
    if (!data) return "cannot read " + p.string() + ": " + data.error().str();
    expected.push_back(std::move(*data));
  }
  return compare(*outputs, expected);
}

bool allClaimed(const std::vector<std::string>& ops) {
  return std::all_of(ops.begin(), ops.end(), [](const std::string& op) { return isClaimedOnnxOp(op); });
}

void runNodeTest(const fs::path& dir, Counts& counts) {
  fs::path model = dir / "model.onnx";
  auto ops = onnxModelOpTypes(model.string());
  std::string name = dir.filename().string();
  if (!ops) {
    counts.failures.push_back(name + ": " + ops.error().str());
    return;
  }
  if (!allClaimed(*ops)) {
    auto g = importOnnxFile(model.string());
    bool clear = !g && g.error().str().find("unsupported op") != std::string::npos &&
                 g.error().str().find(model.string()) != std::string::npos;
    if (clear) ++counts.refusedUnclaimed;
    else counts.failures.push_back(name + ": unclaimed op not refused as unsupported" + (g ? "" : ": " + g.error().str()));
    return;
  }
  ++counts.claimed;
  for (const auto& dataSet : sortedEntries(dir, "test_data_set_")) {
    std::string result = runDataSet(model, dataSet);
    if (result.empty()) continue;
    if (result.rfind("refused: ", 0) == 0 && result.find(model.string()) != std::string::npos) {
      ++counts.refusedVariant;
      counts.variantRefusals.push_back(name + ": " + result.substr(9));
    } else {
      counts.failures.push_back(name + ": " + result);
    }
    return;
  }
  ++counts.passed;
}

}  // namespace

TEST_CASE("the importer claims at least 50 ONNX op types", "[onnx]") {
  auto ops = claimedOnnxOps();
  std::cout << "claimed ONNX op types (" << ops.size() << "):";
  for (const auto& op : ops) std::cout << " " << op;
  std::cout << "\n";
  CHECK(ops.size() >= 50);
}

TEST_CASE("ONNX backend node tests import and match the reference evaluator", "[onnx][node-tests]") {
  REQUIRE(fs::is_directory(kNodeTestDir));  // libonnx-testdata is a setup dependency, not optional
  Counts counts;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(kNodeTestDir))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) runNodeTest(d, counts);

  std::cout << "ONNX node tests: " << dirs.size() << " total, " << counts.claimed << " claimed, " << counts.passed
            << " passed, " << counts.refusedVariant << " refused (claimed op, unsupported variant), "
            << counts.refusedUnclaimed << " refused (unclaimed op)\n";
  for (const auto& r : counts.variantRefusals) std::cout << "  refused variant: " << r << "\n";
  for (const auto& f : counts.failures) std::cout << "  FAILED: " << f << "\n";
  CHECK(counts.failures.empty());
  CHECK(counts.passed + counts.refusedVariant == counts.claimed);
  CHECK(counts.passed >= 250);  // a floor well below today's count: a regression in a claimed op shows
}
