// The reference check's closeness: rtol and atol, NaN only against NaN, equal infinities close.
#include <catch2/catch.hpp>

#include <limits>

#include "core/gir/Interpreter.h"

using namespace gir;

TEST_CASE("allClose: tolerances, NaNs and infinities", "[interpreter]") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto close = [](std::vector<float> a, std::vector<float> b) { return allClose({{"y", a}}, {{"y", b}}, 1e-4, 1e-5); };
  CHECK(close({1.0f, 0.0f}, {1.00009f, 9e-6f}));
  CHECK_FALSE(close({1.0f}, {1.0002f}));
  CHECK_FALSE(close({0.0f}, {2e-5f}));
  CHECK(close({nan}, {nan}));
  CHECK_FALSE(close({nan}, {1.0f}));
  CHECK_FALSE(close({1.0f}, {nan}));
  CHECK(close({inf, -inf}, {inf, -inf}));  // x / 0 in both: inf - inf is NaN, so equality decides
  CHECK_FALSE(close({inf}, {-inf}));
  CHECK_FALSE(close({inf}, {3e38f}));
  CHECK_FALSE(close({1.0f}, {inf}));  // rtol * |inf| must not admit every value
  CHECK(maxRelativeError({{"y", {inf, 2.0f}}}, {{"y", {inf, 2.0f}}}) == 0.0);
}
