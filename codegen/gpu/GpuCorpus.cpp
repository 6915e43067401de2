// Cases for the GPU back ends: GIR files and the plans of the bundled models.
#include "codegen/gpu/GpuCorpus.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <random>

#include "core/compute/Preprocess.h"
#include "core/compute/ReferenceEvaluator.h"
#include "core/gir/Json.h"
#include "core/gir/Validity.h"
#include "core/gir/Verifier.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "search/templates/SubgraphCheck.h"
#include "search/ModelPipeline.h"

namespace gir::gpu {

namespace fs = std::filesystem;

namespace {

std::string stemOf(const std::string& path) {
  std::string s = fs::path(path).stem().string();
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

int64_t ioBytes(const Graph& g) {
  int64_t n = 0;
  for (const auto& b : g.buffers())
    if (!b.erased && b.role != BufferRole::Temp) n += b.numel() * 4;
  return n;
}

// The values every numeric check of a lowered subgraph uses (search/templates/SubgraphCheck).
Status referenceData(const compute::Graph& g, const compute::Subgraph& sub, const search::LoweredSubgraph& lowered,
                     uint64_t seed, TensorMap& inputs, TensorMap& expected) {
  auto data = search::referenceData(g, sub, lowered, seed);
  if (!data) return data.takeError();
  inputs = std::move(data->inputs);
  expected = std::move(data->expected);
  return success();
}

}  // namespace

Expected<GpuCase> caseFromLowered(const compute::Graph& model, const compute::Subgraph& sub, const search::LoweredSubgraph& lowered,
                                  const Graph& plan, const std::string& name, const std::string& planner, uint64_t seed) {
  GpuCase c;
  c.name = name;
  c.planner = planner;
  c.gir = plan;
  c.gir.name = name;
  c.reference = "reference-evaluator";
  c.minBytes = sub.minBytes;
  if (auto st = referenceData(model, sub, lowered, seed, c.inputs, c.expected); !st) return st.takeError();
  return c;
}

Expected<std::vector<GpuCase>> modelPlans(const std::string& onnxPath, const HardwareDesc& hw,
                                          const std::vector<std::string>& planners, uint64_t seed, std::vector<std::string>* skipped) {
  for (const auto& p : planners)
    if (!search::isPlannerName(p))
      return makeError("unknown planner '" + p + "' for GPU code generation; known: gir, eager, xla, tvm");
  auto imported = search::importModel(onnxPath, hw);
  if (!imported) return imported.takeError();
  if (auto first = imported->subgraph(0); !first) return first.takeError();
  const compute::Graph* model = &imported->model;
  const compute::PreprocessResult* pre = &imported->pre;
  std::vector<GpuCase> out;
  for (const auto& planner : planners) {  // one planner at a time, so one that fails can be skipped
    search::PlanRequest request;
    request.planners = {planner};
    auto plans = search::planModel(*model, *pre, hw, request);
    Status st = plans ? success() : Status(plans.error());
    for (size_t i = 0; plans && st && i < plans->size(); ++i) {
      const auto& sp = (*plans)[i];
      if (!sp.notCovered.empty()) {  // partial coverage: this subgraph is skipped, the others still run
        if (!skipped) return makeError("subgraph " + std::to_string(sp.index) + ": not GIR: " + sp.notCovered, SourceLocation{onnxPath, 0, 0, ""});
        skipped->push_back(stemOf(onnxPath) + " subgraph " + std::to_string(sp.index) + " (" + planner + "): not GIR: " + sp.notCovered);
        continue;
      }
      const auto& r = sp.planners.front();
      if (!r.valid) {
        st = makeError("the " + planner + " plan of subgraph " + std::to_string(sp.index) + " is not valid: " + r.problem.substr(0, r.problem.find('\n')));
        break;
      }
      std::string name = stemOf(onnxPath) + (pre->subgraphs.size() > 1 ? "_sub" + std::to_string(sp.index) : "") + "_" + planner;
      auto c = caseFromLowered(*model, *sp.subgraph, r.lowered.lowered, r.lowered.lowered.gir, name, planner, seed);
      if (!c) return c.takeError();
      c->source = stemOf(onnxPath);
      out.push_back(std::move(*c));
    }
    if (st) continue;
    Diagnostic d = st.takeError();
    d.location.file = onnxPath;
    if (!skipped) return d;
    skipped->push_back(stemOf(onnxPath) + " (" + planner + "): " + d.str());
    while (!out.empty() && out.back().planner == planner) out.pop_back();
  }
  if (out.empty() && skipped && !skipped->empty()) return makeError("no planner gives a GPU plan", SourceLocation{onnxPath, 0, 0, ""});
  return out;
}

Expected<GpuCase> girFileCase(const std::string& path, uint64_t seed) {
  auto g = loadGirFile(path);
  if (!g) return g.takeError();
  if (auto st = verifyGraph(*g); !st) {  // the interpreter below assumes a well-formed graph
    Diagnostic d = st.takeError();
    d.location.file = path;
    return d;
  }
  GpuCase c;
  c.name = stemOf(path);
  c.source = c.name;
  c.planner = "file";
  c.gir = std::move(*g);
  c.inputs = randomInputs(c.gir, seed);
  auto run = interpret(c.gir, c.inputs);
  if (!run) {
    Diagnostic d = run.takeError();
    d.location.file = path;
    return d;
  }
  c.expected = std::move(*run);
  c.reference = "interpreter";
  c.minBytes = ioBytes(c.gir);
  return c;
}

std::vector<GpuCase> gpuCompileCorpus(const std::string& sourceDir, const HardwareDesc& hw, std::vector<std::string>* skipped) {
  auto skip = [&](const std::string& what, const std::string& why) {
    if (skipped) skipped->push_back(what + ": " + why);
  };
  std::vector<GpuCase> out;
  std::vector<fs::path> files;
  for (const auto& dir : {"tests/golden/gir", "scenarios"})
    for (const auto& e : fs::directory_iterator(fs::path(sourceDir) / dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (f.extension() == ".gir") {
      auto c = girFileCase(f.string(), 1);
      if (!c) { skip(f.filename().string(), c.error().str()); continue; }
      ValidityReport v = checkValidity(c->gir, c->inputs);
      if (!v.valid()) { skip(f.filename().string(), "not a valid graph: " + v.str()); continue; }
      out.push_back(std::move(*c));
    } else if (f.extension() == ".onnx") {
      auto plans = modelPlans(f.string(), hw, search::plannerNames(), 7, skipped);
      if (!plans) { skip(f.filename().string(), plans.error().str()); continue; }
      for (auto& c : *plans) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace gir::gpu
