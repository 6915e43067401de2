// Computation graph basics: dtype facts, shape helpers, compaction and the text printer.
#include "core/compute/ComputeGraph.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gir::compute {

std::string_view dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F64: return "f64";
    case DType::I64: return "i64";
    case DType::Bool: return "bool";
  }
  return "?";
}

int64_t dtypeBytes(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F16: return 2;
    case DType::BF16: return 2;
    case DType::F64: return 8;
    case DType::I64: return 8;
    case DType::Bool: return 1;
  }
  return 4;
}

// Round to nearest even with `mantissaBits` explicit bits, smallest normal exponent minExp and
// largest finite value maxFinite (IEEE half: 10, -14, 65504; bfloat16: 7, -126, ~3.39e38).
static double roundToFormat(double v, int mantissaBits, int minExp, double maxFinite) {
  if (!std::isfinite(v) || v == 0) return v;
  int e;
  std::frexp(std::fabs(v), &e);  // |v| = m * 2^e, m in [0.5, 1)
  int exponent = std::max(e - 1, minExp);
  double quantum = std::ldexp(1.0, exponent - mantissaBits);
  double r = std::nearbyint(v / quantum) * quantum;
  double limit = maxFinite + std::ldexp(1.0, static_cast<int>(std::ilogb(maxFinite)) - mantissaBits - 1);
  if (std::fabs(r) > maxFinite) return std::fabs(v) >= limit ? std::copysign(INFINITY, v) : std::copysign(maxFinite, v);
  return r;
}

double roundToDType(DType t, double v) {
  switch (t) {
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::F16: return roundToFormat(v, 10, -14, 65504.0);
    case DType::BF16: return roundToFormat(v, 7, -126, 3.3895313892515355e38);
    case DType::F64: return v;
    case DType::I64: return std::isfinite(v) ? std::trunc(v) : 0;
    case DType::Bool: return v != 0 ? 1 : 0;
  }
  return v;
}

// Saturates instead of overflowing: shapes come from untrusted files, and the callers compare
// the result against size limits.
int64_t numElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  return n;
}

Dims rowMajorStrides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

std::string dimsToString(const Dims& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
  return out + "]";
}

std::string_view opKindName(OpKind k) {
  switch (k) {
    case OpKind::Elementwise: return "elementwise";
    case OpKind::Broadcast: return "broadcast";
    case OpKind::Reduce: return "reduce";
    case OpKind::Transpose: return "transpose";
    case OpKind::Reshape: return "reshape";
    case OpKind::Concat: return "concat";
    case OpKind::Split: return "split";
    case OpKind::Slice: return "slice";
    case OpKind::MatMul: return "matmul";
    case OpKind::Gemm: return "gemm";
    case OpKind::Conv: return "conv";
    case OpKind::BatchNorm: return "batchnorm";
    case OpKind::Pool: return "pool";
  }
  return "?";
}

bool isLibraryKind(OpKind k) {
  return k == OpKind::MatMul || k == OpKind::Gemm || k == OpKind::Conv || k == OpKind::BatchNorm ||
         k == OpKind::Pool;
}

TensorId Graph::addTensor(std::string tensorName, DType dtype, Dims dims) {
  TensorId id{static_cast<int32_t>(tensors.size())};
  tensors.push_back(Tensor{id, std::move(tensorName), dtype, std::move(dims), std::nullopt});
  return id;
}

std::vector<std::optional<OpId>> Graph::producers() const {
  std::vector<std::optional<OpId>> p(tensors.size());
  for (const Op& op : ops)
    for (TensorId t : op.outputs) p[index(t)] = op.id;
  return p;
}

std::vector<std::vector<OpId>> Graph::consumers() const {
  std::vector<std::vector<OpId>> c(tensors.size());
  for (const Op& op : ops)
    for (TensorId t : op.inputs)
      if (c[index(t)].empty() || c[index(t)].back() != op.id) c[index(t)].push_back(op.id);
  return c;
}

// Walks ops backwards from the outputs; an op is live when one of its outputs is needed.
static std::vector<bool> liveOps(const Graph& g, std::vector<bool>& neededTensors) {
  neededTensors.assign(g.tensors.size(), false);
  for (TensorId t : g.outputs) neededTensors[index(t)] = true;
  std::vector<bool> live(g.ops.size(), false);
  for (int i = static_cast<int>(g.ops.size()) - 1; i >= 0; --i) {
    const Op& op = g.ops[i];
    for (TensorId t : op.outputs) live[i] = live[i] || neededTensors[index(t)];
    if (!live[i]) continue;
    for (TensorId t : op.inputs) neededTensors[index(t)] = true;
    for (TensorId t : op.outputs) neededTensors[index(t)] = true;  // a split keeps all its outputs
  }
  for (TensorId t : g.inputs) neededTensors[index(t)] = true;  // inputs stay, even when unused
  return live;
}

