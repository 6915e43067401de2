// The interpreter: plain loops over units and elements, double arithmetic rounded to float
// per operation, so its numbers match a plain-loop reference.
#include "core/gir/Interpreter.h"

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "core/CheckedMath.h"
#include "core/gir/Printer.h"

namespace gir {

void sliceRuns(const MemorySlice& s, int64_t u, std::vector<ElementRun>& out) {
  out.clear();
  size_t inner = s.contiguousFrom();
  int64_t width = s.contiguousWidth();
  std::vector<int64_t> idx(inner, 0);
  int64_t runs = s.numel() / width, base = s.offset.eval(u);
  out.reserve(static_cast<size_t>(runs));
  for (int64_t r = 0; r < runs; ++r) {
    int64_t off = base;
    for (size_t k = 0; k < inner; ++k) off += idx[k] * s.strides[k];
    out.push_back(ElementRun{off, off + width});
    for (size_t k = inner; k-- > 0;) {
      if (++idx[k] < s.shape[k]) break;
      idx[k] = 0;
    }
  }
}

void sliceElements(const MemorySlice& s, int64_t u, std::vector<int64_t>& out) {
  out.clear();
  int64_t n = s.numel();
  if (s.shape.size() <= 1) {  // the common case, without the odometer (a scalar slice: one element)
    out.resize(static_cast<size_t>(n));
    int64_t addr = s.offset.eval(u), stride = s.shape.empty() ? 0 : s.strides[0];
    for (int64_t e = 0; e < n; ++e, addr += stride) out[e] = addr;
    return;
  }
  out.resize(static_cast<size_t>(n));
  // Rows of the innermost dimension, an odometer over the outer ones (no allocation: this runs per
  // unit and slice in the checker and in sync insertion's ownership questions).
  size_t rank = s.shape.size();
  thread_local std::vector<int64_t> idx;
  idx.assign(rank, 0);
  int64_t addr = s.offset.eval(u), inner = s.shape[rank - 1], innerStride = s.strides[rank - 1];
  int64_t* o = out.data();
  for (int64_t done = 0; done < n; done += inner) {
    int64_t a = addr;
    for (int64_t e = 0; e < inner; ++e, a += innerStride) *o++ = a;
    for (size_t d = rank - 1; d-- > 0;) {  // odometer over the outer dimensions, innermost first
      addr += s.strides[d];
      if (++idx[d] < s.shape[d]) break;
      addr -= s.strides[d] * s.shape[d];
      idx[d] = 0;
    }
  }
}

namespace {

class Interpreter {
 public:
  Interpreter(const Graph& g, AccessObserver* obs) : g_(g), obs_(obs) {}

  Expected<TensorMap> run(const TensorMap& inputs) {
    if (auto st = allocate(inputs); !st) return st.takeError();
    auto order = topologicalOrder(g_);
    if (!order) return makeError("cannot interpret a graph with a cycle");
    for (NodeId id : *order) {
      if (obs_) obs_->beginNode(id);
      UnitDomain d = g_.domainOf(g_.node(id));
      for (int64_t u = d.begin; u < d.end; ++u)
        if (auto st = step(id, u); !st) return st.takeError();
    }
    TensorMap out;
    for (uint32_t b = 0; b < g_.buffers().size(); ++b)
      if (!g_.buffers()[b].erased && g_.buffers()[b].role == BufferRole::Output) out[g_.buffers()[b].name] = mem_[b];
    return out;
  }

 private:
  Status allocate(const TensorMap& inputs) {
    mem_.resize(g_.buffers().size());
    for (uint32_t b = 0; b < g_.buffers().size(); ++b) {
      const Buffer& buf = g_.buffers()[b];
      if (buf.erased) continue;
      if (buf.role != BufferRole::Input) {
        mem_[b].assign(static_cast<size_t>(buf.numel()), std::numeric_limits<float>::quiet_NaN());
        continue;
      }
      auto it = inputs.find(buf.name);
      if (it == inputs.end()) return makeError("no data given for input buffer '%" + buf.name + "'");
      if (static_cast<int64_t>(it->second.size()) != buf.numel())
        return makeError("input '%" + buf.name + "' needs " + std::to_string(buf.numel()) + " values, got " + std::to_string(it->second.size()));
      mem_[b] = it->second;
    }
    return success();
  }

