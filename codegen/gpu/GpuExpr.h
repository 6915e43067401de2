// Small text builders shared by the GPU kernel emitter: literals, affine offsets, slice displacements.
#pragma once

#include <cstdint>
#include <string>

#include "core/gir/Affine.h"
#include "core/gir/Graph.h"
#include "core/gir/ScalarOps.h"

namespace gir::gpu {

// A float literal that C++ reads back as the same float: "0.5f", "1.0e-05f", "(-INFINITY)".
std::string floatLiteral(double v);
// An affine offset in the unit index `u`: "(1024 * u + 3)", "(4 * (u / 4))", "0".
std::string affineExpr(const AffineIndex& a);
// The displacement of flat element `e` (an int expression) of a slice: sum of index * stride.
std::string displacementExpr(const MemorySlice& s, const std::string& e);
// Floor division for codegen-time constants (C++ `/` truncates).
int64_t floorDiv(int64_t a, int64_t b);
// The C expression of an elementwise op on operand expressions a[0..arity).
std::string elementwiseExpr(ElementwiseOp op, const std::string* a);
std::string reduceCombineExpr(ReduceOp op, const std::string& acc, const std::string& x);
std::string reduceIdentityLiteral(ReduceOp op);
// The accumulator's C type: double for sums and products, float for max and min (exact in float).
std::string reduceAccType(ReduceOp op);

}  // namespace gir::gpu
