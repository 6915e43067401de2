// Workspace JSON: {"gir_workspace": 1, "hardware": {...}, "model": PATH, "subgraph": N, "gir": PATH or
// "gir_text": TEXT, "trace": {...}, "position": N, "asck": PATH}.
#include "app/Workspace.h"

#include <QFile>
#include <QSaveFile>
#include <nlohmann/json.hpp>

#include "app/Session.h"
#include "core/gir/Parser.h"
#include "core/gir/Printer.h"

namespace gir::app {

bool looksLikeWorkspace(const std::string& text) { return text.find("\"gir_workspace\"") != std::string::npos; }

std::string workspaceToJson(const Session& s) {
  nlohmann::json j;
  j["gir_workspace"] = 1;
  j["hardware"] = nlohmann::json::parse(hardwareToJson(s.hardware()));
  if (s.hasModel()) j["model"] = s.modelPath();
  if (s.selectedSubgraph() >= 0) j["subgraph"] = s.selectedSubgraph();
  if (s.hasGir()) {
    if (s.selectedSubgraph() < 0) j["gir_text"] = printGraph(s.original());
    j["trace"] = nlohmann::json::parse(traceToJson(s.stepper().history(), s.stepper().history().size()));
    j["position"] = s.stepper().position();
    j["checked"] = s.checkedMode();
  }
  if (s.ascend()) j["asck"] = s.ascendPath();
  return j.dump(1) + "\n";
}

Status saveWorkspace(const Session& s, const QString& path) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return makeError("cannot write workspace " + path.toStdString() + ": " + f.errorString().toStdString());
  QByteArray bytes = QByteArray::fromStdString(workspaceToJson(s));
  if (f.write(bytes) != bytes.size() || !f.commit())
    return makeError("cannot write workspace " + path.toStdString() + ": " + f.errorString().toStdString());
  return success();
}

static Diagnostic fieldError(const QString& path, const std::string& field, const std::string& why) {
  return makeError("workspace field '" + field + "': " + why, SourceLocation{path.toStdString(), 0, 0, ""});
}

static Status restoreGir(Session& s, const nlohmann::json& j, const QString& path) {
  if (j.contains("subgraph")) {
    if (!j["subgraph"].is_number_integer()) return fieldError(path, "subgraph", "expected an integer");
    if (auto st = s.selectSubgraph(j["subgraph"].get<int>()); !st) return st;
  } else if (j.contains("gir_text")) {
    if (!j["gir_text"].is_string()) return fieldError(path, "gir_text", "expected a string");
    auto g = parseGirText(j["gir_text"].get<std::string>(), path.toStdString() + ":gir_text");
    if (!g) return g.takeError();
    if (auto st = s.setGir(std::move(*g), path.toStdString()); !st) return st;
  } else {
    return success();
  }
  if (j.contains("checked") && j["checked"].is_boolean()) s.setCheckedMode(j["checked"].get<bool>());
  if (!j.contains("trace")) return success();
  if (auto r = s.replay(j["trace"].dump(), path.toStdString() + ":trace"); !r) return r;
  size_t steps = s.stepper().history().size();
  size_t position = j.contains("position") && j["position"].is_number_unsigned() ? j["position"].get<size_t>() : steps;
  s.jumpTo(std::min(position, steps));
  return success();
}

Status loadWorkspace(Session& s, const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return makeError("cannot read " + path.toStdString() + ": " + f.errorString().toStdString());
  std::string text = f.readAll().toStdString();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return makeError(std::string("not valid JSON: ") + e.what(), SourceLocation{path.toStdString(), 0, 0, ""});
  }
  if (!j.is_object() || !j.contains("gir_workspace")) return fieldError(path, "gir_workspace", "missing: not a workspace file");
  if (j.contains("hardware")) {
    auto hw = parseHardwareDesc(j["hardware"].dump(), path.toStdString() + ":hardware");
    if (!hw) return hw.takeError();
    if (auto st = s.setHardware(*hw); !st) return st;
  }
  if (j.contains("model")) {
    if (!j["model"].is_string()) return fieldError(path, "model", "expected a path");
    if (auto st = s.openModel(j["model"].get<std::string>()); !st) return st;
  }
  if (auto st = restoreGir(s, j, path); !st) return st;
  if (j.contains("asck")) {
    if (!j["asck"].is_string()) return fieldError(path, "asck", "expected a path");
    if (auto st = s.openAscend(j["asck"].get<std::string>()); !st) return st;
  }
  return success();
}

}  // namespace gir::app
