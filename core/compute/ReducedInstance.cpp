// Axis families by union-find over (tensor, axis): an op links the axes that must keep one extent
// ratio (an elementwise op's aligned axes, a transpose's permuted ones, a reshape's outermost axes of
// each regrouped block) and pins the axes whose extent is part of its meaning (reduced, concatenated,
// sliced, convolved). A family with no pinned member can be divided by any common divisor of its
// extents. docs/scale.md, "Reduced instances".
#include "core/compute/ReducedInstance.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>

namespace gir::compute {

namespace {

class AxisFamilies {
 public:
  AxisFamilies(const Graph& g, const std::vector<TensorId>& tensors) : g_(g) {
    for (TensorId t : tensors) {
      base_[index(t)] = static_cast<int>(parent_.size());
      for (size_t a = 0; a < g.tensor(t).dims.size(); ++a) parent_.push_back(static_cast<int>(parent_.size()));
    }
    pinned_.assign(parent_.size(), false);
  }

  int key(TensorId t, int axis) const { return base_.at(index(t)) + axis; }
  int find(int k) { return parent_[k] == k ? k : parent_[k] = find(parent_[k]); }
  void link(TensorId a, int i, TensorId b, int j) { parent_[find(key(a, i))] = find(key(b, j)); }
  void pin(TensorId t, int axis) { pinned_[key(t, axis)] = true; }
  void pinAll(TensorId t) {
    for (size_t a = 0; a < g_.tensor(t).dims.size(); ++a) pin(t, static_cast<int>(a));
  }
  bool pinned(int k) const { return pinned_[k]; }
  // A family holding a convolution's or pooling's rows: split over units as bands, never held whole.
  bool isBand(int k) {
    for (int b : bandRoots_)
      if (find(b) == find(k)) return true;
    return false;
  }
  size_t size() const { return parent_.size(); }

  void addOp(const Op& op) {
    std::visit([&](const auto& attrs) { linkOp(op, attrs); }, op.attrs);
  }

 private:
  const Dims& dims(TensorId t) const { return g_.tensor(t).dims; }
  int rank(TensorId t) const { return static_cast<int>(dims(t).size()); }

  // Right-aligned axes of equal extent are one family (numpy broadcasting stretches the others).
  void linkAligned(TensorId in, TensorId out) {
    int shift = rank(out) - rank(in);
    for (int a = 0; a < rank(in); ++a) {
      if (a + shift < 0) { pin(in, a); continue; }
      if (dims(in)[a] == dims(out)[a + shift]) link(in, a, out, a + shift);
      else pin(in, a);
    }
  }

