// The iteration space of one computation-graph op, the common ground of every GIR template:
// a box of loop indices I, and for each tensor the op reads or writes an affine map from I to the
// tensor's (row-major) buffer offset. Layout ops are nothing but such maps (a transpose permutes
// the coefficients, a reshape keeps the linear offset, a concat restricts an access to a region);
// compute ops add how registers combine. Templates then only decide which unit owns which box.
#pragma once

#include <cstdint>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"

namespace gir::search {

using compute::TensorId;

// offset(i) = constant + sum_d coeff[d] * i[d], for i inside [lo, hi) (the whole space unless the
// access belongs to one piece of a concat or split). coeff[d] == 0: the tensor does not vary
// along d (a broadcast input, or a reduced dimension of an output).
struct TensorAccess {
  TensorId tensor{};
  bool write = false;
  std::vector<int64_t> coeff;
  int64_t constant = 0;
  std::vector<int64_t> lo, hi;
  int64_t offsetAt(const std::vector<int64_t>& i) const;
  bool wholeSpace(const std::vector<int64_t>& dims) const;
};

// How the registers of one unit combine, per op kind.
enum class ComputeKind {
  Copy,         // layout ops and broadcasts: the output box is the input box
  Elementwise,  // fn over the inputs' boxes
  Reduce,       // reduce over the `reduced` dims
  Contract,     // matmul/gemm: multiply the two broadcast operands, sum over the last dim
  BatchNorm,    // (x - mean) * scale / sqrt(var + eps) + bias, parameters broadcast per channel
  DepthwiseConv,  // per channel plane: zero-padded copy in registers, one multiply-add per tap
  Pool,           // per channel plane: padded window in registers, one max or add per tap (then the divisor)
};

struct IterationSpace {
  std::vector<int64_t> dims;
  std::vector<bool> reduced;           // dims absent from the output (reduce axes, the K of a contraction)
  std::vector<bool> whole;             // dims a unit must hold entirely (a convolution's rows)
  // Dims split only as the outermost unit dim (a convolution's output rows): the edge bands differ
  // from the inner ones (zero padding), so bands must vary slowest for the units of each kind of
  // band to form one run with an affine index (one GIR node per kind, not one per unit).
  std::vector<bool> band;
  std::vector<TensorAccess> reads;     // in op input order (a concat has one per piece)
  std::vector<TensorAccess> writes;    // in op output order (a split has one per piece)
  ComputeKind compute = ComputeKind::Copy;
  double alpha = 1, beta = 1;  // gemm: alpha * A.B + beta * C
  double epsilon = 0;          // batch norm
  compute::ConvAttrs conv;     // depthwise convolution and pooling: strides, pads, dilations
  compute::PoolAttrs pool;     // pooling: the kind and count_include_pad
  int64_t inH = 0, inW = 0, kH = 0, kW = 0;
  int64_t numel() const;
};

// Fails with the op's name and the reason when the op has no template (dense convolutions).
Expected<IterationSpace> iterationSpace(const compute::Graph& g, const compute::Op& op);

// Row-major strides of `dims` (the buffer layout of every computation-graph tensor).
std::vector<int64_t> denseStrides(const std::vector<int64_t>& dims);

}  // namespace gir::search
