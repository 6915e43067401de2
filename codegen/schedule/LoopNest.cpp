// Loop nests of gOperators: common refinement of slice shapes, strides per loop, loop merging.
#include "codegen/schedule/LoopNest.h"

#include <optional>
#include <tuple>

#include "codegen/schedule/Schedule.h"
#include "core/gir/Printer.h"

namespace gir::codegen {

std::vector<int64_t> denseStrides(const std::vector<int64_t>& extents) {
  std::vector<int64_t> s(extents.size(), 1);
  for (size_t d = extents.size(); d-- > 1;) s[d - 1] = s[d] * extents[d];
  return s;
}

int64_t LoopNest::iterations() const {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

bool LoopNest::reductionIsInnermost() const {
  bool seenReduced = false;
  for (bool r : reduced) {
    if (seenReduced && !r) return false;
    seenReduced = seenReduced || r;
  }
  return true;
}

namespace {

// A shape without its extent-1 axes (they do not change element order), with the strides kept.
struct Dims {
  std::vector<int64_t> ext, str;
  std::vector<bool> flag;  // reduce: reduced axis; broadcast: new axis
};

Dims dimsOf(const MemorySlice& s, const std::vector<int>& flaggedAxes = {}) {
  Dims d;
  for (size_t i = 0; i < s.shape.size(); ++i) {
    if (s.shape[i] == 1) continue;
    d.ext.push_back(s.shape[i]);
    d.str.push_back(s.strides[i]);
    bool f = false;
    for (int a : flaggedAxes) f = f || a == static_cast<int>(i);
    d.flag.push_back(f);
  }
  return d;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t e : v) n *= e;
  return n;
}

// The coarsest factorization both row-major factorizations of one count refine; nullopt when the
// two split the element sequence at incompatible places (e.g. [4,6] against [6,4]).
std::optional<std::vector<int64_t>> refine(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  size_t i = a.size(), j = b.size();
  int64_t x = 0, y = 0;  // the unconsumed rest of a[i-1] and b[j-1]
  while (true) {
    if (x == 0 && i > 0) x = a[--i];
    if (y == 0 && j > 0) y = b[--j];
    if (x == 0 && y == 0) break;
    if (x == 0 || y == 0) return std::nullopt;
    int64_t f = std::min(x, y);
    if (x % f != 0 || y % f != 0) return std::nullopt;
    out.insert(out.begin(), f);
    x = x / f == 1 ? 0 : x / f;
    y = y / f == 1 ? 0 : y / f;
  }
  return out;
}

// Strides over `refined` for an array walked through (ext, str); `refined` must refine `ext`.
std::optional<std::vector<int64_t>> restride(const std::vector<int64_t>& ext, const std::vector<int64_t>& str,
                                             const std::vector<int64_t>& refined) {
  std::vector<int64_t> out(refined.size(), 0);
  size_t r = refined.size();
  for (size_t d = ext.size(); d-- > 0;) {
    int64_t left = ext[d], stride = str[d];
    while (left > 1) {
      if (r == 0 || left % refined[r - 1] != 0) return std::nullopt;
      out[--r] = stride;
      stride *= refined[r];
      left /= refined[r];
    }
  }
  if (r != 0) return std::nullopt;
  return out;
}

// Splits the kept (unflagged) axes of `full` into the factors of `keptRefined`, in order; flagged
// axes stay whole. Returns the loop extents and their flags.
std::pair<std::vector<int64_t>, std::vector<bool>> splitKept(const Dims& full, const std::vector<int64_t>& keptRefined) {
  std::vector<int64_t> ext;
  std::vector<bool> flag;
  size_t k = 0;
  for (size_t d = 0; d < full.ext.size(); ++d) {
    if (full.flag[d]) {
      ext.push_back(full.ext[d]);
      flag.push_back(true);
      continue;
    }
    for (int64_t left = full.ext[d]; left > 1 && k < keptRefined.size(); left /= keptRefined[k++]) {
      ext.push_back(keptRefined[k]);
      flag.push_back(false);
    }
  }
  return {ext, flag};
}

// Strides of the kept operand over the loops: 0 on flagged loops, `kept` in order elsewhere.
std::vector<int64_t> spreadKept(const std::vector<bool>& flag, const std::vector<int64_t>& kept) {
  std::vector<int64_t> out;
  size_t k = 0;
  for (bool f : flag) out.push_back(f ? 0 : kept[k++]);
  return out;
}

Diagnostic nodeError(const Graph& g, NodeId id, const std::string& msg) {
  return makeError(msg, SourceLocation{"", 0, 0, "node #" + std::to_string(id.value) + " '" + describeNode(g, id) + "'"});
}

// Merges adjacent loops that every operand walks as one contiguous run; drops nothing else.
void mergeLoops(LoopNest& nest) {
  std::vector<NestOperand*> ops{&nest.output};
  for (auto& in : nest.inputs) ops.push_back(&in);
  for (size_t d = nest.extents.size(); d-- > 1;) {
    bool ok = nest.reduced[d - 1] == nest.reduced[d];
    for (auto* op : ops) ok = ok && op->strides[d - 1] == op->strides[d] * nest.extents[d];
    if (!ok) continue;
    nest.extents[d - 1] *= nest.extents[d];
    nest.extents.erase(nest.extents.begin() + static_cast<long>(d));
    nest.reduced.erase(nest.reduced.begin() + static_cast<long>(d));
    for (auto* op : ops) {
      op->strides[d - 1] = op->strides[d];
      op->strides.erase(op->strides.begin() + static_cast<long>(d));
    }
  }
}

Expected<LoopNest> elementwiseNest(const Graph& g, NodeId id, const Node& n) {
  LoopNest nest;
  const MemorySlice& out = g.slice(n.outputs[0]);
  nest.outputElements = out.numel();
  Dims od = dimsOf(out);
  std::vector<int64_t> loops = od.ext;
  std::vector<bool> staged(n.inputs.size(), false);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const MemorySlice& in = g.slice(n.inputs[i]);
    if (in.numel() != out.numel())
      return nodeError(g, id, "input " + std::to_string(i) + " has " + std::to_string(in.numel()) + " elements, the output " +
                                  std::to_string(out.numel()));
    auto r = refine(loops, dimsOf(in).ext);
    if (r) loops = *r;
    else staged[i] = true;
  }
  nest.extents = loops;
  nest.reduced.assign(loops.size(), false);
  nest.output = {n.outputs[0], *restride(od.ext, od.str, loops), false};
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    Dims in = dimsOf(g.slice(n.inputs[i]));
    auto s = staged[i] ? std::nullopt : restride(in.ext, in.str, loops);
    nest.inputs.push_back({n.inputs[i], s ? *s : denseStrides(loops), !s});
  }
  return nest;
}

