// Loading and validating hardware descriptions; every error names file, field and reason.
#include "core/hw/HardwareDesc.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/JsonText.h"

#ifndef GIR_DEFAULT_HARDWARE_DIR
#define GIR_DEFAULT_HARDWARE_DIR "hardware"
#endif

namespace gir {

using nlohmann::json;

namespace {

// A small reader that walks a JSON object and remembers the first problem.
class FieldReader {
 public:
  FieldReader(const std::string& file) : file_(file) {}

  bool failed() const { return error_.has_value(); }
  Diagnostic error() const { return *error_; }

  void fail(const std::string& field, const std::string& reason) {
    if (!error_) error_ = makeError(reason, SourceLocation{file_, 0, 0, "field '" + field + "'"});
  }

  const json* get(const json& obj, const std::string& key, const std::string& path, bool required) {
    if (!obj.is_object()) { fail(path, "expected an object"); return nullptr; }
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path + key, "is missing");
      return nullptr;
    }
    return &*it;
  }

  std::string str(const json& obj, const std::string& key, const std::string& path, bool required = true) {
    const json* v = get(obj, key, path, required);
    if (!v) return {};
    if (!v->is_string()) { fail(path + key, "expected a string, got " + std::string(v->type_name())); return {}; }
    return v->get<std::string>();
  }

  double number(const json& obj, const std::string& key, const std::string& path, bool required = true,
                double def = 0, double min = 0) {
    const json* v = get(obj, key, path, required);
    if (!v) return def;
    if (!v->is_number()) { fail(path + key, "expected a number, got " + std::string(v->type_name())); return def; }
    double d = v->get<double>();
    if (d < min) fail(path + key, "must be at least " + std::to_string(min) + ", got " + v->dump());
    return d;
  }

  int64_t integer(const json& obj, const std::string& key, const std::string& path, bool required = true,
                  int64_t def = 0, int64_t min = 0, int64_t max = std::numeric_limits<int64_t>::max()) {
    const json* v = get(obj, key, path, required);
    if (!v) return def;
    if (!v->is_number_integer()) { fail(path + key, "expected an integer, got " + v->dump()); return def; }
    // Checked before narrowing: 4444444444444444 flag IDs became a negative int, and the saved file no
    // longer loaded (found by fuzz_hardware_json).
    bool tooLarge = v->is_number_unsigned() ? v->get<uint64_t>() > static_cast<uint64_t>(max) : v->get<int64_t>() > max;
    if (tooLarge) { fail(path + key, "must be at most " + std::to_string(max) + ", got " + v->dump()); return def; }
    int64_t i = v->get<int64_t>();
    if (i < min) fail(path + key, "must be at least " + std::to_string(min) + ", got " + std::to_string(i));
    return i;
  }

  int smallInt(const json& obj, const std::string& key, const std::string& path, bool required, int def, int min,
               int max = std::numeric_limits<int>::max()) {
    return static_cast<int>(integer(obj, key, path, required, def, min, max));
  }

 private:
  std::string file_;
  std::optional<Diagnostic> error_;
};

void readLevels(FieldReader& r, const json& root, HardwareDesc& hw) {
  const json* levels = r.get(root, "levels", "", true);
  if (!levels) return;
  if (!levels->is_array() || levels->empty()) { r.fail("levels", "expected a non-empty array"); return; }
  for (size_t i = 0; i < levels->size() && !r.failed(); ++i) {
    const json& l = (*levels)[i];
    std::string path = "levels[" + std::to_string(i) + "].";
    MemoryLevelDesc d;
    d.name = r.str(l, "name", path);
    std::string scope = r.str(l, "scope", path);
    if (r.failed()) return;
    auto s = parseScope(scope);
    if (!s || *s == Scope::Lane) { r.fail(path + "scope", "expected unit, block or device, got '" + scope + "'"); return; }
    d.scope = *s;
    d.capacityBytes = r.integer(l, "capacity_bytes", path, true, 0, 1);
    d.bandwidthGBs = r.number(l, "bandwidth_gbs", path, true, 0, 1e-9);
    d.granularityBytes = r.integer(l, "granularity_bytes", path, false, 4, 1);
    if (hw.level(d.name)) { r.fail(path + "name", "duplicate level '" + d.name + "'"); return; }
    hw.levels.push_back(d);
  }
  if (!r.failed() && !hw.dramLevel()) r.fail("levels", "no level with scope 'device' (DRAM/global memory)");
}

