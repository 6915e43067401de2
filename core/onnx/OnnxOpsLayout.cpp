// ONNX layout ops: Reshape, Flatten, Squeeze, Unsqueeze (all one row-major reshape), Transpose,
// Concat, Split, Slice, and Expand (a broadcast). Shapes, axes and split sizes must be constants.
#include <algorithm>

#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

static Status reshapeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(shape, ctx.constInts(1));
  GIR_TRY(allowZero, ctx.intAttr("allowzero", 0));
  const Dims& in = ctx.dims(x);
  Dims out;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size()) return ctx.fail("shape entry 0 at position " + std::to_string(i) + " has no input dimension to copy");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return ctx.fail("shape has more than one -1");
      infer = static_cast<int>(i);
      d = 1;
    } else if (d < 0) {
      return ctx.fail("shape entry " + std::to_string(d) + " is invalid");
    }
    out.push_back(d);
  }
  if (infer >= 0) {
    int64_t known = numElements(out);
    if (known == 0 || numElements(in) % known != 0) return ctx.fail("cannot infer the -1 entry of shape " + dimsToString(out));
    out[infer] = numElements(in) / known;
  }
  GIR_TRY(y, ctx.b.reshape(x, out, "Reshape"));
  return ctx.setOutput(0, y);
}

static Status flattenOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(rawAxis, ctx.intAttr("axis", 1));
  int r = ctx.rank(x);
  if (rawAxis < -r || rawAxis > r) return ctx.fail("axis " + std::to_string(rawAxis) + " is out of range for a rank-" + std::to_string(r) + " input");
  int axis = static_cast<int>(rawAxis < 0 ? rawAxis + r : rawAxis);
  const Dims& in = ctx.dims(x);
  Dims out{numElements(Dims(in.begin(), in.begin() + axis)), numElements(Dims(in.begin() + axis, in.end()))};
  GIR_TRY(y, ctx.b.reshape(x, out, "Flatten"));
  return ctx.setOutput(0, y);
}

// Axes from the attribute (opset < 13) or the optional second input (opset 13+).
static Expected<std::optional<std::vector<int64_t>>> axesArgument(NodeContext& ctx) {
  if (ctx.opset < 13) return ctx.intsAttr("axes");
  if (!ctx.hasInput(1)) return std::optional<std::vector<int64_t>>{};
  auto v = ctx.constInts(1);
  if (!v) return v.takeError();
  return std::optional<std::vector<int64_t>>(*v);
}

static Status squeezeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(axesArg, axesArgument(ctx));
  const Dims& in = ctx.dims(x);
  std::vector<bool> drop(in.size(), false);
  if (!axesArg) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  for (int64_t a : axesArg.value_or(std::vector<int64_t>{})) {
    GIR_TRY(ax, ctx.axis(a, ctx.rank(x), "axes entry"));
    if (in[ax] != 1) return ctx.fail("cannot squeeze axis " + std::to_string(ax) + " of extent " + std::to_string(in[ax]));
    drop[ax] = true;
  }
  Dims out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  GIR_TRY(y, ctx.b.reshape(x, out, "Squeeze"));
  return ctx.setOutput(0, y);
}

static Status unsqueezeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(axesArg, axesArgument(ctx));
  if (!axesArg) return ctx.fail("axes are required");
  int outRank = ctx.rank(x) + static_cast<int>(axesArg->size());
  std::vector<bool> inserted(outRank, false);
  for (int64_t a : *axesArg) {
    GIR_TRY(ax, ctx.axis(a, outRank, "axes entry"));
    if (inserted[ax]) return ctx.fail("axis " + std::to_string(ax) + " appears twice");
    inserted[ax] = true;
  }
  Dims out;
  size_t next = 0;
  for (int i = 0; i < outRank; ++i) out.push_back(inserted[i] ? 1 : ctx.dims(x)[next++]);
  GIR_TRY(y, ctx.b.reshape(x, out, "Unsqueeze"));
  return ctx.setOutput(0, y);
}

static Status transposeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(permAttr, ctx.intsAttr("perm"));
  std::vector<int> perm;
  if (permAttr) {
    for (int64_t p : *permAttr) perm.push_back(static_cast<int>(p));
  } else {
    for (int i = ctx.rank(x) - 1; i >= 0; --i) perm.push_back(i);  // default: reverse the axes
  }
  GIR_TRY(y, ctx.b.transpose(x, perm));
  return ctx.setOutput(0, y);
}

