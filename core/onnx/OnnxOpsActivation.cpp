// ONNX activations decomposed into ScalarOps elementwise ops (GIR paper section 6: compound ops are
// split into basic ones). Each formula is exact, not an approximation:
//   LeakyRelu/PRelu = max(x,0) + a*min(x,0)     Elu  = max(x,0) + a*(exp(min(x,0)) - 1)
//   Selu = g*Elu(a)     Celu = max(x,0) + min(0, a*(exp(x/a) - 1))     Softplus = log(exp(x) + 1)
//   Softsign = x / (1 + |x|)     HardSigmoid = max(0, min(1, a*x + b))     HardSwish = x * HardSigmoid(1/6, 1/2)
//   Clip = min(max(x, lo), hi)
#include "core/onnx/OnnxContext.h"

namespace gir::compute::onnximpl {

using E = ElementwiseOp;

// max(x,0) + slope*min(x,0); slope is a scalar or a tensor (PRelu).
static Expected<TensorId> leaky(GraphBuilder& b, TensorId x, Operand slope) {
  auto pos = b.binary(E::Max, x, 0.0);
  if (!pos) return pos;
  auto neg = b.binary(E::Min, x, 0.0);
  if (!neg) return neg;
  auto scaled = b.binary(E::Mul, *neg, slope);
  if (!scaled) return scaled;
  return b.binary(E::Add, *pos, *scaled);
}

// max(x,0) + alpha*(exp(min(x,0)) - 1)
static Expected<TensorId> elu(GraphBuilder& b, TensorId x, double alpha) {
  auto pos = b.binary(E::Max, x, 0.0);
  if (!pos) return pos;
  auto neg = b.binary(E::Min, x, 0.0);
  if (!neg) return neg;
  auto e = b.unary(E::Exp, *neg);
  if (!e) return e;
  auto em1 = b.binary(E::Sub, *e, 1.0);
  if (!em1) return em1;
  auto scaled = b.binary(E::Mul, *em1, alpha);
  if (!scaled) return scaled;
  return b.binary(E::Add, *pos, *scaled);
}

// max(0, min(1, alpha*x + beta))
static Expected<TensorId> hardSigmoid(GraphBuilder& b, TensorId x, double alpha, double beta) {
  auto ax = b.binary(E::Mul, x, alpha);
  if (!ax) return ax;
  auto axb = b.binary(E::Add, *ax, beta);
  if (!axb) return axb;
  auto lo = b.binary(E::Min, *axb, 1.0);
  if (!lo) return lo;
  return b.binary(E::Max, *lo, 0.0);
}

static Status leakyReluOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(alpha, ctx.floatAttr("alpha", 0.01));
  GIR_TRY(y, leaky(ctx.b, x, alpha));
  return ctx.setOutput(0, y);
}

static Status preluOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(slope, ctx.input(1));
  GIR_TRY(y, leaky(ctx.b, x, slope));
  return ctx.setOutput(0, y);
}

static Status eluOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(alpha, ctx.floatAttr("alpha", 1.0));
  GIR_TRY(y, elu(ctx.b, x, alpha));
  return ctx.setOutput(0, y);
}

static Status seluOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(alpha, ctx.floatAttr("alpha", 1.67326319217681884765625));
  GIR_TRY(gamma, ctx.floatAttr("gamma", 1.05070102214813232421875));
  GIR_TRY(e, elu(ctx.b, x, alpha));
  GIR_TRY(y, ctx.b.binary(E::Mul, e, gamma));
  return ctx.setOutput(0, y);
}

static Status celuOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(alpha, ctx.floatAttr("alpha", 1.0));
  if (alpha == 0) return ctx.fail("alpha=0 is not a valid Celu parameter");
  GIR_TRY(pos, ctx.b.binary(E::Max, x, 0.0));
  GIR_TRY(xa, ctx.b.binary(E::Div, x, alpha));
  GIR_TRY(e, ctx.b.unary(E::Exp, xa));
  GIR_TRY(em1, ctx.b.binary(E::Sub, e, 1.0));
  GIR_TRY(scaled, ctx.b.binary(E::Mul, em1, alpha));
  GIR_TRY(neg, ctx.b.binary(E::Min, scaled, 0.0));
  GIR_TRY(y, ctx.b.binary(E::Add, pos, neg));
  return ctx.setOutput(0, y);
}

static Status softplusOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(e, ctx.b.unary(E::Exp, x));
  GIR_TRY(e1, ctx.b.binary(E::Add, e, 1.0));
  GIR_TRY(y, ctx.b.unary(E::Log, e1));
  return ctx.setOutput(0, y);
}

static Status softsignOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(a, ctx.b.unary(E::Abs, x));
  GIR_TRY(a1, ctx.b.binary(E::Add, a, 1.0));
  GIR_TRY(y, ctx.b.binary(E::Div, x, a1));
  return ctx.setOutput(0, y);
}

static Status hardSigmoidOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(alpha, ctx.floatAttr("alpha", 0.2));
  GIR_TRY(beta, ctx.floatAttr("beta", 0.5));
  GIR_TRY(y, hardSigmoid(ctx.b, x, alpha, beta));
  return ctx.setOutput(0, y);
}

static Status hardSwishOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  GIR_TRY(h, hardSigmoid(ctx.b, x, 1.0 / 6.0, 0.5));
  GIR_TRY(y, ctx.b.binary(E::Mul, x, h));
  return ctx.setOutput(0, y);
}

// Clip (opset 11+): optional constant min and max inputs.
static Status clipOp(NodeContext& ctx) {
  GIR_TRY(x, ctx.input(0));
  TensorId y = x;
  for (int i : {1, 2}) {
    if (!ctx.hasInput(i)) continue;
    GIR_TRY(bound, ctx.input(i));
    GIR_TRY(next, ctx.b.binary(i == 1 ? E::Max : E::Min, y, bound));
    y = next;
  }
  if (y == x) {  // no bounds: still a distinct value, so give it its own op
    GIR_TRY(copy, ctx.b.unary(E::Copy, x));
    y = copy;
  }
  return ctx.setOutput(0, y);
}

void addActivationHandlers(HandlerTable& t) {
  t["LeakyRelu"] = leakyReluOp;
  t["PRelu"] = preluOp;
  t["Elu"] = eluOp;
  t["Selu"] = seluOp;
  t["Celu"] = celuOp;
  t["Softplus"] = softplusOp;
  t["Softsign"] = softsignOp;
  t["HardSigmoid"] = hardSigmoidOp;
  t["HardSwish"] = hardSwishOp;
  t["Clip"] = clipOp;
}

}  // namespace gir::compute::onnximpl
