// Builds a computation graph op by op: infers output shapes, checks operands, inserts explicit
// broadcasts, and folds every op whose inputs are all constants (through the reference evaluator),
// so shape arithmetic and initializer-only chains never reach the graph (docs/import.md, "GraphBuilder").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/Expected.h"
#include "core/compute/ComputeGraph.h"

namespace gir::compute {

// An elementwise operand: a tensor or a scalar constant.
struct Operand {
  Operand(TensorId t) : tensor(t) {}
  Operand(double v) : scalar(v) {}
  std::optional<TensorId> tensor;
  double scalar = 0;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& graph) : g_(graph) {}

  // Ops emitted after this call are named `opName`, `opName#1`, ... and record `source`.
  void setContext(std::string opName, std::string source, std::string sourceAttributes = "");
  Graph& graph() { return g_; }
  const Tensor& tensor(TensorId t) const { return g_.tensor(t); }
  bool isConstant(TensorId t) const { return g_.tensor(t).isConstant(); }
  const std::string& contextName() const { return context_; }

  TensorId constant(TensorData data, std::string name = "");
  TensorId scalar(double v, DType dtype = DType::F32);

  // n-ary elementwise with numpy broadcasting of the tensor operands.
  Expected<TensorId> elementwise(ElementwiseOp fn, std::vector<Operand> args);
  Expected<TensorId> unary(ElementwiseOp fn, Operand x) { return elementwise(fn, {x}); }
  Expected<TensorId> binary(ElementwiseOp fn, Operand a, Operand b) { return elementwise(fn, {a, b}); }
  // fold=false keeps the broadcast of a constant as an op, so a small constant (a bias) feeding a
  // run-time op is not materialized at the full shape.
  Expected<TensorId> broadcastTo(TensorId x, const Dims& dims, bool fold = true);
  Expected<TensorId> reduce(ReduceOp fn, TensorId x, std::vector<int> axes, bool keepDims);
  Expected<TensorId> transpose(TensorId x, std::vector<int> perm);
  Expected<TensorId> reshape(TensorId x, Dims dims, std::string from = "Reshape");
  Expected<TensorId> concat(const std::vector<TensorId>& xs, int axis);
  Expected<std::vector<TensorId>> split(TensorId x, int axis, std::vector<int64_t> sizes);
  // Per axis: start, step and output extent; indices must stay inside the input.
  Expected<TensorId> slice(TensorId x, std::vector<int64_t> starts, std::vector<int64_t> steps, Dims outDims);
  Expected<TensorId> matmul(TensorId a, TensorId b);
  Expected<TensorId> gemm(TensorId a, TensorId b, std::optional<TensorId> c, GemmAttrs attrs);
  Expected<TensorId> conv(TensorId x, TensorId w, std::optional<TensorId> bias, ConvAttrs attrs);
  Expected<TensorId> batchNorm(const std::vector<TensorId>& xScaleBiasMeanVar, BatchNormAttrs attrs);
  Expected<TensorId> pool(TensorId x, PoolAttrs attrs, bool ceilMode);

 private:
  Expected<std::vector<TensorId>> emit(OpAttrs attrs, std::vector<TensorId> inputs,
                                       const std::vector<std::pair<DType, Dims>>& outs, bool fold = true);
  Status prepareRuntimeInputs(std::vector<TensorId>& inputs);
  std::string nextOpName();
  std::string nextTensorName();

  Graph& g_;
  std::string context_ = "op";
  std::string source_, sourceAttributes_;
  int opCounter_ = 0;
  int tensorCounter_ = 0;
};

// Numpy broadcast of two shapes; an error names both.
Expected<Dims> broadcastDims(const Dims& a, const Dims& b);

}  // namespace gir::compute
