// Reference evaluator: the basic and layout ops, and the graph driver.
#include "core/compute/ReferenceEvaluator.h"

#include <algorithm>

namespace gir::compute {

void stridedGather(const std::vector<double>& in, const Dims& outDims, int64_t base, const Dims& strides,
                   std::vector<double>& out) {
  int64_t n = numElements(outDims);
  out.assign(n, 0);
  if (n == 0) return;
  int rank = static_cast<int>(outDims.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t offset = base;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = in[offset];
    // Odometer step: bump the innermost index, carrying into outer ones.
    for (int a = rank - 1; a >= 0; --a) {
      offset += strides[a];
      if (++idx[a] < outDims[a]) break;
      offset -= strides[a] * idx[a];
      idx[a] = 0;
    }
  }
}

static void evalElementwise(const ElementwiseAttrs& attrs, const std::vector<const TensorData*>& in, TensorData& out) {
  std::vector<double> args(attrs.args.size());
  for (size_t i = 0; i < out.values.size(); ++i) {
    for (size_t k = 0; k < args.size(); ++k) {
      const ElementwiseArg& a = attrs.args[k];
      args[k] = a.input < 0 ? a.scalar : in[a.input]->values[i];
    }
    out.values[i] = ::gir::evalElementwise(attrs.fn, args.data());
  }
}

static void evalBroadcast(const TensorData& in, TensorData& out) {
  Dims inStrides = rowMajorStrides(in.dims);
  size_t lead = out.dims.size() - in.dims.size();
  Dims strides(out.dims.size(), 0);
  for (size_t i = lead; i < out.dims.size(); ++i)
    strides[i] = in.dims[i - lead] == out.dims[i] ? inStrides[i - lead] : 0;
  stridedGather(in.values, out.dims, 0, strides, out.values);
}

static void evalReduce(const ReduceAttrs& attrs, const TensorData& in, TensorData& out) {
  Dims kept = in.dims;  // output shape with reduced axes kept as 1
  for (int a : attrs.axes) kept[a] = 1;
  Dims outStrides = rowMajorStrides(kept);
  for (int a : attrs.axes) outStrides[a] = 0;
  std::vector<double> acc(numElements(kept), reduceIdentity(attrs.fn));
  // Map each input element to its output slot with the same odometer as stridedGather.
  int rank = static_cast<int>(in.dims.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t slot = 0;
  for (size_t i = 0; i < in.values.size(); ++i) {
    acc[slot] = reduceCombine(attrs.fn, acc[slot], in.values[i]);
    for (int a = rank - 1; a >= 0; --a) {
      slot += outStrides[a];
      if (++idx[a] < in.dims[a]) break;
      slot -= outStrides[a] * idx[a];
      idx[a] = 0;
    }
  }
  out.values = std::move(acc);
}

static void evalTranspose(const TransposeAttrs& attrs, const TensorData& in, TensorData& out) {
  Dims inStrides = rowMajorStrides(in.dims);
  Dims strides;
  for (int p : attrs.perm) strides.push_back(inStrides[p]);
  stridedGather(in.values, out.dims, 0, strides, out.values);
}

static void evalSlice(const SliceAttrs& attrs, const TensorData& in, TensorData& out) {
  Dims inStrides = rowMajorStrides(in.dims);
  int64_t base = 0;
  Dims strides;
  for (size_t a = 0; a < in.dims.size(); ++a) {
    base += attrs.starts[a] * inStrides[a];
    strides.push_back(attrs.steps[a] * inStrides[a]);
  }
  stridedGather(in.values, out.dims, base, strides, out.values);
}

// Concat and split move blocks of `extent * inner` values per outer index.
static int64_t innerSize(const Dims& d, int axis) {
  int64_t n = 1;
  for (size_t i = axis + 1; i < d.size(); ++i) n *= d[i];
  return n;
}

static void evalConcat(int axis, const std::vector<const TensorData*>& in, TensorData& out) {
  int64_t outer = numElements(Dims(out.dims.begin(), out.dims.begin() + axis));
  int64_t inner = innerSize(out.dims, axis);
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const TensorData* t : in) {
      int64_t block = t->dims[axis] * inner;
      std::copy_n(t->values.begin() + o * block, block, out.values.begin() + pos);
      pos += block;
    }
}

static void evalSplit(int axis, const TensorData& in, std::vector<TensorData>& outs) {
  int64_t outer = numElements(Dims(in.dims.begin(), in.dims.begin() + axis));
  int64_t inner = innerSize(in.dims, axis);
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (TensorData& t : outs) {
      int64_t block = t.dims[axis] * inner;
      std::copy_n(in.values.begin() + pos, block, t.values.begin() + o * block);
      pos += block;
    }
}

// Dispatches on the op kind; every kind is handled (no default), so a new kind fails to build.
static void evalInto(const Op& op, const std::vector<const TensorData*>& in, std::vector<TensorData>& outs) {
  TensorData& out = outs.front();
  switch (op.kind()) {
    case OpKind::Elementwise: return evalElementwise(std::get<ElementwiseAttrs>(op.attrs), in, out);
    case OpKind::Broadcast: return evalBroadcast(*in[0], out);
    case OpKind::Reduce: return evalReduce(std::get<ReduceAttrs>(op.attrs), *in[0], out);
    case OpKind::Transpose: return evalTranspose(std::get<TransposeAttrs>(op.attrs), *in[0], out);
    case OpKind::Reshape: out.values = in[0]->values; return;
    case OpKind::Concat: return evalConcat(std::get<ConcatAttrs>(op.attrs).axis, in, out);
    case OpKind::Split: return evalSplit(std::get<SplitAttrs>(op.attrs).axis, *in[0], outs);
    case OpKind::Slice: return evalSlice(std::get<SliceAttrs>(op.attrs), *in[0], out);
    case OpKind::MatMul: return evalMatMul(*in[0], *in[1], out);
    case OpKind::Gemm: return evalGemm(std::get<GemmAttrs>(op.attrs), *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out);
    case OpKind::Conv: return evalConv(std::get<ConvAttrs>(op.attrs), *in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out);
    case OpKind::BatchNorm: return evalBatchNorm(std::get<BatchNormAttrs>(op.attrs), in, out);
    case OpKind::Pool: return evalPool(std::get<PoolAttrs>(op.attrs), *in[0], out);
  }
}

Expected<std::vector<TensorData>> evalOp(const Graph& g, const Op& op, const std::vector<const TensorData*>& inputs) {
  if (inputs.size() != op.inputs.size()) return makeError("op '" + op.name + "' got the wrong number of inputs");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i]->dims != g.tensor(op.inputs[i]).dims ||
        static_cast<int64_t>(inputs[i]->values.size()) != numElements(inputs[i]->dims))
      return makeError("op '" + op.name + "': input " + std::to_string(i) + " has shape " + dimsToString(inputs[i]->dims) +
                       ", expected " + dimsToString(g.tensor(op.inputs[i]).dims));
  std::vector<TensorData> outs;
  for (TensorId t : op.outputs) {
    const Tensor& x = g.tensor(t);
    outs.push_back(TensorData{x.dtype, x.dims, std::vector<double>(numElements(x.dims), 0.0)});
  }
  evalInto(op, inputs, outs);
  for (TensorData& o : outs)
    for (double& v : o.values) v = roundToDType(o.dtype, v);
  return outs;
}

