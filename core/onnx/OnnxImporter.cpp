// ONNX import driver: parse (protobuf errors stay here), check opsets, inputs and op support,
// order the nodes (finding cycles and undefined inputs), run each node's handler, compact.
#include "core/onnx/OnnxImporter.h"

#include <fstream>
#include <set>
#include <sstream>

#include "core/onnx/OnnxContext.h"

namespace gir::compute {
namespace {

using namespace onnximpl;

// The state of one import: the model, the graph under construction and the ONNX value table.
class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string file, const ImportOptions& options)
      : model_(model), file_(std::move(file)), options_(options), builder_(graph_) {}
  Expected<Graph> run();

 private:
  Diagnostic error(std::string message, std::string node = "") const {
    return makeError(std::move(message), SourceLocation{file_, 0, 0, std::move(node)});
  }
  Status checkOpset();
  Status checkOpsSupported() const;
  Status addInitializers();
  Status addInputs();
  Expected<std::vector<int>> orderNodes() const;
  Status runNode(const onnx::NodeProto& node, int index);
  Status bindOutputs();

  const onnx::ModelProto& model_;
  std::string file_;
  const ImportOptions& options_;
  Graph graph_;
  GraphBuilder builder_;
  std::map<std::string, TensorId> values_;
  int opset_ = 0;
};

// The declared shape of a value when every dimension is a number; nullopt otherwise.
static std::optional<Dims> declaredDims(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return std::nullopt;
  Dims dims;
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}


Status Importer::checkOpset() {
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  if (opset_ == 0) return error("the model imports no default-domain opset");
  if (opset_ < kMinOnnxOpset || opset_ > kMaxOnnxOpset)
    return error("opset " + std::to_string(opset_) + " is not supported (supported: " + std::to_string(kMinOnnxOpset) +
                 "-" + std::to_string(kMaxOnnxOpset) + ")");
  return success();
}

Status Importer::checkOpsSupported() const {
  for (int i = 0; i < model_.graph().node_size(); ++i) {
    const auto& n = model_.graph().node(i);
    bool defaultDomain = n.domain().empty() || n.domain() == "ai.onnx";
    if (!defaultDomain || !handlerTable().count(n.op_type()))
      return error("unsupported op '" + (defaultDomain ? "" : n.domain() + ".") + n.op_type() + "'", nodeLabel(n, i));
  }
  return success();
}

Status Importer::addInitializers() {
  for (const auto& init : model_.graph().initializer()) {
    if (init.name().empty()) return error("an initializer has no name");
    auto data = tensorFromProto(init, "initializer '" + init.name() + "'");
    if (!data) return error(data.error().message);
    values_[init.name()] = builder_.constant(std::move(*data), init.name());
  }
  if (model_.graph().sparse_initializer_size() > 0) return error("sparse initializers are not supported");
  return success();
}

// Run-time inputs need a float32 type and a static shape; bound inputs become constants.
Status Importer::addInputs() {
  for (const auto& in : model_.graph().input()) {
    if (values_.count(in.name())) continue;  // an initializer listed as input (IR < 4)
    if (auto it = options_.constantInputs.find(in.name()); it != options_.constantInputs.end()) {
      auto declared = dtypeFromOnnx(in.type().tensor_type().elem_type());
      if (!declared || *declared != it->second.dtype)
        return error("the value bound to input '" + in.name() + "' has type " +
                     std::string(dtypeName(it->second.dtype)) + ", which differs from the declared type");
      values_[in.name()] = builder_.constant(it->second, in.name());
      continue;
    }
    std::string label = "input '" + in.name() + "'";
    if (!in.type().has_tensor_type()) return error(label + " is not a tensor");
    const auto& tt = in.type().tensor_type();
    auto dtype = dtypeFromOnnx(tt.elem_type());
    if (!dtype) return error(label + ": " + dtype.error().message);
    if (*dtype != DType::F32)
      return error(label + " has type " + std::string(dtypeName(*dtype)) + "; only f32 run-time inputs are supported");
    if (!tt.has_shape()) return error(label + " has no static shape (unknown rank)");
    Dims dims;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_param()) return error(label + " has a dynamic dimension '" + d.dim_param() + "'");
      if (!d.has_dim_value() || d.dim_value() < 0) return error(label + " has a dynamic or invalid dimension");
      dims.push_back(d.dim_value());
    }
    if (numElements(dims) > kMaxTensorElements) return error(label + " is too large (more than 2^31 elements)");
    TensorId t = graph_.addTensor(in.name(), DType::F32, dims);
    graph_.inputs.push_back(t);
    values_[in.name()] = t;
  }
  return success();
}

// Kahn's algorithm in file order; what remains is either a cycle or reads an undefined value.
Expected<std::vector<int>> Importer::orderNodes() const {
  const auto& nodes = model_.graph().node();
  std::set<std::string> available;
  for (const auto& [name, id] : values_) available.insert(name);
  std::set<std::string> producedSomewhere;
  for (const auto& n : nodes)
    for (const auto& o : n.output()) producedSomewhere.insert(o);
  std::vector<int> order;
  std::vector<bool> done(nodes.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = 0; i < nodes.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (const auto& in : nodes[i].input()) ready = ready && (in.empty() || available.count(in));
      if (!ready) continue;
      done[i] = progress = true;
      order.push_back(i);
      for (const auto& o : nodes[i].output()) available.insert(o);
    }
  }
  for (int i = 0; i < nodes.size(); ++i) {
    if (done[i]) continue;
    for (const auto& in : nodes[i].input())
      if (!in.empty() && !available.count(in) && !producedSomewhere.count(in))
        return error("input '" + in + "' is not a graph input, an initializer or a node output (missing initializer?)",
                     nodeLabel(nodes[i], i));
    return error("the graph has a cycle through this node", nodeLabel(nodes[i], i));
  }
  return order;
}

