// fp8 e4m3 host conversions (collectives' data and checks): every code round-trips, and
// rounding and saturation follow OCP e4m3 FN.
#include <catch2/catch.hpp>

#include <cmath>

#include "harness/fp8.hpp"

using namespace rooftop;

TEST_CASE("fp8 e4m3: every code round-trips, rounding is to nearest even, saturation at 448", "[fp8]") {
  for (int code = 0; code < 256; ++code) {
    const float f = fp8_e4m3_to_float(static_cast<std::uint8_t>(code));
    if ((code & 0x7F) == 0x7F) {
      CHECK(std::isnan(f));
      continue;
    }
    INFO(code << " -> " << f);
    if (code == 0x80) CHECK(float_to_fp8_e4m3(f) == 0x80);  // -0 keeps its sign
    else CHECK(float_to_fp8_e4m3(f) == code);
  }
  CHECK(fp8_e4m3_to_float(0x38) == 1.0f);
  CHECK(fp8_e4m3_to_float(0x7E) == 448.0f);
  CHECK(fp8_e4m3_to_float(0x01) == 0x1p-9f);    // smallest subnormal
  CHECK(float_to_fp8_e4m3(1.0625f) == 0x38);    // halfway between 1 and 1.125: to even (1)
  CHECK(float_to_fp8_e4m3(1.1875f) == 0x3A);    // halfway between 1.125 and 1.25: to even (1.25)
  CHECK(float_to_fp8_e4m3(1000.0f) == 0x7E);    // saturates
  CHECK(float_to_fp8_e4m3(-1000.0f) == 0xFE);
  CHECK(float_to_fp8_e4m3(NAN) == 0x7F);
  // Integers are exact to 16, which bounds the fp8 collectives' exact sums (5 ranks of +-3).
  for (int i = -16; i <= 16; ++i) CHECK(fp8_e4m3_to_float(float_to_fp8_e4m3(static_cast<float>(i))) == i);
  CHECK(fp8_e4m3_to_float(float_to_fp8_e4m3(17.0f)) != 17.0f);
}