Expected<LoopNest> reduceNest(const Graph& g, NodeId id, const Node& n) {
  const auto& axes = std::get<ReducePayload>(n.payload).axes;
  const MemorySlice& in = g.slice(n.inputs[0]);
  const MemorySlice& out = g.slice(n.outputs[0]);
  Dims id_ = dimsOf(in, axes), od = dimsOf(out);
  std::vector<int64_t> kept;
  for (size_t d = 0; d < id_.ext.size(); ++d)
    if (!id_.flag[d]) kept.push_back(id_.ext[d]);
  if (product(kept) != out.numel())
    return nodeError(g, id, "the output has " + std::to_string(out.numel()) + " elements, the kept axes " + std::to_string(product(kept)));
  auto keptRefined = refine(kept, od.ext);
  LoopNest nest;
  nest.outputElements = out.numel();
  std::tie(nest.extents, nest.reduced) = splitKept(id_, keptRefined ? *keptRefined : kept);
  auto outKept = keptRefined ? restride(od.ext, od.str, *keptRefined) : std::nullopt;
  nest.output = {n.outputs[0], spreadKept(nest.reduced, outKept ? *outKept : denseStrides(kept)), !outKept};
  nest.inputs.push_back({n.inputs[0], *restride(id_.ext, id_.str, nest.extents), false});
  return nest;
}

