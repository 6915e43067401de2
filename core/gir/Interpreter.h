// The executable meaning of a GIR-Graph: run every node for every unit of its domain on float32
// data, in topological order (docs/gir.md, "Interpreter and validity").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir {

using TensorMap = std::map<std::string, std::vector<float>>;  // buffer name -> row-major data

// Sees every element access of a run, in execution order (the memory-model checker is one).
class AccessObserver {
 public:
  virtual ~AccessObserver() = default;
  virtual void beginNode(NodeId) {}
  virtual void access(NodeId node, int64_t unit, BufferId buffer, const std::vector<int64_t>& elements, bool isWrite) = 0;
};

// Runs the graph. Inputs are keyed by input buffer name; returns the output buffers.
Expected<TensorMap> interpret(const Graph& g, const TensorMap& inputs, AccessObserver* observer = nullptr);

// Random inputs for every input buffer: |x| in [lo, hi], random sign when allowNegative. Never zero.
// The interpreter holds every live buffer in memory and visits every element of every slice of every
// unit. A graph whose buffers add up to more bytes, or whose nodes touch more elements over all their
// units, than these budgets is refused before anything is allocated or run (about 10 s of work);
// `gir check --symbolic` checks graphs of any size.
constexpr int64_t kInterpreterBudgetBytes = int64_t{4} << 30;
constexpr int64_t kInterpreterBudgetElements = int64_t{1} << 30;
Status fitsInterpreterBudget(const Graph& g);

TensorMap randomInputs(const Graph& g, uint64_t seed, double lo = 0.1, double hi = 2.0, bool allowNegative = true);

// Row-major flat buffer indices that slice `s` touches for unit u, in element order.
void sliceElements(const MemorySlice& s, int64_t u, std::vector<int64_t>& out);
// The same elements as contiguous runs [begin, end): the slice's innermost contiguous block
// (contiguousWidth) once per index of its other dims. For counting and ownership questions whose
// cost should follow the runs, not the elements.
struct ElementRun {
  int64_t begin, end;
};
void sliceRuns(const MemorySlice& s, int64_t u, std::vector<ElementRun>& out);
// Whether walking `runs` runs beats walking `elements` elements (sorting them costs more per item):
// the one rule of the run-based analyses (net bytes, scope ownership).
inline bool runsPayOff(int64_t runs, int64_t elements) { return runs * 4 <= elements + 64; }

// numpy.allclose over matching outputs: |a - b| <= atol + rtol * |b| everywhere (NaN only against NaN).
// On failure `where` (if given) names the output, the element and both values.
bool allClose(const TensorMap& actual, const TensorMap& expected, double rtol, double atol, std::string* where = nullptr);

// Largest relative difference |a-b| / max(|b|, atol-floor) over matching outputs; mismatched keys or sizes give +inf.
double maxRelativeError(const TensorMap& actual, const TensorMap& expected, double absFloor = 1e-6);

}  // namespace gir
