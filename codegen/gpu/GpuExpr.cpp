// Text builders for the GPU emitter; every expression is parenthesized where it is used.
#include "codegen/gpu/GpuExpr.h"

#include <cmath>
#include <cstdio>

namespace gir::gpu {

std::string floatLiteral(double v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(static_cast<float>(v)));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += "f";
  return v < 0 ? "(" + s + ")" : s;
}

std::string affineExpr(const AffineIndex& a) {
  std::string out;
  auto append = [&](int64_t coeff, const std::string& var) {
    if (coeff == 0) return;
    std::string mag = std::to_string(coeff < 0 ? -coeff : coeff);
    std::string term = var.empty() ? mag : (coeff == 1 || coeff == -1) ? var : mag + " * " + var;
    if (out.empty()) out = coeff < 0 ? "-" + term : term;
    else out += (coeff < 0 ? " - " : " + ") + term;
  };
  for (const auto& t : a.terms()) {
    switch (t.kind) {
      case UnitTermKind::Identity: append(t.coeff, "u"); break;
      case UnitTermKind::Div: append(t.coeff, "(u / " + std::to_string(t.divisor) + ")"); break;
      case UnitTermKind::Mod: append(t.coeff, "(u % " + std::to_string(t.divisor) + ")"); break;
    }
  }
  append(a.constant(), "");
  return out.empty() ? "0" : "(" + out + ")";
}

std::string displacementExpr(const MemorySlice& s, const std::string& e) {
  if (s.contiguousWidth() == s.numel()) return e;
  std::string out;
  int64_t inner = 1;
  for (size_t d = s.shape.size(); d-- > 0;) {
    int64_t n = s.shape[d], stride = s.strides[d];
    if (n > 1 && stride != 0) {
      std::string idx = inner == 1 ? e : "(" + e + ") / " + std::to_string(inner);
      if (inner * n < s.numel()) idx = "(" + idx + ") % " + std::to_string(n);
      std::string term = stride == 1 ? "(" + idx + ")" : "(" + idx + ") * " + std::to_string(stride);
      out = out.empty() ? term : term + " + " + out;
    }
    inner *= n;
  }
  return out.empty() ? "0" : "(" + out + ")";
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The op table's renderings (core/gir/ScalarOps.h): CUDA and HIP take them as they are.
std::string elementwiseExpr(ElementwiseOp op, const std::string* a) {
  return renderElementwise(op, std::vector<std::string>(a, a + elementwiseArity(op)));
}

std::string reduceCombineExpr(ReduceOp op, const std::string& acc, const std::string& x) {
  return renderPattern(reduceCombineRendering(op), {acc, x});
}

std::string reduceIdentityLiteral(ReduceOp op) { return std::string(reduceIdentityRendering(op)); }

// As on the CPU (docs/gpu.md, "Reductions"): float partial sums of a 4096-long row missed the check's
// tolerance on an H100 (max rel. error 2.7e-3 near zero); a memory-bound kernel's double adds are free.
std::string reduceAccType(ReduceOp op) { return op == ReduceOp::Sum || op == ReduceOp::Prod ? "double" : "float"; }

}  // namespace gir::gpu