Status Importer::runNode(const onnx::NodeProto& node, int index) {
  for (const auto& o : node.output())
    if (!o.empty() && values_.count(o)) return error("value '" + o + "' is defined twice", nodeLabel(node, index));
  std::string name = node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  builder_.setContext(name, node.op_type(), attributesText(node));
  NodeContext ctx(builder_, values_, node, index, file_, opset_);
  Handler handler = handlerTable().find(node.op_type())->second;
  if (auto st = handler(ctx); !st) return st;
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty() && !values_.count(node.output(i)))
      return error("output " + std::to_string(i) + " ('" + node.output(i) + "') is not supported", nodeLabel(node, index));
  return success();
}

Status Importer::bindOutputs() {
  for (const auto& out : model_.graph().output()) {
    auto it = values_.find(out.name());
    if (it == values_.end()) return error("graph output '" + out.name() + "' is never computed");
    // A fully static declared shape must agree with the inferred one: a disagreement means the
    // model and the importer read some op differently, and a silently different graph is worse
    // than a refusal.
    if (auto declared = declaredDims(out); declared && *declared != graph_.tensor(it->second).dims)
      return error("graph output '" + out.name() + "' is declared " + dimsToString(*declared) + " but computes " +
                   dimsToString(graph_.tensor(it->second).dims));
    graph_.outputs.push_back(it->second);
  }
  if (graph_.outputs.empty()) return error("the graph has no outputs");
  return success();
}

Expected<Graph> Importer::run() {
  graph_.name = model_.graph().name();
  if (auto st = checkOpsSupported(); !st) return st.takeError();
  if (auto st = checkOpset(); !st) return st.takeError();
  if (auto st = addInitializers(); !st) return st.takeError();
  if (auto st = addInputs(); !st) return st.takeError();
  auto order = orderNodes();
  if (!order) return order.takeError();
  for (int i : *order)
    if (auto st = runNode(model_.graph().node(i), i); !st) return st.takeError();
  if (auto st = bindOutputs(); !st) return st.takeError();
  return compactGraph(graph_);
}

}  // namespace

static Expected<onnx::ModelProto> parseModel(const std::string& bytes, const SourceLocation& loc) {
  onnx::ModelProto model;
  if (bytes.empty()) return makeError("the file is empty", loc);
  if (!model.ParseFromString(bytes)) return makeError("not a valid ONNX model (protobuf parse failed: truncated or corrupt file)", loc);
  if (!model.has_graph()) return makeError("the model has no graph", loc);
  return model;
}

Expected<Graph> importOnnxBytes(const std::string& bytes, const std::string& fileName, const ImportOptions& options) {
  SourceLocation loc{fileName, 0, 0, ""};
  try {
    auto model = parseModel(bytes, loc);
    if (!model) return model.takeError();
    Importer importer(*model, fileName, options);
    return importer.run();
  } catch (const std::exception& e) {
    return makeError(std::string("protobuf error: ") + e.what(), loc);
  }
}

Expected<std::vector<std::string>> onnxModelOpTypes(const std::string& path) {
  SourceLocation loc{path, 0, 0, ""};
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError("cannot open file", loc);
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    auto model = parseModel(ss.str(), loc);
    if (!model) return model.takeError();
    std::vector<std::string> ops;
    for (const auto& n : model->graph().node())
      ops.push_back(n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type() : n.domain() + "." + n.op_type());
    return ops;
  } catch (const std::exception& e) {
    return makeError(std::string("protobuf error: ") + e.what(), loc);
  }
}

Expected<Graph> importOnnxFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError("cannot open file", SourceLocation{path, 0, 0, ""});
  std::stringstream ss;
  ss << in.rdbuf();
  return importOnnxBytes(ss.str(), path, options);
}

static Expected<onnx::TensorProto> readTensorProto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError("cannot open file", SourceLocation{path, 0, 0, ""});
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::TensorProto t;
  try {
    if (!t.ParseFromString(ss.str())) return makeError("not a valid TensorProto", SourceLocation{path, 0, 0, ""});
  } catch (const std::exception& e) {
    return makeError(std::string("protobuf error: ") + e.what(), SourceLocation{path, 0, 0, ""});
  }
  return t;
}

Expected<TensorData> loadOnnxTensorFile(const std::string& path) {
  auto t = readTensorProto(path);
  if (!t) return t.takeError();
  auto data = tensorFromProto(*t, "tensor '" + t->name() + "'");
  if (!data) return makeError(data.error().message, SourceLocation{path, 0, 0, ""});
  return data;
}

Expected<std::string> onnxTensorFileName(const std::string& path) {
  auto t = readTensorProto(path);
  if (!t) return t.takeError();
  return t->name();
}

std::vector<std::string> claimedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto& [name, fn] : handlerTable()) ops.push_back(name);
  return ops;
}

bool isClaimedOnnxOp(std::string_view opType) { return handlerTable().count(opType) > 0; }

namespace onnximpl {
const HandlerTable& handlerTable() {
  static const HandlerTable table = [] {
    HandlerTable t;
    addElementwiseHandlers(t);
    addActivationHandlers(t);
    addReduceHandlers(t);
    addLayoutHandlers(t);
    addCompositeLayoutHandlers(t);
    addShapeHandlers(t);
    addLogicHandlers(t);
    addLibraryHandlers(t);
    return t;
  }();
  return table;
}
}  // namespace onnximpl

}  // namespace gir::compute
