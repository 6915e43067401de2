// The common model of the baseline planners (docs/baselines.md, "The common model"): the normalized
// problem a planner sees, the kernels and decisions it returns, and the per-kernel DRAM accounting that
// makes eager, xla-like and tvm-like comparable (same graph, same normalizations, same bytes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"
#include "core/compute/Preprocess.h"

namespace gir::search {

using compute::OpId;
using compute::OpKind;
using compute::TensorId;

// One schedulable node: an op, or one output of a Split (xla/tvm see a Split as one slice per
// output; eager keeps the Split's nodes together in one kernel). Reshapes are not nodes: their
// outputs are aliases of their inputs (a bitcast / view).
struct PlanNode {
  int id = 0;         // dense, topological
  OpId op{};
  int output = 0;     // which output of `op`
  OpKind kind{};      // Split nodes report OpKind::Slice
  bool fromSplit = false;
  std::vector<TensorId> inputs;  // alias roots, distinct, scalar constants dropped
  TensorId out{};                // alias root of the output
  int64_t numel = 0;             // elements of `out`
};

// The graph (or one memory-bound subgraph) as the planners see it.
struct PlanProblem {
  const compute::Graph* graph = nullptr;
  std::string name;
  std::vector<PlanNode> nodes;
  std::vector<int> producer;             // per tensor: producing node, or -1
  std::vector<std::vector<int>> users;   // per node: consuming nodes, ascending
  std::vector<bool> isOutput;            // per tensor (alias root): needed outside the problem
  std::vector<TensorId> outputs;         // alias roots, ascending
  std::vector<TensorId> aliasRoot;       // per tensor: the buffer it names

  const PlanNode& node(int id) const { return nodes[id]; }
  int64_t bytes(TensorId t) const;
  const compute::Op& op(int node) const { return graph->op(nodes[node].op); }
};

// The whole graph, or one subgraph of a preprocessing result.
Expected<PlanProblem> makeProblem(const compute::Graph& g);
Expected<PlanProblem> makeProblem(const compute::Graph& g, const compute::Subgraph& sub, std::string name);

enum class KernelKind { Eager, Loop, Input, MultiOutput, Library };
std::string_view kernelKindName(KernelKind k);

struct PlannedKernel {
  KernelKind kind = KernelKind::Eager;
  std::vector<int> instances;  // node ids, ascending; a node may be instanced in several kernels
  std::vector<int> exports;    // nodes whose outputs this kernel may store (xla: fusion roots)
  std::vector<TensorId> inputs;   // ext_in, ascending
  std::vector<TensorId> outputs;  // ext_out, ascending
  int64_t dramRead = 0, dramWrite = 0, accessRead = 0, flops = 0;
};

// Why two nodes were or were not fused: the rule that decided, for the app's "why not" view.
struct Decision {
  int step = 0;
  int producer = -1;  // node id (the root node of a producer group)
  int consumer = -1;
  std::string ruleId;  // "xla.expensive_producer_duplicated", "tvm.path_not_injective", ...
  bool accepted = false;
  std::string detail;
};

struct PlanTotals {
  int64_t kernels = 0, dramRead = 0, dramWrite = 0, accessRead = 0, flops = 0;
  int64_t dramBytes() const { return dramRead + dramWrite; }
};

struct Plan {
  std::string planner;   // "eager", "xla", "tvm"
  std::string options;   // "broadcast_as_view=1", ...
  std::vector<int> views;  // nodes executed as views (eager broadcasts): no kernel, no bytes
  std::vector<PlannedKernel> kernels;
  std::vector<Decision> decisions;
  PlanTotals totals;
  int64_t lowerBound = 0;  // every problem input read once + every output written once
};

// Fills inputs, outputs, bytes and flops of every kernel, orders the kernels topologically
// (ties by smallest instance) and sums the totals. Fails if a kernel reads a tensor no kernel
// exports or the kernels form a cycle (a planner bug, reported rather than asserted).
Status finalizePlan(const PlanProblem& p, Plan& plan);

// Bytes of the distinct inputs read by some node plus the distinct outputs ("The common model").
int64_t lowerBoundBytes(const PlanProblem& p);

// Elements of `in` that one full evaluation of `n` reads (a broadcast reads its output's count).
int64_t elementsRead(const PlanProblem& p, const PlanNode& n, TensorId in);

}  // namespace gir::search
