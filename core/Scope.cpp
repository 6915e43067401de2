// Names of scopes for the text form, JSON and messages.
#include "core/Scope.h"

namespace gir {

std::string_view scopeName(Scope s) {
  switch (s) {
    case Scope::Lane: return "lane";
    case Scope::Unit: return "unit";
    case Scope::Block: return "block";
    case Scope::Device: return "device";
  }
  return "?";
}

std::optional<Scope> parseScope(std::string_view name) {
  if (name == "lane") return Scope::Lane;
  if (name == "unit") return Scope::Unit;
  if (name == "block") return Scope::Block;
  if (name == "device") return Scope::Device;
  return std::nullopt;
}

}  // namespace gir
