// ONNX elementwise ops: direct ScalarOps (Abs, Exp, Add, Pow, ...), variadic Max/Min/Sum/Mean,
// Where, and the value-preserving ops (Identity, Dropout in inference, Cast).
#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

static ElementwiseOp unaryFor(std::string_view op) {
  if (op == "Abs") return ElementwiseOp::Abs;
  if (op == "Neg") return ElementwiseOp::Neg;
  if (op == "Exp") return ElementwiseOp::Exp;
  if (op == "Log") return ElementwiseOp::Log;
  if (op == "Sqrt") return ElementwiseOp::Sqrt;
  if (op == "Reciprocal") return ElementwiseOp::Recip;
  if (op == "Relu") return ElementwiseOp::Relu;
  if (op == "Sigmoid") return ElementwiseOp::Sigmoid;
  if (op == "Tanh") return ElementwiseOp::Tanh;
  if (op == "Erf") return ElementwiseOp::Erf;
  GIR_UNREACHABLE("not a unary op");
}

static ElementwiseOp binaryFor(std::string_view op) {
  if (op == "Add" || op == "Sum") return ElementwiseOp::Add;
  if (op == "Sub") return ElementwiseOp::Sub;
  if (op == "Mul") return ElementwiseOp::Mul;
  if (op == "Div") return ElementwiseOp::Div;
  if (op == "Pow") return ElementwiseOp::Pow;
  if (op == "Max") return ElementwiseOp::Max;
  if (op == "Min") return ElementwiseOp::Min;
  if (op == "Mean") return ElementwiseOp::Add;
  GIR_UNREACHABLE("not a binary op");
}

static Status unaryOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(y, ctx.b.unary(unaryFor(ctx.node.op_type()), x));
  return ctx.setOutput(0, y);
}

static Status binaryOp(NodeContext& ctx) {
  GIR_TRY(a, ctx.input(0));
  GIR_TRY(b, ctx.input(1));
  GIR_TRY(y, ctx.b.binary(binaryFor(ctx.node.op_type()), a, b));
  return ctx.setOutput(0, y);
}

// Max, Min, Sum, Mean over any number of inputs: a chain of binary ops (Mean divides at the end).
static Status variadicOp(NodeContext& ctx) {
  GIR_TRY(acc, ctx.input(0));
  ElementwiseOp fn = binaryFor(ctx.node.op_type());
  for (int i = 1; i < ctx.numInputs(); ++i) {
    GIR_TRY(x, ctx.input(i));
    GIR_TRY(next, ctx.b.binary(fn, acc, x));
    acc = next;
  }
  if (ctx.node.op_type() == "Mean" && ctx.numInputs() > 1) {
    GIR_TRY(mean, ctx.b.binary(ElementwiseOp::Div, acc, static_cast<double>(ctx.numInputs())));
    acc = mean;
  }
  return ctx.setOutput(0, acc);
}

static Status whereOp(NodeContext& ctx) {
  GIR_TRY(c, ctx.input(0));
  GIR_TRY(a, ctx.input(1));
  GIR_TRY(b, ctx.input(2));
  GIR_TRY(y, ctx.b.elementwise(ElementwiseOp::Select, {c, a, b}));
  return ctx.setOutput(0, y);
}

static Status identityOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  return ctx.setOutput(0, x);
}

// Inference Dropout is the identity; its optional mask output is all ones.
static Status dropoutOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  if (ctx.hasInput(2)) {
    GIR_TRY(training, ctx.constInts(2));
    if (!training.empty() && training[0] != 0) return ctx.fail("training_mode=true (random dropout) is not supported");
  }
  GIR_CHECK(ctx.setOutput(0, x));
  if (!ctx.hasOutput(1)) return success();
  TensorData ones{DType::Bool, ctx.dims(x), std::vector<double>(numElements(ctx.dims(x)), 1.0)};
  return ctx.setOutput(1, ctx.b.constant(std::move(ones)));
}

// Constants convert to the target type; a run-time f32 tensor may only be cast to f32.
static Status castTo(NodeContext& ctx, TensorId x, DType target) {
  const Tensor& t = ctx.b.tensor(x);
  if (t.isConstant()) {
    TensorData d{target, t.dims, *t.constant};
    return ctx.setOutput(0, ctx.b.constant(std::move(d)));
  }
  if (target != DType::F32)
    return ctx.fail("casting a run-time tensor to " + std::string(dtypeName(target)) + " is not supported");
  return ctx.setOutput(0, x);
}

static Status castOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(to, ctx.intAttr("to", 0));
  GIR_TRY(target, dtypeFromOnnx(static_cast<int32_t>(to)));
  return castTo(ctx, x, target);
}

static Status castLikeOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(like, ctx.input(1));
  return castTo(ctx, x, ctx.b.tensor(like).dtype);
}

void addElementwiseHandlers(HandlerTable& t) {
  for (const char* op : {"Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Relu", "Sigmoid", "Tanh", "Erf"})
    t[op] = unaryOp;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) t[op] = binaryOp;
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) t[op] = variadicOp;
  t["Where"] = whereOp;
  t["Identity"] = identityOp;
  t["Dropout"] = dropoutOp;
  t["Cast"] = castOp;
  t["CastLike"] = castLikeOp;
}

}  // namespace gir::compute::onnximpl
