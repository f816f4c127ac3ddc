#include "reports/roofline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/log_axis.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {
// Room on the right for the ceilings' labels ("datasheet fp32_vector 67 TFLOP/s" whole).
constexpr double kWidth = 880, kHeight = 500, kLeft = 80, kRight = 250, kTop = 24, kBottom = 56;
constexpr double kLabelGap = 13;  // pixels between two labels' baselines

// A dtype's colour: its points and its compute ceilings share it.
std::string dtype_colour(const std::string& dtype) {
  static const std::map<std::string, std::string> colours{{"fp32", "#1f77b4"}, {"tf32", "#17becf"}, {"bf16", "#d62728"},
                                                          {"fp16", "#ff7f0e"}, {"fp8", "#9467bd"}, {"int8", "#2ca02c"}};
  const auto it = colours.find(dtype);
  return it == colours.end() ? "#555" : it->second;
}

// A suite's marker: circle, square, triangle, diamond in turn.
std::string marker(int shape, double x, double y, const std::string& colour) {
  switch (shape % 4) {
    case 1: return fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="9" height="9" fill="{}")", x - 4.5, y - 4.5, colour);
    case 2: return fmt::format(R"(<path d="M{:.1f},{:.1f} l5,9 l-10,0 z" fill="{}")", x, y - 5.5, colour);
    case 3: return fmt::format(R"(<path d="M{:.1f},{:.1f} l5,5 l-5,5 l-5,-5 z" fill="{}")", x, y - 5, colour);
    default: return fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="{}")", x, y, colour);
  }
}
const char* marker_element(int shape) { return shape % 4 == 0 ? "circle" : shape % 4 == 1 ? "rect" : "path"; }

struct Label {
  double y = 0;  // where its line is
  std::string text, colour;
};
// Spreads labels at least kLabelGap apart, in their order, inside [top, bottom].
std::vector<double> spread(std::vector<Label>& labels, double top, double bottom) {
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y < b.y; });
  std::vector<double> at;
  for (const auto& l : labels) at.push_back(std::max(l.y, at.empty() ? top : at.back() + kLabelGap));
  for (std::size_t i = at.size(); i-- > 0;)  // pushed below the bottom: back up
    at[i] = std::min(at[i], i + 1 < at.size() ? at[i + 1] - kLabelGap : bottom);
  return at;
}
}  // namespace

std::vector<RidgePoint> ridge_points(const Ceilings& c) {
  std::vector<RidgePoint> ridges;
  if (c.bandwidth.empty()) return ridges;
  const auto& slowest = c.bandwidth.back();
  for (const auto& compute : c.compute)
    ridges.push_back({compute.name, slowest.level, ridge_intensity(compute.flops_per_s, slowest.bytes_per_s), compute.flops_per_s});
  return ridges;
}

