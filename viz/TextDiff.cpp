// LCS by dynamic programming over the changed middle only; one byte of direction per cell.
#include "viz/TextDiff.h"

#include <algorithm>

namespace gir::viz {

namespace {

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The diff of a[a0, a1) and b[b0, b1), appended to out.
void diffMiddle(const std::vector<std::string>& a, size_t a0, size_t a1, const std::vector<std::string>& b, size_t b0, size_t b1,
                std::vector<DiffLine>& out) {
  size_t n = a1 - a0, m = b1 - b0;
  if (static_cast<long long>(n) * static_cast<long long>(m) > kMaxDiffCells) {
    for (size_t i = a0; i < a1; ++i) out.push_back({'-', a[i]});
    for (size_t j = b0; j < b1; ++j) out.push_back({'+', b[j]});
    return;
  }
  // len[i][j]: LCS length of a[a0+i..a1) and b[b0+j..b1), kept as two rows; the walk needs the
  // choices, so they are stored per cell.
  std::vector<unsigned char> take((n + 1) * (m + 1), 0);  // 1: both, 2: skip a, 3: skip b
  std::vector<int> next(m + 1, 0), cur(m + 1, 0);
  for (size_t i = n; i-- > 0;) {
    cur[m] = 0;
    for (size_t j = m; j-- > 0;) {
      unsigned char& t = take[i * (m + 1) + j];
      if (a[a0 + i] == b[b0 + j]) {
        cur[j] = next[j + 1] + 1;
        t = 1;
      } else if (next[j] >= cur[j + 1]) {
        cur[j] = next[j];
        t = 2;
      } else {
        cur[j] = cur[j + 1];
        t = 3;
      }
    }
    std::swap(cur, next);
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    unsigned char t = i < n && j < m ? take[i * (m + 1) + j] : i < n ? 2 : 3;
    if (t == 1) out.push_back({' ', a[a0 + i++]}), ++j;
    else if (t == 2) out.push_back({'-', a[a0 + i++]});
    else out.push_back({'+', b[b0 + j++]});
  }
}

}  // namespace

std::vector<DiffLine> diffLines(const std::string& before, const std::string& after) {
  auto a = splitLines(before), b = splitLines(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  std::vector<DiffLine> out;
  for (size_t i = 0; i < head; ++i) out.push_back({' ', a[i]});
  diffMiddle(a, head, a.size() - tail, b, head, b.size() - tail, out);
  for (size_t i = a.size() - tail; i < a.size(); ++i) out.push_back({' ', a[i]});
  return out;
}

std::string unifiedDiff(const std::string& before, const std::string& after, int context) {
  auto lines = diffLines(before, after);
  size_t n = lines.size(), c = static_cast<size_t>(std::max(context, 0));
  std::string out;
  size_t k = 0;
  while (k < n) {
    while (k < n && lines[k].op == ' ') ++k;
    if (k == n) break;
    // One hunk: every change whose unchanged gap to the previous one is at most 2 x context lines.
    size_t last = k;
    for (size_t j = k + 1; j < n && j - last <= 2 * c; ++j)
      if (lines[j].op != ' ') last = j;
    size_t start = k >= c ? k - c : 0, end = std::min(n, last + 1 + c);
    size_t oldLine = 1, newLine = 1, oldCount = 0, newCount = 0;
    for (size_t i = 0; i < start; ++i) {
      oldLine += lines[i].op != '+';
      newLine += lines[i].op != '-';
    }
    for (size_t i = start; i < end; ++i) {
      oldCount += lines[i].op != '+';
      newCount += lines[i].op != '-';
    }
    out += "@@ -" + std::to_string(oldLine) + "," + std::to_string(oldCount) + " +" + std::to_string(newLine) + "," +
           std::to_string(newCount) + " @@\n";
    for (size_t i = start; i < end; ++i) out += std::string(1, lines[i].op) + lines[i].text + "\n";
    k = end;
  }
  return out;
}

}  // namespace gir::viz
