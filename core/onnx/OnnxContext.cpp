// The ONNX importer's node context: typed attribute access, inputs, outputs, TensorProto decoding.
#include "core/onnx/OnnxContext.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace gir::compute::onnximpl {

int64_t toInt64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9.2e18) return INT64_MAX;
  if (v <= -9.2e18) return INT64_MIN;
  return static_cast<int64_t>(v);
}

std::string nodeLabel(const onnx::NodeProto& n, int index) {
  if (n.name().empty()) return "node #" + std::to_string(index) + " (" + n.op_type() + ")";
  return "node '" + n.name() + "' (" + n.op_type() + ")";
}

Diagnostic NodeContext::fail(Diagnostic d) const {
  if (d.location.file.empty() && d.location.node.empty()) {
    d.location.file = file_;
    d.location.node = nodeLabel(node, nodeIndex_);
  }
  return d;
}

Expected<TensorId> NodeContext::input(int i) const {
  if (!hasInput(i)) return fail("input " + std::to_string(i) + " is required but missing");
  auto it = values_.find(node.input(i));
  if (it == values_.end()) return fail("input '" + node.input(i) + "' is not defined");
  return it->second;
}

Expected<TensorData> NodeContext::constData(int i) const {
  auto t = input(i);
  if (!t) return t.takeError();
  const Tensor& x = b.tensor(*t);
  if (!x.isConstant())
    return fail("input " + std::to_string(i) + " ('" + node.input(i) + "') must be a constant (an initializer or computable from initializers and static shapes)");
  return TensorData{x.dtype, x.dims, *x.constant};
}

Expected<std::vector<int64_t>> NodeContext::constInts(int i) const {
  auto d = constData(i);
  if (!d) return d.takeError();
  std::vector<int64_t> out;
  for (double v : d->values) out.push_back(toInt64(v));
  return out;
}

Status NodeContext::setOutput(int i, TensorId t) {
  if (!hasOutput(i)) return success();
  const std::string& name = node.output(i);
  Tensor& x = b.graph().tensor(t);
  // Tensors made for this node take the ONNX name; aliases of older tensors keep theirs.
  if (x.name.rfind(b.contextName() + ":", 0) == 0) x.name = name;
  values_[name] = t;
  return success();
}

namespace {

template <typename List, typename Format>
std::string listText(const List& values, Format format) {
  std::string s = "[";
  for (int i = 0; i < values.size() && i < 8; ++i) s += (i ? "," : "") + format(values.Get(i));
  return s + (values.size() > 8 ? ",...]" : "]");
}

std::string floatText(float f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(f));
  return buf;
}

std::string stringText(const std::string& s) { return s.size() <= 40 ? s : s.substr(0, 40) + "..."; }

}  // namespace

std::string attributesText(const onnx::NodeProto& n) {
  std::string out;
  for (const auto& a : n.attribute()) {
    std::string v;
    switch (a.type()) {
      case onnx::AttributeProto::INT: v = std::to_string(a.i()); break;
      case onnx::AttributeProto::FLOAT: v = floatText(a.f()); break;
      case onnx::AttributeProto::STRING: v = stringText(a.s()); break;
      case onnx::AttributeProto::INTS: v = listText(a.ints(), [](int64_t x) { return std::to_string(x); }); break;
      case onnx::AttributeProto::FLOATS: v = listText(a.floats(), floatText); break;
      case onnx::AttributeProto::STRINGS: v = listText(a.strings(), stringText); break;
      case onnx::AttributeProto::TENSOR: v = "<tensor>"; break;
      default: v = "<" + std::to_string(static_cast<int>(a.type())) + ">"; break;
    }
    out += (out.empty() ? "" : " ") + stringText(a.name()) + "=" + v;
  }
  return out;
}

const onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

static const char* attrTypeName(int t) {
  switch (t) {
    case onnx::AttributeProto::FLOAT: return "FLOAT";
    case onnx::AttributeProto::INT: return "INT";
    case onnx::AttributeProto::STRING: return "STRING";
    case onnx::AttributeProto::TENSOR: return "TENSOR";
    case onnx::AttributeProto::GRAPH: return "GRAPH";
    case onnx::AttributeProto::FLOATS: return "FLOATS";
    case onnx::AttributeProto::INTS: return "INTS";
    case onnx::AttributeProto::STRINGS: return "STRINGS";
    default: return "an unsupported type";
  }
}

Status NodeContext::checkType(const onnx::AttributeProto& a, onnx::AttributeProto_AttributeType want) const {
  if (a.type() == want) return success();
  return fail("attribute '" + a.name() + "' has type " + attrTypeName(a.type()) + ", expected " + attrTypeName(want));
}

Expected<int64_t> NodeContext::intAttr(const std::string& name, int64_t def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (auto st = checkType(*a, onnx::AttributeProto::INT); !st) return st.takeError();
  return a->i();
}

Expected<double> NodeContext::floatAttr(const std::string& name, double def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (auto st = checkType(*a, onnx::AttributeProto::FLOAT); !st) return st.takeError();
  return static_cast<double>(a->f());
}

Expected<std::string> NodeContext::stringAttr(const std::string& name, const std::string& def) const {
  const auto* a = attr(name);
  if (!a) return def;
  if (auto st = checkType(*a, onnx::AttributeProto::STRING); !st) return st.takeError();
  return a->s();
}

