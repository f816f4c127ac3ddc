#pragma once
// A ratio against a reference device as the comparison tables print it.
#include <fmt/format.h>

#include <string>

namespace rooftop::reports {

// "x1.14"; below x0.1 it says how many times slower ("128x slower", not "x0.0078").
inline std::string ratio_text(double r) {
  return r >= 0.1 || !(r > 0) ? fmt::format("x{:.2f}", r) : fmt::format("{:.{}f}x slower", 1 / r, 1 / r < 100 ? 1 : 0);
}

}  // namespace rooftop::reports
