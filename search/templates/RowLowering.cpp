// Row templates: classify every tensor of the subgraph against the row space, then emit one kernel
// per op and join producers to consumers through DRAM with device syncs.
#include "search/templates/RowLowering.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace gir::search {

using compute::OpKind;
using compute::TensorId;

namespace {

enum class RowClass { Full, PerRow, PerCol, Scalar };

class RowLowerer {
 public:
  RowLowerer(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, const RowTemplateParams& p)
      : g_(g), sub_(sub), hw_(hw), p_(p) {}

  Expected<LoweredSubgraph> run() {
    if (auto st = rowSpace(); !st) return st.takeError();
    if (auto st = header(); !st) return st.takeError();
    for (compute::OpId id : sub_.ops)
      if (auto st = lowerOp(g_.op(id)); !st) return st.takeError();
    joinProducersToConsumers();
    out_.gir = std::move(gir_);
    out_.rows = rows_;
    out_.cols = cols_;
    return std::move(out_);
  }

 private:
  Diagnostic fail(const compute::Op& op, const std::string& why) {
    return makeError(why, SourceLocation{"", 0, 0, "op '" + op.name + "' (" + std::string(compute::opKindName(op.kind())) + ")"});
  }

  // The row space: the largest tensor's innermost extent is cols; rows = numel / cols.
  Status rowSpace() {
    int64_t best = 0;
    for (compute::OpId id : sub_.ops)
      for (const auto* list : {&g_.op(id).inputs, &g_.op(id).outputs})
        for (TensorId t : *list) {
        const auto& dims = g_.tensor(t).dims;
        int64_t n = compute::numElements(dims);
          if (n > best && !dims.empty()) { best = n; cols_ = dims.back(); rows_ = n / dims.back(); }
        }
    if (best == 0) return makeError("the subgraph has no tensor to lower");
    if (rows_ % p_.rowsPerUnit != 0)
      return makeError(std::to_string(rows_) + " rows do not split into units of " + std::to_string(p_.rowsPerUnit) + " rows");
    return success();
  }

  std::optional<RowClass> classify(TensorId t) const {
    const auto& d = g_.tensor(t).dims;
    int64_t n = compute::numElements(d);
    if (n == 1) return RowClass::Scalar;
    if (n == rows_ * cols_ && !d.empty() && d.back() == cols_) return RowClass::Full;
    bool perRow = n == rows_ && (d.empty() || d.back() == 1 || d.back() == rows_);
    bool perCol = n == cols_ && !d.empty() && d.back() == cols_;
    if (perRow && perCol) return g_.tensor(t).isConstant() ? RowClass::PerCol : RowClass::PerRow;  // rows == cols
    if (perRow) return RowClass::PerRow;
    if (perCol) return RowClass::PerCol;
    return std::nullopt;
  }

  Status header() {
    gir_.name = g_.name.empty() ? "subgraph" : g_.name;
    gir_.target = hw_.name;
    gir_.units = rows_ / p_.rowsPerUnit;
    gir_.unitsPerBlock = p_.unitsPerBlock;
    for (const auto& l : hw_.levels) gir_.levels.push_back(LevelDecl{l.name, l.scope, l.scope == Scope::Device ? 0 : l.capacityBytes});
    if (!hw_.levelForScope(Scope::Unit)) return makeError("target '" + hw_.name + "' has no unit-scope level for registers");
    regLevel_ = hw_.levelForScope(Scope::Unit)->name;
    dramLevel_ = hw_.dramLevel()->name;
    return success();
  }

  // Elements of `c` that one unit owns, as [rowsPerUnit, width] or [width].
  std::vector<int64_t> unitShape(RowClass c) const {
    switch (c) {
      case RowClass::Full: return {p_.rowsPerUnit, cols_};
      case RowClass::PerRow: return {p_.rowsPerUnit};
      case RowClass::PerCol: return {cols_};
      case RowClass::Scalar: return {1};
    }
    return {1};
  }
  static std::vector<int64_t> dense(const std::vector<int64_t>& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
  }

