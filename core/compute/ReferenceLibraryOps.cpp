// Reference kernels for the library ops: plain loops with double accumulation.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/compute/ReferenceEvaluator.h"

namespace gir::compute {

// Offset of batch `b` (row-major over outBatch) inside an operand with batch dims `dims`
// (right-aligned, extents of 1 broadcast).
static int64_t batchOffset(int64_t b, const Dims& outBatch, const Dims& dims, int64_t matrixSize) {
  int64_t offset = 0;
  int64_t stride = matrixSize;
  size_t lead = outBatch.size() - dims.size();
  for (int i = static_cast<int>(outBatch.size()) - 1; i >= 0; --i) {
    int64_t idx = b % outBatch[i];
    b /= outBatch[i];
    if (i < static_cast<int>(lead)) continue;
    int64_t d = dims[i - lead];
    if (d != 1) offset += idx * stride;
    stride *= d;
  }
  return offset;
}

void evalMatMul(const TensorData& a, const TensorData& b, TensorData& out) {
  int64_t m = a.dims[a.dims.size() - 2], k = a.dims.back(), n = b.dims.back();
  Dims outBatch(out.dims.begin(), out.dims.end() - 2);
  Dims aBatch(a.dims.begin(), a.dims.end() - 2), bBatch(b.dims.begin(), b.dims.end() - 2);
  int64_t batches = numElements(outBatch);
  for (int64_t bi = 0; bi < batches; ++bi) {
    const double* pa = a.values.data() + batchOffset(bi, outBatch, aBatch, m * k);
    const double* pb = b.values.data() + batchOffset(bi, outBatch, bBatch, k * n);
    double* po = out.values.data() + bi * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += pa[i * k + p] * pb[p * n + j];
        po[i * n + j] = acc;
      }
  }
}

void evalGemm(const GemmAttrs& attrs, const TensorData& a, const TensorData& b, const TensorData* c, TensorData& out) {
  int64_t m = out.dims[0], n = out.dims[1];
  int64_t k = attrs.transA ? a.dims[0] : a.dims[1];
  auto at = [&](int64_t i, int64_t p) { return attrs.transA ? a.values[p * m + i] : a.values[i * k + p]; };
  auto bt = [&](int64_t p, int64_t j) { return attrs.transB ? b.values[j * k + p] : b.values[p * n + j]; };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += at(i, p) * bt(p, j);
      double v = attrs.alpha * acc;
      if (c) v += attrs.beta * c->values[i * n + j];
      out.values[i * n + j] = v;
    }
}

void evalConv(const ConvAttrs& attrs, const TensorData& x, const TensorData& w, const TensorData* bias, TensorData& out) {
  int64_t batch = x.dims[0], cin = x.dims[1], ih = x.dims[2], iw = x.dims[3];
  int64_t cout = w.dims[0], cinG = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  int64_t oh = out.dims[2], ow = out.dims[3];
  int64_t coutG = cout / attrs.group;
  for (int64_t nb = 0; nb < batch; ++nb)
    for (int64_t oc = 0; oc < cout; ++oc) {
      int64_t g = oc / coutG;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double acc = bias ? bias->values[oc] : 0.0;
          for (int64_t ic = 0; ic < cinG; ++ic)
            for (int64_t ky = 0; ky < kh; ++ky) {
              int64_t iy = y * attrs.strides[0] - attrs.pads[0] + ky * attrs.dilations[0];
              if (iy < 0 || iy >= ih) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t ix = xo * attrs.strides[1] - attrs.pads[1] + kx * attrs.dilations[1];
                if (ix < 0 || ix >= iw) continue;
                int64_t c = g * cinG + ic;
                acc += x.values[((nb * cin + c) * ih + iy) * iw + ix] * w.values[((oc * cinG + ic) * kh + ky) * kw + kx];
              }
            }
          out.values[((nb * cout + oc) * oh + y) * ow + xo] = acc;
        }
    }
}

void evalBatchNorm(const BatchNormAttrs& attrs, const std::vector<const TensorData*>& in, TensorData& out) {
  const TensorData& x = *in[0];
  int64_t channels = x.dims[1];
  int64_t inner = numElements(Dims(x.dims.begin() + 2, x.dims.end()));
  for (size_t i = 0; i < x.values.size(); ++i) {
    int64_t c = (static_cast<int64_t>(i) / inner) % channels;
    double scale = in[1]->values[c], bias = in[2]->values[c], mean = in[3]->values[c], var = in[4]->values[c];
    out.values[i] = (x.values[i] - mean) / std::sqrt(var + attrs.epsilon) * scale + bias;
  }
}

// One output element of a pool: the window's max, or its average over the counted positions.
static double poolWindow(const PoolAttrs& attrs, const double* plane, int64_t ih, int64_t iw, int64_t y, int64_t x) {
  double acc = attrs.kind == PoolKind::Max ? -std::numeric_limits<double>::infinity() : 0.0;
  int64_t counted = 0;
  for (int64_t ky = 0; ky < attrs.kernel[0]; ++ky) {
    int64_t iy = y * attrs.strides[0] - attrs.pads[0] + ky * attrs.dilations[0];
    for (int64_t kx = 0; kx < attrs.kernel[1]; ++kx) {
      int64_t ix = x * attrs.strides[1] - attrs.pads[1] + kx * attrs.dilations[1];
      bool inside = iy >= 0 && iy < ih && ix >= 0 && ix < iw;
      // count_include_pad counts positions inside the padded extent, never past it.
      bool inPadded = iy < ih + attrs.pads[2] && ix < iw + attrs.pads[3];
      if (inside) {
        double v = plane[iy * iw + ix];
        acc = attrs.kind == PoolKind::Max ? std::max(acc, v) : acc + v;
      }
      if (inside || (attrs.countIncludePad && inPadded)) ++counted;
    }
  }
  if (attrs.kind == PoolKind::Max) return acc;
  return counted > 0 ? acc / static_cast<double>(counted) : 0.0;
}

void evalPool(const PoolAttrs& attrs, const TensorData& x, TensorData& out) {
  int64_t planes = x.dims[0] * x.dims[1], ih = x.dims[2], iw = x.dims[3];
  int64_t oh = out.dims[2], ow = out.dims[3];
  for (int64_t p = 0; p < planes; ++p) {
    const double* plane = x.values.data() + p * ih * iw;
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xo = 0; xo < ow; ++xo) out.values[(p * oh + y) * ow + xo] = poolWindow(attrs, plane, ih, iw, y, xo);
  }
}

}  // namespace gir::compute
