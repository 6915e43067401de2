// Names and meaning of the scalar operators.
#include "core/gir/ScalarOps.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/Expected.h"

namespace gir {

namespace {
// The op table (docs/gir.md, "Operators"), in the manner of tinygrad's renderer table: per operator its
// name, arity, C rendering over its operands $0..$2 (C99 float functions, valid C++, CUDA and HIP; a
// back end may replace an entry with its prelude's function, codegen/cpu/CpuNodeEmitter.cpp lists
// the CPU's), and whether it calls a transcendental (the cost models' separate rate).
struct EwInfo {
  ElementwiseOp op;
  std::string_view name;
  int arity;
  std::string_view rendering;
  bool transcendental;
};
constexpr EwInfo kEw[] = {
    {ElementwiseOp::Add, "add", 2, "($0 + $1)", false},
    {ElementwiseOp::Sub, "sub", 2, "($0 - $1)", false},
    {ElementwiseOp::Mul, "mul", 2, "($0 * $1)", false},
    {ElementwiseOp::Div, "div", 2, "($0 / $1)", false},
    {ElementwiseOp::Max, "max", 2, "fmaxf($0, $1)", false},
    {ElementwiseOp::Min, "min", 2, "fminf($0, $1)", false},
    {ElementwiseOp::Pow, "pow", 2, "powf($0, $1)", true},
    {ElementwiseOp::Neg, "neg", 1, "(-$0)", false},
    {ElementwiseOp::Abs, "abs", 1, "fabsf($0)", false},
    {ElementwiseOp::Exp, "exp", 1, "expf($0)", true},
    {ElementwiseOp::Log, "log", 1, "logf($0)", true},
    {ElementwiseOp::Sqrt, "sqrt", 1, "sqrtf($0)", false},
    {ElementwiseOp::Rsqrt, "rsqrt", 1, "(1.0f / sqrtf($0))", false},
    {ElementwiseOp::Recip, "recip", 1, "(1.0f / $0)", false},
    {ElementwiseOp::Relu, "relu", 1, "fmaxf($0, 0.0f)", false},
    {ElementwiseOp::Sigmoid, "sigmoid", 1, "(1.0f / (1.0f + expf(-$0)))", true},
    {ElementwiseOp::Tanh, "tanh", 1, "tanhf($0)", true},
    {ElementwiseOp::Erf, "erf", 1, "erff($0)", true},
    {ElementwiseOp::Copy, "copy", 1, "$0", false},
    {ElementwiseOp::Select, "select", 3, "($0 != 0.0f ? $1 : $2)", false},
};

const EwInfo& info(ElementwiseOp op) {
  for (const auto& e : kEw)
    if (e.op == op) return e;
  GIR_UNREACHABLE("elementwise op outside the op table");
}
}  // namespace

std::string renderPattern(std::string_view pattern, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '$' && i + 1 < pattern.size() && pattern[i + 1] >= '0' && pattern[i + 1] <= '9') {
      size_t k = static_cast<size_t>(pattern[++i] - '0');
      out += k < args.size() ? args[k] : "?";
    } else {
      out += pattern[i];
    }
  }
  return out;
}

std::string_view elementwiseRendering(ElementwiseOp op) { return info(op).rendering; }

std::string renderElementwise(ElementwiseOp op, const std::vector<std::string>& args) {
  return renderPattern(info(op).rendering, args);
}

bool isTranscendental(ElementwiseOp op) { return info(op).transcendental; }

std::string_view elementwiseName(ElementwiseOp op) { return info(op).name; }

std::optional<ElementwiseOp> parseElementwise(std::string_view name) {
  for (const auto& e : kEw)
    if (e.name == name) return e.op;
  return std::nullopt;
}

int elementwiseArity(ElementwiseOp op) { return info(op).arity; }

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

std::string_view reduceCombineRendering(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "$0 + $1";
    case ReduceOp::Max: return "fmaxf($0, $1)";
    case ReduceOp::Min: return "fminf($0, $1)";
    case ReduceOp::Prod: return "$0 * $1";
  }
  GIR_UNREACHABLE("unknown reduce op");
}

std::string_view reduceIdentityRendering(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "0.0";
    case ReduceOp::Max: return "(-INFINITY)";
    case ReduceOp::Min: return "INFINITY";
    case ReduceOp::Prod: return "1.0";
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
