// JSON text to a document, with every way the text can be bad as an error value: malformed text, and
// a well-formed number out of range (`{"a":1e400}` threw json::out_of_range past a catch of
// parse_error, and `gir print` / `gir hardware` aborted; issue #19).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/Expected.h"

namespace gir {

// "not valid JSON: <what the parser says>" at `fileName` when the text does not parse.
Expected<nlohmann::json> parseJsonText(const std::string& text, const std::string& fileName);

}  // namespace gir
