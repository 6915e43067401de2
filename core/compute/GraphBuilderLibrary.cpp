// GraphBuilder: shape inference and operand checks for the library ops (MatMul, Gemm, Conv,
// BatchNormalization, pooling).
#include <algorithm>

#include "core/compute/GraphBuilder.h"

namespace gir::compute {

static Expected<TensorId> first(Expected<std::vector<TensorId>> r) {
  if (!r) return r.takeError();
  return r->front();
}

Expected<TensorId> GraphBuilder::matmul(TensorId a, TensorId b) {
  const Dims& da = tensor(a).dims;
  const Dims& db = tensor(b).dims;
  if (da.size() < 2 || db.size() < 2) return makeError("matmul operands must have rank 2 or more");
  int64_t k = da.back();
  if (db[db.size() - 2] != k)
    return makeError("matmul inner dimensions differ: " + dimsToString(da) + " x " + dimsToString(db));
  auto batch = broadcastDims(Dims(da.begin(), da.end() - 2), Dims(db.begin(), db.end() - 2));
  if (!batch) return batch.takeError();
  Dims out = *batch;
  out.push_back(da[da.size() - 2]);
  out.push_back(db.back());
  return first(emit(MatMulAttrs{}, {a, b}, {{DType::F32, out}}));
}

Expected<TensorId> GraphBuilder::gemm(TensorId a, TensorId b, std::optional<TensorId> c, GemmAttrs attrs) {
  const Dims& da = tensor(a).dims;
  const Dims& db = tensor(b).dims;
  if (da.size() != 2 || db.size() != 2) return makeError("gemm operands must be 2-D");
  int64_t m = attrs.transA ? da[1] : da[0];
  int64_t k = attrs.transA ? da[0] : da[1];
  int64_t kb = attrs.transB ? db[1] : db[0];
  int64_t n = attrs.transB ? db[0] : db[1];
  if (k != kb) return makeError("gemm inner dimensions differ: " + std::to_string(k) + " vs " + std::to_string(kb));
  std::vector<TensorId> inputs{a, b};
  if (c) {
    auto cb = broadcastTo(*c, {m, n}, isConstant(a) && isConstant(b));
    if (!cb) return cb.takeError();
    inputs.push_back(*cb);
  }
  return first(emit(attrs, inputs, {{DType::F32, {m, n}}}));
}

// Output extent of a window op along one axis (floor, or ceil when ceilMode). In ceil mode a
// window that would start inside the end padding is dropped (the PyTorch/ONNX runtime rule).
static int64_t windowExtent(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t padBegin, int64_t padEnd,
                            bool ceilMode) {
  int64_t span = (k - 1) * dil + 1;
  int64_t num = in + padBegin + padEnd - span;
  if (num < 0) return 0;
  int64_t out = (ceilMode ? (num + stride - 1) / stride : num / stride) + 1;
  if (ceilMode && (out - 1) * stride >= in + padBegin) --out;
  return out;
}

static Status checkWindow(const std::vector<int64_t>& strides, const std::vector<int64_t>& pads,
                          const std::vector<int64_t>& dils) {
  if (strides.size() != 2 || pads.size() != 4 || dils.size() != 2) return makeError("only 2-D windows are supported");
  // The upper bounds keep the extent arithmetic far from overflow on hostile files.
  constexpr int64_t kLimit = int64_t{1} << 20;
  for (int64_t s : strides) if (s <= 0 || s > kLimit) return makeError("window strides must be in [1, 2^20]");
  for (int64_t d : dils) if (d <= 0 || d > kLimit) return makeError("window dilations must be in [1, 2^20]");
  for (int64_t p : pads) if (p < 0 || p > kLimit) return makeError("window pads must be in [0, 2^20]");
  return success();
}

Expected<TensorId> GraphBuilder::conv(TensorId x, TensorId w, std::optional<TensorId> bias, ConvAttrs attrs) {
  const Dims& dx = tensor(x).dims;
  const Dims& dw = tensor(w).dims;
  if (dx.size() != 4 || dw.size() != 4) return makeError("only 2-D convolution (rank-4 input and weights) is supported");
  if (auto st = checkWindow(attrs.strides, attrs.pads, attrs.dilations); !st) return st.takeError();
  if (attrs.group <= 0 || dx[1] % attrs.group != 0 || dw[0] % attrs.group != 0)
    return makeError("conv group " + std::to_string(attrs.group) + " does not divide the channels");
  if (dw[1] * attrs.group != dx[1])
    return makeError("conv weights have " + std::to_string(dw[1]) + " input channels per group, the input has " +
                     std::to_string(dx[1]) + " channels in " + std::to_string(attrs.group) + " groups");
  std::vector<TensorId> inputs{x, w};
  if (bias) {
    if (tensor(*bias).dims != Dims{dw[0]}) return makeError("conv bias must have shape [" + std::to_string(dw[0]) + "]");
    inputs.push_back(*bias);
  }
  Dims out{dx[0], dw[0], 0, 0};
  for (int i = 0; i < 2; ++i)
    out[2 + i] = windowExtent(dx[2 + i], dw[2 + i], attrs.strides[i], attrs.dilations[i], attrs.pads[i], attrs.pads[i + 2], false);
  if (out[2] <= 0 || out[3] <= 0) return makeError("conv output would be empty");
  return first(emit(attrs, inputs, {{DType::F32, out}}));
}

Expected<TensorId> GraphBuilder::batchNorm(const std::vector<TensorId>& in, BatchNormAttrs attrs) {
  if (in.size() != 5) return makeError("batch normalization takes x, scale, bias, mean and var");
  const Dims& dx = tensor(in[0]).dims;
  if (dx.size() < 2) return makeError("batch normalization input must have rank 2 or more");
  for (size_t i = 1; i < 5; ++i)
    if (tensor(in[i]).dims != Dims{dx[1]})
      return makeError("batch normalization parameter " + std::to_string(i) + " must have shape [" + std::to_string(dx[1]) + "]");
  return first(emit(attrs, in, {{DType::F32, dx}}));
}

Expected<TensorId> GraphBuilder::pool(TensorId x, PoolAttrs attrs, bool ceilMode) {
  const Dims& dx = tensor(x).dims;
  if (dx.size() != 4) return makeError("only 2-D pooling (rank-4 input) is supported");
  if (auto st = checkWindow(attrs.strides, attrs.pads, attrs.dilations); !st) return st.takeError();
  if (attrs.kernel.size() != 2 || attrs.kernel[0] <= 0 || attrs.kernel[1] <= 0 || attrs.kernel[0] > (1 << 20) ||
      attrs.kernel[1] > (1 << 20))
    return makeError("pool kernel must be 2-D with extents in [1, 2^20]");
  Dims out{dx[0], dx[1], 0, 0};
  for (int i = 0; i < 2; ++i)
    out[2 + i] = windowExtent(dx[2 + i], attrs.kernel[i], attrs.strides[i], attrs.dilations[i], attrs.pads[i], attrs.pads[i + 2], ceilMode);
  if (out[2] <= 0 || out[3] <= 0) return makeError("pool output would be empty");
  return first(emit(attrs, {x}, {{DType::F32, out}}));
}

}  // namespace gir::compute
