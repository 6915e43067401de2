// ONNX reductions and the normalizations built on them, decomposed into reduce + broadcast +
// elementwise (docs/import.md, "ONNX import"): Softmax = reduce-max, sub, exp, reduce-sum, div;
// LayerNormalization = mean, sub, square, mean, add eps, rsqrt, mul, scale, bias.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

using E = ElementwiseOp;

// Axes from the attribute (or, for ReduceSum opset 13+, the optional second input); empty = all.
static Expected<std::optional<std::vector<int>>> reduceAxes(NodeContext& ctx, TensorId x) {
  std::vector<int64_t> raw;
  bool axesAsInput = ctx.node.op_type() == "ReduceSum" && ctx.opset >= 13;
  if (axesAsInput && ctx.hasInput(1)) {
    auto v = ctx.constInts(1);
    if (!v) return v.takeError();
    raw = *v;
  } else if (!axesAsInput) {
    auto a = ctx.intsAttr("axes");
    if (!a) return a.takeError();
    if (*a) raw = **a;
  }
  auto noop = ctx.intAttr("noop_with_empty_axes", 0);
  if (!noop) return noop.takeError();
  if (raw.empty() && *noop) return std::optional<std::vector<int>>{};  // identity
  std::vector<int> axes;
  for (int64_t a : raw) {
    auto ax = ctx.axis(a, ctx.rank(x), "reduce axis");
    if (!ax) return ax.takeError();
    axes.push_back(*ax);
  }
  if (axes.empty()) {
    axes.resize(ctx.rank(x));
    std::iota(axes.begin(), axes.end(), 0);
  }
  return std::optional<std::vector<int>>(axes);
}

static int64_t reducedCount(const Dims& dims, const std::vector<int>& axes) {
  int64_t n = 1;
  for (int a : axes) n *= dims[a];
  return n;
}

// The max-shifted exponentials that softmax, log-softmax and log-sum-exp share:
// m = max(x), d = x - m, e = exp(d), s = sum(e), over `axes` with kept dims.
struct ShiftedExp {
  TensorId m, d, e, s;
};

static Expected<ShiftedExp> shiftedExp(GraphBuilder& b, TensorId x, const std::vector<int>& axes) {
  auto m = b.reduce(ReduceOp::Max, x, axes, true);
  if (!m) return m.takeError();
  auto d = b.binary(E::Sub, x, *m);
  if (!d) return d.takeError();
  auto e = b.unary(E::Exp, *d);
  if (!e) return e.takeError();
  auto s = b.reduce(ReduceOp::Sum, *e, axes, true);
  if (!s) return s.takeError();
  return ShiftedExp{*m, *d, *e, *s};
}

// log(sum(exp(x - max))) + max, stable for large inputs.
static Expected<TensorId> logSumExp(GraphBuilder& b, TensorId x, const std::vector<int>& axes) {
  auto se = shiftedExp(b, x, axes);
  if (!se) return se.takeError();
  auto l = b.unary(E::Log, se->s);
  if (!l) return l;
  return b.binary(E::Add, *l, se->m);
}

// Pre-reduce transform, reduce op, post-reduce transform of each ONNX reduction.
static Expected<TensorId> reduceKind(NodeContext& ctx, TensorId x, const std::vector<int>& axes) {
  GraphBuilder& b = ctx.b;
  std::string_view op = ctx.node.op_type();
  if (op == "ReduceMax") return b.reduce(ReduceOp::Max, x, axes, true);
  if (op == "ReduceMin") return b.reduce(ReduceOp::Min, x, axes, true);
  if (op == "ReduceProd") return b.reduce(ReduceOp::Prod, x, axes, true);
  if (op == "ReduceLogSumExp") return logSumExp(b, x, axes);
  TensorId in = x;
  if (op == "ReduceSumSquare" || op == "ReduceL2") {
    auto sq = b.binary(E::Mul, x, x);
    if (!sq) return sq;
    in = *sq;
  } else if (op == "ReduceL1") {
    auto a = b.unary(E::Abs, x);
    if (!a) return a;
    in = *a;
  }
  auto s = b.reduce(ReduceOp::Sum, in, axes, true);
  if (!s) return s;
  if (op == "ReduceMean") return b.binary(E::Div, *s, static_cast<double>(reducedCount(ctx.dims(x), axes)));
  if (op == "ReduceL2") return b.unary(E::Sqrt, *s);
  if (op == "ReduceLogSum") return b.unary(E::Log, *s);
  return s;
}

