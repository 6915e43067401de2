// Affine offsets in the unit index: c + sum of a*u, a*(u/k), a*(u%k) (docs/gir.md, "The model").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/Expected.h"

namespace gir {

enum class UnitTermKind { Identity, Div, Mod };  // u, u/k, u%k

struct UnitTerm {
  UnitTermKind kind = UnitTermKind::Identity;
  int64_t divisor = 1;  // k for Div and Mod; 1 for Identity
  int64_t coeff = 0;

  int64_t eval(int64_t u) const {
    switch (kind) {
      case UnitTermKind::Identity: return coeff * u;
      case UnitTermKind::Div: return coeff * (u / divisor);
      case UnitTermKind::Mod: return coeff * (u % divisor);
    }
    return 0;
  }
  bool sameVariable(const UnitTerm& o) const { return kind == o.kind && divisor == o.divisor; }
  bool operator==(const UnitTerm&) const = default;
};

class AffineIndex {
 public:
  AffineIndex() = default;
  explicit AffineIndex(int64_t constant) : constant_(constant) {}
  static AffineIndex unit(int64_t coeff = 1, int64_t constant = 0);

  int64_t eval(int64_t u) const {
    int64_t v = constant_;
    for (const auto& t : terms_) v += t.eval(u);
    return v;
  }
  int64_t constant() const { return constant_; }
  const std::vector<UnitTerm>& terms() const { return terms_; }
  bool isConstant() const { return terms_.empty(); }

  AffineIndex& addTerm(UnitTermKind kind, int64_t divisor, int64_t coeff);
  AffineIndex& addConstant(int64_t c) { constant_ += c; return *this; }

  // Canonical text: "784*u-90944", "4*(u/4)+1", "0".
  std::string str() const;
  static Expected<AffineIndex> parse(std::string_view text);

  bool operator==(const AffineIndex&) const = default;

 private:
  void normalize();
  int64_t constant_ = 0;
  std::vector<UnitTerm> terms_;  // sorted by (kind, divisor), no zero coefficients, no duplicates
};

}  // namespace gir
