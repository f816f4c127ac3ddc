#pragma once
// What the inline SVG charts share: XML-escaped text, SI-prefixed numbers, the palette.
#include <fmt/format.h>

#include <string>

namespace rooftop::reports {

inline std::string svg_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// 3 significant digits with an SI prefix: "1.47 PFLOP/s", "100 GB".
inline std::string si(double v, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int k = 0;
  while (v >= 1000 && k < 6) {
    v /= 1000;
    ++k;
  }
  return fmt::format("{:.3g} {}{}", v, prefixes[k], unit);
}

// Colours by series (suite, or collective), in order of appearance.
inline constexpr const char* kChartPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                                "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

}  // namespace rooftop::reports