  void linkOp(const Op& op, const ElementwiseAttrs&) {
    for (TensorId in : op.inputs) linkAligned(in, op.outputs[0]);
  }
  void linkOp(const Op& op, const BroadcastAttrs&) { linkAligned(op.inputs[0], op.outputs[0]); }
  void linkOp(const Op& op, const ReduceAttrs& r) {
    TensorId in = op.inputs[0], out = op.outputs[0];
    int o = 0;
    for (int a = 0; a < rank(in); ++a) {
      bool reduced = std::count(r.axes.begin(), r.axes.end(), a) > 0;
      if (reduced) pin(in, a);
      if (reduced && r.keepDims) pin(out, o++);
      else if (!reduced) link(in, a, out, o++);
    }
  }
  void linkOp(const Op& op, const TransposeAttrs& t) {
    for (size_t i = 0; i < t.perm.size(); ++i) link(op.inputs[0], t.perm[i], op.outputs[0], static_cast<int>(i));
  }
  // Row-major regrouping: blocks of axes with equal products; dividing the outermost axis of a
  // block divides the block's product, hence the outermost axis of its image. Inner axes are pinned.
  void linkOp(const Op& op, const ReshapeAttrs&) {
    TensorId in = op.inputs[0], out = op.outputs[0];
    int a = 0, b = 0;
    while (a < rank(in) && b < rank(out)) {
      int a0 = a, b0 = b;
      int64_t pa = dims(in)[a++], pb = dims(out)[b++];
      while (pa != pb && a <= rank(in) && b <= rank(out)) {
        if (pa < pb && a < rank(in)) pa *= dims(in)[a++];
        else if (pb < pa && b < rank(out)) pb *= dims(out)[b++];
        else break;
      }
      linkGroup(in, a0, a, out, b0, b);
    }
    for (; a < rank(in); ++a) pin(in, a);
    for (; b < rank(out); ++b) pin(out, b);
  }
  // The outermost axis of extent > 1 on each side carries the group's divisor; the rest are pinned.
  void linkGroup(TensorId in, int a0, int a1, TensorId out, int b0, int b1) {
    int ai = a0, bi = b0;
    while (ai < a1 && dims(in)[ai] == 1) ++ai;
    while (bi < b1 && dims(out)[bi] == 1) ++bi;
    if (ai < a1 && bi < b1) link(in, ai, out, bi);
    for (int k = a0; k < a1; ++k)
      if (k != ai && dims(in)[k] > 1) pin(in, k);
    for (int k = b0; k < b1; ++k)
      if (k != bi && dims(out)[k] > 1) pin(out, k);
  }
  void linkAllBut(const std::vector<TensorId>& ts, TensorId ref, int axis) {
    for (TensorId t : ts) {
      for (int a = 0; a < rank(t); ++a) a == axis ? pin(t, a) : link(t, a, ref, a);
    }
  }
  void linkOp(const Op& op, const ConcatAttrs& c) {
    linkAllBut(op.inputs, op.outputs[0], c.axis);
    pin(op.outputs[0], c.axis);
  }
  void linkOp(const Op& op, const SplitAttrs& s) {
    linkAllBut(op.outputs, op.inputs[0], s.axis);
    pin(op.inputs[0], s.axis);
  }
  void linkOp(const Op& op, const SliceAttrs& s) {
    TensorId in = op.inputs[0], out = op.outputs[0];
    for (int a = 0; a < rank(in); ++a) {
      bool identity = s.starts[a] == 0 && s.steps[a] == 1 && dims(in)[a] == dims(out)[a];
      if (identity) link(in, a, out, a);
      else { pin(in, a); pin(out, a); }
    }
  }
  // [..., M, K] x [..., K, N]: batch axes right-aligned, M with A, N with B; K is reduced.
  void linkOp(const Op& op, const MatMulAttrs&) {
    TensorId a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
    int ro = rank(out);
    pin(a, rank(a) - 1);
    if (rank(b) >= 2) pin(b, rank(b) - 2); else pin(b, 0);
    if (rank(a) >= 2) link(a, rank(a) - 2, out, ro - 2); 
    if (rank(b) >= 2) link(b, rank(b) - 1, out, ro - 1);
    for (TensorId t : {a, b})
      for (int k = 0; k + 2 < rank(t); ++k) {
        int o = k + (ro - rank(t));
        if (o >= 0 && dims(t)[k] == dims(out)[o]) link(t, k, out, o); else pin(t, k);
      }
    if (rank(a) < 2 || rank(b) < 2) pinAll(out);
  }
  void linkOp(const Op& op, const GemmAttrs& gm) {
    TensorId a = op.inputs[0], b = op.inputs[1], out = op.outputs[0];
    link(a, gm.transA ? 1 : 0, out, 0);
    pin(a, gm.transA ? 0 : 1);
    link(b, gm.transB ? 0 : 1, out, 1);
    pin(b, gm.transB ? 1 : 0);
    if (op.inputs.size() > 2) linkAligned(op.inputs[2], out);
  }
  // NCHW: only the batch axis can shrink.
  void linkBatchOnly(const Op& op, bool channelsFree = false) {
    int first = channelsFree ? 2 : 1;
    link(op.inputs[0], 0, op.outputs[0], 0);
    for (int a = first; a < rank(op.inputs[0]); ++a) pin(op.inputs[0], a);
    for (int a = first; a < rank(op.outputs[0]); ++a) pin(op.outputs[0], a);
    for (size_t i = 1; i < op.inputs.size(); ++i)
      for (int a = channelsFree ? 1 : 0; a < rank(op.inputs[i]); ++a) pin(op.inputs[i], a);
  }
  // Batch norm: channels too (its parameters are per channel).
  void linkChannels(const Op& op) {
    linkBatchOnly(op, true);
    TensorId x = op.inputs[0], out = op.outputs[0];
    link(x, 1, out, 1);
    for (size_t i = 1; i < op.inputs.size(); ++i) link(op.inputs[i], 0, out, 1);
  }
  // Convolutions and pooling run in bands of output rows that hold every channel of a row (the
  // band dim outermost, docs/plans.md): fewer channels would let a reduced box hold what no box
  // can at full size, so only their batch shrinks.
  void linkOp(const Op& op, const ConvAttrs& c) { linkBatchAndRows(op, c.strides[0]); }
  void linkOp(const Op& op, const PoolAttrs& p) { linkBatchAndRows(op, p.strides[0]); }
  // Output rows are the band dim, split over units: where the input has exactly `stride` rows per
  // output row ("same" padding), fewer rows keep the same kinds of band (first, inner, last).
  void linkBatchAndRows(const Op& op, int64_t stride) {
    linkBatchOnly(op);
    TensorId x = op.inputs[0], out = op.outputs[0];
    if (rank(x) == 4 && rank(out) == 4 && dims(x)[2] == stride * dims(out)[2]) {
      pinned_[key(x, 2)] = false;
      pinned_[key(out, 2)] = false;
      link(x, 2, out, 2);
      bandRoots_.push_back(key(out, 2));
    }
  }
  void linkOp(const Op& op, const BatchNormAttrs&) { linkChannels(op); }