std::string roofline_svg(const Ceilings* measured, const Datasheet* datasheet, const std::vector<ChartPoint>& points) {
  std::vector<double> xs, ys;
  for (const auto& p : points) {
    xs.push_back(p.intensity);
    ys.push_back(p.flops_per_s);
  }
  for (const Ceilings* c : {measured, datasheet ? &datasheet->ceilings : nullptr}) {
    if (!c) continue;
    for (const auto& r : ridge_points(*c)) xs.push_back(r.intensity);
    for (const auto& k : c->compute) ys.push_back(k.flops_per_s);
  }
  LogAxis x = fit_log_axis(xs, kLeft, kWidth - kRight);
  // Room on the left for the bandwidth lines to start low.
  x.low = std::min(x.low, 0.1);
  std::vector<double> yv = ys;
  if (measured)
    for (const auto& b : measured->bandwidth) yv.push_back(b.bytes_per_s * x.low);
  const LogAxis y = fit_log_axis(yv, kHeight - kBottom, kTop);

  std::string svg = fmt::format(R"(<svg class="roofline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)", kWidth, kHeight);
  svg += "\n";
  // Grid and axes.
  for (double d : x.decades())
    svg += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text class="tick" x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)",
                       x.to_pixel(d), kTop, kHeight - kBottom, kHeight - kBottom + 16, fmt::format("{:g}", d)) + "\n";
  for (double d : y.decades())
    svg += fmt::format(R"(<line class="grid" x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}"/><text class="tick" x="{3}" y="{0:.1f}" text-anchor="end" dominant-baseline="middle">{4}</text>)",
                       y.to_pixel(d), kLeft, kWidth - kRight, kLeft - 6, si(d, "")) + "\n";
  svg += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">arithmetic intensity (FLOP/byte)</text>)",
                     (kLeft + kWidth - kRight) / 2, kHeight - 12);
  svg += fmt::format(R"~(<text class="axis" transform="translate(16,{:.1f}) rotate(-90)" text-anchor="middle">FLOP/s</text>)~",
                     (kTop + kHeight - kBottom) / 2) + "\n";
  // Ceilings: measured solid, datasheet dashed; compute roofs in their dtype's colour, their
  // labels on the right, spread so that none overprints another.
  std::vector<Label> right;
  for (const Ceilings* c : {measured, datasheet ? &datasheet->ceilings : nullptr}) {
    if (!c || c->compute.empty() || c->bandwidth.empty()) continue;
    const std::string cls = c == measured ? "ceiling" : "ceiling datasheet";
    double top = 0, fastest = 0;
    for (const auto& k : c->compute) top = std::max(top, k.flops_per_s);
    for (const auto& b : c->bandwidth) fastest = std::max(fastest, b.bytes_per_s);
    for (const auto& b : c->bandwidth) {
      const double x_end = std::min(x.high, top / b.bytes_per_s);
      svg += fmt::format(R"(<line class="{} memory" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>{} {}</title></line>)",
                         cls, x.to_pixel(x.low), y.to_pixel(b.bytes_per_s * x.low), x.to_pixel(x_end),
                         y.to_pixel(b.bytes_per_s * x_end), svg_escape(b.level), si(b.bytes_per_s, "B/s"));
      if (c == measured)
        svg += fmt::format(R"(<text class="label" x="{:.1f}" y="{:.1f}">{} {}</text>)", x.to_pixel(x.low) + 4,
                           y.to_pixel(b.bytes_per_s * x.low) - 4, svg_escape(b.level), si(b.bytes_per_s, "B/s"));
      svg += "\n";
    }
    for (const auto& k : c->compute) {
      const double x_start = std::max(x.low, k.flops_per_s / fastest);
      svg += fmt::format(R"(<line class="{} compute" style="stroke:{}" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>{} {}</title></line>)",
                         cls, dtype_colour(k.dtype), x.to_pixel(x_start), y.to_pixel(k.flops_per_s), x.to_pixel(x.high),
                         y.to_pixel(k.flops_per_s), svg_escape(k.name), si(k.flops_per_s, "FLOP/s")) + "\n";
      right.push_back({y.to_pixel(k.flops_per_s),
                       fmt::format("{}{} {}", c == measured ? "" : "datasheet ", k.name, si(k.flops_per_s, "FLOP/s")),
                       dtype_colour(k.dtype)});
    }
    if (c == measured)
      for (const auto& r : ridge_points(*c))
        // The intensity in the tooltip only: six ridges' labels overprinted each other.
        svg += fmt::format(R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="3"><title>ridge of {} on {}: {:.3g} FLOP/byte</title></circle>)",
                           x.to_pixel(r.intensity), y.to_pixel(r.flops_per_s), svg_escape(r.compute), svg_escape(r.level),
                           r.intensity) + "\n";
  }
  const auto at = spread(right, kTop, kHeight - kBottom);
  for (std::size_t i = 0; i < right.size(); ++i) {
    const double x0 = x.to_pixel(x.high);
    if (std::fabs(at[i] - right[i].y) > 1)  // moved: a leader from its line to it
      svg += fmt::format(R"(<line class="leader" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}"/>)", x0, right[i].y,
                         x0 + 8, at[i], right[i].colour);
    svg += fmt::format(R"(<text class="label ceiling-label" x="{:.1f}" y="{:.1f}" dominant-baseline="middle" fill="{}">{}</text>)",
                       x0 + 10, at[i], right[i].colour, svg_escape(right[i].text)) + "\n";
  }
  // Results: colour by dtype (as its roof), marker by suite.
  std::map<std::string, int> shapes;
  std::map<std::string, bool> dtypes;
  for (const auto& p : points) {
    if (!shapes.count(p.suite)) shapes.emplace(p.suite, static_cast<int>(shapes.size()));
    dtypes[p.dtype] = true;
  }
  for (const auto& p : points) {
    const int shape = shapes[p.suite];
    svg += fmt::format(R"(<g class="point" id="{}" data-suite="{}" data-dtype="{}">{}><title>{}</title></{}></g>)", svg_escape(p.id),
                       svg_escape(p.suite), svg_escape(p.dtype),
                       marker(shape, x.to_pixel(p.intensity), y.to_pixel(p.flops_per_s), dtype_colour(p.dtype)),
                       svg_escape(p.tooltip), marker_element(shape)) + "\n";
  }
  // Legend: dtypes by colour, suites by marker.
  double ly = kTop + 8;
  for (const auto& [dtype, unused] : dtypes) {
    svg += fmt::format(R"(<rect x="{}" y="{:.1f}" width="10" height="10" fill="{}"/><text class="label" x="{}" y="{:.1f}">{}</text>)",
                       kLeft + 8, ly, dtype_colour(dtype), kLeft + 24, ly + 9, svg_escape(dtype)) + "\n";
    ly += 16;
  }
  for (const auto& [suite, shape] : shapes) {
    svg += marker(shape, kLeft + 13, ly + 5, "#555") + "/>" +
           fmt::format(R"(<text class="label" x="{}" y="{:.1f}">{}</text>)", kLeft + 24, ly + 9, svg_escape(suite)) + "\n";
    ly += 16;
  }
  svg += "</svg>";
  return svg;
}

}  // namespace rooftop::reports
