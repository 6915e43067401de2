// ONNX library ops: MatMul, Gemm, Conv (2-D, grouped/depthwise/strided/dilated), inference
// BatchNormalization, MaxPool and AveragePool (2-D). Preprocessing later decides per op whether
// a library runs it (compute-bound) or it is lowered to GIR (memory-bound).
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

static Expected<Window> readWindow(NodeContext& ctx, const Dims& in, const std::vector<int64_t>& kernel) {
  Window w;
  auto strides = ctx.intsAttr("strides");
  auto dilations = ctx.intsAttr("dilations");
  auto pads = ctx.intsAttr("pads");
  auto autoPad = ctx.stringAttr("auto_pad", "NOTSET");
  if (!strides) return strides.takeError();
  if (!dilations) return dilations.takeError();
  if (!pads) return pads.takeError();
  if (!autoPad) return autoPad.takeError();
  if (*strides) w.strides = **strides;
  if (*dilations) w.dilations = **dilations;
  if (*pads) w.pads = **pads;
  if (w.strides.size() != 2 || w.dilations.size() != 2 || w.pads.size() != 4 || kernel.size() != 2)
    return ctx.fail("only 2-D windows are supported");
  if (*autoPad == "NOTSET") return w;
  if (*autoPad == "VALID") {
    w.pads = {0, 0, 0, 0};
    return w;
  }
  if (*autoPad != "SAME_UPPER" && *autoPad != "SAME_LOWER") return ctx.fail("auto_pad '" + *autoPad + "' is not supported");
  for (int i = 0; i < 2; ++i) {
    if (w.strides[i] <= 0) return ctx.fail("strides must be positive");
    int64_t outExtent = (in[2 + i] + w.strides[i] - 1) / w.strides[i];
    int64_t total = std::max<int64_t>(0, (outExtent - 1) * w.strides[i] + (kernel[i] - 1) * w.dilations[i] + 1 - in[2 + i]);
    int64_t small = total / 2;
    w.pads[i] = *autoPad == "SAME_UPPER" ? small : total - small;
    w.pads[i + 2] = total - w.pads[i];
  }
  return w;
}

static Status convOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(w, ctx.input(1));
  if (ctx.rank(x) != 4 || ctx.rank(w) != 4) return ctx.fail("only 2-D convolution (rank-4 input and weights) is supported");
  GIR_TRY(group, ctx.intAttr("group", 1));
  GIR_TRY(kernelAttr, ctx.intsAttr("kernel_shape"));
  std::vector<int64_t> kernel{ctx.dims(w)[2], ctx.dims(w)[3]};
  if (kernelAttr && *kernelAttr != kernel) return ctx.fail("kernel_shape does not match the weights");
  GIR_TRY(win, readWindow(ctx, ctx.dims(x), kernel));
  ConvAttrs attrs{win.strides, win.pads, win.dilations, group};
  std::optional<TensorId> bias;
  if (ctx.hasInput(2)) {
    GIR_TRY(bb, ctx.input(2));
    bias = bb;
  }
  GIR_TRY(y, ctx.b.conv(x, w, bias, attrs));
  return ctx.setOutput(0, y);
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
  GIR_TRY(x, ctx.input(0));
  if (ctx.rank(x) != 4) return ctx.fail("only 2-D pooling (rank-4 input) is supported");
  if (ctx.hasOutput(1)) return ctx.fail("the Indices output is not supported");
  GIR_TRY(kernel, ctx.intsAttr("kernel_shape"));
  if (!kernel) return ctx.fail("attribute 'kernel_shape' is required");
  GIR_TRY(ceil, ctx.intAttr("ceil_mode", 0));
  GIR_TRY(countPad, ctx.intAttr("count_include_pad", 0));
  GIR_TRY(storage, ctx.intAttr("storage_order", 0));
  if (storage != 0) return ctx.fail("storage_order=1 is not supported");
  GIR_TRY(win, readWindow(ctx, ctx.dims(x), *kernel));
  PoolAttrs attrs;
  attrs.kind = ctx.node.op_type() == "MaxPool" ? PoolKind::Max : PoolKind::Average;
  attrs.kernel = *kernel;
  attrs.strides = win.strides;
  attrs.pads = win.pads;
  attrs.dilations = win.dilations;
  attrs.countIncludePad = countPad != 0;
  GIR_TRY(y, ctx.b.pool(x, attrs, ceil != 0));
  return ctx.setOutput(0, y);
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
