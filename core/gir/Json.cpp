// JSON <-> Graph. Every field is checked; a wrong one gives the JSON path and the reason.
#include "core/gir/Json.h"

#include <map>

#include <nlohmann/json.hpp>

#include "core/AtomicFile.h"
#include "core/JsonText.h"
#include "core/gir/Parser.h"
#include "core/gir/OpSpelling.h"

namespace gir {

using nlohmann::json;

namespace {

std::string sliceKey(SliceId s) { return "s" + std::to_string(s.value); }

json nodeToJson(const Node& n) {
  json j;
  auto slices = [](const std::vector<SliceId>& v) {
    json a = json::array();
    for (auto s : v) a.push_back(sliceKey(s));
    return a;
  };
  std::visit([&](const auto& p) {
    using P = std::decay_t<decltype(p)>;
    j["op"] = opSpelling(n);
    if constexpr (std::is_same_v<P, ElementwisePayload>) {
      json ops = json::array();
      for (const auto& o : p.operands) ops.push_back(o.isImmediate() ? json(o.value) : json(sliceKey(n.inputs[o.input])));
      j["operands"] = ops;
    }
    if constexpr (std::is_same_v<P, ReducePayload>) j["axes"] = p.axes;
    if constexpr (std::is_same_v<P, BroadcastPayload>) j["axes"] = p.axes;
    if constexpr (std::is_same_v<P, SyncPayload>) j["scope"] = scopeName(p.scope);
  }, n.payload);
  if (n.kind() != NodeKind::Elementwise) j["inputs"] = slices(n.inputs);
  j["outputs"] = slices(n.outputs);
  if (n.domain) j["domain"] = {n.domain->begin, n.domain->end};
  return j;
}

}  // namespace

std::string graphToJson(const Graph& graph) {
  Graph g = topologicalOrder(graph) ? graph.compacted() : graph;
  json root;
  root["gir"] = 1;
  root["name"] = g.name;
  if (!g.target.empty()) root["target"] = g.target;
  root["units"] = g.units;
  root["block"] = g.unitsPerBlock;
  json levels = json::array();
  for (const auto& l : g.levels) levels.push_back({{"name", l.name}, {"scope", scopeName(l.scope)}, {"capacity_bytes", l.capacityBytes}});
  root["levels"] = levels;
  json buffers = json::array();
  for (const auto& b : g.buffers()) {
    if (b.erased) continue;
    json jb = {{"name", b.name}, {"level", b.level}, {"dtype", "f32"}, {"shape", b.shape}};
    if (b.role != BufferRole::Temp) jb["role"] = roleName(b.role);
    buffers.push_back(jb);
  }
  root["buffers"] = buffers;
  json slices = json::array();
  for (uint32_t i = 0; i < g.slices().size(); ++i) {
    const auto& s = g.slices()[i];
    if (s.erased) continue;
    slices.push_back({{"name", sliceKey(SliceId(i))}, {"buffer", g.buffer(s.buffer).name}, {"offset", s.offset.str()},
                      {"shape", s.shape}, {"strides", s.strides}});
  }
  root["slices"] = slices;
  json nodes = json::array();
  for (const auto& n : g.nodes())
    if (!n.erased) nodes.push_back(nodeToJson(n));
  root["nodes"] = nodes;
  return root.dump(1) + "\n";
}

namespace {

// Reads a JSON document into a Graph; the first problem wins and names its JSON path.
class JsonGraphReader {
 public:
  explicit JsonGraphReader(const std::string& file) : file_(file) {}

  Expected<Graph> run(const json& root) {
    if (!root.is_object()) return fail("", "expected a JSON object");
    if (!root.contains("gir")) return fail("gir", "is missing (not a GIR JSON file?)");
    g_.name = str(root, "name", "");
    if (root.contains("target")) g_.target = str(root, "target", "");
    g_.units = integer(root, "units", "", 1);
    g_.unitsPerBlock = integer(root, "block", "", 1);
    if (error_) return *error_;
    readLevels(array(root, "levels", ""));
    readBuffers(array(root, "buffers", ""));
    readSlices(array(root, "slices", ""));
    readNodes(array(root, "nodes", ""));
    if (error_) return *error_;
    return std::move(g_);
  }

