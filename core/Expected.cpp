// Formatting of diagnostics and the assertion handler.
#include "core/Expected.h"

namespace gir {

std::string SourceLocation::str() const {
  std::string out = file;
  if (line > 0) {
    out += (out.empty() ? "line " : ":") + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  if (!node.empty()) out += (out.empty() ? "" : ": ") + node;
  return out;
}

std::string Diagnostic::str() const {
  std::string loc = location.str();
  std::string out = "error: " + (loc.empty() ? "" : loc + ": ") + message;
  for (const auto& n : notes) out += "\n  note: " + n;
  return out;
}

Diagnostic makeError(std::string message, SourceLocation loc) {
  return Diagnostic{std::move(loc), std::move(message), {}};
}

void assertionFailed(const char* expr, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "gir: internal error: %s:%d: assertion '%s' failed: %s\n", file, line, expr, msg);
  std::abort();
}

}  // namespace gir
