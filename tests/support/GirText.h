// A GIR text or file parsed for a test, which stops with the parser's message when it does not parse.
#pragma once

#include <catch2/catch.hpp>

#include "core/gir/Parser.h"
#include "tests/support/TestSupport.h"

namespace gir::test {

inline Graph parseGirOrStop(const std::string& text, const std::string& name = "<test>") {
  auto g = parseGirText(text, name);
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  return std::move(*g);
}
inline Graph parseGirFileOrStop(const std::string& relative) { return parseGirOrStop(readText(sourcePath(relative)), relative); }

}  // namespace gir::test
