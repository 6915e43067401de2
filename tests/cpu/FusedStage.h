// Shared by the fusion, band and buffer-home tests: a one-kernel, one-stage GIR text parsed, scheduled and its stage
// grouped into loop nests (codegen/schedule/FusedLoops.h).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen/schedule/FusedLoops.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Parser.h"

namespace gir::test {

struct Fused {
  Graph g;
  codegen::Schedule schedule;
  std::vector<codegen::LoopGroup> groups;
};

inline Fused fuse(const std::string& text) {
  auto g = parseGirText(text, "<test>");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  auto s = codegen::buildSchedule(*g);
  REQUIRE(s);
  REQUIRE(s->kernels.size() == 1);
  REQUIRE(s->kernels[0].stages.size() == 1);
  auto groups = codegen::fuseStage(*g, s->kernels[0].stages[0]);
  return {std::move(*g), std::move(*s), std::move(groups)};
}

// `text` with its first `from` replaced by `to` (a variant of a test's GIR text); `from` must occur.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace gir::test