Expected<std::vector<TensorData>> evaluate(const Graph& g, const std::vector<TensorData>& inputs) {
  if (inputs.size() != g.inputs.size())
    return makeError("graph '" + g.name + "' takes " + std::to_string(g.inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::vector<std::optional<TensorData>> values(g.tensors.size());
  for (const Tensor& t : g.tensors)
    if (t.isConstant()) values[index(t.id)] = TensorData{t.dtype, t.dims, *t.constant};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = g.tensor(g.inputs[i]);
    if (inputs[i].dims != t.dims || static_cast<int64_t>(inputs[i].values.size()) != numElements(t.dims))
      return makeError("input '" + t.name + "' has shape " + dimsToString(inputs[i].dims) + ", expected " + dimsToString(t.dims));
    values[index(t.id)] = TensorData{t.dtype, t.dims, inputs[i].values};
    for (double& v : values[index(t.id)]->values) v = roundToDType(t.dtype, v);
  }
  for (const Op& op : g.ops) {
    std::vector<const TensorData*> in;
    for (TensorId t : op.inputs) {
      if (!values[index(t)]) return makeError("op '" + op.name + "' reads tensor '" + g.tensor(t).name + "' before it is computed");
      in.push_back(&*values[index(t)]);
    }
    auto outs = evalOp(g, op, in);
    if (!outs) return outs.takeError();
    for (size_t i = 0; i < op.outputs.size(); ++i) values[index(op.outputs[i])] = std::move((*outs)[i]);
  }
  std::vector<TensorData> result;
  for (TensorId t : g.outputs) {
    if (!values[index(t)]) return makeError("output '" + g.tensor(t).name + "' is never computed");
    result.push_back(*values[index(t)]);
  }
  return result;
}

}  // namespace gir::compute
