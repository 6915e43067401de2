// The interpreter and the memory-model checker on small verified GIR graphs (docs/fuzzing.md): both
// must finish without a crash or a sanitizer report, and two runs on the same inputs must agree.
// Graphs above a small work bound are skipped so that each input runs in milliseconds; the budgets
// themselves are covered by tests/data/gir-budget.
#include <cmath>

#include "core/gir/Interpreter.h"
#include "core/gir/MemoryChecker.h"
#include "core/gir/Parser.h"
#include "core/gir/Verifier.h"
#include "tests/fuzz/FuzzSupport.h"

namespace {

constexpr int64_t kMaxWork = int64_t{1} << 18;  // units x elements of all slices, and buffer elements

bool small(const gir::Graph& g) {
  if (g.units > 1024) return false;
  int64_t elements = 0, sliceElements = 0;
  for (const auto& b : g.buffers()) elements += b.erased ? 0 : b.numel();
  for (const auto& s : g.slices()) sliceElements += s.erased ? 0 : s.numel();
  return elements <= kMaxWork && sliceElements <= kMaxWork / g.units;
}

bool sameBits(const gir::TensorMap& a, const gir::TensorMap& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, va] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second.size() != va.size()) return false;
    for (size_t i = 0; i < va.size(); ++i)
      if (!(va[i] == it->second[i] || (std::isnan(va[i]) && std::isnan(it->second[i])))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto g = gir::parseGirText(gir::fuzz::asText(data, size), "fuzz.gir");
  if (!g || !gir::verifyGraph(*g) || !gir::fitsInterpreterBudget(*g) || !small(*g)) return 0;
  auto inputs = gir::randomInputs(*g, 7);
  auto first = gir::interpret(*g, inputs);
  auto second = gir::interpret(*g, inputs);
  GIR_FUZZ_CHECK(bool(first) == bool(second), "the interpreter's verdict changed between two runs");
  if (first) GIR_FUZZ_CHECK(sameBits(*first, *second), "the interpreter's outputs changed between two runs");
  (void)gir::checkMemoryModel(*g, inputs);
  return 0;
}
