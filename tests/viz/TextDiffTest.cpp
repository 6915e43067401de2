// viz::diffLines and unifiedDiff, the pass-by-pass IR diff (issue #18, point 6): a property test on
// random edits (the diff's old side is the old text, its new side the new text, and it keeps at least
// as many lines as the edit left alone) and a golden hunk.
#include <catch2/catch.hpp>

#include <random>

#include "viz/TextDiff.h"

using namespace gir::viz;

namespace {

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("diffLines on random edits: each side is its text, and the unedited lines are kept", "[viz][diff]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> a;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) a.push_back("line " + std::to_string(rng() % 12));  // repeats on purpose
    std::vector<std::string> b = a;
    int edits = static_cast<int>(rng() % 6), kept = n;
    for (int e = 0; e < edits; ++e) {
      if (!b.empty() && rng() % 2) {
        b.erase(b.begin() + static_cast<long>(rng() % b.size()));
        --kept;
      } else {
        b.insert(b.begin() + static_cast<long>(b.empty() ? 0 : rng() % (b.size() + 1)), "new " + std::to_string(e));
      }
    }
    auto d = diffLines(join(a), join(b));
    std::vector<std::string> oldSide, newSide;
    int common = 0;
    for (const auto& l : d) {
      if (l.op != '+') oldSide.push_back(l.text);
      if (l.op != '-') newSide.push_back(l.text);
      common += l.op == ' ';
    }
    INFO("round " << round);
    CHECK(oldSide == a);
    CHECK(newSide == b);
    CHECK(common >= std::max(kept, 0));  // the LCS is at least the lines no edit touched
  }
}

TEST_CASE("unifiedDiff: hunks with three lines of context, nothing for equal texts", "[viz][diff]") {
  std::string a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
  std::string b = "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\nl\nm\nn\n";
  CHECK(unifiedDiff(a, a).empty());
  CHECK(unifiedDiff(a, b) ==
        "@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        "@@ -11,3 +11,4 @@\n k\n l\n m\n+n\n");
  // Changes closer than 2 x context share a hunk.
  std::string c = "a\nB\nc\nd\ne\nF\ng\n";
  CHECK(unifiedDiff("a\nb\nc\nd\ne\nf\ng\n", c) == "@@ -1,7 +1,7 @@\n a\n-b\n+B\n c\n d\n e\n-f\n+F\n g\n");
}
