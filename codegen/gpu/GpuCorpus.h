// The GIR-Graphs the GPU back ends compile and run, with their inputs and reference outputs: a GIR
// file (reference: the interpreter), or a model's memory-bound subgraphs under each planner
// (reference: the computation graph's reference evaluator through LoweredSubgraph's buffer maps).
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"
#include "core/gir/Interpreter.h"
#include "core/hw/HardwareDesc.h"
#include "core/compute/Preprocess.h"
#include "search/templates/LoweredSubgraph.h"

namespace gir::gpu {

struct GpuCase {
  std::string name;       // file stem for the emitted sources: "softmax_sub0_gir", "relu"
  std::string source;     // the file it came from (stem): plans of one model share it
  std::string planner;    // "file", or a planner of search::planModel: "gir", "eager", "xla", "tvm"
  Graph gir;
  TensorMap inputs;       // per input buffer
  TensorMap expected;     // per output buffer
  std::string reference;  // "interpreter" or "reference-evaluator"
  int64_t minBytes = 0;   // the subgraph's minimal DRAM bytes; for a file: inputs + outputs once
};

// A model's plans: every memory-bound subgraph under each planner, from search::planModel (the GIR
// planner's template search, and the baselines lowered with the same templates). The one function
// that turns a model into GIR plans for the GPU back ends. Fails naming the subgraph and planner when
// a plan cannot be made or is not valid; with `skipped`, a failing planner is left out and named there.
Expected<std::vector<GpuCase>> modelPlans(const std::string& onnxPath, const HardwareDesc& hw,
                                          const std::vector<std::string>& planners, uint64_t seed,
                                          std::vector<std::string>* skipped = nullptr);

// One plan of a lowered subgraph (the lowering's own graph or any rewrite of it with the same input
// and output buffer names), with random inputs and the reference evaluator's outputs mapped to
// buffers through `lowered`'s buffer maps. What a planner's result becomes for the GPU back ends.
Expected<GpuCase> caseFromLowered(const compute::Graph& model, const compute::Subgraph& sub, const search::LoweredSubgraph& lowered,
                                  const Graph& plan, const std::string& name, const std::string& planner, uint64_t seed);

// A .gir (text or JSON) file; its reference outputs come from the interpreter on random inputs.
Expected<GpuCase> girFileCase(const std::string& path, uint64_t seed);

// What CI compiles: every valid GIR golden (tests/golden/gir) and every plan of every bundled
// scenario. `skipped` gets one line per file left out, with the reason.
std::vector<GpuCase> gpuCompileCorpus(const std::string& sourceDir, const HardwareDesc& hw, std::vector<std::string>* skipped);

}  // namespace gir::gpu