static Status reduceOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(keep, ctx.intAttr("keepdims", 1));
  GIR_TRY(axes, reduceAxes(ctx, x));
  if (!axes) return ctx.setOutput(0, x);
  GIR_TRY(y, reduceKind(ctx, x, *axes));
  if (keep) return ctx.setOutput(0, y);
  Dims out;
  for (int i = 0; i < ctx.rank(x); ++i)
    if (std::find(axes->begin(), axes->end(), i) == axes->end()) out.push_back(ctx.dims(x)[i]);
  GIR_TRY(r, ctx.b.reshape(y, out, "Squeeze"));
  return ctx.setOutput(0, r);
}

// Softmax / LogSoftmax over `axes` of x (keepdims intermediates, explicit broadcasts).
static Expected<TensorId> softmax(GraphBuilder& b, TensorId x, const std::vector<int>& axes, bool logForm) {
  auto se = shiftedExp(b, x, axes);
  if (!se) return se.takeError();
  if (!logForm) return b.binary(E::Div, se->e, se->s);
  auto l = b.unary(E::Log, se->s);
  if (!l) return l;
  return b.binary(E::Sub, se->d, *l);
}

// Opset 13+ normalizes along one axis; opsets 11-12 flatten to 2-D at `axis` first.
static Status softmaxOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  bool logForm = ctx.node.op_type() == "LogSoftmax";
  GIR_TRY(rawAxis, ctx.intAttr("axis", ctx.opset >= 13 ? -1 : 1));
  GIR_TRY(axis, ctx.axis(rawAxis, ctx.rank(x), "axis"));
  std::vector<int> axes;
  for (int i = axis; i < (ctx.opset >= 13 ? axis + 1 : ctx.rank(x)); ++i) axes.push_back(i);
  GIR_TRY(y, softmax(ctx.b, x, axes, logForm));
  return ctx.setOutput(0, y);
}

// (x - mean) * rsqrt(var + eps) over `axes`, returning the centered value's normalization
// and, through the out-parameters, the mean and the inverse standard deviation.
static Expected<TensorId> normalize(GraphBuilder& b, TensorId x, const std::vector<int>& axes, double eps,
                                    TensorId* meanOut, TensorId* invStdOut) {
  double n = static_cast<double>(reducedCount(b.tensor(x).dims, axes));
  auto s = b.reduce(ReduceOp::Sum, x, axes, true);
  if (!s) return s;
  auto mean = b.binary(E::Div, *s, n);
  if (!mean) return mean;
  auto d = b.binary(E::Sub, x, *mean);
  if (!d) return d;
  auto sq = b.binary(E::Mul, *d, *d);
  if (!sq) return sq;
  auto ss = b.reduce(ReduceOp::Sum, *sq, axes, true);
  if (!ss) return ss;
  auto var = b.binary(E::Div, *ss, n);
  if (!var) return var;
  auto ve = b.binary(E::Add, *var, eps);
  if (!ve) return ve;
  auto inv = b.unary(E::Rsqrt, *ve);
  if (!inv) return inv;
  if (meanOut) *meanOut = *mean;
  if (invStdOut) *invStdOut = *inv;
  return b.binary(E::Mul, *d, *inv);
}

static Status layerNormOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(scale, ctx.input(1));
  GIR_TRY(rawAxis, ctx.intAttr("axis", -1));
  GIR_TRY(eps, ctx.floatAttr("epsilon", 1e-5));
  GIR_TRY(axis, ctx.axis(rawAxis, ctx.rank(x), "axis"));
  std::vector<int> axes;
  for (int i = axis; i < ctx.rank(x); ++i) axes.push_back(i);
  TensorId mean{}, inv{};
  GIR_TRY(n, normalize(ctx.b, x, axes, eps, &mean, &inv));
  GIR_TRY(y, ctx.b.binary(E::Mul, n, scale));
  if (ctx.hasInput(2)) {
    GIR_TRY(bias, ctx.input(2));
    GIR_TRY(yb, ctx.b.binary(E::Add, y, bias));
    y = yb;
  }
  GIR_CHECK(ctx.setOutput(0, y));
  GIR_CHECK(ctx.setOutput(1, mean));
  return ctx.setOutput(2, inv);
}

