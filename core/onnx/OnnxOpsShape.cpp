// ONNX ops that produce constants: Constant, Shape, Size, ConstantOfShape, Range. Shapes are
// static, so Shape -> Gather -> Concat -> Reshape chains fold to constants at import.
#include <algorithm>
#include <cmath>

#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

static Status constantOp(NodeContext& ctx) {
  if (ctx.node.attribute_size() != 1) return ctx.fail("exactly one value attribute is required");
  const onnx::AttributeProto& a = ctx.node.attribute(0);
  const std::string& n = a.name();
  TensorData d;
  if (n == "value") {
    if (a.type() != onnx::AttributeProto::TENSOR) return ctx.fail("attribute 'value' must be a TENSOR");
    auto t = tensorFromProto(a.t(), "attribute 'value'");
    if (!t) return ctx.fail(t.takeError().message);
    d = std::move(*t);
  } else if (n == "value_float") {
    GIR_TRY(v, ctx.floatAttr(n, 0));
    d = TensorData{DType::F32, {}, {v}};
  } else if (n == "value_int") {
    GIR_TRY(v, ctx.intAttr(n, 0));
    d = TensorData{DType::I64, {}, {static_cast<double>(v)}};
  } else if (n == "value_ints") {
    GIR_TRY(v, ctx.intsAttr(n));
    std::vector<int64_t> ints = v.value_or(std::vector<int64_t>{});
    d = TensorData{DType::I64, {static_cast<int64_t>(ints.size())}, std::vector<double>(ints.begin(), ints.end())};
  } else if (n == "value_floats") {
    if (a.type() != onnx::AttributeProto::FLOATS) return ctx.fail("attribute 'value_floats' must be FLOATS");
    d = TensorData{DType::F32, {a.floats_size()}, std::vector<double>(a.floats().begin(), a.floats().end())};
  } else {
    return ctx.fail("attribute '" + n + "' (sparse or string constants) is not supported");
  }
  return ctx.setOutput(0, ctx.b.constant(std::move(d)));
}

static Status shapeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  int r = ctx.rank(x);
  GIR_TRY(start, ctx.intAttr("start", 0));
  GIR_TRY(end, ctx.intAttr("end", r));
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  TensorData d{DType::I64, {std::max<int64_t>(0, end - start)}, {}};
  for (int64_t i = start; i < end; ++i) d.values.push_back(static_cast<double>(ctx.dims(x)[i]));
  return ctx.setOutput(0, ctx.b.constant(std::move(d)));
}

static Status sizeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  return ctx.setOutput(0, ctx.b.scalar(static_cast<double>(numElements(ctx.dims(x))), DType::I64));
}

static Status constantOfShapeOp(NodeContext& ctx) {
  GIR_TRY(shape, ctx.constInts(0));
  TensorData d{DType::F32, {}, {}};
  double fill = 0;
  if (const auto* a = ctx.attr("value")) {
    if (a->type() != onnx::AttributeProto::TENSOR) return ctx.fail("attribute 'value' must be a TENSOR");
    auto t = tensorFromProto(a->t(), "attribute 'value'");
    if (!t) return ctx.fail(t.takeError().message);
    if (t->values.size() != 1) return ctx.fail("attribute 'value' must hold one element");
    d.dtype = t->dtype;
    fill = t->values[0];
  }
  for (int64_t s : shape) {
    if (s < 0) return ctx.fail("shape entry " + std::to_string(s) + " is negative");
    d.dims.push_back(s);
  }
  if (numElements(d.dims) > kMaxFoldedElements)
    return ctx.fail("the constant would hold more than " + std::to_string(kMaxFoldedElements) + " elements (kMaxFoldedElements)");
  d.values.assign(numElements(d.dims), fill);
  return ctx.setOutput(0, ctx.b.constant(std::move(d)));
}

static Status rangeOp(NodeContext& ctx) {
  GIR_TRY(start, ctx.constData(0));
  GIR_TRY(limit, ctx.constData(1));
  GIR_TRY(delta, ctx.constData(2));
  if (start.values.size() != 1 || limit.values.size() != 1 || delta.values.size() != 1)
    return ctx.fail("start, limit and delta must be scalars");
  double s = start.values[0], l = limit.values[0], dl = delta.values[0];
  if (dl == 0) return ctx.fail("delta is 0");
  double count = std::max(0.0, std::ceil((l - s) / dl));  // NaN bounds give 0
  // Refused before anything is allocated: a 165-byte model asked for 5 * 10^7 values (issue #19).
  if (count > static_cast<double>(kMaxFoldedElements))
    return ctx.fail("Range would hold " + (count < 1e18 ? std::to_string(static_cast<int64_t>(count)) : std::string("more than 10^18")) +
                    " elements, over the limit of " + std::to_string(kMaxFoldedElements) + " (kMaxFoldedElements)");
  TensorData d{start.dtype, {static_cast<int64_t>(count)}, {}};
  d.values.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) d.values.push_back(s + static_cast<double>(i) * dl);
  return ctx.setOutput(0, ctx.b.constant(std::move(d)));
}

void addShapeHandlers(HandlerTable& t) {
  t["Constant"] = constantOp;
  t["Shape"] = shapeOp;
  t["Size"] = sizeOp;
  t["ConstantOfShape"] = constantOfShapeOp;
  t["Range"] = rangeOp;
}

}  // namespace gir::compute::onnximpl
