// The computation graph (docs/import.md, "Computation graph"; GIR paper section 6): tensors with static shapes and
// operators of the four basic kinds (elementwise, broadcast, reduce, transpose), layout ops and
// library ops. A plain value type linked by dense ids; later layers lower each op to GIR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/gir/ScalarOps.h"

namespace gir::compute {

// Element types. Only F32 flows at run time; the others exist for constants (shape arithmetic,
// masks) that the importer folds, and F16/BF16 are reserved for later.
enum class DType { F32, F16, BF16, F64, I64, Bool };

std::string_view dtypeName(DType t);
int64_t dtypeBytes(DType t);
// Rounds a double to the nearest value representable in t (the storage rule of TensorData).
double roundToDType(DType t, double v);

using Dims = std::vector<int64_t>;
int64_t numElements(const Dims& dims);  // saturates at INT64_MAX
// Largest tensor the graph accepts, and the largest the builder folds to a constant.
constexpr int64_t kMaxTensorElements = int64_t{1} << 31;
constexpr int64_t kMaxFoldedElements = int64_t{1} << 24;
Dims rowMajorStrides(const Dims& dims);
std::string dimsToString(const Dims& dims);  // "[1,116,28,28]"

// Values of a tensor. Each value is exactly representable in dtype (see roundToDType), so one
// container serves f32 data, int64 shape tensors and bool masks alike.
struct TensorData {
  DType dtype = DType::F32;
  Dims dims;
  std::vector<double> values;
};

enum class TensorId : int32_t {};
enum class OpId : int32_t {};
inline int32_t index(TensorId id) { return static_cast<int32_t>(id); }
inline int32_t index(OpId id) { return static_cast<int32_t>(id); }

struct Tensor {
  TensorId id{};
  std::string name;
  DType dtype = DType::F32;
  Dims dims;
  std::optional<std::vector<double>> constant;  // set for initializers and folded values
  bool isConstant() const { return constant.has_value(); }
};

// ---- Operator attributes: one struct per kind, every field explicit ----

// One operand of an elementwise op: the op's input number `input`, or a scalar constant.
struct ElementwiseArg {
  int input = -1;  // index into Op::inputs; -1 means `scalar`
  double scalar = 0;
};
struct ElementwiseAttrs {
  ElementwiseOp fn = ElementwiseOp::Copy;
  std::vector<ElementwiseArg> args;  // arity(fn) operands; tensor inputs have the output's shape
};
// Numpy broadcast of the single input to the output shape (right-aligned; extents 1 stretch).
struct BroadcastAttrs {
  std::vector<int> axes;  // output axes that are broadcast (absent in the input or extent 1 there)
};
struct ReduceAttrs {
  ReduceOp fn = ReduceOp::Sum;
  std::vector<int> axes;  // sorted, unique input axes
  bool keepDims = true;
};
struct TransposeAttrs {
  std::vector<int> perm;  // output axis i is input axis perm[i]
};
// Row-major reinterpretation; `from` says which ONNX op it came from (Reshape, Flatten, Squeeze...).
struct ReshapeAttrs {
  std::string from;
};
struct ConcatAttrs {
  int axis = 0;
};
struct SplitAttrs {
  int axis = 0;
  std::vector<int64_t> sizes;  // one per output
};
// Per input axis: output index i reads input index starts[a] + i * steps[a]; steps may be negative.
struct SliceAttrs {
  std::vector<int64_t> starts;
  std::vector<int64_t> steps;
};
// Batched matrix product [..., M, K] x [..., K, N]; batch dims broadcast (numpy).
struct MatMulAttrs {};
// alpha * op(A) * op(B) + beta * C, A and B 2-D; C (optional third input) has the output's shape.
struct GemmAttrs {
  bool transA = false;
  bool transB = false;
  double alpha = 1;
  double beta = 1;
};
// 2-D convolution, NCHW input, [Cout, Cin/group, kH, kW] weights, optional bias [Cout].
struct ConvAttrs {
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> pads{0, 0, 0, 0};  // top, left, bottom, right
  std::vector<int64_t> dilations{1, 1};
  int64_t group = 1;
};
// Inference batch norm: inputs x, scale, bias, mean, var (per channel, axis 1).
struct BatchNormAttrs {
  double epsilon = 1e-5;
};
enum class PoolKind { Max, Average };
// 2-D pooling over NCHW; output extent already includes ceil_mode.
struct PoolAttrs {
  PoolKind kind = PoolKind::Max;
  std::vector<int64_t> kernel{1, 1};
  std::vector<int64_t> strides{1, 1};
  std::vector<int64_t> pads{0, 0, 0, 0};
  std::vector<int64_t> dilations{1, 1};
  bool countIncludePad = false;
};

enum class OpKind {
  Elementwise, Broadcast, Reduce, Transpose,    // the paper's four basic operators
  Reshape, Concat, Split, Slice,                // layout ops (index maps)
  MatMul, Gemm, Conv, BatchNorm, Pool,          // library ops
};
using OpAttrs = std::variant<ElementwiseAttrs, BroadcastAttrs, ReduceAttrs, TransposeAttrs, ReshapeAttrs,
                             ConcatAttrs, SplitAttrs, SliceAttrs, MatMulAttrs, GemmAttrs, ConvAttrs,
                             BatchNormAttrs, PoolAttrs>;

std::string_view opKindName(OpKind k);
bool isLibraryKind(OpKind k);

struct Op {
  OpId id{};
  std::string name;    // unique; the ONNX node name plus a suffix for decomposed parts
  std::string source;  // the ONNX op type it came from ("Softmax"), for the reader
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  OpAttrs attrs;
  std::string sourceAttributes;  // the ONNX node's attributes, "axis=-1 epsilon=1e-12", for the reader
  OpKind kind() const { return static_cast<OpKind>(attrs.index()); }
};

// Owns tensors and ops; ops are kept in a topological order (producers first).
struct Graph {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<TensorId> inputs;   // run-time inputs, in model order
  std::vector<TensorId> outputs;  // in model order

  const Tensor& tensor(TensorId id) const { return tensors[index(id)]; }
  Tensor& tensor(TensorId id) { return tensors[index(id)]; }
  const Op& op(OpId id) const { return ops[index(id)]; }
  TensorId addTensor(std::string name, DType dtype, Dims dims);
  // Producer of each tensor (nullopt for inputs and constants).
  std::vector<std::optional<OpId>> producers() const;
  // Consumers of each tensor, in op order.
  std::vector<std::vector<OpId>> consumers() const;
};

// Drops ops whose outputs nobody needs and tensors nobody references; renumbers densely.
Graph compactGraph(const Graph& g);
// One line per op: "%5 = reduce.sum axes[1] keep (%4) -> f32[64,1]  # Softmax 'sm'".
std::string printGraph(const Graph& g);
std::string describeOp(const Graph& g, const Op& op);
// The op's attributes as the printer writes them (empty for kinds without attributes).
std::string attrsText(const Op& op);

}  // namespace gir::compute
