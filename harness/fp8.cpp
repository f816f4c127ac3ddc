#include "harness/fp8.hpp"

#include <array>
#include <cmath>

namespace rooftop {

namespace {

float decode_e4m3(std::uint8_t v) {
  const float sign = v & 0x80 ? -1.0f : 1.0f;
  const int exponent = (v >> 3) & 0xF, mantissa = v & 0x7;
  if (exponent == 15 && mantissa == 7) return NAN;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);  // subnormal: m x 2^-9
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
}

}  // namespace

// A table: the references widen billions of weights (an 8B model's calibration).
float fp8_e4m3_to_float(std::uint8_t v) {
  static const auto table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = decode_e4m3(static_cast<std::uint8_t>(i));
    return t;
  }();
  return table[v];
}

std::uint8_t float_to_fp8_e4m3(float f) {
  if (std::isnan(f)) return 0x7F;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const float a = std::fabs(f);
  if (a >= 448.0f) return sign | 0x7E;  // saturate
  if (a < std::ldexp(1.0f, -6)) {        // subnormal range: steps of 2^-9
    const int m = static_cast<int>(std::nearbyint(std::ldexp(a, 9)));
    return static_cast<std::uint8_t>(sign | (m == 8 ? 0x08 : m));  // 8 x 2^-9 is the smallest normal
  }
  int e = 0;
  const float frac = std::frexp(a, &e);  // a = frac x 2^e, frac in [0.5, 1)
  int exponent = e - 1 + 7;
  int m = static_cast<int>(std::nearbyint((frac * 2.0f - 1.0f) * 8.0f));
  if (m == 8) {
    m = 0;
    ++exponent;
  }
  if (exponent > 15 || (exponent == 15 && m == 7)) return sign | 0x7E;
  return static_cast<std::uint8_t>(sign | (exponent << 3) | m);
}

}  // namespace rooftop
