// One place that turns the JSON library's exceptions into Diagnostics (see JsonText.h).
#include "core/JsonText.h"

namespace gir {

Expected<nlohmann::json> parseJsonText(const std::string& text, const std::string& fileName) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400
    return makeError(std::string("not valid JSON: ") + e.what(), SourceLocation{fileName, 0, 0, ""});
  }
}

}  // namespace gir