 private:
  Diagnostic fail(const std::string& path, const std::string& why) {
    if (!error_) error_ = makeError(why, SourceLocation{file_, 0, 0, path.empty() ? "" : "field '" + path + "'"});
    return *error_;
  }

  const json* field(const json& o, const std::string& key, const std::string& path) {
    if (error_) return nullptr;
    if (!o.is_object()) { fail(path, "expected an object"); return nullptr; }
    auto it = o.find(key);
    if (it == o.end()) { fail(path + key, "is missing"); return nullptr; }
    return &*it;
  }
  std::string str(const json& o, const std::string& key, const std::string& path) {
    const json* v = field(o, key, path);
    if (!v) return {};
    if (!v->is_string()) { fail(path + key, std::string("expected a string, got ") + v->type_name()); return {}; }
    return v->get<std::string>();
  }
  int64_t integer(const json& o, const std::string& key, const std::string& path, int64_t min) {
    const json* v = field(o, key, path);
    if (!v) return min;
    if (!v->is_number_integer()) { fail(path + key, "expected an integer, got " + v->dump()); return min; }
    int64_t i = v->get<int64_t>();
    if (i < min) fail(path + key, "must be at least " + std::to_string(min));
    return i;
  }
  const json& array(const json& o, const std::string& key, const std::string& path) {
    static const json empty = json::array();
    const json* v = field(o, key, path);
    if (!v) return empty;
    if (!v->is_array()) { fail(path + key, std::string("expected an array, got ") + v->type_name()); return empty; }
    return *v;
  }
  std::vector<int64_t> ints(const json& o, const std::string& key, const std::string& path) {
    std::vector<int64_t> out;
    for (const auto& e : array(o, key, path)) {
      if (!e.is_number_integer()) { fail(path + key, "expected integers, got " + e.dump()); return out; }
      out.push_back(e.get<int64_t>());
    }
    return out;
  }

  void readLevels(const json& a) {
    for (size_t i = 0; i < a.size() && !error_; ++i) {
      std::string p = "levels[" + std::to_string(i) + "].";
      LevelDecl l;
      l.name = str(a[i], "name", p);
      auto s = parseScope(str(a[i], "scope", p));
      if (error_) return;
      if (!s || *s == Scope::Lane) { fail(p + "scope", "expected unit, block or device"); return; }
      l.scope = *s;
      l.capacityBytes = integer(a[i], "capacity_bytes", p, 0);
      if (g_.level(l.name)) { fail(p + "name", "duplicate level '" + l.name + "'"); return; }
      g_.levels.push_back(l);
    }
  }

  void readBuffers(const json& a) {
    for (size_t i = 0; i < a.size() && !error_; ++i) {
      std::string p = "buffers[" + std::to_string(i) + "].";
      Buffer b;
      b.name = str(a[i], "name", p);
      b.level = str(a[i], "level", p);
      std::string dtype = str(a[i], "dtype", p);
      b.shape = ints(a[i], "shape", p);
      if (error_) return;
      if (!g_.level(b.level)) { fail(p + "level", "unknown level '" + b.level + "'"); return; }
      if (dtype != "f32") { fail(p + "dtype", "only f32 is supported, got '" + dtype + "'"); return; }
      if (a[i].contains("role")) {
        std::string r = str(a[i], "role", p);
        if (r == "input") b.role = BufferRole::Input;
        else if (r == "output") b.role = BufferRole::Output;
        else { fail(p + "role", "expected input or output, got '" + r + "'"); return; }
      }
      if (names_.count(b.name)) { fail(p + "name", "duplicate name '" + b.name + "'"); return; }
      names_[b.name] = {true, g_.addBuffer(b).value};
    }
  }

  void readSlices(const json& a) {
    for (size_t i = 0; i < a.size() && !error_; ++i) {
      std::string p = "slices[" + std::to_string(i) + "].";
      std::string n = str(a[i], "name", p);
      std::string buf = str(a[i], "buffer", p);
      std::string off = str(a[i], "offset", p);
      MemorySlice s;
      s.shape = ints(a[i], "shape", p);
      s.strides = ints(a[i], "strides", p);
      if (error_) return;
      auto it = names_.find(buf);
      if (it == names_.end() || !it->second.first) { fail(p + "buffer", "undefined buffer '" + buf + "'"); return; }
      s.buffer = BufferId(it->second.second);
      auto parsed = AffineIndex::parse(off);
      if (!parsed) { fail(p + "offset", parsed.error().message); return; }
      s.offset = *parsed;
      if (names_.count(n)) { fail(p + "name", "duplicate name '" + n + "'"); return; }
      names_[n] = {false, g_.addSlice(s).value};
    }
  }

