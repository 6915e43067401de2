// A line diff of two texts, for the pass-by-pass view of the printed GIR (issue #18, point 6; in the
// manner of Compiler Explorer's optimization pipeline view): the lines only in the old text, only in
// the new one, and the unchanged ones around them.
#pragma once

#include <string>
#include <vector>

namespace gir::viz {

struct DiffLine {
  char op = ' ';  // ' ' in both, '-' only in the old text, '+' only in the new one
  std::string text;
};

// Every line of both texts in order: the longest common subsequence after the common head and tail
// are set aside (a rewrite step changes a few lines of a long graph). When the changed middle is over
// kMaxDiffCells line pairs, it is shown as all removed then all added instead.
std::vector<DiffLine> diffLines(const std::string& before, const std::string& after);
constexpr long long kMaxDiffCells = 16'000'000;

// Unified-diff text: "@@ -a,n +b,m @@" hunks with `context` unchanged lines around each change; empty
// when the texts are equal.
std::string unifiedDiff(const std::string& before, const std::string& after, int context = 3);

}  // namespace gir::viz
