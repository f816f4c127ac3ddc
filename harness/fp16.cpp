#include "harness/fp16.hpp"

#include <bit>
#include <cmath>

namespace rooftop {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));  // inf, NaN
  if (exp == 0) {  // zero and subnormals: mant x 2^-24
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::uint16_t float_to_half(float f) {
  // Scale onto the half grid of the value's binade and round to nearest even (the FP mode).
  if (std::isnan(f)) return 0x7e00;
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00;
  if (a < 0x1p-14f) return sign | static_cast<std::uint16_t>(std::nearbyint(a * 0x1p24f));  // subnormal
  int e = 0;
  std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  const float step = std::ldexp(1.0f, e - 11);  // 10 mantissa bits after the leading one
  a = std::nearbyint(a / step) * step;          // round to nearest even (default rounding mode)
  std::frexp(a, &e);
  const auto bits = std::bit_cast<std::uint32_t>(a);
  return sign | static_cast<std::uint16_t>(((static_cast<std::uint32_t>(e - 1 + 15)) << 10) | ((bits >> 13) & 0x3ff));
}

}  // namespace rooftop