  // The unit's view of a DRAM tensor: its rows, or the whole (shared) vector or scalar.
  SliceId dramSlice(TensorId t, RowClass c) {
    BufferId b = tensorBuffer(t);
    auto shape = unitShape(c);
    AffineIndex off(0);
    if (c == RowClass::Full) off = AffineIndex::unit(p_.rowsPerUnit * cols_);
    if (c == RowClass::PerRow) off = AffineIndex::unit(p_.rowsPerUnit);
    return gir_.addSlice(MemorySlice{b, off, shape, dense(shape)});
  }

  SliceId regSlice(const std::string& hint, RowClass c) {
    auto shape = unitShape(c);
    int64_t per = 1;
    for (auto d : shape) per *= d;
    BufferId b = gir_.addBuffer(Buffer{uniqueName("r_" + hint), regLevel_, {gir_.units * per}, BufferRole::Temp});
    return gir_.addSlice(MemorySlice{b, AffineIndex::unit(per), shape, dense(shape)});
  }

  std::string uniqueName(std::string base) {
    for (char& ch : base)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
    std::string n = base;
    for (int k = 1; names_.count(n); ++k) n = base + "_" + std::to_string(k);
    names_.insert(n);
    return n;
  }

  BufferId tensorBuffer(TensorId t) {
    auto it = buffers_.find(t);
    if (it != buffers_.end()) return it->second;
    const auto& tensor = g_.tensor(t);
    bool isInput = std::find(sub_.inputs.begin(), sub_.inputs.end(), t) != sub_.inputs.end();
    bool isOutput = std::find(sub_.outputs.begin(), sub_.outputs.end(), t) != sub_.outputs.end();
    BufferRole role = isInput ? BufferRole::Input : isOutput ? BufferRole::Output : BufferRole::Temp;
    std::string name = uniqueName(tensor.name);
    BufferId b = gir_.addBuffer(Buffer{name, dramLevel_, {std::max<int64_t>(1, compute::numElements(tensor.dims))}, role});
    if (isInput) out_.inputBuffers[name] = t;
    if (isOutput) out_.outputBuffers[name] = t;
    buffers_[t] = b;
    return b;
  }

  // Loads input tensor t into registers; the load is joined to t's producer later. All loads of
  // one tensor read one slice (one view), so merge-rar can see that they read the same data.
  SliceId load(TensorId t, RowClass c) {
    auto key = std::make_pair(t, static_cast<int>(c));
    auto it = loadSlices_.find(key);
    if (it == loadSlices_.end()) {
      it = loadSlices_.emplace(key, dramSlice(t, c)).first;
      loads_[t].push_back(it->second);
    }
    SliceId to = regSlice(g_.tensor(t).name, c);
    gir_.addNode(Node{MovePayload{}, {it->second}, {to}, std::nullopt});
    return to;
  }

  void store(SliceId reg, TensorId t, RowClass c) {
    SliceId to = dramSlice(t, c);
    gir_.addNode(Node{MovePayload{}, {reg}, {to}, std::nullopt});
    stores_[t] = to;
  }

  Status lowerOp(const compute::Op& op) {
    if (op.outputs.size() != 1) return fail(op, "no row template for an op with several outputs");
    auto outClass = classify(op.outputs[0]);
    if (!outClass) return fail(op, "output " + compute::dimsToString(g_.tensor(op.outputs[0]).dims) + " is not a view of the row space");
    switch (op.kind()) {
      case OpKind::Elementwise: return elementwise(op, *outClass);
      case OpKind::Broadcast: return broadcast(op, *outClass);
      case OpKind::Reduce: return reduce(op, *outClass);
      case OpKind::Reshape: return reshape(op, *outClass);
      default: return fail(op, "no row template for this op kind");
    }
  }

