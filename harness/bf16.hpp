#pragma once
// bfloat16 <-> float conversions for host-side data and references.
#include <bit>
#include <cstdint>

namespace rooftop {

inline std::uint16_t float_to_bf16(float f) {  // round to nearest even; NaN stays NaN
  const auto bits = std::bit_cast<std::uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

inline float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

}  // namespace rooftop
