// Presburger text for slice accesses and the few isl calls the symbolic checks share.
#include "core/gir/IslAccess.h"

#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>

namespace gir {

static std::string term(int64_t coeff, const std::string& var) { return std::to_string(coeff) + "*" + var; }

std::string islAffine(const AffineIndex& a, const std::string& u) {
  std::string out = std::to_string(a.constant());
  for (const UnitTerm& t : a.terms()) {
    std::string k = std::to_string(t.divisor);
    switch (t.kind) {
      case UnitTermKind::Identity: out += " + " + term(t.coeff, u); break;
      case UnitTermKind::Div: out += " + " + term(t.coeff, "floor(" + u + "/" + k + ")"); break;
      case UnitTermKind::Mod: out += " + " + term(t.coeff, "(" + u + " mod " + k + ")"); break;
    }
  }
  return out;
}

std::string islTouches(const MemorySlice& s, UnitDomain d, const std::string& u, const std::string& e) {
  std::string dom = std::to_string(d.begin) + " <= " + u + " < " + std::to_string(d.end);
  std::string sum = islAffine(s.offset, u), vars, bounds;
  for (size_t i = 0; i < s.shape.size(); ++i) {
    std::string v = e + "_i" + std::to_string(i);
    vars += (i ? ", " : "") + v;
    bounds += " and 0 <= " + v + " < " + std::to_string(s.shape[i]);
    sum += " + " + term(s.strides[i], v);
  }
  return "(" + dom + " and exists (" + vars + " :" + bounds.substr(4) + " and " + e + " = " + sum + "))";
}

IslContext::IslContext() : raw_(isl_ctx_alloc()) {
  isl_options_set_on_error(raw_, ISL_ON_ERROR_CONTINUE);
  // Integer-set questions can blow up on some quasi-affine forms: past this many isl operations the
  // check stops with an error (inconclusive) rather than running for minutes (docs/gir.md). The
  // count runs until a caller resets it: the memory-model checker gives each buffer its own budget.
  isl_ctx_set_max_operations(raw_, kIslMaxOperations);
}

IslContext::~IslContext() { isl_ctx_free(raw_); }

bool IslContext::exhausted() const {
  isl_set* probe = isl_set_read_from_str(raw_, "{ [i] : 0 <= i < 2 }");
  bool spent = probe == nullptr;
  isl_set_free(probe);
  return spent;
}

std::optional<int64_t> islToInt64(const isl::val& v) {
  if (!isl_val_is_int(v.get())) return std::nullopt;
  isl::val lo(v.ctx(), INT64_MIN), hi(v.ctx(), INT64_MAX);
  if (v.lt(lo) || v.gt(hi)) return std::nullopt;
  return static_cast<int64_t>(isl_val_get_num_si(v.get()));
}

int64_t islCoordinate(const isl::point& p, int pos) {
  isl_val* v = isl_point_get_coordinate_val(p.get(), isl_dim_set, pos);
  int64_t out = isl_val_get_num_si(v);
  isl_val_free(v);
  return out;
}

int64_t islCount(const isl::set& s) {
  isl_val* v = isl_set_count_val(s.get());
  int64_t out = isl_val_get_num_si(v);
  isl_val_free(v);
  return out;
}

}  // namespace gir
