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
#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

namespace {

// Non-temporal stores for an output larger than the caches (docs/cpu.md, "Streaming stores"): the
// innermost loop goes by 64-byte lines, each computed into a 16-float array that GCC keeps in
// registers and written with streaming stores, which skip the read-for-ownership a plain store pays.
// A line that is not aligned (a caller's own pointer) takes plain stores; [[likely]] keeps the
// streaming path in line (laid out of line, its jump cost Softmax 32x16x256x256 10 %). girStreamFence orders them
// before the block's end, as streaming stores are weakly ordered.
inline void girStreamLine(float* dst, const float* line) {
#if defined(__AVX512F__)
  if (!(reinterpret_cast<uintptr_t>(dst) & 63)) [[likely]]
    return _mm512_stream_ps(dst, _mm512_load_ps(line));
#elif defined(__AVX__)
  if (!(reinterpret_cast<uintptr_t>(dst) & 31)) [[likely]] {
    _mm256_stream_ps(dst, _mm256_load_ps(line));
    return _mm256_stream_ps(dst + 8, _mm256_load_ps(line + 8));
  }
#endif
  for (int i = 0; i < 16; ++i) dst[i] = line[i];
}
// The lines of n floats from p into the caches, ahead of their loads (docs/cpu.md, "Prefetch").
inline void girPrefetch(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) __builtin_prefetch(p + i);
  __builtin_prefetch(p + n - 1);
}
// The even elements of src[0, n) into even[], the odd ones into odd[] (docs/cpu.md, "Stride-2 reads"):
// per 16 floats two loads, two in-lane shuffles that pick the even and the odd elements, and two
// permutes that put the 128-bit halves in order; GCC's own spelling of a stride-2 load takes three
// shuffles per 8 floats, and a stride-2 convolution paid it on every tap.
inline void girDeinterleave(const float* src, float* even, float* odd, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 16 <= n; i += 16) {
    __m256 a = _mm256_loadu_ps(src + i), b = _mm256_loadu_ps(src + i + 8);
    __m256d e = _mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), o = _mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xDD));
    _mm256_storeu_ps(even + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(e, 0xD8)));
    _mm256_storeu_ps(odd + i / 2, _mm256_castpd_ps(_mm256_permute4x64_pd(o, 0xD8)));
  }
#endif
  for (; i < n; ++i) (i % 2 == 0 ? even : odd)[i / 2] = src[i];
}
inline void girStreamFence() {
#if defined(__AVX512F__) || defined(__AVX__)
  _mm_sfence();
#endif
}

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

// Fused multiply-add where the machine has one, spelled out so that these functions round the same
// whatever the compiler contracts (GCC contracts a * b + c in C++ even at -std=c++20; docs/cpu.md);
// elsewhere the plain expression, as before.
#ifdef __FMA__
#define GIR_FMA(a, b, c) std::fma(a, b, c)
#else
#define GIR_FMA(a, b, c) ((a) * (b) + (c))
#endif

// Float lanes of the widest vector the kernels compute in: a paired loop steps by two such vectors
// (docs/cpu.md, "Paired iterations").
#if defined(__AVX512F__)
constexpr int64_t girLanes = 16;
#elif defined(__AVX__)
constexpr int64_t girLanes = 8;
#else
constexpr int64_t girLanes = 4;
#endif

// The 16 lanes of a lane-block sum (docs/cpu.md, "Reductions") added pairwise: lane i with i + 8,
// then i + 4, i + 2 and i + 1. With AVX-512 the machine's shuffles do it (_mm512_reduce_add_* adds
// the same pairs in the same order, so the result is the same bit for bit); a loop of scalar adds
// through memory took 7 % of Softmax 64x12x128x128's time, whose rows are 128 floats. With AVX2 the
// same pairs by hand (halves, then movehl and movehdup): the loop had come back there, 13 % of that
// kernel's time on the AVX2 host of 2026-11-29 (docs/cpu.md, "Reductions").
inline float girLaneSum(float* lanes) {
#if defined(__AVX512F__)
  return _mm512_reduce_add_ps(_mm512_load_ps(lanes));
#elif defined(__AVX__)
  __m256 eighths = _mm256_add_ps(_mm256_loadu_ps(lanes), _mm256_loadu_ps(lanes + 8));
  __m128 quarters = _mm_add_ps(_mm256_castps256_ps128(eighths), _mm256_extractf128_ps(eighths, 1));
  __m128 halves = _mm_add_ps(quarters, _mm_movehl_ps(quarters, quarters));
  return _mm_cvtss_f32(_mm_add_ss(halves, _mm_movehdup_ps(halves)));
#else
  for (int half = 8; half > 0; half /= 2)
    for (int lane = 0; lane < half; ++lane) lanes[lane] += lanes[lane + half];
  return lanes[0];
#endif
}
inline double girLaneSum(double* lanes) {
#if defined(__AVX512F__)
  return _mm512_reduce_add_pd(_mm512_add_pd(_mm512_load_pd(lanes), _mm512_load_pd(lanes + 8)));
#elif defined(__AVX__)
  __m256d low = _mm256_add_pd(_mm256_loadu_pd(lanes), _mm256_loadu_pd(lanes + 8));
  __m256d high = _mm256_add_pd(_mm256_loadu_pd(lanes + 4), _mm256_loadu_pd(lanes + 12));
  __m256d quarters = _mm256_add_pd(low, high);
  __m128d halves = _mm_add_pd(_mm256_castpd256_pd128(quarters), _mm256_extractf128_pd(quarters, 1));
  return _mm_cvtsd_f64(_mm_add_sd(halves, _mm_unpackhi_pd(halves, halves)));
#else
  for (int half = 8; half > 0; half /= 2)
    for (int lane = 0; lane < half; ++lane) lanes[lane] += lanes[lane + half];
  return lanes[0];
#endif
}

