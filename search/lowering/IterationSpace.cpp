// One function per op kind: the loop space and the affine maps of its tensors.
#include "search/lowering/IterationSpace.h"

#include "core/compute/Preprocess.h"

namespace gir::search {

using compute::Dims;
using compute::OpKind;

int64_t TensorAccess::offsetAt(const std::vector<int64_t>& i) const {
  int64_t o = constant;
  for (size_t d = 0; d < i.size(); ++d) o += coeff[d] * i[d];
  return o;
}

bool TensorAccess::wholeSpace(const std::vector<int64_t>& dims) const {
  for (size_t d = 0; d < dims.size(); ++d)
    if (lo[d] != 0 || hi[d] != dims[d]) return false;
  return true;
}

int64_t IterationSpace::numel() const {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::vector<int64_t> denseStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

namespace {

class SpaceBuilder {
 public:
  SpaceBuilder(const compute::Graph& g, const compute::Op& op) : g_(g), op_(op) {}

  Expected<IterationSpace> run() {
    switch (op_.kind()) {
      case OpKind::Elementwise: return elementwise();
      case OpKind::Broadcast: return broadcast();
      case OpKind::Reduce: return reduce();
      case OpKind::Transpose: return transpose();
      case OpKind::Reshape: return reshape();
      case OpKind::Concat: return concat();
      case OpKind::Split: return split();
      case OpKind::Slice: return slice();
      case OpKind::MatMul: return matmul();
      case OpKind::Gemm: return gemm();
      case OpKind::BatchNorm: return batchNorm();
      case OpKind::Conv: return depthwiseConv();
      case OpKind::Pool: return pool();
    }
    return fail("no GIR template for this op kind (it stays a library call)");
  }

 private:
  Diagnostic fail(const std::string& why) const {
    return makeError(why, SourceLocation{"", 0, 0, "op '" + op_.name + "' (" + std::string(compute::opKindName(op_.kind())) + ")"});
  }
  const Dims& dimsOf(TensorId t) const { return g_.tensor(t).dims; }

  void begin(const Dims& dims) {
    s_.dims = dims;
    if (s_.dims.empty()) s_.dims = {1};  // a scalar tensor is a one-element space
    s_.reduced.assign(s_.dims.size(), false);
    s_.whole.assign(s_.dims.size(), false);
    s_.band.assign(s_.dims.size(), false);
  }
  TensorAccess access(TensorId t, bool write, std::vector<int64_t> coeff, int64_t constant = 0) const {
    return TensorAccess{t, write, std::move(coeff), constant, std::vector<int64_t>(s_.dims.size(), 0), s_.dims};
  }
  // The tensor has the space's shape (up to a scalar's missing dimension).
  TensorAccess identity(TensorId t, bool write) const {
    if (dimsOf(t).empty()) return access(t, write, {0});
    return access(t, write, denseStrides(dimsOf(t)));
  }

  Expected<IterationSpace> elementwise() {
    begin(dimsOf(op_.outputs[0]));
    s_.compute = ComputeKind::Elementwise;
    for (TensorId t : op_.inputs) {
      if (compute::numElements(dimsOf(t)) != s_.numel()) return fail("an operand is not shaped like the output");
      s_.reads.push_back(identity(t, false));
    }
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  // Numpy broadcast, right-aligned: the input varies only along its non-unit dims. `strides` are
  // the input's own (a matmul's batch dims pass the strides of the whole operand).
  std::vector<int64_t> rightAligned(const Dims& in, size_t rank, std::vector<int64_t> strides = {}) const {
    std::vector<int64_t> coeff(rank, 0);
    if (strides.empty()) strides = denseStrides(in);
    size_t shift = rank - in.size();
    for (size_t j = 0; j < in.size(); ++j)
      if (in[j] != 1) coeff[j + shift] = strides[j];
    return coeff;
  }

  Expected<IterationSpace> broadcast() {
    begin(dimsOf(op_.outputs[0]));
    const Dims& in = dimsOf(op_.inputs[0]);
    if (in.size() > s_.dims.size()) return fail("the input has more dimensions than the output");
    s_.reads.push_back(access(op_.inputs[0], false, rightAligned(in, s_.dims.size())));
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  Expected<IterationSpace> reduce() {
    const auto& a = std::get<compute::ReduceAttrs>(op_.attrs);
    const Dims& in = dimsOf(op_.inputs[0]);
    begin(in);
    s_.compute = ComputeKind::Reduce;
    for (int ax : a.axes) s_.reduced[ax] = true;
    s_.reads.push_back(identity(op_.inputs[0], false));
    Dims kept;
    for (size_t d = 0; d < in.size(); ++d)
      if (!s_.reduced[d]) kept.push_back(in[d]);
    auto ks = denseStrides(kept);
    std::vector<int64_t> coeff(s_.dims.size(), 0);
    for (size_t d = 0, k = 0; d < in.size(); ++d)
      if (!s_.reduced[d]) coeff[d] = ks[k++];
    s_.writes.push_back(access(op_.outputs[0], true, coeff));
    return s_;
  }

  Expected<IterationSpace> transpose() {
    const auto& perm = std::get<compute::TransposeAttrs>(op_.attrs).perm;
    begin(dimsOf(op_.outputs[0]));
    auto in = denseStrides(dimsOf(op_.inputs[0]));
    std::vector<int64_t> coeff(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) coeff[i] = in[perm[i]];
    s_.reads.push_back(access(op_.inputs[0], false, coeff));
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  // Same buffer layout: the input's offset is the output's linear offset.
  Expected<IterationSpace> reshape() {
    begin(dimsOf(op_.outputs[0]));
    s_.reads.push_back(access(op_.inputs[0], false, denseStrides(s_.dims)));
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  Expected<IterationSpace> concat() {
    int axis = std::get<compute::ConcatAttrs>(op_.attrs).axis;
    begin(dimsOf(op_.outputs[0]));
    int64_t at = 0;
    for (TensorId t : op_.inputs) {
      auto strides = denseStrides(dimsOf(t));
      TensorAccess a = access(t, false, strides, -at * strides[axis]);
      a.lo[axis] = at;
      a.hi[axis] = at + dimsOf(t)[axis];
      at = a.hi[axis];
      s_.reads.push_back(std::move(a));
    }
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  Expected<IterationSpace> split() {
    int axis = std::get<compute::SplitAttrs>(op_.attrs).axis;
    begin(dimsOf(op_.inputs[0]));
    s_.reads.push_back(identity(op_.inputs[0], false));
    int64_t at = 0;
    for (TensorId t : op_.outputs) {
      auto strides = denseStrides(dimsOf(t));
      TensorAccess a = access(t, true, strides, -at * strides[axis]);
      a.lo[axis] = at;
      a.hi[axis] = at + dimsOf(t)[axis];
      at = a.hi[axis];
      s_.writes.push_back(std::move(a));
    }
    return s_;
  }

  Expected<IterationSpace> slice() {
    const auto& a = std::get<compute::SliceAttrs>(op_.attrs);
    begin(dimsOf(op_.outputs[0]));
    auto in = denseStrides(dimsOf(op_.inputs[0]));
    std::vector<int64_t> coeff(in.size());
    int64_t constant = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      coeff[d] = in[d] * a.steps[d];
      constant += in[d] * a.starts[d];
    }
    s_.reads.push_back(access(op_.inputs[0], false, coeff, constant));
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  // [..., M, N] plus the contracted K as the last (reduced) dim.
  void contraction(const Dims& out, int64_t k) {
    Dims d = out;
    d.push_back(k);
    begin(d);
    s_.reduced.back() = true;
    s_.compute = ComputeKind::Contract;
  }
  std::vector<int64_t> outputCoeff() const {
    auto c = denseStrides(dimsOf(op_.outputs[0]));
    c.push_back(0);
    return c;
  }

  Expected<IterationSpace> matmul() {
    const Dims &a = dimsOf(op_.inputs[0]), &b = dimsOf(op_.inputs[1]), &out = dimsOf(op_.outputs[0]);
    if (a.size() < 2 || b.size() < 2) return fail("only matrix products of rank-2 or higher operands have a template");
    contraction(out, a.back());
    size_t r = s_.dims.size();
    // A's batch dims and [M, K]; B's batch dims and [K, N]; both right-aligned to the output's batch.
    auto sa = denseStrides(a), sb = denseStrides(b);
    auto ca = rightAligned(Dims(a.begin(), a.end() - 2), r - 3, std::vector<int64_t>(sa.begin(), sa.end() - 2));
    auto cb = rightAligned(Dims(b.begin(), b.end() - 2), r - 3, std::vector<int64_t>(sb.begin(), sb.end() - 2));
    ca.insert(ca.end(), {sa[a.size() - 2], 0, 1});
    cb.insert(cb.end(), {0, 1, sb[b.size() - 2]});
    s_.reads.push_back(access(op_.inputs[0], false, ca));
    s_.reads.push_back(access(op_.inputs[1], false, cb));
    s_.writes.push_back(access(op_.outputs[0], true, outputCoeff()));
    return s_;
  }

  Expected<IterationSpace> gemm() {
    const auto& at = std::get<compute::GemmAttrs>(op_.attrs);
    const Dims &a = dimsOf(op_.inputs[0]), &out = dimsOf(op_.outputs[0]);
    if (a.size() != 2 || out.size() != 2) return fail("gemm operands must be matrices");
    int64_t k = at.transA ? a[0] : a[1];
    contraction(out, k);
    int64_t lda = a[1], ldb = dimsOf(op_.inputs[1])[1];
    s_.reads.push_back(access(op_.inputs[0], false, at.transA ? std::vector<int64_t>{1, 0, lda} : std::vector<int64_t>{lda, 0, 1}));
    s_.reads.push_back(access(op_.inputs[1], false, at.transB ? std::vector<int64_t>{0, ldb, 1} : std::vector<int64_t>{0, 1, ldb}));
    if (op_.inputs.size() > 2) {
      const Dims& c = dimsOf(op_.inputs[2]);
      if (c.size() > 2) return fail("gemm's C has more than two dimensions");
      auto cc = rightAligned(c, 2);
      cc.push_back(0);
      s_.reads.push_back(access(op_.inputs[2], false, cc));
    }
    s_.alpha = at.alpha;
    s_.beta = op_.inputs.size() > 2 ? at.beta : 0;
    s_.writes.push_back(access(op_.outputs[0], true, outputCoeff()));
    return s_;
  }

  Expected<IterationSpace> batchNorm() {
    const Dims& x = dimsOf(op_.inputs[0]);
    if (x.size() < 2) return fail("batch norm needs a channel axis");
    begin(x);
    s_.compute = ComputeKind::BatchNorm;
    s_.epsilon = std::get<compute::BatchNormAttrs>(op_.attrs).epsilon;
    s_.reads.push_back(identity(op_.inputs[0], false));
    for (size_t i = 1; i < op_.inputs.size(); ++i) {
      std::vector<int64_t> coeff(x.size(), 0);
      coeff[1] = 1;
      s_.reads.push_back(access(op_.inputs[i], false, coeff));
    }
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  // y[n,c,oh,ow] = b[c] + sum_{kh,kw} w[c,0,kh,kw] * x[n, c, oh*s + kh*d - pad, ow*s + kw*d - pad]. The x
  // access is only recorded per plane (its halo and zero padding are not affine); the emitter reads it.
  // A unit holds whole output rows: a plane, or a band of rows when a plane exceeds the registers
  // (the band's input rows overlap its neighbours' by the kernel's halo).
  Expected<IterationSpace> depthwiseConv() {
    const auto& a = std::get<compute::ConvAttrs>(op_.attrs);
    const Dims &x = dimsOf(op_.inputs[0]), &w = dimsOf(op_.inputs[1]), &out = dimsOf(op_.outputs[0]);
    auto kind = compute::convTemplate(g_, op_);
    if (kind == compute::ConvTemplate::Pointwise) return pointwiseConv(x, w);
    if (kind == compute::ConvTemplate::None)
      return fail("only depthwise 2-D and pointwise convolutions have a GIR template; others stay library calls");
    begin(out);
    s_.compute = ComputeKind::DepthwiseConv;
    s_.whole[3] = true;
    s_.band[2] = true;
    s_.conv = a;
    s_.inH = x[2];
    s_.inW = x[3];
    s_.kH = w[2];
    s_.kW = w[3];
    s_.reads.push_back(access(op_.inputs[0], false, {x[1] * x[2] * x[3], x[2] * x[3], 0, 0}));
    s_.reads.push_back(access(op_.inputs[1], false, {0, w[2] * w[3], 0, 0}));
    if (op_.inputs.size() > 2) s_.reads.push_back(access(op_.inputs[2], false, {0, 1, 0, 0}));
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  // y[n,c,oh,ow] = max or mean over the taps of x[n, c, oh*s + kh*d - pad, ow*s + kw*d - pad]: the
  // depthwise convolution's space and window (docs/plans.md), without weights. The output extent
  // already includes ceil_mode, so the last window may reach past the right and bottom pads.
  Expected<IterationSpace> pool() {
    const auto& a = std::get<compute::PoolAttrs>(op_.attrs);
    const Dims &x = dimsOf(op_.inputs[0]), &out = dimsOf(op_.outputs[0]);
    if (x.size() != 4 || out.size() != 4 || a.kernel.size() != 2) return fail("only 2-D pooling over NCHW has a GIR template");
    begin(out);
    s_.compute = ComputeKind::Pool;
    s_.whole[3] = true;
    s_.band[2] = true;
    s_.conv.strides = a.strides;
    s_.conv.pads = a.pads;
    s_.conv.dilations = a.dilations;
    s_.pool = a;
    s_.inH = x[2];
    s_.inW = x[3];
    s_.kH = a.kernel[0];
    s_.kW = a.kernel[1];
    s_.reads.push_back(access(op_.inputs[0], false, {x[1] * x[2] * x[3], x[2] * x[3], 0, 0}));
    s_.writes.push_back(identity(op_.outputs[0], true));
    return s_;
  }

  // A 1x1 convolution is a contraction over input channels: y[n,co,h,w] = b[co] + sum_ci w[co,ci] x[n,ci,h,w].
  Expected<IterationSpace> pointwiseConv(const Dims& x, const Dims& w) {
    contraction(dimsOf(op_.outputs[0]), x[1]);
    int64_t plane = x[2] * x[3];
    s_.reads.push_back(access(op_.inputs[0], false, {x[1] * plane, 0, x[3], 1, plane}));
    s_.reads.push_back(access(op_.inputs[1], false, {0, w[1], 0, 0, 1}));
    if (op_.inputs.size() > 2) s_.reads.push_back(access(op_.inputs[2], false, {0, 1, 0, 0, 0}));
    s_.beta = op_.inputs.size() > 2 ? 1 : 0;
    s_.writes.push_back(access(op_.outputs[0], true, outputCoeff()));
    return s_;
  }

  const compute::Graph& g_;
  const compute::Op& op_;
  IterationSpace s_;
};

}  // namespace

Expected<IterationSpace> iterationSpace(const compute::Graph& g, const compute::Op& op) { return SpaceBuilder(g, op).run(); }

}  // namespace gir::search