Graph compactGraph(const Graph& g) {
  std::vector<bool> needed;
  std::vector<bool> live = liveOps(g, needed);
  Graph out;
  out.name = g.name;
  std::vector<int32_t> remap(g.tensors.size(), -1);
  auto mapTensor = [&](TensorId t) {
    if (remap[index(t)] < 0) {
      const Tensor& src = g.tensor(t);
      TensorId id = out.addTensor(src.name, src.dtype, src.dims);
      out.tensor(id).constant = src.constant;
      remap[index(t)] = index(id);
    }
    return TensorId{remap[index(t)]};
  };
  for (TensorId t : g.inputs) out.inputs.push_back(mapTensor(t));
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!live[i]) continue;
    Op op = g.ops[i];
    op.id = OpId{static_cast<int32_t>(out.ops.size())};
    for (TensorId& t : op.inputs) t = mapTensor(t);
    for (TensorId& t : op.outputs) t = mapTensor(t);
    out.ops.push_back(std::move(op));
  }
  for (TensorId t : g.outputs) out.outputs.push_back(mapTensor(t));
  return out;
}

static std::string joinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

static std::string joinInts(const std::vector<int>& v) {
  return joinInts(std::vector<int64_t>(v.begin(), v.end()));
}

static std::string formatScalar(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::string attrsText(const Op& op) {
  struct Visitor {
    std::string operator()(const ElementwiseAttrs& a) {
      std::string s = std::string(elementwiseName(a.fn));
      for (const auto& arg : a.args) s += arg.input < 0 ? " " + formatScalar(arg.scalar) : " $" + std::to_string(arg.input);
      return s;
    }
    std::string operator()(const BroadcastAttrs& a) { return "axes[" + joinInts(a.axes) + "]"; }
    std::string operator()(const ReduceAttrs& a) {
      return std::string(reduceName(a.fn)) + " axes[" + joinInts(a.axes) + "]" + (a.keepDims ? " keep" : "");
    }
    std::string operator()(const TransposeAttrs& a) { return "perm[" + joinInts(a.perm) + "]"; }
    std::string operator()(const ReshapeAttrs& a) { return "from " + a.from; }
    std::string operator()(const ConcatAttrs& a) { return "axis=" + std::to_string(a.axis); }
    std::string operator()(const SplitAttrs& a) { return "axis=" + std::to_string(a.axis) + " sizes[" + joinInts(a.sizes) + "]"; }
    std::string operator()(const SliceAttrs& a) { return "starts[" + joinInts(a.starts) + "] steps[" + joinInts(a.steps) + "]"; }
    std::string operator()(const MatMulAttrs&) { return ""; }
    std::string operator()(const GemmAttrs& a) {
      return std::string(a.transA ? "transA " : "") + (a.transB ? "transB " : "") + "alpha=" + formatScalar(a.alpha) +
             " beta=" + formatScalar(a.beta);
    }
    std::string operator()(const ConvAttrs& a) {
      return "strides[" + joinInts(a.strides) + "] pads[" + joinInts(a.pads) + "] dilations[" + joinInts(a.dilations) +
             "] group=" + std::to_string(a.group);
    }
    std::string operator()(const BatchNormAttrs& a) { return "eps=" + formatScalar(a.epsilon); }
    std::string operator()(const PoolAttrs& a) {
      return std::string(a.kind == PoolKind::Max ? "max" : "avg") + " kernel[" + joinInts(a.kernel) + "] strides[" +
             joinInts(a.strides) + "] pads[" + joinInts(a.pads) + "]" + (a.countIncludePad ? " count-pad" : "");
    }
  };
  return std::visit(Visitor{}, op.attrs);
}

static std::string tensorRef(const Graph& g, TensorId t) {
  const Tensor& x = g.tensor(t);
  return "%" + std::to_string(index(t)) + (x.isConstant() ? "c" : "");
}

std::string describeOp(const Graph& g, const Op& op) {
  std::string s;
  for (size_t i = 0; i < op.outputs.size(); ++i) s += (i ? ", " : "") + tensorRef(g, op.outputs[i]);
  s += " = " + std::string(opKindName(op.kind()));
  std::string attrs = attrsText(op);
  if (!attrs.empty()) s += " " + attrs;
  s += " (";
  for (size_t i = 0; i < op.inputs.size(); ++i) s += (i ? ", " : "") + tensorRef(g, op.inputs[i]);
  const Tensor& out = g.tensor(op.outputs.front());
  return s + ") -> " + std::string(dtypeName(out.dtype)) + dimsToString(out.dims) + "  # " + op.source + " '" +
         op.name + "'";
}

std::string printGraph(const Graph& g) {
  std::ostringstream os;
  os << "graph '" << g.name << "': " << g.inputs.size() << " inputs, " << g.outputs.size() << " outputs, "
     << g.ops.size() << " ops\n";
  for (TensorId t : g.inputs)
    os << "  input %" << index(t) << " '" << g.tensor(t).name << "' " << dtypeName(g.tensor(t).dtype)
       << dimsToString(g.tensor(t).dims) << "\n";
  for (const Tensor& t : g.tensors)
    if (t.isConstant())
      os << "  const %" << index(t.id) << "c '" << t.name << "' " << dtypeName(t.dtype) << dimsToString(t.dims) << "\n";
  for (const Op& op : g.ops) os << "  " << describeOp(g, op) << "\n";
  for (TensorId t : g.outputs) os << "  output %" << index(t) << " '" << g.tensor(t).name << "'\n";
  return os.str();
}

}  // namespace gir::compute