  Status elementwise(const compute::Op& op, RowClass c) {
    const auto& a = std::get<compute::ElementwiseAttrs>(op.attrs);
    Node n{ElementwisePayload{a.fn, {}}, {}, {}, std::nullopt};
    auto& p = std::get<ElementwisePayload>(n.payload);
    for (const auto& arg : a.args) {
      if (arg.input < 0) { p.operands.push_back({-1, arg.scalar}); continue; }
      TensorId in = op.inputs[arg.input];
      if (classify(in) != c) return fail(op, "an operand is not shaped like the output");
      p.operands.push_back({static_cast<int>(n.inputs.size()), 0});
      n.inputs.push_back(load(in, c));
    }
    SliceId r = regSlice(g_.tensor(op.outputs[0]).name, c);
    n.outputs = {r};
    gir_.addNode(std::move(n));
    store(r, op.outputs[0], c);
    return success();
  }

  Status broadcast(const compute::Op& op, RowClass c) {
    auto inClass = classify(op.inputs[0]);
    if (c != RowClass::Full && !(c == RowClass::PerRow && inClass == RowClass::Scalar))
      return fail(op, "only broadcasts into full rows (or a scalar into one value per row) have a row template");
    if (!inClass || *inClass == RowClass::Full) return fail(op, "the input is not a per-row, per-column or scalar view");
    SliceId in = load(op.inputs[0], *inClass);
    std::vector<int> axes;
    if (c == RowClass::Full) axes = *inClass == RowClass::PerRow ? std::vector<int>{1} : *inClass == RowClass::PerCol ? std::vector<int>{0} : std::vector<int>{0, 1};
    else axes = {0};
    SliceId r = regSlice(g_.tensor(op.outputs[0]).name, c);
    gir_.addNode(Node{BroadcastPayload{axes}, {in}, {r}, std::nullopt});
    store(r, op.outputs[0], c);
    return success();
  }

  Status reduce(const compute::Op& op, RowClass c) {
    const auto& a = std::get<compute::ReduceAttrs>(op.attrs);
    const auto& inDims = g_.tensor(op.inputs[0]).dims;
    bool lastAxisOnly = a.axes.size() == 1 && a.axes[0] == static_cast<int>(inDims.size()) - 1;
    if (classify(op.inputs[0]) != RowClass::Full || c != RowClass::PerRow || !lastAxisOnly)
      return fail(op, "only reductions of full rows over the last axis have a row template");
    SliceId in = load(op.inputs[0], RowClass::Full);
    SliceId r = regSlice(g_.tensor(op.outputs[0]).name, RowClass::PerRow);
    gir_.addNode(Node{ReducePayload{a.fn, {1}}, {in}, {r}, std::nullopt});
    store(r, op.outputs[0], RowClass::PerRow);
    return success();
  }

  // A reshape within one row class is a copy kernel (the merge rules remove it).
  Status reshape(const compute::Op& op, RowClass c) {
    if (classify(op.inputs[0]) != c) return fail(op, "a reshape that changes the row class has no row template");
    SliceId in = load(op.inputs[0], c);
    store(in, op.outputs[0], c);
    return success();
  }

  // Merging per-op graphs: every load of a tensor produced in the subgraph comes after a device
  // sync from its store (one sync before all loads of it, paper section 6).
  void joinProducersToConsumers() {
    for (auto& [t, loads] : loads_) {
      auto it = stores_.find(t);
      if (it == stores_.end()) continue;
      gir_.addNode(Node{SyncPayload{Scope::Device}, {it->second}, loads, std::nullopt});
    }
  }

  const compute::Graph& g_;
  const compute::Subgraph& sub_;
  const HardwareDesc& hw_;
  RowTemplateParams p_;
  int64_t rows_ = 0, cols_ = 0;
  std::string regLevel_, dramLevel_;
  Graph gir_;
  LoweredSubgraph out_;
  std::map<TensorId, BufferId> buffers_;
  std::map<TensorId, std::vector<SliceId>> loads_;
  std::map<std::pair<TensorId, int>, SliceId> loadSlices_;
  std::map<TensorId, SliceId> stores_;
  std::set<std::string> names_;
};

}  // namespace

Expected<LoweredSubgraph> lowerRowwise(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw,
                                       const RowTemplateParams& params) {
  return RowLowerer(g, sub, hw, params).run();
}

}  // namespace gir::search
