// Target lookup: a NAME.target.json beside the kernel, else core's hardware descriptions.
#include "codegen/ascend/asck/AsckTarget.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/AtomicFile.h"
#include "core/hw/HardwareDesc.h"

namespace gir::ascend {

Expected<Target> parseTargetJson(const std::string& text, const std::string& fileName, const std::string& name) {
  Target t;
  t.name = name;
  try {
    auto j = nlohmann::json::parse(text);
    if (j.contains("flags")) t.flags = j.at("flags").get<int>();
    if (j.contains("sync_cost")) t.syncCost = j.at("sync_cost").get<int>();
    if (j.contains("latency")) {
      for (auto& [k, v] : j.at("latency").items()) {
        auto p = parsePipe(k);
        if (!p) return makeError("unknown pipe '" + k + "' in latency", {fileName, 0, 0, "latency"});
        t.latency[static_cast<int>(*p)] = v.get<int>();
      }
    }
  } catch (const std::exception& e) {
    return makeError(std::string("bad target file: ") + e.what(), {fileName, 0, 0, ""});
  }
  if (t.flags < 1 || t.flags > 64) return makeError("flags must be in [1, 64]", {fileName, 0, 0, "flags"});
  if (t.syncCost < 0) return makeError("sync_cost must be >= 0", {fileName, 0, 0, "sync_cost"});
  for (int l : t.latency)
    if (l < 1) return makeError("latencies must be >= 1", {fileName, 0, 0, "latency"});
  return t;
}

Expected<Target> loadTarget(const std::string& rawName, const std::string& dir) {
  std::string name = rawName.empty() ? "ascend910" : rawName;
  std::filesystem::path beside = std::filesystem::path(dir.empty() ? "." : dir) / (name + ".target.json");
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) {
    auto text = readWholeFile(beside.string());
    if (!text) return text.takeError();
    return parseTargetJson(*text, beside.string(), name);
  }
  auto hw = loadHardwareByName(name);
  if (!hw) return makeError("unknown target '" + name + "' (no " + beside.string() + " and no hardware description)");
  if (!hw->ascend) return makeError("target '" + name + "' has no ascend section");
  Target t;
  t.name = name;
  t.flags = hw->ascend->flagsPerPipePair;
  t.syncCost = hw->ascend->syncCostCycles;
  for (const auto& [k, v] : hw->ascend->pipeLatencyCycles)
    if (auto p = parsePipe(k)) t.latency[static_cast<int>(*p)] = v;
  return t;
}

}  // namespace gir::ascend