  const Graph& g_;
  std::map<int32_t, int> base_;
  std::vector<int> parent_;
  std::vector<bool> pinned_;
  std::vector<int> bandRoots_;
};

std::vector<TensorId> touchedTensors(const Graph& g, const Subgraph& sub) {
  std::vector<TensorId> out;
  auto add = [&](TensorId t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  for (OpId id : sub.ops) {
    for (TensorId t : g.op(id).inputs) add(t);
    for (TensorId t : g.op(id).outputs) add(t);
  }
  return out;
}

// Row-major data of `full` keeping the first `dims[a]` indices along each axis.
std::vector<double> truncateData(const std::vector<double>& values, const Dims& full, const Dims& dims) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(numElements(dims)));
  Dims idx(dims.size(), 0);
  auto fullStrides = rowMajorStrides(full);
  for (int64_t n = 0, total = numElements(dims); n < total; ++n) {
    int64_t off = 0;
    for (size_t a = 0; a < dims.size(); ++a) off += idx[a] * fullStrides[a];
    out.push_back(values[static_cast<size_t>(off)]);
    for (int a = static_cast<int>(dims.size()) - 1; a >= 0 && ++idx[a] == dims[a]; --a) idx[a] = 0;
  }
  return out;
}

struct Family {
  std::vector<int> keys;
  int64_t gcd = 0, smallest = INT64_MAX, factor = 1;
};

}  // namespace

int64_t subgraphElements(const Graph& g, const Subgraph& sub) {
  int64_t n = 0;
  for (TensorId t : touchedTensors(g, sub)) n += numElements(g.tensor(t).dims);
  return n;
}

Subgraph ReducedInstance::restrict(const Subgraph& part) const {
  Subgraph out;
  for (OpId id : part.ops) out.ops.push_back(opOf.at(index(id)));
  for (TensorId t : part.inputs) out.inputs.push_back(tensorOf.at(index(t)));
  for (TensorId t : part.outputs) out.outputs.push_back(tensorOf.at(index(t)));
  for (TensorId t : out.inputs) out.minBytes += tensorBytes(graph.tensor(t));
  for (TensorId t : out.outputs) out.minBytes += tensorBytes(graph.tensor(t));
  return out;
}

std::string ReducedInstance::summary() const {
  std::ostringstream os;
  for (size_t i = 0; i < axes.size(); ++i)
    os << (i ? "; " : "") << axes[i].tensor << " axis " << axes[i].axis << ": " << axes[i].extent << " -> " << axes[i].extent / axes[i].factor;
  return os.str();
}

namespace {

// Per family, the factor it is divided by; a member (tensor, axis) that is not its tensor's
// outermost axis and that no box can hold whole at full size (more than `boxLimit` elements from it
// inwards) must stay so on the reduced instance: a template chosen there then means the same boxes
// at full size (docs/scale.md; the search also checks each box at full size, TemplateState.h).
class FactorChoice {
 public:
  FactorChoice(const Graph& g, const std::vector<TensorId>& tensors, AxisFamilies& fam, int64_t boxLimit)
      : g_(g), tensors_(tensors), fam_(fam), boxLimit_(boxLimit) {}

  int64_t factorOf(TensorId t, int a) { return factor(fam_.find(fam_.key(t, a))); }
  int64_t& factor(int root) { return factor_.try_emplace(root, 1).first->second; }

  bool keepsBoxes() {
    for (TensorId t : tensors_) {
      const Dims& d = g_.tensor(t).dims;
      int outermost = 0;
      while (outermost + 1 < static_cast<int>(d.size()) && d[outermost] == 1) ++outermost;
      int64_t inner = 1, fullInner = 1;
      for (int a = static_cast<int>(d.size()) - 1; a >= 0; --a) {
        int64_t f = factorOf(t, a);
        inner *= d[a] / f;
        fullInner *= d[a];
        bool holdableOnlyReduced = inner <= boxLimit_ && fullInner > boxLimit_;
        // The innermost axis is inside every box (tiles of it at most): a shorter one would let
        // the reduced search tile it differently from what fits at full size.
        if (f > 1 && a + 1 == static_cast<int>(d.size()) && d[a] > 1) return false;
        if (f > 1 && a > outermost && holdableOnlyReduced && !fam_.isBand(fam_.key(t, a))) return false;
      }
    }
    return true;
  }

  int64_t elements() {
    int64_t n = 0;
    for (TensorId t : tensors_) {
      int64_t e = 1;
      for (int a = 0; a < static_cast<int>(g_.tensor(t).dims.size()); ++a) e *= g_.tensor(t).dims[a] / factorOf(t, a);
      n += e;
    }
    return n;
  }