  // Gathers slice elements of unit u into `vals`, reporting the access.
  Status load(NodeId id, int64_t u, SliceId sid, std::vector<double>& vals) {
    const MemorySlice& s = g_.slice(sid);
    sliceElements(s, u, addrs_);
    const auto& m = mem_[s.buffer.value];
    vals.resize(addrs_.size());
    for (size_t i = 0; i < addrs_.size(); ++i) {
      if (addrs_[i] < 0 || addrs_[i] >= static_cast<int64_t>(m.size())) return outOfBounds(id, u, sid);
      vals[i] = m[addrs_[i]];
    }
    if (obs_) obs_->access(id, u, s.buffer, addrs_, false);
    return success();
  }

  Status store(NodeId id, int64_t u, SliceId sid, const std::vector<double>& vals) {
    const MemorySlice& s = g_.slice(sid);
    sliceElements(s, u, addrs_);
    auto& m = mem_[s.buffer.value];
    for (size_t i = 0; i < addrs_.size(); ++i) {
      if (addrs_[i] < 0 || addrs_[i] >= static_cast<int64_t>(m.size())) return outOfBounds(id, u, sid);
      m[addrs_[i]] = static_cast<float>(vals[i]);
    }
    if (obs_) obs_->access(id, u, s.buffer, addrs_, true);
    return success();
  }

  Diagnostic outOfBounds(NodeId id, int64_t u, SliceId sid) {
    return makeError("slice %s" + std::to_string(sid.value) + " is out of bounds for unit " + std::to_string(u),
                     SourceLocation{"", 0, 0, "node #" + std::to_string(id.value) + " '" + describeNode(g_, id) + "'"});
  }

  Status step(NodeId id, int64_t u) {
    const Node& n = g_.node(id);
    switch (n.kind()) {
      case NodeKind::Move: {
        if (auto st = load(id, u, n.inputs[0], a_); !st) return st;
        return store(id, u, n.outputs[0], a_);
      }
      case NodeKind::Elementwise: return elementwise(id, u, n);
      case NodeKind::Reduce: return reduce(id, u, n);
      case NodeKind::Broadcast: return broadcast(id, u, n);
      case NodeKind::Sync: return success();  // data stays in place; the checker judges ordering
    }
    GIR_UNREACHABLE("unknown node kind");
  }