void readWarmCopy(FieldReader& r, const json& root, HardwareDesc& hw) {
  const json* c = r.get(root, "warm_copy", "", false);
  if (!c) return;
  if (!c->is_array()) { r.fail("warm_copy", "expected an array of {footprint_bytes, plain_gbs, streaming_gbs}"); return; }
  for (size_t i = 0; i < c->size() && !r.failed(); ++i) {
    const json& p = (*c)[i];
    std::string path = "warm_copy[" + std::to_string(i) + "].";
    if (!p.is_object()) { r.fail(path.substr(0, path.size() - 1), "expected an object"); return; }
    WarmCopyPoint w;
    w.footprintBytes = r.integer(p, "footprint_bytes", path, true, 0, 1);
    w.plainGBs = r.number(p, "plain_gbs", path, true, 0, 1e-9);
    w.streamingGBs = r.number(p, "streaming_gbs", path, true, 0, 1e-9);
    if (!hw.warmCopy.empty() && w.footprintBytes <= hw.warmCopy.back().footprintBytes) {
      r.fail(path + "footprint_bytes", "expected footprints in ascending order");
      return;
    }
    hw.warmCopy.push_back(w);
  }
}

void readAscend(FieldReader& r, const json& root, HardwareDesc& hw) {
  const json* a = r.get(root, "ascend", "", false);
  if (!a) return;
  AscendDesc d;
  d.flagsPerPipePair = r.smallInt(*a, "flags_per_pipe_pair", "ascend.", true, 4, 1, 64);
  d.syncCostCycles = r.smallInt(*a, "sync_cost_cycles", "ascend.", false, 1, 0);
  if (const json* lat = r.get(*a, "pipe_latency", "ascend.", false)) {
    if (!lat->is_object()) { r.fail("ascend.pipe_latency", "expected an object"); return; }
    for (auto it = lat->begin(); it != lat->end(); ++it)
      d.pipeLatencyCycles[it.key()] = r.smallInt(*lat, it.key(), "ascend.pipe_latency.", true, 1, 1);
  }
  hw.ascend = d;
}

}  // namespace

const MemoryLevelDesc* HardwareDesc::level(const std::string& n) const {
  for (const auto& l : levels)
    if (l.name == n) return &l;
  return nullptr;
}

const MemoryLevelDesc* HardwareDesc::dramLevel() const {
  for (const auto& l : levels)
    if (l.scope == Scope::Device) return &l;
  return nullptr;
}

const MemoryLevelDesc* HardwareDesc::levelForScope(Scope scope) const {
  const MemoryLevelDesc* best = nullptr;
  for (const auto& l : levels)
    if (l.scope == scope && (!best || l.bandwidthGBs > best->bandwidthGBs)) best = &l;
  return best;
}

double HardwareDesc::dramBandwidthGBs() const { return dramLevel() ? dramLevel()->bandwidthGBs : 0; }

double HardwareDesc::ridgePointFlopsPerByte() const {
  double bw = dramBandwidthGBs();
  return bw > 0 ? peakGflops / bw : 0;
}

double HardwareDesc::warmCopyGBs(int64_t footprintBytes, bool streaming) const {
  if (warmCopy.empty()) return 0;
  auto rate = [&](const WarmCopyPoint& p) { return streaming ? p.streamingGBs : p.plainGBs; };
  if (footprintBytes <= warmCopy.front().footprintBytes) return rate(warmCopy.front());
  for (size_t i = 1; i < warmCopy.size(); ++i) {
    const WarmCopyPoint &a = warmCopy[i - 1], &b = warmCopy[i];
    if (footprintBytes > b.footprintBytes) continue;
    double t = std::log(static_cast<double>(footprintBytes) / static_cast<double>(a.footprintBytes)) /
               std::log(static_cast<double>(b.footprintBytes) / static_cast<double>(a.footprintBytes));
    return rate(a) + t * (rate(b) - rate(a));
  }
  return rate(warmCopy.back());
}

double HardwareDesc::transcendentalGelemsOf(std::string_view function) const {
  auto it = transcendentalGelemsByFunction.find(std::string(function));
  return it != transcendentalGelemsByFunction.end() ? it->second : transcendentalGelems;
}

namespace {
// "transcendental_gelems_by_function": {"sigmoid": 3.1, ...}: every rate a positive number.
void readTranscendentalsByFunction(FieldReader& r, const json& root, HardwareDesc& hw) {
  const json* byFunction = r.get(root, "transcendental_gelems_by_function", "", false);
  if (!byFunction) return;
  if (!byFunction->is_object()) return r.fail("transcendental_gelems_by_function", "expected an object of function name -> G/s");
  for (const auto& [name, rate] : byFunction->items()) {
    if (name.empty() || !rate.is_number() || rate.get<double>() <= 0)
      return r.fail("transcendental_gelems_by_function." + name, "expected a function name with a positive rate in G/s");
    hw.transcendentalGelemsByFunction[name] = rate.get<double>();
  }
}
}  // namespace

