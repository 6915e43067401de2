// The key names tensors by their role in the subgraph, never by their names.
#include "search/SearchMemo.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>

namespace gir::search {

using compute::TensorId;

namespace {

void writeShape(std::ostringstream& os, const compute::Tensor& t) {
  os << compute::dtypeName(t.dtype) << '[';
  for (size_t d = 0; d < t.dims.size(); ++d) os << (d ? "," : "") << t.dims[d];
  os << ']';
}

// Large constants (weights, a KV cache) enter the key as 128 bits of hash of their bytes: printing
// them took 15 % of a decode step's plan time. Small ones stay exact text.
constexpr size_t kConstantsPrintedUpTo = 64;

void writeValues(std::ostringstream& os, const std::vector<double>& values) {
  if (values.size() <= kConstantsPrintedUpTo) {
    for (double v : values) os << v << ',';
    return;
  }
  uint64_t fnv = 1469598103934665603ull, mix = 0x9e3779b97f4a7c15ull;
  for (double v : values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    fnv = (fnv ^ bits) * 1099511628211ull;
    mix = (mix ^ (bits + 0x9e3779b97f4a7c15ull + (mix << 6) + (mix >> 2))) * 0xff51afd7ed558ccdull;
  }
  os << "#" << values.size() << ':' << std::hex << fnv << ':' << mix << std::dec << ',';
}

}  // namespace

std::string SearchMemo::keyOf(const compute::Graph& g, const compute::Subgraph& sub) {
  std::ostringstream os;
  os.precision(17);
  std::map<TensorId, std::string> role;  // "o<op>.<slot>" inside, "i<k>" outside
  auto operand = [&](TensorId t) {
    auto it = role.find(t);
    if (it != role.end()) {
      os << it->second;
      return;
    }
    std::string r = "i" + std::to_string(role.size());
    role.emplace(t, r);
    const compute::Tensor& tensor = g.tensor(t);
    os << r << ':';
    writeShape(os, tensor);
    if (tensor.constant) {
      os << '=';
      writeValues(os, *tensor.constant);
    }
  };
  for (size_t i = 0; i < sub.ops.size(); ++i) {
    const compute::Op& op = g.op(sub.ops[i]);
    os << compute::opKindName(op.kind()) << ' ' << compute::attrsText(op) << " (";
    for (TensorId t : op.inputs) {
      operand(t);
      os << ' ';
    }
    os << ") ->";
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      role[op.outputs[k]] = "o" + std::to_string(i) + "." + std::to_string(k);
      os << ' ';
      writeShape(os, g.tensor(op.outputs[k]));
    }
    os << ";\n";
  }
  os << "outputs";
  for (TensorId t : sub.outputs) {
    os << ' ';
    operand(t);
  }
  return os.str();
}

const SearchVerdict* SearchMemo::find(const std::string& key) const {
  auto it = verdicts_.find(key);
  return it == verdicts_.end() ? nullptr : &it->second;
}

void SearchMemo::remember(const std::string& key, SearchVerdict verdict) { verdicts_.emplace(key, std::move(verdict)); }

}  // namespace gir::search
