// Names and meaning of the scalar operators.
#include "core/gir/ScalarOps.h"

#include <cmath>
#include <limits>

#include "core/Expected.h"

namespace gir {

namespace {
struct EwInfo {
  ElementwiseOp op;
  std::string_view name;
  int arity;
};
constexpr EwInfo kEw[] = {
    {ElementwiseOp::Add, "add", 2},     {ElementwiseOp::Sub, "sub", 2},       {ElementwiseOp::Mul, "mul", 2},
    {ElementwiseOp::Div, "div", 2},     {ElementwiseOp::Max, "max", 2},       {ElementwiseOp::Min, "min", 2},
    {ElementwiseOp::Pow, "pow", 2},     {ElementwiseOp::Neg, "neg", 1},       {ElementwiseOp::Abs, "abs", 1},
    {ElementwiseOp::Exp, "exp", 1},     {ElementwiseOp::Log, "log", 1},       {ElementwiseOp::Sqrt, "sqrt", 1},
    {ElementwiseOp::Rsqrt, "rsqrt", 1}, {ElementwiseOp::Recip, "recip", 1},   {ElementwiseOp::Relu, "relu", 1},
    {ElementwiseOp::Sigmoid, "sigmoid", 1}, {ElementwiseOp::Tanh, "tanh", 1}, {ElementwiseOp::Erf, "erf", 1},
    {ElementwiseOp::Copy, "copy", 1},   {ElementwiseOp::Select, "select", 3},
};
}  // namespace

std::string_view elementwiseName(ElementwiseOp op) {
  for (const auto& e : kEw)
    if (e.op == op) return e.name;
  GIR_UNREACHABLE("elementwise op without a name");
}

std::optional<ElementwiseOp> parseElementwise(std::string_view name) {
  for (const auto& e : kEw)
    if (e.name == name) return e.op;
  return std::nullopt;
}

int elementwiseArity(ElementwiseOp op) {
  for (const auto& e : kEw)
    if (e.op == op) return e.arity;
  GIR_UNREACHABLE("elementwise op without an arity");
}

double evalElementwise(ElementwiseOp op, const double* a) {
  switch (op) {
    case ElementwiseOp::Add: return a[0] + a[1];
    case ElementwiseOp::Sub: return a[0] - a[1];
    case ElementwiseOp::Mul: return a[0] * a[1];
    case ElementwiseOp::Div: return a[0] / a[1];
    case ElementwiseOp::Max: return std::fmax(a[0], a[1]);
    case ElementwiseOp::Min: return std::fmin(a[0], a[1]);
    case ElementwiseOp::Pow: return std::pow(a[0], a[1]);
    case ElementwiseOp::Neg: return -a[0];
    case ElementwiseOp::Abs: return std::fabs(a[0]);
    case ElementwiseOp::Exp: return std::exp(a[0]);
    case ElementwiseOp::Log: return std::log(a[0]);
    case ElementwiseOp::Sqrt: return std::sqrt(a[0]);
    case ElementwiseOp::Rsqrt: return 1.0 / std::sqrt(a[0]);
    case ElementwiseOp::Recip: return 1.0 / a[0];
    case ElementwiseOp::Relu: return a[0] > 0 ? a[0] : 0.0;
    case ElementwiseOp::Sigmoid: return 1.0 / (1.0 + std::exp(-a[0]));
    case ElementwiseOp::Tanh: return std::tanh(a[0]);
    case ElementwiseOp::Erf: return std::erf(a[0]);
    case ElementwiseOp::Copy: return a[0];
    case ElementwiseOp::Select: return a[0] != 0 ? a[1] : a[2];
  }
  GIR_UNREACHABLE("unknown elementwise op");
}

bool isNonNegative(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::Abs: case ElementwiseOp::Exp: case ElementwiseOp::Sqrt: case ElementwiseOp::Rsqrt:
    case ElementwiseOp::Relu: case ElementwiseOp::Sigmoid:
      return true;
    default:
      return false;
  }
}

bool isMonotoneNonDecreasing(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::Exp: case ElementwiseOp::Log: case ElementwiseOp::Sqrt: case ElementwiseOp::Relu:
    case ElementwiseOp::Sigmoid: case ElementwiseOp::Tanh: case ElementwiseOp::Erf: case ElementwiseOp::Copy:
      return true;
    default:
      return false;
  }
}

std::string_view reduceName(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::Prod: return "prod";
  }
  GIR_UNREACHABLE("unknown reduce op");
}

std::optional<ReduceOp> parseReduce(std::string_view name) {
  if (name == "sum") return ReduceOp::Sum;
  if (name == "max") return ReduceOp::Max;
  if (name == "min") return ReduceOp::Min;
  if (name == "prod") return ReduceOp::Prod;
  return std::nullopt;
}

double reduceIdentity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return 0.0;
    case ReduceOp::Max: return -std::numeric_limits<double>::infinity();
    case ReduceOp::Min: return std::numeric_limits<double>::infinity();
    case ReduceOp::Prod: return 1.0;
  }
  GIR_UNREACHABLE("unknown reduce op");
}

double reduceCombine(ReduceOp op, double acc, double x) {
  switch (op) {
    case ReduceOp::Sum: return acc + x;
    case ReduceOp::Max: return std::fmax(acc, x);
    case ReduceOp::Min: return std::fmin(acc, x);
    case ReduceOp::Prod: return acc * x;
  }
  GIR_UNREACHABLE("unknown reduce op");
}

}  // namespace gir
