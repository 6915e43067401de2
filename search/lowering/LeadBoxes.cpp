// Lead boxes: the consumer's natural boxes pushed back along a chain of single readers with the
// follow inversion (followBoxes) applied to each producer's write access.
#include "search/lowering/LeadBoxes.h"

#include <algorithm>
#include <string>

#include "search/lowering/TemplateState.h"
#include "search/lowering/TiledTranspose.h"

namespace gir::search {

namespace {

struct Reader {
  size_t op = 0;
  TensorId tensor{};
};

// The one op after k (in subgraph order) that reads an output of k, and which output.
Expected<Reader> soleReader(const compute::Graph& g, const compute::Subgraph& sub, size_t k) {
  const auto& outs = g.op(sub.ops[k]).outputs;
  std::optional<Reader> found;
  for (size_t n = k + 1; n < sub.ops.size(); ++n)
    for (TensorId t : g.op(sub.ops[n]).inputs) {
      if (std::find(outs.begin(), outs.end(), t) == outs.end()) continue;
      if (found && (found->op != n || found->tensor != t))
        return makeError("op '" + g.op(sub.ops[k]).name + "' is read by more than one op (or through more than one output)");
      found = Reader{n, t};
    }
  if (!found) return makeError("no op of the subgraph reads op '" + g.op(sub.ops[k]).name + "'");
  return *found;
}

// What each unit of an op reads of tensor t under its boxes (all its reads of t together: a unit
// may read t through one of them only, or through several that touch the same part).
Expected<TensorPlacement> readPlacement(const IterationSpace& s, const UnitBoxes& b, TensorId t) {
  TensorPlacement p(b.lo.size());
  for (const auto& a : s.reads) {
    if (a.tensor != t) continue;
    for (int64_t u = 0; u < b.units(); ++u) {
      auto slice = accessSlice(b, u, a);
      if (!slice) continue;
      if (p[u] && sortedSlice(*p[u]) != sortedSlice(*slice))
        return makeError("unit " + std::to_string(u) + " reads two different parts of the tensor");
      p[u] = std::move(slice);
    }
  }
  return p;
}

const TensorAccess* writeOf(const IterationSpace& s, TensorId t) {
  for (const auto& w : s.writes)
    if (w.tensor == t) return &w;
  return nullptr;
}

}  // namespace

Expected<std::vector<size_t>> leadChain(const compute::Graph& g, const compute::Subgraph& sub, size_t producer, size_t consumer) {
  if (producer >= consumer || consumer >= sub.ops.size()) return makeError("a lead needs a consumer after the producer in the subgraph");
  std::vector<size_t> chain{producer};
  for (;;) {
    auto r = soleReader(g, sub, chain.back());
    if (!r) return r.takeError();
    if (r->op == consumer) return chain;
    if (r->op > consumer) return makeError("op '" + g.op(sub.ops[consumer]).name + "' does not read op '" + g.op(sub.ops[producer]).name + "' through a chain of single readers");
    chain.push_back(r->op);
  }
}

std::optional<size_t> leadTarget(const compute::Graph& g, const compute::Subgraph& sub,
                                 const std::function<const IterationSpace*(size_t)>& spaceOf, size_t producer) {
  for (size_t k = producer;;) {
    auto r = soleReader(g, sub, k);
    const IterationSpace* s = r ? spaceOf(r->op) : nullptr;
    if (!s) return std::nullopt;
    for (const auto& a : s->reads)
      if (a.tensor == r->tensor && !a.wholeSpace(s->dims)) return r->op;
    if (transposedInnerDims(*s)) return r->op;
    k = r->op;
  }
}

Status coversOnce(const IterationSpace& s, const UnitBoxes& b) {
  size_t rank = s.dims.size();
  std::vector<int64_t> cells(rank);
  int64_t total = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (b.ext[d] < 1 || s.dims[d] % b.ext[d] != 0) return makeError("the boxes do not tile dimension " + std::to_string(d) + " of the op");
    cells[d] = s.dims[d] / b.ext[d];
    total *= cells[d];
  }
  std::vector<bool> seen(static_cast<size_t>(total), false);
  int64_t covered = 0;
  for (int64_t u = 0; u < b.units(); ++u) {
    if (!b.lo[u]) continue;
    int64_t cell = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t lo = (*b.lo[u])[d];
      if (lo % b.ext[d] != 0 || lo + b.ext[d] > s.dims[d]) return makeError("unit " + std::to_string(u) + "'s box is not aligned to the box extent");
      cell = cell * cells[d] + lo / b.ext[d];
    }
    if (seen[cell]) return makeError("two units would compute the same part (unit " + std::to_string(u) + ")");
    seen[cell] = true;
    ++covered;
  }
  if (covered != total)
    return makeError("the consumer's units read only " + std::to_string(covered) + " of the " + std::to_string(total) +
                     " boxes of this op: the rest would never be computed");
  return success();
}

Expected<UnitBoxes> leadBoxes(const compute::Graph& g, const compute::Subgraph& sub, const std::vector<IterationSpace>& spaces, size_t producer,
                              size_t consumer, const std::vector<int>& outer, int64_t tile, int64_t budget) {
  auto chain = leadChain(g, sub, producer, consumer);
  if (!chain) return chain.takeError();
  auto boxes = naturalBoxes(spaces[consumer], outer, tile);
  if (!boxes) return makeError("the consumer's split: " + boxes.error().message);
  int64_t consumerBudget = boxBudgetFor(spaces[consumer], budget);
  if (liveBoxElements(spaces[consumer], boxes->ext, consumerBudget) > consumerBudget) return makeError("the consumer's split is over the register budget");
  size_t next = consumer;
  for (size_t k = chain->size(); k-- > 0;) {
    size_t op = (*chain)[k];
    auto reader = soleReader(g, sub, op);
    if (!reader) return reader.takeError();
    const TensorAccess* w = writeOf(spaces[op], reader->tensor);
    if (!w) return makeError("op '" + g.op(sub.ops[op]).name + "' has no iteration-space access for its output");
    auto placement = readPlacement(spaces[next], *boxes, reader->tensor);
    if (!placement) return placement.takeError();
    auto mine = followBoxes(spaces[op], *w, *placement);
    std::string where = op == producer ? "" : "op '" + g.op(sub.ops[op]).name + "' of the chain: ";
    if (!mine) return makeError(where + mine.error().message);
    if (liveBoxElements(spaces[op], mine->ext, boxBudgetFor(spaces[op], budget)) > boxBudgetFor(spaces[op], budget))
      return makeError(where + "a unit's box would hold " + std::to_string(mine->boxNumel()) + " elements, over the register budget");
    if (auto st = coversOnce(spaces[op], *mine); !st) return makeError(where + st.error().message);
    mine->description = "lead";
    boxes = std::move(*mine);
    next = op;
  }
  return boxes;
}

}  // namespace gir::search
