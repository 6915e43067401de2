// ONNX library ops: MatMul, Gemm, Conv (1-D and 2-D; grouped/depthwise/strided/dilated), inference
// BatchNormalization, MaxPool and AveragePool (1-D and 2-D; 1-D runs as 2-D with height 1).
// Preprocessing later decides per op whether a library runs it (compute-bound) or it is lowered
// to GIR (memory-bound).
#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

// 1-D operands are promoted to matrices and the added axis removed again (numpy matmul rules).
static Status matMulOp(NodeContext& ctx) {
  GIR_TRY(a, ctx.input(0));
  GIR_TRY(b, ctx.input(1));
  bool aVec = ctx.rank(a) == 1, bVec = ctx.rank(b) == 1;
  if (aVec) {
    GIR_TRY(a2, ctx.b.reshape(a, {1, ctx.dims(a)[0]}, "Unsqueeze"));
    a = a2;
  }
  if (bVec) {
    GIR_TRY(b2, ctx.b.reshape(b, {ctx.dims(b)[0], 1}, "Unsqueeze"));
    b = b2;
  }
  GIR_TRY(y, ctx.b.matmul(a, b));
  if (!aVec && !bVec) return ctx.setOutput(0, y);
  Dims out = ctx.dims(y);
  if (bVec) out.erase(out.end() - 1);
  if (aVec) out.erase(out.end() - (bVec ? 1 : 2));
  GIR_TRY(r, ctx.b.reshape(y, out, "Squeeze"));
  return ctx.setOutput(0, r);
}

static Status gemmOp(NodeContext& ctx) {
  GIR_TRY(a, ctx.input(0));
  GIR_TRY(b, ctx.input(1));
  GemmAttrs attrs;
  GIR_TRY(transA, ctx.intAttr("transA", 0));
  GIR_TRY(transB, ctx.intAttr("transB", 0));
  GIR_TRY(alpha, ctx.floatAttr("alpha", 1.0));
  GIR_TRY(beta, ctx.floatAttr("beta", 1.0));
  attrs.transA = transA != 0;
  attrs.transB = transB != 0;
  attrs.alpha = alpha;
  attrs.beta = beta;
  std::optional<TensorId> c;
  if (ctx.hasInput(2)) {
    GIR_TRY(cc, ctx.input(2));
    c = cc;
  }
  GIR_TRY(y, ctx.b.gemm(a, b, c, attrs));
  return ctx.setOutput(0, y);
}

// Window parameters shared by Conv and the pools: strides, dilations, explicit or auto pads.
struct Window {
  std::vector<int64_t> strides{1, 1}, dilations{1, 1}, pads{0, 0, 0, 0};
};

// Reads strides, dilations, pads and auto_pad. A 1-D window (oneD) is read as its 2-D form with
// a unit-height first axis, so 1-D Conv and pools run through the same 2-D op.
static Expected<Window> readWindow(NodeContext& ctx, const Dims& in, const std::vector<int64_t>& kernel, bool oneD) {
  Window w;
  auto strides = ctx.intsAttr("strides");
  auto dilations = ctx.intsAttr("dilations");
  auto pads = ctx.intsAttr("pads");
  auto autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (!strides) return strides.takeError();
  if (!dilations) return dilations.takeError();
  if (!pads) return pads.takeError();
  if (!autoPad) return autoPad.takeError();
  size_t rank = oneD ? 1 : 2;
  if ((*strides && (*strides)->size() != rank) || (*dilations && (*dilations)->size() != rank) ||
      (*pads && (*pads)->size() != 2 * rank))
    return ctx.fail("strides, dilations and pads must match the " + std::to_string(rank) + "-D window");
  if (*strides) w.strides = oneD ? std::vector<int64_t>{1, (**strides)[0]} : **strides;
  if (*dilations) w.dilations = oneD ? std::vector<int64_t>{1, (**dilations)[0]} : **dilations;
  if (*pads) w.pads = oneD ? std::vector<int64_t>{0, (**pads)[0], 0, (**pads)[1]} : **pads;
  constexpr int64_t kLimit = int64_t{1} << 20;  // keeps the SAME padding arithmetic exact
  for (int i = 0; i < 2; ++i)
    if (w.strides[i] <= 0 || w.strides[i] > kLimit || w.dilations[i] <= 0 || w.dilations[i] > kLimit || kernel[i] > kLimit)
      return ctx.fail("strides, dilations and kernel extents must be in [1, 2^20]");
  if (*autoPad == "NOTSET") return w;
  if (*autoPad == "VALID") {
    w.pads = {0, 0, 0, 0};
    return w;
  }
  if (*autoPad != "SAME_UPPER" && *autoPad != "SAME_LOWER") return ctx.fail("auto_pad '" + *autoPad + "' is not supported");
  for (int i = 0; i < 2; ++i) {
    int64_t outExtent = (in[2 + i] + w.strides[i] - 1) / w.strides[i];
    int64_t total = std::max<int64_t>(0, (outExtent - 1) * w.strides[i] + (kernel[i] - 1) * w.dilations[i] + 1 - in[2 + i]);
    int64_t small = total / 2;
    w.pads[i] = *autoPad == "SAME_UPPER" ? small : total - small;
    w.pads[i + 2] = total - w.pads[i];
  }
  return w;
}