Expected<LoopNest> broadcastNest(const Graph& g, NodeId id, const Node& n) {
  const auto& axes = std::get<BroadcastPayload>(n.payload).axes;
  const MemorySlice& in = g.slice(n.inputs[0]);
  const MemorySlice& out = g.slice(n.outputs[0]);
  Dims od = dimsOf(out, axes), id_ = dimsOf(in);
  std::vector<int64_t> kept;
  bool anyNew = false;
  for (size_t d = 0; d < od.ext.size(); ++d) {
    if (!od.flag[d]) kept.push_back(od.ext[d]);
    anyNew = anyNew || od.flag[d];
  }
  if (product(kept) != in.numel())
    return nodeError(g, id, "the input has " + std::to_string(in.numel()) + " elements, the kept axes " + std::to_string(product(kept)));
  // A device-level input would be re-read along every new axis: read it once into a temporary.
  bool stageInput = anyNew && bufferScope(g, in.buffer) == Scope::Device;
  auto keptRefined = stageInput ? std::nullopt : refine(kept, id_.ext);
  LoopNest nest;
  nest.outputElements = out.numel();
  std::vector<bool> isNew;
  std::tie(nest.extents, isNew) = splitKept(od, keptRefined ? *keptRefined : kept);
  nest.reduced.assign(nest.extents.size(), false);
  nest.output = {n.outputs[0], *restride(od.ext, od.str, nest.extents), false};
  auto inKept = keptRefined ? restride(id_.ext, id_.str, *keptRefined) : std::nullopt;
  nest.inputs.push_back({n.inputs[0], spreadKept(isNew, inKept ? *inKept : denseStrides(kept)), !inKept});
  return nest;
}

}  // namespace

std::optional<std::vector<int64_t>> commonRefinement(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (product(a) != product(b)) return std::nullopt;
  return refine(a, b);
}

std::optional<LoopNest> refineNest(const LoopNest& nest, const std::vector<int64_t>& extents) {
  // origin[r]: the loop of `nest` that refined loop r came from (innermost first, as restride walks).
  std::vector<size_t> origin(extents.size());
  size_t r = extents.size();
  for (size_t d = nest.extents.size(); d-- > 0;)
    for (int64_t left = nest.extents[d]; left > 1; left /= extents[r]) {
      if (r == 0 || left % extents[r - 1] != 0) return std::nullopt;
      origin[--r] = d;
    }
  while (r > 0 && extents[r - 1] == 1) origin[--r] = 0;  // leading 1-loops: walk nothing
  if (r != 0) return std::nullopt;
  LoopNest out = nest;
  out.extents = extents;
  out.reduced.assign(extents.size(), false);
  for (size_t k = 0; k < extents.size(); ++k) out.reduced[k] = !nest.extents.empty() && nest.reduced[origin[k]];
  std::vector<NestOperand*> ops{&out.output};
  for (auto& in : out.inputs) ops.push_back(&in);
  for (NestOperand* op : ops) {
    auto s = restride(nest.extents, op->strides, extents);
    if (!s) return std::nullopt;
    op->strides = *s;
  }
  return out;
}

Expected<LoopNest> loopNestOf(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.outputs.size() != 1) return nodeError(g, id, "a gOperator needs exactly one output");
  // An elementwise node may have immediates only (a constant fill); every other kind reads a slice.
  if (n.inputs.empty() && n.kind() != NodeKind::Elementwise) return nodeError(g, id, "a gOperator of this kind needs an input slice");
  Expected<LoopNest> nest = makeError("unreachable");
  switch (n.kind()) {
    case NodeKind::Move:
    case NodeKind::Elementwise: nest = elementwiseNest(g, id, n); break;
    case NodeKind::Reduce: nest = reduceNest(g, id, n); break;
    case NodeKind::Broadcast: nest = broadcastNest(g, id, n); break;
    case NodeKind::Sync: return nodeError(g, id, "a sync has no loop nest");
  }
  if (nest) mergeLoops(*nest);
  return nest;
}

}  // namespace gir::codegen
