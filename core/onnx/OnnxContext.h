// Internal to the ONNX importer: the per-node context that handlers use to read inputs and
// attributes (with type checks) and to bind outputs, and the handler tables of each op family.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/compute/GraphBuilder.h"
#include "core/onnx/OnnxImporter.h"
#include "onnx/onnx_pb.h"  // defines ONNX_API, then includes onnx-ml.pb.h (ONNX_ML=1)

namespace gir::compute::onnximpl {

class NodeContext {
 public:
  NodeContext(GraphBuilder& builder, std::map<std::string, TensorId>& values, const onnx::NodeProto& node,
              int nodeIndex, std::string file, int opset)
      : b(builder), node(node), opset(opset), values_(values), nodeIndex_(nodeIndex), file_(std::move(file)) {}

  GraphBuilder& b;
  const onnx::NodeProto& node;
  const int opset;

  // Adds file, node name and op type to a diagnostic that lacks a location.
  Diagnostic fail(Diagnostic d) const;
  Diagnostic fail(std::string reason) const { return fail(makeError(std::move(reason))); }

  int numInputs() const { return node.input_size(); }
  int numOutputs() const { return node.output_size(); }
  bool hasInput(int i) const { return i < node.input_size() && !node.input(i).empty(); }
  bool hasOutput(int i) const { return i < node.output_size() && !node.output(i).empty(); }
  Expected<TensorId> input(int i) const;
  // By value: the tensor table grows (and moves) whenever an op is emitted.
  Dims dims(TensorId t) const { return b.tensor(t).dims; }
  int rank(TensorId t) const { return static_cast<int>(b.tensor(t).dims.size()); }
  // Input i must be a constant (initializer or folded); its values as int64 / as data.
  Expected<std::vector<int64_t>> constInts(int i) const;
  Expected<TensorData> constData(int i) const;
  Status setOutput(int i, TensorId t);

  const onnx::AttributeProto* attr(const std::string& name) const;
  Expected<int64_t> intAttr(const std::string& name, int64_t def) const;
  Expected<double> floatAttr(const std::string& name, double def) const;
  Expected<std::string> stringAttr(const std::string& name, const std::string& def) const;
  Expected<std::optional<std::vector<int64_t>>> intsAttr(const std::string& name) const;
  // Normalizes an axis against `rank`; error names the attribute.
  Expected<int> axis(int64_t value, int rank, const std::string& what) const;

 private:
  Status checkType(const onnx::AttributeProto& a, onnx::AttributeProto_AttributeType want) const;

  std::map<std::string, TensorId>& values_;
  int nodeIndex_;
  std::string file_;
};

// "node 'name' (OpType)", or "node #index (OpType)" for an unnamed node.
std::string nodeLabel(const onnx::NodeProto& n, int index);
// A node's attributes as "name=value ..." for the reader (the inspector): numbers, strings, lists of up
// to 8 values; tensors and graphs by their kind only.
std::string attributesText(const onnx::NodeProto& n);

using Handler = Status (*)(NodeContext&);
using HandlerTable = std::map<std::string, Handler, std::less<>>;

void addElementwiseHandlers(HandlerTable& t);
void addActivationHandlers(HandlerTable& t);
void addReduceHandlers(HandlerTable& t);
void addLayoutHandlers(HandlerTable& t);
void addCompositeLayoutHandlers(HandlerTable& t);
void addShapeHandlers(HandlerTable& t);
void addLogicHandlers(HandlerTable& t);
void addLibraryHandlers(HandlerTable& t);
const HandlerTable& handlerTable();

// TensorProto -> TensorData with size checks; `what` labels errors.
Expected<TensorData> tensorFromProto(const onnx::TensorProto& t, const std::string& what);
Expected<DType> dtypeFromOnnx(int32_t elemType);
// Saturating double -> int64 (shape tensors hold INT64_MAX as "to the end").
int64_t toInt64(double v);

}  // namespace gir::compute::onnximpl

// Evaluates `expr` (an Expected); on error returns ctx.fail(error) from the enclosing handler.
#define GIR_TRY(var, expr)                                   \
  auto var##Result = (expr);                                 \
  if (!var##Result) return ctx.fail(var##Result.takeError()); \
  auto var = std::move(*var##Result)
#define GIR_CHECK(status)                       \
  do {                                          \
    auto st_ = (status);                        \
    if (!st_) return ctx.fail(st_.takeError()); \
  } while (0)
