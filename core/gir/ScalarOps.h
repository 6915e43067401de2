// The scalar operators shared by GIR gOperators, the computation graph and every backend:
// elementwise (n-ary) and reduction kinds, with their names and their exact meaning.
#pragma once

#include <optional>
#include <string_view>

namespace gir {

enum class ElementwiseOp {
  Add, Sub, Mul, Div, Max, Min, Pow,                      // binary
  Neg, Abs, Exp, Log, Sqrt, Rsqrt, Recip, Relu, Sigmoid, Tanh, Erf, Copy,  // unary
  Select,  // ternary: cond != 0 ? a : b
};

enum class ReduceOp { Sum, Max, Min, Prod };

std::string_view elementwiseName(ElementwiseOp op);
std::optional<ElementwiseOp> parseElementwise(std::string_view name);
int elementwiseArity(ElementwiseOp op);
// Exact meaning, evaluated in double; float results are this value rounded to float.
double evalElementwise(ElementwiseOp op, const double* args);
// Monotone non-decreasing unary ops commute with max and min (used by swap).
bool isMonotoneNonDecreasing(ElementwiseOp op);
// Ops whose every result is >= 0 (or NaN): abs, exp, sqrt, rsqrt, relu, sigmoid. A sum of such terms
// cannot cancel, which lets a backend accumulate it in float (codegen/schedule/SumPrecision.h).
bool isNonNegative(ElementwiseOp op);

std::string_view reduceName(ReduceOp op);
std::optional<ReduceOp> parseReduce(std::string_view name);
double reduceIdentity(ReduceOp op);
double reduceCombine(ReduceOp op, double acc, double x);

}  // namespace gir
