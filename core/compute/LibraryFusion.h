// Library-op epilogues (docs/import.md, "Preprocessing"; docs/baselines.md, "Library epilogue options"):
// moves the boundary between a compute-bound library call and the memory-bound subgraph that reads
// its output. Elementwise ops applied to the call's output tile with only small side operands (a
// bias vector, a scalar) run inside the call, as cuBLASLt epilogues, oneDNN post-ops and CUTLASS
// epilogue visitor trees do, so the call stores the epilogue's result instead of its raw output and
// the subgraph neither reads the raw output nor computes those ops.
//
// The rule (docs/plans.md, "Library-op boundaries"), for a compute-bound MatMul, Gemm or Conv L
// with raw output r:
//  * body ops: Elementwise (any function but select) whose output has r's element count and whose
//    tensor operands are r, outputs of earlier body ops, or side operands; Reshape of such a tensor
//    (a free alias, only inside the epilogue, never its last op);
//  * side operand: the output of a Broadcast read by that body op alone, whose source is a constant
//    or a graph input (never computed, so the call gains no dependence) with at most one axis of
//    extent > 1 (per-channel or per-column vector, or a scalar): cuBLASLt's bias, oneDNN's binary
//    post-op with a per-channel or per-tensor operand;
//  * every op of the epilogue lies in the one subgraph that reads r; r has no reader outside the
//    epilogue and is not a graph output; the epilogue has exactly one result that anything outside
//    it reads (the tensor the call now writes);
//  * among the candidates in graph order, the longest prefix meeting all of the above is taken.
// Prologues (elementwise ops folded into an operand load) are not folded: cuBLASLt has none and
// CUTLASS fuses mainloop prologues only for a few layouts; the decision is documented there too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"

namespace gir::compute {

// The ops one library call took over, and the DRAM bytes that moved with them.
struct LibraryEpilogue {
  OpId library{};
  std::vector<OpId> ops;              // graph order: body ops and their side broadcasts
  TensorId rawOutput{};               // no longer stored by the call nor loaded by a subgraph
  TensorId output{};                  // what the call stores now (same element count as rawOutput)
  std::vector<TensorId> sideInputs;   // now loaded by the call (not already its operands), ascending
  int64_t rawBytes = 0;               // bytes of rawOutput
  int64_t sideBytes = 0;              // bytes of sideInputs
};

struct LibraryBoundaries {
  PreprocessResult pre;                    // epilogue ops have subgraphOf -1 (they run in the call);
                                           // the rest of each subgraph split into connected parts
  std::vector<LibraryEpilogue> epilogues;  // calls that took an epilogue, in graph order
  // Minimal DRAM bytes (inputs once + outputs once) before and after the move: summed over the
  // memory-bound subgraphs, and over the compute-bound calls (each call's minBytes, with its
  // side inputs added and its raw output replaced by the epilogue's result).
  int64_t subgraphBytesBefore = 0, subgraphBytesAfter = 0;
  int64_t libraryBytesBefore = 0, libraryBytesAfter = 0;
};

// Pure: `pre` must be preprocess(g, ...) of this same graph (checked: an error otherwise).
Expected<LibraryBoundaries> foldLibraryEpilogues(const Graph& g, const PreprocessResult& pre);

// The epilogue the rule gives library op `lib` (MatMul, Gemm or Conv; the caller decides it is a
// call), with `regionOf` (per op: a region id, -1 for ops that may not join) in place of the
// subgraphs; nullopt when nothing qualifies or the arguments do not fit g. foldLibraryEpilogues
// applies it per compute-bound call; the xla-like planner's gemm_epilogue on whole graphs.
std::optional<LibraryEpilogue> findLibraryEpilogue(const Graph& g, OpId lib, const std::vector<int>& regionOf);

// "matmul 'ffn1_matmul' + epilogue 7 ops (add, div, erf, ...) -> writes ffn_act; reads +2048 B side ..."
std::string printLibraryEpilogues(const Graph& g, const LibraryBoundaries& b);
// {"calls": [{"library", "ops", "raw_output", "output", "side_inputs", "raw_bytes", "side_bytes"}],
//  "subgraphs", "subgraph_min_bytes_before/after", "library_min_bytes_before/after"} as JSON text.
std::string libraryEpiloguesToJson(const Graph& g, const LibraryBoundaries& b);

}  // namespace gir::compute