// [N, C, W] -> [N, C, 1, W] for the 1-D forms; identity for rank 4.
static Expected<TensorId> as2d(NodeContext& ctx, TensorId t) {
  if (ctx.rank(t) == 4) return t;
  Dims d = ctx.dims(t);
  return ctx.b.reshape(t, {d[0], d[1], 1, d[2]}, "Unsqueeze");
}

// Undoes as2d on a result when the op was 1-D.
static Status setWindowOutput(NodeContext& ctx, TensorId y, bool oneD) {
  if (!oneD) return ctx.setOutput(0, y);
  Dims d = ctx.dims(y);
  GIR_TRY(r, ctx.b.reshape(y, {d[0], d[1], d[3]}, "Squeeze"));
  return ctx.setOutput(0, r);
}

static Status convOp(NodeContext& ctx) {
  GIR_TRY(x0, ctx.input(0));
  GIR_TRY(w0, ctx.input(1));
  bool oneD = ctx.rank(x0) == 3 && ctx.rank(w0) == 3;
  if (!oneD && (ctx.rank(x0) != 4 || ctx.rank(w0) != 4))
    return ctx.fail("only 1-D and 2-D convolution (rank-3 or rank-4 input and weights) is supported");
  GIR_TRY(group, ctx.intAttr("group", 1));
  GIR_TRY(kernelAttr, ctx.intsAttr("kernel_shape"));
  Dims wd = ctx.dims(w0);
  std::vector<int64_t> declared(wd.begin() + 2, wd.end());
  if (kernelAttr && *kernelAttr != declared) return ctx.fail("kernel_shape does not match the weights");
  GIR_TRY(x, as2d(ctx, x0));
  GIR_TRY(w, as2d(ctx, w0));
  std::vector<int64_t> kernel{ctx.dims(w)[2], ctx.dims(w)[3]};
  GIR_TRY(win, readWindow(ctx, ctx.dims(x), kernel, oneD));
  ConvAttrs attrs{win.strides, win.pads, win.dilations, group};
  std::optional<TensorId> bias;
  if (ctx.hasInput(2)) {
    GIR_TRY(bb, ctx.input(2));
    bias = bb;
  }
  GIR_TRY(y, ctx.b.conv(x, w, bias, attrs));
  return setWindowOutput(ctx, y, oneD);
}

static Status batchNormOp(NodeContext& ctx) {
  GIR_TRY(training, ctx.intAttr("training_mode", 0));
  if (training != 0 || ctx.hasOutput(1) || ctx.hasOutput(2))
    return ctx.fail("training mode (running statistics outputs) is not supported");
  std::vector<TensorId> in;
  for (int i = 0; i < 5; ++i) {
    GIR_TRY(t, ctx.input(i));
    in.push_back(t);
  }
  GIR_TRY(eps, ctx.floatAttr("epsilon", 1e-5));
  GIR_TRY(y, ctx.b.batchNorm(in, BatchNormAttrs{eps}));
  return ctx.setOutput(0, y);
}

static Status poolOp(NodeContext& ctx) {
  GIR_TRY(x0, ctx.input(0));
  bool oneD = ctx.rank(x0) == 3;
  if (!oneD && ctx.rank(x0) != 4) return ctx.fail("only 1-D and 2-D pooling (rank-3 or rank-4 input) is supported");
  if (ctx.hasOutput(1)) return ctx.fail("the Indices output is not supported");
  GIR_TRY(kernelAttr, ctx.intsAttr("kernel_shape"));
  if (!kernelAttr || kernelAttr->size() != (oneD ? 1u : 2u)) return ctx.fail("attribute 'kernel_shape' must give the window");
  std::vector<int64_t> kernel = oneD ? std::vector<int64_t>{1, (*kernelAttr)[0]} : *kernelAttr;
  GIR_TRY(ceil, ctx.intAttr("ceil_mode", 0));
  GIR_TRY(countPad, ctx.intAttr("count_include_pad", 0));
  GIR_TRY(storage, ctx.intAttr("storage_order", 0));
  if (storage != 0) return ctx.fail("storage_order=1 is not supported");
  GIR_TRY(x, as2d(ctx, x0));
  GIR_TRY(win, readWindow(ctx, ctx.dims(x), kernel, oneD));
  PoolAttrs attrs;
  attrs.kind = ctx.node.op_type() == "MaxPool" ? PoolKind::Max : PoolKind::Average;
  attrs.kernel = kernel;
  attrs.strides = win.strides;
  attrs.pads = win.pads;
  attrs.dilations = win.dilations;
  attrs.countIncludePad = countPad != 0;
  GIR_TRY(y, ctx.b.pool(x, attrs, ceil != 0));
  return setWindowOutput(ctx, y, oneD);
}

void addLibraryHandlers(HandlerTable& t) {
  t["MatMul"] = matMulOp;
  t["Gemm"] = gemmOp;
  t["Conv"] = convOp;
  t["BatchNormalization"] = batchNormOp;
  t["MaxPool"] = poolOp;
  t["AveragePool"] = poolOp;
}

}  // namespace gir::compute::onnximpl