  Status elementwise(NodeId id, int64_t u, const Node& n) {
    const auto& p = std::get<ElementwisePayload>(n.payload);
    operands_.resize(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (auto st = load(id, u, n.inputs[i], operands_[i]); !st) return st;
    int64_t count = g_.slice(n.outputs[0]).numel();
    a_.resize(static_cast<size_t>(count));
    double args[3];
    for (int64_t e = 0; e < count; ++e) {
      for (size_t k = 0; k < p.operands.size(); ++k) {
        const auto& o = p.operands[k];
        args[k] = o.isImmediate() ? o.value : operands_[o.input][e];
      }
      a_[e] = static_cast<float>(evalElementwise(p.op, args));
    }
    return store(id, u, n.outputs[0], a_);
  }

  Status reduce(NodeId id, int64_t u, const Node& n) {
    const auto& p = std::get<ReducePayload>(n.payload);
    const auto& shape = g_.slice(n.inputs[0]).shape;
    if (auto st = load(id, u, n.inputs[0], a_); !st) return st;
    std::vector<bool> reduced(shape.size(), false);
    for (int ax : p.axes) reduced[ax] = true;
    b_.assign(static_cast<size_t>(g_.slice(n.outputs[0]).numel()), reduceIdentity(p.op));
    std::vector<int64_t> idx(shape.size(), 0);
    for (size_t e = 0; e < a_.size(); ++e) {
      int64_t o = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        if (!reduced[d]) o = o * shape[d] + idx[d];
      b_[o] = reduceCombine(p.op, b_[o], a_[e]);
      for (size_t d = shape.size(); d-- > 0;)
        if (++idx[d] < shape[d]) break;
        else idx[d] = 0;
    }
    return store(id, u, n.outputs[0], b_);
  }

  Status broadcast(NodeId id, int64_t u, const Node& n) {
    const auto& p = std::get<BroadcastPayload>(n.payload);
    const auto& shape = g_.slice(n.outputs[0]).shape;
    if (auto st = load(id, u, n.inputs[0], a_); !st) return st;
    std::vector<bool> isNew(shape.size(), false);
    for (int ax : p.axes) isNew[ax] = true;
    b_.resize(static_cast<size_t>(g_.slice(n.outputs[0]).numel()));
    std::vector<int64_t> idx(shape.size(), 0);
    for (size_t e = 0; e < b_.size(); ++e) {
      int64_t i = 0;
      for (size_t d = 0; d < shape.size(); ++d)
        if (!isNew[d]) i = i * shape[d] + idx[d];
      b_[e] = a_[i];
      for (size_t d = shape.size(); d-- > 0;)
        if (++idx[d] < shape[d]) break;
        else idx[d] = 0;
    }
    return store(id, u, n.outputs[0], b_);
  }

  const Graph& g_;
  AccessObserver* obs_;
  std::vector<std::vector<float>> mem_;
  std::vector<int64_t> addrs_;
  std::vector<double> a_, b_;
  std::vector<std::vector<double>> operands_;
};

}  // namespace

Expected<TensorMap> interpret(const Graph& g, const TensorMap& inputs, AccessObserver* observer) {
  return Interpreter(g, observer).run(inputs);
}

TensorMap randomInputs(const Graph& g, uint64_t seed, double lo, double hi, bool allowNegative) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mag(lo, hi);
  std::bernoulli_distribution neg(0.5);
  TensorMap out;
  for (const auto& b : g.buffers()) {
    if (b.erased || b.role != BufferRole::Input) continue;
    auto& v = out[b.name];
    v.resize(static_cast<size_t>(b.numel()));
    for (auto& x : v) x = static_cast<float>(mag(rng) * (allowNegative && neg(rng) ? -1 : 1));
  }
  return out;
}

bool allClose(const TensorMap& actual, const TensorMap& expected, double rtol, double atol, std::string* where) {
  auto fail = [&](const std::string& why) {
    if (where) *where = why;
    return false;
  };
  if (actual.size() != expected.size()) return fail("different sets of outputs");
  for (const auto& [name, want] : expected) {
    auto it = actual.find(name);
    if (it == actual.end() || it->second.size() != want.size()) return fail("output '%" + name + "' is missing or has another size");
    for (size_t i = 0; i < want.size(); ++i) {
      double a = it->second[i], b = want[i];
      // An infinity is close only to itself: inf - inf is NaN, and rtol * inf would admit any value.
      bool ok = std::isnan(a) || std::isnan(b)   ? std::isnan(a) && std::isnan(b)
                : std::isinf(a) || std::isinf(b) ? a == b
                                                 : std::fabs(a - b) <= atol + rtol * std::fabs(b);
      if (!ok)
        return fail("output '%" + name + "' element " + std::to_string(i) + " is " + std::to_string(a) + ", expected " +
                    std::to_string(b));
    }
  }
  return true;
}

double maxRelativeError(const TensorMap& actual, const TensorMap& expected, double absFloor) {
  const double inf = std::numeric_limits<double>::infinity();
  if (actual.size() != expected.size()) return inf;
  double worst = 0;
  for (const auto& [name, want] : expected) {
    auto it = actual.find(name);
    if (it == actual.end() || it->second.size() != want.size()) return inf;
    for (size_t i = 0; i < want.size(); ++i) {
      double a = it->second[i], b = want[i];
      if (std::isnan(a) != std::isnan(b)) return inf;
      if (std::isnan(a) || a == b) continue;
      worst = std::max(worst, std::fabs(a - b) / std::max(std::fabs(b), absFloor));
    }
  }
  return worst;
}

Status fitsInterpreterBudget(const Graph& g) {
  int64_t bytes = 0;
  for (const auto& b : g.buffers()) {
    if (b.erased) continue;
    auto n = checkedProduct(b.shape);
    auto total = n ? checkedMul(*n, 4) : std::nullopt;
    total = total ? checkedAdd(bytes, *total) : std::nullopt;
    if (!total || *total > kInterpreterBudgetBytes)
      return makeError("interpreting this graph needs " + (total ? std::to_string(*total) : std::string("more than 2^63")) +
                       " bytes of buffers (at '%" + b.name + "'), over the interpreter's budget of " + std::to_string(kInterpreterBudgetBytes) +
                       " bytes (kInterpreterBudgetBytes); gir check --symbolic checks a graph of any size");
    bytes = *total;
  }
  int64_t touched = 0;
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || n.isSync()) continue;
    UnitDomain d = g.domainOf(n);
    std::optional<int64_t> perUnit = 0;
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) {
        auto e = checkedProduct(g.slice(s).shape);
        perUnit = perUnit && e ? checkedAdd(*perUnit, *e) : std::nullopt;
      }
    auto node = perUnit ? checkedMul(*perUnit, d.end - d.begin) : std::nullopt;
    auto total = node ? checkedAdd(touched, *node) : std::nullopt;
    if (!total || *total > kInterpreterBudgetElements)
      return makeError("interpreting this graph touches more than " + std::to_string(kInterpreterBudgetElements) + " elements (at node #" +
                       std::to_string(i) + ", over " + std::to_string(d.end - d.begin) + " units), the interpreter's budget "
                       "(kInterpreterBudgetElements); gir check --symbolic checks a graph of any size");
    touched = *total;
  }
  return success();
}

}  // namespace gir