// Per-(n, c) normalization over the spatial axes, then per-channel scale and bias.
static Status instanceNormOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(scale, ctx.input(1));
  GIR_TRY(bias, ctx.input(2));
  GIR_TRY(eps, ctx.floatAttr("epsilon", 1e-5));
  if (ctx.rank(x) < 3) return ctx.fail("input must have rank 3 or more");
  std::vector<int> axes;
  for (int i = 2; i < ctx.rank(x); ++i) axes.push_back(i);
  Dims perChannel(ctx.rank(x) - 1, 1);
  perChannel[0] = ctx.dims(x)[1];
  GIR_TRY(n, normalize(ctx.b, x, axes, eps, nullptr, nullptr));
  GIR_TRY(s, ctx.b.reshape(scale, perChannel, "Unsqueeze"));
  GIR_TRY(bb, ctx.b.reshape(bias, perChannel, "Unsqueeze"));
  GIR_TRY(ys, ctx.b.binary(E::Mul, n, s));
  GIR_TRY(y, ctx.b.binary(E::Add, ys, bb));
  return ctx.setOutput(0, y);
}

// (x - E[x]) / (sqrt(E[(x - E[x])^2]) + 1e-9), the ONNX function body's epsilon.
static Status mvnOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(rawAxes, ctx.intsAttr("axes"));
  std::vector<int> axes;
  for (int64_t a : rawAxes.value_or(std::vector<int64_t>{0, 2, 3})) {
    GIR_TRY(ax, ctx.axis(a, ctx.rank(x), "axes entry"));
    axes.push_back(ax);
  }
  double n = static_cast<double>(reducedCount(ctx.dims(x), axes));
  GIR_TRY(s, ctx.b.reduce(ReduceOp::Sum, x, axes, true));
  GIR_TRY(mean, ctx.b.binary(E::Div, s, n));
  GIR_TRY(d, ctx.b.binary(E::Sub, x, mean));
  GIR_TRY(sq, ctx.b.binary(E::Mul, d, d));
  GIR_TRY(ss, ctx.b.reduce(ReduceOp::Sum, sq, axes, true));
  GIR_TRY(var, ctx.b.binary(E::Div, ss, n));
  GIR_TRY(sd, ctx.b.unary(E::Sqrt, var));
  GIR_TRY(sde, ctx.b.binary(E::Add, sd, 1e-9));
  GIR_TRY(y, ctx.b.binary(E::Div, d, sde));
  return ctx.setOutput(0, y);
}

// GlobalAveragePool / GlobalMaxPool are plain reductions over the spatial axes.
static Status globalPoolOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  if (ctx.rank(x) < 3) return ctx.fail("input must have rank 3 or more");
  std::vector<int> axes;
  for (int i = 2; i < ctx.rank(x); ++i) axes.push_back(i);
  bool isMax = ctx.node.op_type() == "GlobalMaxPool";
  GIR_TRY(r, ctx.b.reduce(isMax ? ReduceOp::Max : ReduceOp::Sum, x, axes, true));
  if (isMax) return ctx.setOutput(0, r);
  GIR_TRY(y, ctx.b.binary(E::Div, r, static_cast<double>(reducedCount(ctx.dims(x), axes))));
  return ctx.setOutput(0, y);
}

void addReduceHandlers(HandlerTable& t) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"})
    t[op] = reduceOp;
  t["Softmax"] = softmaxOp;
  t["LogSoftmax"] = softmaxOp;
  t["LayerNormalization"] = layerNormOp;
  t["InstanceNormalization"] = instanceNormOp;
  t["MeanVarianceNormalization"] = mvnOp;
  t["GlobalAveragePool"] = globalPoolOp;
  t["GlobalMaxPool"] = globalPoolOp;
}

}  // namespace gir::compute::onnximpl
