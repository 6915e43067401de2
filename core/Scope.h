// Parallel scopes, smallest first: lane < unit < block < device (docs/gir.md, "The model").
#pragma once

#include <optional>
#include <string_view>

namespace gir {

enum class Scope { Lane, Unit, Block, Device };

std::string_view scopeName(Scope s);
std::optional<Scope> parseScope(std::string_view name);

inline bool scopeCovers(Scope outer, Scope inner) { return static_cast<int>(outer) >= static_cast<int>(inner); }

}  // namespace gir
