// The scalar operators shared by GIR gOperators, the computation graph and every backend:
// elementwise (n-ary) and reduction kinds, with their names and their exact meaning.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// The op table's C rendering: a pattern over operands $0..$2 (C99 float functions: valid C++, CUDA and
// HIP), rendered over operand expressions. Back ends read these; one that replaces an entry says why.
std::string_view elementwiseRendering(ElementwiseOp op);
std::string renderElementwise(ElementwiseOp op, const std::vector<std::string>& args);
std::string renderPattern(std::string_view pattern, const std::vector<std::string>& args);
// Calls a transcendental function (exp, log, pow, tanh, erf, sigmoid): the cost models' separate rate.
bool isTranscendental(ElementwiseOp op);

std::string_view reduceName(ReduceOp op);
std::optional<ReduceOp> parseReduce(std::string_view name);
double reduceIdentity(ReduceOp op);
double reduceCombine(ReduceOp op, double acc, double x);
// C renderings of the combine ($0 the accumulator, $1 the value) and of the identity.
std::string_view reduceCombineRendering(ReduceOp op);
std::string_view reduceIdentityRendering(ReduceOp op);

}  // namespace gir
