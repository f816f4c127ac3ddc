#pragma once
// IEEE half (fp16) <-> float conversions for host-side data and references (no F16C
// needed): round to nearest even, subnormals, infinities and NaN kept.
#include <cstdint>

namespace rooftop {

float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);

}  // namespace rooftop