Expected<std::optional<std::vector<int64_t>>> NodeContext::intsAttr(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return std::optional<std::vector<int64_t>>{};
  if (auto st = checkType(*a, onnx::AttributeProto::INTS); !st) return st.takeError();
  return std::optional<std::vector<int64_t>>(std::vector<int64_t>(a->ints().begin(), a->ints().end()));
}

Expected<int> NodeContext::axis(int64_t value, int r, const std::string& what) const {
  if (value < -r || value >= r)
    return fail(what + " " + std::to_string(value) + " is out of range for a rank-" + std::to_string(r) + " input");
  return static_cast<int>(value < 0 ? value + r : value);
}

Expected<DType> dtypeFromOnnx(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT: return DType::F32;
    case onnx::TensorProto::FLOAT16: return DType::F16;
    case onnx::TensorProto::BFLOAT16: return DType::BF16;
    case onnx::TensorProto::DOUBLE: return DType::F64;
    case onnx::TensorProto::BOOL: return DType::Bool;
    case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32:
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64:
      return DType::I64;
    default:
      return makeError("element type " + std::to_string(t) + " (" +
                       (onnx::TensorProto_DataType_IsValid(t) ? onnx::TensorProto_DataType_Name(t) : std::string("invalid")) +
                       ") is not supported");
  }
}

static double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp(mant + 1024, exp - 25);
}

static double bfloatToDouble(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Decodes one element of raw little-endian data.
static double rawElement(int32_t type, const char* p) {
  auto load = [p](auto v) { std::memcpy(&v, p, sizeof v); return v; };
  switch (type) {
    case onnx::TensorProto::FLOAT: return load(float{});
    case onnx::TensorProto::DOUBLE: return load(double{});
    case onnx::TensorProto::INT8: return load(int8_t{});
    case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL: return load(uint8_t{});
    case onnx::TensorProto::INT16: return load(int16_t{});
    case onnx::TensorProto::UINT16: return load(uint16_t{});
    case onnx::TensorProto::INT32: return load(int32_t{});
    case onnx::TensorProto::UINT32: return load(uint32_t{});
    case onnx::TensorProto::INT64: return static_cast<double>(load(int64_t{}));
    case onnx::TensorProto::UINT64: return static_cast<double>(load(uint64_t{}));
    case onnx::TensorProto::FLOAT16: return halfToDouble(load(uint16_t{}));
    case onnx::TensorProto::BFLOAT16: return bfloatToDouble(load(uint16_t{}));
    default: return 0;
  }
}

static int64_t rawElementSize(int32_t type) {
  switch (type) {
    case onnx::TensorProto::DOUBLE: case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: return 8;
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16: case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    default: return 1;
  }
}

// The typed repeated field that holds this element type's values.
static std::vector<double> typedValues(const onnx::TensorProto& t) {
  std::vector<double> v;
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT: for (float x : t.float_data()) v.push_back(x); break;
    case onnx::TensorProto::DOUBLE: for (double x : t.double_data()) v.push_back(x); break;
    case onnx::TensorProto::INT64: for (int64_t x : t.int64_data()) v.push_back(static_cast<double>(x)); break;
    case onnx::TensorProto::UINT32: case onnx::TensorProto::UINT64:
      for (uint64_t x : t.uint64_data()) v.push_back(static_cast<double>(x));
      break;
    case onnx::TensorProto::FLOAT16:
      for (int32_t x : t.int32_data()) v.push_back(halfToDouble(static_cast<uint16_t>(x)));
      break;
    case onnx::TensorProto::BFLOAT16:
      for (int32_t x : t.int32_data()) v.push_back(bfloatToDouble(static_cast<uint16_t>(x)));
      break;
    default: for (int32_t x : t.int32_data()) v.push_back(x); break;
  }
  return v;
}

Expected<TensorData> tensorFromProto(const onnx::TensorProto& t, const std::string& what) {
  auto dtype = dtypeFromOnnx(t.data_type());
  if (!dtype) return makeError(what + ": " + dtype.error().message);
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return makeError(what + ": external tensor data is not supported");
  TensorData out{*dtype, {}, {}};
  for (int64_t d : t.dims()) {
    if (d < 0 || d > (int64_t{1} << 40)) return makeError(what + ": dimension " + std::to_string(d) + " is invalid");
    out.dims.push_back(d);
  }
  int64_t n = numElements(out.dims);
  if (n > kMaxFoldedElements) return makeError(what + ": tensor is too large (more than 2^24 elements)");
  if (t.has_raw_data()) {
    int64_t size = rawElementSize(t.data_type());
    if (static_cast<int64_t>(t.raw_data().size()) != n * size)
      return makeError(what + ": raw data holds " + std::to_string(t.raw_data().size()) + " bytes, expected " + std::to_string(n * size));
    for (int64_t i = 0; i < n; ++i) out.values.push_back(rawElement(t.data_type(), t.raw_data().data() + i * size));
  } else {
    out.values = typedValues(t);
    if (static_cast<int64_t>(out.values.size()) != n)
      return makeError(what + ": holds " + std::to_string(out.values.size()) + " values, expected " + std::to_string(n));
  }
  for (double& v : out.values) v = roundToDType(out.dtype, v);
  return out;
}

}  // namespace gir::compute::onnximpl
