// ONNX comparisons and boolean logic (Equal, Less, Greater, LessOrEqual, GreaterOrEqual, Not, And,
// Or, Xor) on constants only. Exporters use them to build masks and shape conditions from static
// facts, which import folds here; ScalarOps has no comparison, so a run-time comparison is refused.
#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

static bool compare(std::string_view op, double a, double b) {
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  bool x = a != 0, y = b != 0;
  if (op == "And") return x && y;
  if (op == "Or") return x || y;
  if (op == "Xor") return x != y;
  GIR_UNREACHABLE("not a comparison or logic op");
}

// Both operands broadcast to their common shape (folded, since they are constants).
static Expected<std::pair<TensorData, TensorData>> constantPair(NodeContext& ctx) {
  for (int i = 0; i < 2; ++i) {
    auto t = ctx.input(i);
    if (!t) return t.takeError();
    if (!ctx.b.isConstant(*t))
      return ctx.fail("comparisons and logic on run-time tensors are not supported (only on constants)");
  }
  auto a = ctx.input(0), b = ctx.input(1);
  auto dims = broadcastDims(ctx.dims(*a), ctx.dims(*b));
  if (!dims) return ctx.fail(dims.takeError());
  auto ba = ctx.b.broadcastTo(*a, *dims), bb = ctx.b.broadcastTo(*b, *dims);
  if (!ba) return ctx.fail(ba.takeError());
  if (!bb) return ctx.fail(bb.takeError());
  const Tensor& ta = ctx.b.tensor(*ba);
  TensorData da{ta.dtype, ta.dims, *ta.constant};
  const Tensor& tb = ctx.b.tensor(*bb);
  TensorData db{tb.dtype, tb.dims, *tb.constant};
  return std::make_pair(std::move(da), std::move(db));
}

static Status binaryLogicOp(NodeContext& ctx) {
  GIR_TRY(pair, constantPair(ctx));
  TensorData out{DType::Bool, pair.first.dims, {}};
  for (size_t i = 0; i < pair.first.values.size(); ++i)
    out.values.push_back(compare(ctx.node.op_type(), pair.first.values[i], pair.second.values[i]) ? 1.0 : 0.0);
  return ctx.setOutput(0, ctx.b.constant(std::move(out)));
}

static Status notOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.constData(0));
  for (double& v : x.values) v = v != 0 ? 0.0 : 1.0;
  x.dtype = DType::Bool;
  return ctx.setOutput(0, ctx.b.constant(std::move(x)));
}

void addLogicHandlers(HandlerTable& t) {
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"})
    t[op] = binaryLogicOp;
  t["Not"] = notOp;
}

}  // namespace gir::compute::onnximpl
