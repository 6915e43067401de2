// Malformed and unsupported models (tests/data/onnx-bad/, listed in expected.tsv by
// make_bad_models.py) are refused with a message naming the file and the reason; mangled copies
// of the scenarios (truncated, bytes flipped) never crash the importer.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "core/compute/ReferenceEvaluator.h"
#include "core/onnx/OnnxImporter.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::compute;

namespace {

struct BadCase {
  std::string file, text;
};

std::vector<BadCase> badCases() {
  std::ifstream in(test::sourcePath("tests/data/onnx-bad/expected.tsv"));
  std::vector<BadCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab != std::string::npos) cases.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return cases;
}

}  // namespace

TEST_CASE("malformed and unsupported models are refused with a clear message", "[onnx][bad-input]") {
  auto cases = badCases();
  REQUIRE(cases.size() >= 20);
  for (const auto& c : cases) {
    std::string path = test::sourcePath("tests/data/onnx-bad/" + c.file);
    auto g = importOnnxFile(path);
    INFO(c.file);
    REQUIRE_FALSE(g.ok());
    std::string msg = g.error().str();
    INFO(msg);
    CHECK(msg.rfind("error: ", 0) == 0);
    CHECK(msg.find(path) != std::string::npos);     // names the file
    CHECK(msg.find(c.text) != std::string::npos);   // and the reason
  }
}

TEST_CASE("node errors name the node and its op type", "[onnx][bad-input]") {
  auto g = importOnnxFile(test::sourcePath("tests/data/onnx-bad/wrong_attr_type.onnx"));
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().str().find("node 'concat_float_axis' (Concat)") != std::string::npos);
}

TEST_CASE("a missing file is an error, not a crash", "[onnx][bad-input]") {
  auto g = importOnnxFile("/nonexistent/model.onnx");
  REQUIRE_FALSE(g.ok());
  CHECK(g.error().str().find("cannot open") != std::string::npos);
}

// Halide-style fuzzing: every prefix length class and random byte flips of real models.
TEST_CASE("mangled scenario files never crash the importer", "[onnx][bad-input][fuzz]") {
  std::mt19937 rng(1234);
  for (const char* name : {"shufflenet", "softmax", "layernorm", "rmsnorm", "transpose_reduce"}) {
    std::string bytes = test::readText(test::sourcePath(std::string("scenarios/") + name + ".onnx"));
    REQUIRE(!bytes.empty());
    for (size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 97) {
      auto g = importOnnxBytes(bytes.substr(0, cut), "cut.onnx");
      if (!g) CHECK(g.error().str().find("cut.onnx") != std::string::npos);
    }
    for (int trial = 0; trial < 200; ++trial) {
      std::string mangled = bytes;
      std::uniform_int_distribution<size_t> pos(0, mangled.size() - 1);
      for (int k = 0; k < 3; ++k) mangled[pos(rng)] = static_cast<char>(rng());
      auto g = importOnnxBytes(mangled, "flip.onnx");
      if (!g) continue;
      // An accepted mangled model must still be a well-formed graph the evaluator can run.
      std::vector<TensorData> in;
      for (TensorId t : g->inputs)
        in.push_back(TensorData{DType::F32, g->tensor(t).dims, std::vector<double>(numElements(g->tensor(t).dims), 0.5)});
      if (numElements(g->tensors.empty() ? Dims{} : g->tensor(g->outputs.front()).dims) < (1 << 22)) {
        auto out = evaluate(*g, in);
        CHECK(out.ok());
      }
    }
  }
}
