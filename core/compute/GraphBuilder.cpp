// GraphBuilder: shape inference, explicit broadcasts and constant folding at emission time.
#include "core/compute/GraphBuilder.h"

#include <algorithm>

#include "core/compute/ReferenceEvaluator.h"

namespace gir::compute {

Expected<Dims> broadcastDims(const Dims& a, const Dims& b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return makeError("shapes " + dimsToString(a) + " and " + dimsToString(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void GraphBuilder::setContext(std::string opName, std::string source, std::string sourceAttributes) {
  context_ = std::move(opName);
  source_ = std::move(source);
  sourceAttributes_ = std::move(sourceAttributes);
  opCounter_ = 0;
  tensorCounter_ = 0;
}

std::string GraphBuilder::nextOpName() {
  int n = opCounter_++;
  return n == 0 ? context_ : context_ + "#" + std::to_string(n);
}

std::string GraphBuilder::nextTensorName() { return context_ + ":" + std::to_string(tensorCounter_++); }

TensorId GraphBuilder::constant(TensorData data, std::string name) {
  for (double& v : data.values) v = roundToDType(data.dtype, v);
  TensorId id = g_.addTensor(name.empty() ? nextTensorName() : std::move(name), data.dtype, data.dims);
  g_.tensor(id).constant = std::move(data.values);
  return id;
}

TensorId GraphBuilder::scalar(double v, DType dtype) { return constant(TensorData{dtype, {}, {v}}); }

// Only f32 flows at run time: a constant of another type feeding a run-time op becomes an f32
// constant (e.g. a bool mask of Where); a run-time tensor of another type is refused.
Status GraphBuilder::prepareRuntimeInputs(std::vector<TensorId>& inputs) {
  for (TensorId& t : inputs) {
    const Tensor& x = g_.tensor(t);
    if (x.dtype == DType::F32) continue;
    if (!x.isConstant())
      return makeError("tensor '" + x.name + "' of type " + std::string(dtypeName(x.dtype)) +
                       " would be computed at run time; only f32 tensors may flow at run time");
    TensorData asF32{DType::F32, x.dims, *x.constant};
    t = constant(std::move(asF32));
  }
  return success();
}

Expected<std::vector<TensorId>> GraphBuilder::emit(OpAttrs attrs, std::vector<TensorId> inputs,
                                                   const std::vector<std::pair<DType, Dims>>& outs, bool fold) {
  int64_t largest = 0;
  for (const auto& o : outs) {
    largest = std::max(largest, numElements(o.second));
    for (int64_t d : o.second)
      if (d < 0) return makeError("the result would have a negative extent " + dimsToString(o.second));
  }
  if (largest > kMaxTensorElements) return makeError("the result would have more than 2^31 elements");
  bool foldable = fold && largest <= kMaxFoldedElements &&
                  std::all_of(inputs.begin(), inputs.end(), [&](TensorId t) { return isConstant(t); });
  if (!foldable)
    if (auto st = prepareRuntimeInputs(inputs); !st) return st.takeError();
  Op op;
  op.id = OpId{static_cast<int32_t>(g_.ops.size())};
  op.name = nextOpName();
  op.source = source_;
  op.sourceAttributes = sourceAttributes_;
  op.inputs = inputs;
  op.attrs = std::move(attrs);
  for (const auto& [dtype, dims] : outs) op.outputs.push_back(g_.addTensor(nextTensorName(), foldable ? dtype : DType::F32, dims));
  if (!foldable) {
    g_.ops.push_back(op);
    return op.outputs;
  }
  std::vector<TensorData> inData;
  for (TensorId t : inputs) inData.push_back(TensorData{tensor(t).dtype, tensor(t).dims, *tensor(t).constant});
  std::vector<const TensorData*> ptrs;
  for (const auto& d : inData) ptrs.push_back(&d);
  auto results = evalOp(g_, op, ptrs);
  if (!results) return results.takeError();
  for (size_t i = 0; i < op.outputs.size(); ++i) g_.tensor(op.outputs[i]).constant = std::move((*results)[i].values);
  return op.outputs;
}

static Expected<TensorId> single(Expected<std::vector<TensorId>> r) {
  if (!r) return r.takeError();
  return r->front();
}

// Output shape from every tensor operand; then one-element constants become scalar operands
// (unless everything is constant, which folds) and the rest are broadcast explicitly.
Expected<TensorId> GraphBuilder::elementwise(ElementwiseOp fn, std::vector<Operand> args) {
  if (static_cast<int>(args.size()) != elementwiseArity(fn))
    return makeError(std::string(elementwiseName(fn)) + " takes " + std::to_string(elementwiseArity(fn)) + " operands");
  Dims outDims;
  bool allConstant = true;
  std::optional<DType> dtype;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].tensor) continue;
    const Tensor& t = tensor(*args[i].tensor);
    auto d = broadcastDims(outDims, t.dims);
    if (!d) return d.takeError();
    outDims = *d;
    allConstant = allConstant && t.isConstant();
    if (!dtype || (fn == ElementwiseOp::Select && i == 1)) dtype = t.dtype;
  }
  ElementwiseAttrs attrs{fn, {}};
  std::vector<TensorId> inputs;
  for (Operand& a : args) {
    if (a.tensor && !allConstant && isConstant(*a.tensor) && numElements(tensor(*a.tensor).dims) == 1) {
      a = Operand(tensor(*a.tensor).constant->front());
    }
    if (!a.tensor) {
      attrs.args.push_back(ElementwiseArg{-1, a.scalar});
      continue;
    }
    auto b = broadcastTo(*a.tensor, outDims, allConstant);
    if (!b) return b.takeError();
    attrs.args.push_back(ElementwiseArg{static_cast<int>(inputs.size()), 0});
    inputs.push_back(*b);
  }
  if (inputs.empty()) {  // only scalars: fold directly
    std::vector<double> vals;
    for (const auto& a : attrs.args) vals.push_back(a.scalar);
    return scalar(evalElementwise(fn, vals.data()), dtype.value_or(DType::F32));
  }
  return single(emit(std::move(attrs), inputs, {{dtype.value_or(DType::F32), outDims}}));
}

Expected<TensorId> GraphBuilder::broadcastTo(TensorId x, const Dims& dims, bool fold) {
  const Dims& in = tensor(x).dims;
  if (in == dims) return x;
  if (in.size() > dims.size()) return makeError("cannot broadcast " + dimsToString(in) + " to " + dimsToString(dims));
  BroadcastAttrs attrs;
  size_t lead = dims.size() - in.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = i < lead ? 1 : in[i - lead];
    if (d != dims[i] && d != 1) return makeError("cannot broadcast " + dimsToString(in) + " to " + dimsToString(dims));
    if (i < lead || d != dims[i]) attrs.axes.push_back(static_cast<int>(i));
  }
  if (attrs.axes.empty()) return reshape(x, dims, "Broadcast");  // only leading 1s were added
  return single(emit(std::move(attrs), {x}, {{tensor(x).dtype, dims}}, fold));
}

