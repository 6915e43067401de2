// Canonical form, printing and parsing of affine unit-index expressions.
#include "core/gir/Affine.h"

#include <algorithm>
#include <cctype>

namespace gir {

AffineIndex AffineIndex::unit(int64_t coeff, int64_t constant) {
  AffineIndex a(constant);
  a.addTerm(UnitTermKind::Identity, 1, coeff);
  return a;
}

AffineIndex& AffineIndex::addTerm(UnitTermKind kind, int64_t divisor, int64_t coeff) {
  if (kind == UnitTermKind::Identity) divisor = 1;
  if (kind == UnitTermKind::Div && divisor == 1) kind = UnitTermKind::Identity;
  if (kind == UnitTermKind::Mod && divisor == 1) return *this;  // u % 1 == 0
  terms_.push_back(UnitTerm{kind, divisor, coeff});
  normalize();
  return *this;
}

void AffineIndex::normalize() {
  std::sort(terms_.begin(), terms_.end(), [](const UnitTerm& a, const UnitTerm& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.divisor < b.divisor;
  });
  std::vector<UnitTerm> merged;
  for (const auto& t : terms_) {
    if (!merged.empty() && merged.back().sameVariable(t)) merged.back().coeff += t.coeff;
    else merged.push_back(t);
  }
  merged.erase(std::remove_if(merged.begin(), merged.end(), [](const UnitTerm& t) { return t.coeff == 0; }),
               merged.end());
  terms_ = std::move(merged);
}

namespace {
std::string variableText(const UnitTerm& t) {
  switch (t.kind) {
    case UnitTermKind::Identity: return "u";
    case UnitTermKind::Div: return "(u/" + std::to_string(t.divisor) + ")";
    case UnitTermKind::Mod: return "(u%" + std::to_string(t.divisor) + ")";
  }
  return "?";
}
}  // namespace

std::string AffineIndex::str() const {
  std::string out;
  for (const auto& t : terms_) {
    int64_t c = t.coeff;
    if (!out.empty()) out += c < 0 ? "-" : "+";
    else if (c < 0) out += "-";
    int64_t mag = c < 0 ? -c : c;
    if (mag != 1) out += std::to_string(mag) + "*";
    out += variableText(t);
  }
  if (constant_ != 0 || out.empty()) {
    if (!out.empty()) out += constant_ < 0 ? "-" : "+";
    else if (constant_ < 0) out += "-";
    out += std::to_string(constant_ < 0 ? -constant_ : constant_);
  }
  return out;
}

namespace {

// Recursive-descent parser for: term (('+'|'-') term)*, term := [INT '*'] var | INT, var := u | (u/k) | (u%k) | u/k | u%k.
class AffineParser {
 public:
  explicit AffineParser(std::string_view s) : s_(s) {}

  Expected<AffineIndex> run() {
    AffineIndex out;
    skipSpace();
    int sign = 1;
    if (eat('-')) sign = -1;
    else eat('+');
    for (;;) {
      if (auto st = term(out, sign); !st) return st.takeError();
      skipSpace();
      if (pos_ == s_.size()) return out;
      if (eat('+')) sign = 1;
      else if (eat('-')) sign = -1;
      else return fail("expected '+' or '-'");
    }
  }

 private:
  Status term(AffineIndex& out, int sign) {
    skipSpace();
    int64_t coeff = 1;
    bool haveNumber = false;
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      auto n = number();
      if (!n) return n.takeError();
      coeff = *n;
      haveNumber = true;
      skipSpace();
      if (!eat('*')) {
        out.addConstant(sign * coeff);
        return success();
      }
    }
    return variable(out, sign * coeff, haveNumber);
  }

  Status variable(AffineIndex& out, int64_t coeff, bool) {
    skipSpace();
    bool paren = eat('(');
    skipSpace();
    if (!eat('u')) return fail("expected 'u'");
    skipSpace();
    UnitTermKind kind = UnitTermKind::Identity;
    int64_t k = 1;
    if (eat('/')) kind = UnitTermKind::Div;
    else if (eat('%')) kind = UnitTermKind::Mod;
    if (kind != UnitTermKind::Identity) {
      skipSpace();
      auto n = number();
      if (!n) return n.takeError();
      if (*n <= 0) return fail("divisor must be positive");
      k = *n;
    }
    skipSpace();
    if (paren && !eat(')')) return fail("expected ')'");
    out.addTerm(kind, k, coeff);
    return success();
  }

  Expected<int64_t> number() {
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (start == pos_) return fail("expected a number");
    if (pos_ - start > 15) return fail("number too large");
    return static_cast<int64_t>(std::stoll(std::string(s_.substr(start, pos_ - start))));
  }

  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) { ++pos_; return true; }
    return false;
  }
  void skipSpace() { while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_; }
  Diagnostic fail(const std::string& what) {
    return makeError("offset '" + std::string(s_) + "': " + what + " at column " + std::to_string(pos_ + 1));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Expected<AffineIndex> AffineIndex::parse(std::string_view text) { return AffineParser(text).run(); }

}  // namespace gir
