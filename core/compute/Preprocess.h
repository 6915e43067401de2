// Preprocessing of the computation graph (GIR paper section 6; docs/import.md, "Preprocessing"): each library
// op is compute-bound or memory-bound by its arithmetic intensity (FLOPs / minimal bytes) against
// the target's ridge point, not by its type; the memory-bound ops form connected subgraphs, each
// of which later becomes a GIR-Graph.
#pragma once

#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/hw/HardwareDesc.h"

namespace gir::compute {

// One library op and the decision taken for it.
struct LibraryDecision {
  OpId op{};
  int64_t flops = 0;
  int64_t minBytes = 0;  // every distinct input read once + every output written once
  double intensity = 0;  // flops / minBytes
  bool computeBound = false;  // intensity >= ridge point: a library (BLAS, cuDNN) runs it
  // Memory-bound, but GIR has no template for it (a dense convolution with a window): a library
  // runs it as well, rather than the subgraph around it failing to plan (docs/plans.md).
  bool noTemplate = false;
  bool libraryCall() const { return computeBound || noTemplate; }
  // "compute-bound: library call", "memory-bound: lowered to GIR", or "memory-bound, no GIR
  // template: library call" — the one wording of the decision for every view.
  std::string verdict() const;
};

// Which GIR template lowers this convolution: pointwise (1x1, stride 1, no padding, group 1) or
// depthwise 2-D (group = channels, one filter per channel); none for the others, which stay library
// calls. The iteration spaces (search/lowering) and the classification above share this one rule.
enum class ConvTemplate { None, Pointwise, Depthwise };
ConvTemplate convTemplate(const Graph& g, const Op& op);

// A connected set of memory-bound ops whose condensation with the library calls stays acyclic.
struct Subgraph {
  std::vector<OpId> ops;         // in graph order
  std::vector<TensorId> inputs;  // read from outside (graph inputs, constants, other producers)
  std::vector<TensorId> outputs; // needed outside (graph outputs, other consumers)
  int64_t minBytes = 0;          // inputs read once + outputs written once
};

struct PreprocessResult {
  std::string target;
  double ridgeFlopsPerByte = 0;
  std::vector<LibraryDecision> library;  // every library op, in graph order
  std::vector<Subgraph> subgraphs;       // ordered by their first op
  std::vector<int> subgraphOf;           // per op: subgraph index, or -1 for a compute-bound call
};

int64_t opFlops(const Graph& g, const Op& op);
int64_t opMinBytes(const Graph& g, const Op& op);
int64_t tensorBytes(const Tensor& t);

Expected<PreprocessResult> preprocess(const Graph& g, const HardwareDesc& hw);

// Fills s.inputs, s.outputs and s.minBytes from s.ops: what the ops of subgraph `self` read from
// outside it and what graph outputs or other subgraphs and calls read from it (subgraphOf per op).
void fillSubgraphBoundary(const Graph& g, Subgraph& s, const std::vector<int>& subgraphOf, int self);

// The summary that `gir import` prints and the golden files hold: ops by kind, library calls
// with intensity and decision, subgraphs with op counts and minimal DRAM bytes.
std::string printPreprocessSummary(const Graph& g, const PreprocessResult& r);
std::string preprocessToJson(const Graph& g, const PreprocessResult& r);
std::string preprocessToDot(const Graph& g, const PreprocessResult& r);

}  // namespace gir::compute
