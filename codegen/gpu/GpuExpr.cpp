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

std::string elementwiseExpr(ElementwiseOp op, const std::string* a) {
  switch (op) {
    case ElementwiseOp::Add: return "(" + a[0] + " + " + a[1] + ")";
    case ElementwiseOp::Sub: return "(" + a[0] + " - " + a[1] + ")";
    case ElementwiseOp::Mul: return "(" + a[0] + " * " + a[1] + ")";
    case ElementwiseOp::Div: return "(" + a[0] + " / " + a[1] + ")";
    case ElementwiseOp::Max: return "fmaxf(" + a[0] + ", " + a[1] + ")";
    case ElementwiseOp::Min: return "fminf(" + a[0] + ", " + a[1] + ")";
    case ElementwiseOp::Pow: return "powf(" + a[0] + ", " + a[1] + ")";
    case ElementwiseOp::Neg: return "(-" + a[0] + ")";
    case ElementwiseOp::Abs: return "fabsf(" + a[0] + ")";
    case ElementwiseOp::Exp: return "expf(" + a[0] + ")";
    case ElementwiseOp::Log: return "logf(" + a[0] + ")";
    case ElementwiseOp::Sqrt: return "sqrtf(" + a[0] + ")";
    case ElementwiseOp::Rsqrt: return "(1.0f / sqrtf(" + a[0] + "))";
    case ElementwiseOp::Recip: return "(1.0f / " + a[0] + ")";
    case ElementwiseOp::Relu: return "fmaxf(" + a[0] + ", 0.0f)";
    case ElementwiseOp::Sigmoid: return "(1.0f / (1.0f + expf(-" + a[0] + ")))";
    case ElementwiseOp::Tanh: return "tanhf(" + a[0] + ")";
    case ElementwiseOp::Erf: return "erff(" + a[0] + ")";
    case ElementwiseOp::Copy: return a[0];
    case ElementwiseOp::Select: return "(" + a[0] + " != 0.0f ? " + a[1] + " : " + a[2] + ")";
  }
  return a[0];
}

std::string reduceCombineExpr(ReduceOp op, const std::string& acc, const std::string& x) {
  switch (op) {
    case ReduceOp::Sum: return acc + " + " + x;
    case ReduceOp::Max: return "fmaxf(" + acc + ", " + x + ")";
    case ReduceOp::Min: return "fminf(" + acc + ", " + x + ")";
    case ReduceOp::Prod: return acc + " * " + x;
  }
  return acc;
}

std::string reduceIdentityLiteral(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "0.0";
    case ReduceOp::Max: return "(-INFINITY)";
    case ReduceOp::Min: return "INFINITY";
    case ReduceOp::Prod: return "1.0";
  }
  return "0.0";
}

// As on the CPU (docs/gpu.md, "Reductions"): float partial sums of a 4096-long row missed the check's
// tolerance on an H100 (max rel. error 2.7e-3 near zero); a memory-bound kernel's double adds are free.
std::string reduceAccType(ReduceOp op) { return op == ReduceOp::Sum || op == ReduceOp::Prod ? "double" : "float"; }

}  // namespace gir::gpu
