#pragma once
// fp8 e4m3 (OCP FN: bias 7, no infinities, one NaN pattern, largest 448) <-> float for
// host-side data and checks: round to nearest even, saturating at +-448 as NVIDIA's
// conversions do with saturation on.
#include <cstdint>

namespace rooftop {

float fp8_e4m3_to_float(std::uint8_t v);
std::uint8_t float_to_fp8_e4m3(float f);

}  // namespace rooftop