Expected<HardwareDesc> parseHardwareDesc(const std::string& text, const std::string& file) {
  auto parsed = parseJsonText(text, file);
  if (!parsed) return parsed.takeError();
  const json& root = *parsed;
  FieldReader r(file);
  if (!root.is_object()) return makeError("expected a JSON object at the top level", SourceLocation{file, 0, 0, ""});
  HardwareDesc hw;
  hw.name = r.str(root, "name", "");
  hw.kind = r.str(root, "kind", "");
  if (!r.failed() && hw.kind != "cpu" && hw.kind != "gpu" && hw.kind != "npu" && hw.kind != "mlu")
    r.fail("kind", "expected cpu, gpu, npu or mlu, got '" + hw.kind + "'");
  hw.unitName = r.str(root, "unit", "");
  hw.lanesPerUnit = r.smallInt(root, "lanes_per_unit", "", true, 1, 1);
  hw.maxUnitsPerBlock = r.smallInt(root, "max_units_per_block", "", true, 1, 1);
  hw.maxUnits = r.integer(root, "max_units", "", false, 0, 0);
  readLevels(r, root, hw);
  if (const json* sc = r.get(root, "sync_cost_us", "", true)) {
    for (Scope s : {Scope::Unit, Scope::Block, Scope::Device})
      hw.syncCostUs[static_cast<int>(s)] = r.number(*sc, std::string(scopeName(s)), "sync_cost_us.", true);
  }
  hw.launchCostUs = r.number(root, "launch_cost_us", "", true);
  hw.peakGflops = r.number(root, "peak_gflops", "", true, 0, 1e-9);
  hw.transcendentalGelems = r.number(root, "transcendental_gelems", "", false, 0, 0);
  readTranscendentalsByFunction(r, root, hw);
  hw.streamStoreAboveBytes = r.integer(root, "stream_store_above_bytes", "", false, 0, 0);
  hw.rowSumSegments = r.smallInt(root, "row_sum_segments", "", false, 1, 1, 2);
  hw.coldCopyGBs = r.number(root, "cold_copy_gbs", "", false, 0, 0);
  hw.readToCopyRatio = r.number(root, "read_to_copy_ratio", "", false, 0, 0);
  readWarmCopy(r, root, hw);
  readAscend(r, root, hw);
  if (r.failed()) return r.error();
  return hw;
}

Expected<HardwareDesc> loadHardwareDesc(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError("cannot open hardware description", SourceLocation{path, 0, 0, ""});
  std::stringstream ss;
  ss << in.rdbuf();
  return parseHardwareDesc(ss.str(), path);
}

std::string hardwareDirectory() {
  if (const char* env = std::getenv("GIR_HARDWARE_DIR")) return env;
  return GIR_DEFAULT_HARDWARE_DIR;
}

std::vector<std::string> bundledHardwareNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(hardwareDirectory(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Expected<HardwareDesc> loadHardwareByName(const std::string& name) {
  if (name.find('/') != std::string::npos || name.find(".json") != std::string::npos) return loadHardwareDesc(name);
  return loadHardwareDesc(hardwareDirectory() + "/" + name + ".json");
}

std::string hardwareToJson(const HardwareDesc& hw) {
  json levels = json::array();
  for (const auto& l : hw.levels)
    levels.push_back({{"name", l.name}, {"scope", scopeName(l.scope)}, {"capacity_bytes", l.capacityBytes},
                      {"bandwidth_gbs", l.bandwidthGBs}, {"granularity_bytes", l.granularityBytes}});
  json root = {{"name", hw.name}, {"kind", hw.kind}, {"unit", hw.unitName}, {"lanes_per_unit", hw.lanesPerUnit},
               {"max_units_per_block", hw.maxUnitsPerBlock}, {"max_units", hw.maxUnits}, {"levels", levels},
               {"sync_cost_us", {{"unit", hw.syncCostUs[1]}, {"block", hw.syncCostUs[2]}, {"device", hw.syncCostUs[3]}}},
               {"launch_cost_us", hw.launchCostUs}, {"peak_gflops", hw.peakGflops}};
  if (hw.transcendentalGelems > 0) root["transcendental_gelems"] = hw.transcendentalGelems;
  if (!hw.transcendentalGelemsByFunction.empty()) root["transcendental_gelems_by_function"] = hw.transcendentalGelemsByFunction;
  if (hw.streamStoreAboveBytes > 0) root["stream_store_above_bytes"] = hw.streamStoreAboveBytes;
  if (hw.rowSumSegments != 1) root["row_sum_segments"] = hw.rowSumSegments;
  if (hw.coldCopyGBs > 0) root["cold_copy_gbs"] = hw.coldCopyGBs;
  if (hw.readToCopyRatio > 0) root["read_to_copy_ratio"] = hw.readToCopyRatio;
  if (!hw.warmCopy.empty()) {
    json curve = json::array();
    for (const WarmCopyPoint& p : hw.warmCopy)
      curve.push_back({{"footprint_bytes", p.footprintBytes}, {"plain_gbs", p.plainGBs}, {"streaming_gbs", p.streamingGBs}});
    root["warm_copy"] = curve;
  }
  if (hw.ascend) {
    json a = {{"flags_per_pipe_pair", hw.ascend->flagsPerPipePair}, {"sync_cost_cycles", hw.ascend->syncCostCycles}};
    a["pipe_latency"] = hw.ascend->pipeLatencyCycles;
    root["ascend"] = a;
  }
  return root.dump(2) + "\n";
}

}  // namespace gir