Expected<TensorId> GraphBuilder::reduce(ReduceOp fn, TensorId x, std::vector<int> axes, bool keepDims) {
  const Dims& in = tensor(x).dims;
  int rank = static_cast<int>(in.size());
  for (int& a : axes) {
    if (a < -rank || a >= rank) return makeError("reduce axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  Dims out;
  for (int i = 0; i < rank; ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) out.push_back(in[i]);
    else if (keepDims) out.push_back(1);
  }
  return single(emit(ReduceAttrs{fn, axes, keepDims}, {x}, {{tensor(x).dtype, out}}));
}

Expected<TensorId> GraphBuilder::transpose(TensorId x, std::vector<int> perm) {
  const Dims& in = tensor(x).dims;
  if (perm.size() != in.size()) return makeError("transpose perm has " + std::to_string(perm.size()) + " entries for a rank-" + std::to_string(in.size()) + " tensor");
  std::vector<bool> seen(in.size(), false);
  Dims out;
  for (int p : perm) {
    if (p < 0 || p >= static_cast<int>(in.size()) || seen[p]) return makeError("transpose perm is not a permutation");
    seen[p] = true;
    out.push_back(in[p]);
  }
  return single(emit(TransposeAttrs{std::move(perm)}, {x}, {{tensor(x).dtype, out}}));
}

Expected<TensorId> GraphBuilder::reshape(TensorId x, Dims dims, std::string from) {
  if (numElements(dims) != numElements(tensor(x).dims))
    return makeError("cannot reshape " + dimsToString(tensor(x).dims) + " to " + dimsToString(dims));
  return single(emit(ReshapeAttrs{std::move(from)}, {x}, {{tensor(x).dtype, dims}}));
}

Expected<TensorId> GraphBuilder::concat(const std::vector<TensorId>& xs, int axis) {
  if (xs.empty()) return makeError("concat needs at least one input");
  Dims out = tensor(xs[0]).dims;
  int rank = static_cast<int>(out.size());
  if (axis < -rank || axis >= rank) return makeError("concat axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  out[axis] = 0;
  for (TensorId t : xs) {
    Dims d = tensor(t).dims;
    if (static_cast<int>(d.size()) != rank) return makeError("concat inputs differ in rank");
    out[axis] += d[axis];
    d[axis] = out[axis];
    if (d != out) return makeError("concat inputs differ outside the concat axis");
  }
  return single(emit(ConcatAttrs{axis}, xs, {{tensor(xs[0]).dtype, out}}));
}

Expected<std::vector<TensorId>> GraphBuilder::split(TensorId x, int axis, std::vector<int64_t> sizes) {
  const Dims& in = tensor(x).dims;
  int rank = static_cast<int>(in.size());
  if (axis < -rank || axis >= rank) return makeError("split axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  int64_t total = 0;
  std::vector<std::pair<DType, Dims>> outs;
  for (int64_t s : sizes) {
    if (s < 0 || s > in[axis]) return makeError("split size " + std::to_string(s) + " is out of range");
    Dims d = in;
    d[axis] = s;
    outs.push_back({tensor(x).dtype, d});
    total += s;
  }
  if (total != in[axis]) return makeError("split sizes sum to " + std::to_string(total) + ", not the axis extent " + std::to_string(in[axis]));
  return emit(SplitAttrs{axis, std::move(sizes)}, {x}, outs);
}

Expected<TensorId> GraphBuilder::slice(TensorId x, std::vector<int64_t> starts, std::vector<int64_t> steps, Dims outDims) {
  const Dims& in = tensor(x).dims;
  if (starts.size() != in.size() || steps.size() != in.size() || outDims.size() != in.size())
    return makeError("slice parameters do not match the input rank");
  for (size_t a = 0; a < in.size(); ++a) {
    if (steps[a] == 0) return makeError("slice step is 0");
    int64_t last = starts[a] + (outDims[a] - 1) * steps[a];
    if (outDims[a] > 0 && (starts[a] < 0 || starts[a] >= in[a] || last < 0 || last >= in[a]))
      return makeError("slice reads outside the input on axis " + std::to_string(a));
  }
  return single(emit(SliceAttrs{std::move(starts), std::move(steps)}, {x}, {{tensor(x).dtype, outDims}}));
}

}  // namespace gir::compute