  SliceId sliceRef(const json& v, const std::string& path) {
    if (!v.is_string()) { fail(path, "expected a slice name, got " + v.dump()); return {}; }
    auto it = names_.find(v.get<std::string>());
    if (it == names_.end() || it->second.first) { fail(path, "undefined slice '" + v.get<std::string>() + "'"); return {}; }
    return SliceId(it->second.second);
  }

  std::vector<SliceId> sliceRefs(const json& o, const std::string& key, const std::string& p) {
    std::vector<SliceId> out;
    const json& a = array(o, key, p);
    for (size_t i = 0; i < a.size() && !error_; ++i) out.push_back(sliceRef(a[i], p + key + "[" + std::to_string(i) + "]"));
    return out;
  }

  void readNodes(const json& a) {
    for (size_t i = 0; i < a.size() && !error_; ++i) readNode(a[i], "nodes[" + std::to_string(i) + "].");
  }

  void readNode(const json& j, const std::string& p) {
    std::string op = str(j, "op", p);
    if (error_) return;
    Node n;
    auto spelled = parseOpSpelling(op);
    if (!spelled) { fail(p + "op", spelled.error().message); return; }
    switch (spelled->kind) {
      case NodeKind::Move: n.payload = MovePayload{}; break;
      case NodeKind::Broadcast: n.payload = BroadcastPayload{axes(j, p)}; break;
      case NodeKind::Sync: {
        auto s = parseScope(str(j, "scope", p));
        if (!s) { fail(p + "scope", "expected lane, unit, block or device"); return; }
        n.payload = SyncPayload{*s};
        break;
      }
      case NodeKind::Reduce: n.payload = ReducePayload{spelled->reduce, axes(j, p)}; break;
      case NodeKind::Elementwise:
        if (!readElementwise(j, p, spelled->elementwise, n)) return;
        break;
    }
    if (n.kind() != NodeKind::Elementwise) n.inputs = sliceRefs(j, "inputs", p);
    n.outputs = sliceRefs(j, "outputs", p);
    if (j.contains("domain")) {
      auto d = ints(j, "domain", p);
      if (d.size() != 2) { fail(p + "domain", "expected [begin, end]"); return; }
      n.domain = UnitDomain{d[0], d[1]};
    }
    if (!error_) g_.addNode(std::move(n));
  }

  bool readElementwise(const json& j, const std::string& p, ElementwiseOp op, Node& n) {
    ElementwisePayload e{op, {}};
    const json& ops = array(j, "operands", p);
    for (size_t i = 0; i < ops.size() && !error_; ++i) {
      if (ops[i].is_number()) { e.operands.push_back({-1, ops[i].get<double>()}); continue; }
      e.operands.push_back({static_cast<int>(n.inputs.size()), 0});
      n.inputs.push_back(sliceRef(ops[i], p + "operands[" + std::to_string(i) + "]"));
    }
    n.payload = std::move(e);
    return !error_;
  }

  std::vector<int> axes(const json& j, const std::string& p) {
    NarrowedAxes a = narrowAxes(ints(j, "axes", p));
    if (a.outOfRange) fail(p + "axes", "axis " + std::to_string(*a.outOfRange) + " is out of range");
    return a.axes;
  }

  std::string file_;
  Graph g_;
  std::map<std::string, std::pair<bool, uint32_t>> names_;  // name -> (is buffer, id)
  std::optional<Diagnostic> error_;
};

}  // namespace

Expected<Graph> parseGirJson(const std::string& text, const std::string& fileName) {
  auto root = parseJsonText(text, fileName);
  if (!root) return root.takeError();
  return JsonGraphReader(fileName).run(*root);
}

Expected<Graph> parseGirAny(const std::string& text, const std::string& fileName) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i != std::string::npos && text[i] == '{') return parseGirJson(text, fileName);
  return parseGirText(text, fileName);
}

Expected<Graph> loadGirFile(const std::string& path) {
  auto text = readWholeFile(path);
  if (!text) return text.takeError();
  return parseGirAny(*text, path);
}

}  // namespace gir