// max and min as the op table means them (fmaxf / fminf, core/gir/ScalarOps.h): a NaN operand gives
// the other operand. GCC calls libm's fmaxf inside a loop, which keeps the loop scalar; a compare and
// two selects vectorize (docs/cpu.md, "Numerics").
inline float girMax(float a, float b) { return a != a ? b : (a < b ? b : a); }
inline float girMin(float a, float b) { return a != a ? b : (b < a ? b : a); }

// exp's shared part: n = round(x / ln 2) by adding `bias` (1.5 * 2^23, whose sum's low mantissa bits
// then hold n; the caller may add more), r = x - n ln 2 in two steps (Cephes), and exp(r) = 1 + r +
// r^2 p(r) on [-ln2/2, ln2/2], p's coefficients fitted for relative error. Returns exp(r); `t` is the sum.
inline float girExpOfRemainder(float x, float bias, float& t) {
  t = GIR_FMA(x, 1.44269504088896341f, bias);
  float fx = t - bias;
  float r = GIR_FMA(fx, -0.693359375f, x);
  r = GIR_FMA(fx, 2.12194440e-4f, r);
  float p = 8.3125243331e-3f;
  p = GIR_FMA(p, r, 4.1890113199e-2f);
  p = GIR_FMA(p, r, 1.6667114472e-1f);
  p = GIR_FMA(p, r, 4.9999231791e-1f);
  return GIR_FMA(r, GIR_FMA(r, p, 1.0f), 1.0f);
}

// exp: Cephes' range reduction by ln 2, then a degree-5 polynomial fitted for relative error (at most
// 1.8e-7; Cephes' degree 7 is two FMAs longer), about 18 vector instructions (docs/cpu.md, "exp"):
// 2^n applied by adding n (the sum's low bits) to the exponent bits of the polynomial (exact: for x in
// [-87.3, 88.7] the result is a normal float). Outside that range the selects give 0, +inf, or NaN for NaN.
inline float girExp(float x) {
  float t;
  float y = girExpOfRemainder(x, 12582912.0f, t);
  float e = std::bit_cast<float>(std::bit_cast<int32_t>(y) + (std::bit_cast<int32_t>(t) << 23));
  e = x < -87.3f ? 0.0f : e;
  return x <= 88.7f ? e : x + INFINITY;
}

// exp of an argument that is <= 0 or NaN (softmax's x - max(x), core/gir/ValueSigns.h): the same
// reduction and polynomial without the overflow select and its blend (7 % faster in a loop of exps;
// docs/cpu.md, "exp"). 2^n is a float built from t's bits (the bias holds 127 more, 2^n's exponent
// bias) and multiplied in: for x in [-87.3, 0] it is a normal float and the product equals girExp's bit
// for bit; a NaN reaches y through r and stays NaN whatever t's payload makes of 2^n, and below -87.3
// the select gives 0.
inline float girExpNonPositive(float x) {
  float t;
  float y = girExpOfRemainder(x, 12583039.0f, t);
  float e = y * std::bit_cast<float>(std::bit_cast<int32_t>(t) << 23);
  return x < -87.3f ? 0.0f : e;
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

// erfc(a) for a = |x| >= 0 and z = x * x: Abramowitz-Stegun 7.1.26 (absolute error below 1.5e-7).
inline float girErfcAbs(float a, float z) {
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float q = 1.061405429f;
  q = q * t - 1.453152027f;
  q = q * t + 1.421413741f;
  q = q * t - 0.284496736f;
  q = q * t + 0.254829592f;
  return q * t * girExp(-z);
}

// erf: Taylor series below |x| = 0.5 (keeps the relative error small near 0), 1 - erfc(|x|) above.
inline float girErf(float x) {
  float a = std::fabs(x), z = x * x;
  float s = -1.0f / 1320.0f;
  s = s * z + 1.0f / 216.0f;
  s = s * z - 1.0f / 42.0f;
  s = s * z + 1.0f / 10.0f;
  s = s * z - 1.0f / 3.0f;
  float small = 1.12837916709551257f * (x + x * z * s);
  float big = 1.0f - girErfcAbs(a, z);
  big = x < 0 ? -big : big;
  return a < 0.5f ? small : big;
}

// 1 + erf(x), GELU's factor: erfc(|x|) below 0 (no cancellation where erf is near -1), 2 - erfc(|x|)
// above. No small-argument branch: 1 + erf(x) is near 1 there, where the absolute error is what counts.
inline float girOnePlusErf(float x) {
  float r = girErfcAbs(std::fabs(x), x * x);
  return x < 0 ? r : 2.0f - r;
}

}  // namespace
)CPP";
}

std::string_view wideVectorsBegin() {
  return "// computes transcendentals: 512-bit vectors preferred (docs/cpu.md, \"Vector width\")\n"
         "#pragma GCC push_options\n#pragma GCC target(\"prefer-vector-width=512\")\n";
}

std::string_view wideVectorsEnd() { return "#pragma GCC pop_options\n"; }

}  // namespace gir::codegen::cpu
