// The fixed head of every generated CPU source: includes, the per-thread scratch, the byte counter of
// instrumented builds and branch-free float math that `#pragma omp simd` loops vectorize (glibc's
// vector math is only declared under -ffast-math, which would also change every other result).
#include "codegen/cpu/CpuPrelude.h"

namespace gir::codegen::cpu {

std::string_view cpuPrelude() {
  return R"CPP(#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>
#include <omp.h>

namespace {

// One growing scratch per worker thread: block scratch and per-unit arrays too big for the stack.
float* girScratch(int64_t elements) {
  static thread_local std::vector<float> scratch;
  if (static_cast<int64_t>(scratch.size()) < elements) scratch.resize(static_cast<size_t>(elements));
  return scratch.data();
}

#ifdef GIR_INSTRUMENT
thread_local long long girBytes = 0;  // bytes this thread moved at device-scope levels
long long girBytesTotal = 0;
#define GIR_COUNT(n) (girBytes += (n))
#endif

// exp: Cephes expf (range reduction by ln 2, degree-6 polynomial, exponent by bit arithmetic);
// below -87.3 the result is 0 and above 88.7 it is +inf, like expf.
inline float girExp(float x) {
  float xc = std::min(std::max(x, -87.3f), 88.7f);
  float fx = std::floor(xc * 1.44269504088896341f + 0.5f);
  float r = xc - fx * 0.693359375f + fx * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * r * r + r + 1.0f;
  float scale = std::bit_cast<float>((static_cast<int32_t>(fx) + 127) << 23);
  float e = y * scale;
  e = x < -87.3f ? 0.0f : e;
  return x > 88.7f ? INFINITY : e;
}

inline float girSigmoid(float x) { return 1.0f / (1.0f + girExp(-x)); }

// tanh: Cephes' odd polynomial below |x| = 0.625, 1 - 2 / (exp(2|x|) + 1) above.
inline float girTanh(float x) {
  float a = std::fabs(x), z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  float small = x + x * z * p;
  float big = 1.0f - 2.0f / (girExp(2.0f * a) + 1.0f);
  big = x < 0 ? -big : big;
  return a < 0.625f ? small : big;
}

// erf: Taylor series below |x| = 0.5 (keeps the relative error small near 0), Abramowitz-Stegun
// 7.1.26 above (absolute error below 1.5e-7).
inline float girErf(float x) {
  float a = std::fabs(x), z = x * x;
  float s = -1.0f / 1320.0f;
  s = s * z + 1.0f / 216.0f;
  s = s * z - 1.0f / 42.0f;
  s = s * z + 1.0f / 10.0f;
  s = s * z - 1.0f / 3.0f;
  float small = 1.12837916709551257f * (x + x * z * s);
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float q = 1.061405429f;
  q = q * t - 1.453152027f;
  q = q * t + 1.421413741f;
  q = q * t - 0.284496736f;
  q = q * t + 0.254829592f;
  float big = 1.0f - q * t * girExp(-z);
  big = x < 0 ? -big : big;
  return a < 0.5f ? small : big;
}

}  // namespace
)CPP";
}

}  // namespace gir::codegen::cpu