static Status concatOp(NodeContext& ctx) {
  if (!ctx.attr("axis")) return ctx.fail("attribute 'axis' is required");
  GIR_TRY(axis, ctx.intAttr("axis", 0));
  std::vector<TensorId> xs;
  for (int i = 0; i < ctx.numInputs(); ++i) {
    GIR_TRY(x, ctx.input(i));
    xs.push_back(x);
  }
  GIR_TRY(y, ctx.b.concat(xs, static_cast<int>(axis)));
  return ctx.setOutput(0, y);
}

static Status splitOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(rawAxis, ctx.intAttr("axis", 0));
  GIR_TRY(axis, ctx.axis(rawAxis, ctx.rank(x), "axis"));
  std::vector<int64_t> sizes;
  if (ctx.opset < 13) {
    GIR_TRY(attr, ctx.intsAttr("split"));
    if (attr) sizes = *attr;
  } else if (ctx.hasInput(1)) {
    GIR_TRY(v, ctx.constInts(1));
    sizes = v;
  }
  if (sizes.empty()) {
    int64_t extent = ctx.dims(x)[axis], parts = ctx.numOutputs();
    if (parts == 0 || extent % parts != 0)
      return ctx.fail("axis extent " + std::to_string(extent) + " does not split evenly into " + std::to_string(parts) + " outputs");
    sizes.assign(parts, extent / parts);
  }
  if (static_cast<int>(sizes.size()) != ctx.numOutputs()) return ctx.fail("split sizes do not match the number of outputs");
  GIR_TRY(ys, ctx.b.split(x, axis, sizes));
  for (size_t i = 0; i < ys.size(); ++i) GIR_CHECK(ctx.setOutput(static_cast<int>(i), ys[i]));
  return success();
}

// Clamps ONNX slice bounds (numpy rules) and returns {start, count} for one axis.
static std::pair<int64_t, int64_t> sliceRange(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return {start, end > start ? 1 + (end - start - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  int64_t stride = step == INT64_MIN ? INT64_MAX : -step;
  return {start, start > end ? 1 + (start - end - 1) / stride : 0};
}

static Status sliceOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(starts, ctx.constInts(1));
  GIR_TRY(ends, ctx.constInts(2));
  std::vector<int64_t> axes, steps;
  if (ctx.hasInput(3)) {
    GIR_TRY(a, ctx.constInts(3));
    axes = a;
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (ctx.hasInput(4)) {
    GIR_TRY(s, ctx.constInts(4));
    steps = s;
  } else {
    steps.assign(starts.size(), 1);
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.fail("starts, ends, axes and steps differ in length");
  const Dims& in = ctx.dims(x);
  std::vector<int64_t> outStart(in.size(), 0), outStep(in.size(), 1);
  Dims outDims = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    GIR_TRY(ax, ctx.axis(axes[i], ctx.rank(x), "axes entry"));
    if (steps[i] == 0) return ctx.fail("slice step 0 is invalid");
    auto [s, n] = sliceRange(in[ax], starts[i], ends[i], steps[i]);
    outStart[ax] = n > 0 ? s : 0;
    outStep[ax] = steps[i];
    outDims[ax] = n;
  }
  GIR_TRY(y, ctx.b.slice(x, outStart, outStep, outDims));
  return ctx.setOutput(0, y);
}

// Expand broadcasts both ways: the output is the numpy broadcast of the input and the shape.
static Status expandOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(shape, ctx.constInts(1));
  GIR_TRY(out, broadcastDims(ctx.dims(x), Dims(shape.begin(), shape.end())));
  GIR_TRY(y, ctx.b.broadcastTo(x, out));
  return ctx.setOutput(0, y);
}

void addLayoutHandlers(HandlerTable& t) {
  t["Reshape"] = reshapeOp;
  t["Flatten"] = flattenOp;
  t["Squeeze"] = squeezeOp;
  t["Unsqueeze"] = unsqueezeOp;
  t["Transpose"] = transposeOp;
  t["Concat"] = concatOp;
  t["Split"] = splitOp;
  t["Slice"] = sliceOp;
  t["Expand"] = expandOp;
}

}  // namespace gir::compute::onnximpl