 private:
  const Graph& g_;
  const std::vector<TensorId>& tensors_;
  AxisFamilies& fam_;
  int64_t boxLimit_;
  std::map<int, int64_t> factor_;
};

}  // namespace

Expected<ReducedInstance> reduceSubgraph(const Graph& g, const Subgraph& sub, int64_t maxBoxElements, int64_t targetElements) {
  auto tensors = touchedTensors(g, sub);
  AxisFamilies fam(g, tensors);
  for (OpId id : sub.ops) fam.addOp(g.op(id));
  // Gather families: keys by root; a pinned member pins the family.
  std::map<int, Family> families;
  std::map<int, bool> familyPinned;
  std::vector<std::pair<TensorId, int>> keyOf(fam.size());
  for (TensorId t : tensors)
    for (int a = 0; a < static_cast<int>(g.tensor(t).dims.size()); ++a) {
      int k = fam.key(t, a), r = fam.find(k);
      keyOf[k] = {t, a};
      Family& f = families[r];
      int64_t e = g.tensor(t).dims[a];
      f.keys.push_back(k);
      f.gcd = std::gcd(f.gcd, e);
      f.smallest = std::min(f.smallest, e);
      familyPinned[r] = familyPinned[r] || fam.pinned(k);
    }
  std::vector<int> order;
  for (auto& [r, f] : families)
    if (!familyPinned[r] && f.gcd > 1) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return families[a].smallest > families[b].smallest; });
  if (order.empty()) return makeError("no axis of the subgraph can shrink (every one is reduced, concatenated, sliced or regrouped)");
  // Each family keeps 16 of its smallest extent, then 4, 2, 1, until the target: the largest
  // divisor that still keeps every box as it is at full size.
  FactorChoice choice(g, tensors, fam, 2 * maxBoxElements);
  for (int64_t keep : {16, 4, 2, 1}) {
    for (int r : order) {
      Family& f = families[r];
      int64_t& factor = choice.factor(r);
      for (int64_t d = f.gcd; d > factor; --d) {
        int64_t least = fam.isBand(r) ? std::max<int64_t>(keep, 8) : keep;  // bands: first, inner and last kinds
        if (f.gcd % d != 0 || f.smallest / d < std::min(least, f.smallest)) continue;
        int64_t before = factor;
        factor = d;
        if (choice.keepsBoxes()) break;
        factor = before;
      }
      f.factor = factor;
    }
    if (choice.elements() <= targetElements) break;
  }

  ReducedInstance out;
  out.graph.name = g.name;
  std::map<int32_t, TensorId> remap;
  for (TensorId t : tensors) {
    const Tensor& src = g.tensor(t);
    Dims dims = src.dims;
    for (size_t a = 0; a < dims.size(); ++a) dims[a] /= families[fam.find(fam.key(t, static_cast<int>(a)))].factor;
    TensorId nt = out.graph.addTensor(src.name, src.dtype, dims);
    if (src.constant) out.graph.tensor(nt).constant = truncateData(*src.constant, src.dims, dims);
    remap[index(t)] = nt;
  }
  out.tensorOf = remap;
  for (OpId id : sub.ops) {
    Op op = g.op(id);
    op.id = OpId(static_cast<int32_t>(out.graph.ops.size()));
    for (TensorId& t : op.inputs) t = remap.at(index(t));
    for (TensorId& t : op.outputs) t = remap.at(index(t));
    out.opOf[index(id)] = op.id;
    out.sub.ops.push_back(op.id);
    out.graph.ops.push_back(std::move(op));
  }
  for (TensorId t : sub.inputs) {
    out.sub.inputs.push_back(remap.at(index(t)));
    if (!g.tensor(t).isConstant()) out.graph.inputs.push_back(remap.at(index(t)));
  }
  for (TensorId t : sub.outputs) out.sub.outputs.push_back(remap.at(index(t)));
  out.graph.outputs = out.sub.outputs;
  for (TensorId t : out.sub.inputs) out.sub.minBytes += tensorBytes(out.graph.tensor(t));
  for (TensorId t : out.sub.outputs) out.sub.minBytes += tensorBytes(out.graph.tensor(t));
  for (int r : order) {
    const Family& f = families[r];
    if (f.factor == 1) continue;
    // Name the family by its member in the largest tensor.
    auto best = keyOf[f.keys.front()];
    for (int k : f.keys)
      if (numElements(g.tensor(keyOf[k].first).dims) > numElements(g.tensor(best.first).dims)) best = keyOf[k];
    out.axes.push_back(ReducedAxis{g.tensor(best.first).name, best.second, g.tensor(best.first).dims[best.second], f.factor});
  }
  if (out.axes.empty()) return makeError("no axis of the subgraph can shrink");
  return out;
}

}  // namespace gir::compute
