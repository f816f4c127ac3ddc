#include "reports/roofline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/log_axis.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {
constexpr double kWidth = 820, kHeight = 500, kLeft = 80, kRight = 190, kTop = 24, kBottom = 56;

std::string marker(const std::string& dtype, double x, double y, const std::string& colour) {
  if (dtype == "bf16" || dtype == "fp16")
    return fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="9" height="9" fill="{}")", x - 4.5, y - 4.5, colour);
  if (dtype == "int8" || dtype == "fp8")
    return fmt::format(R"(<path d="M{:.1f},{:.1f} l5,9 l-10,0 z" fill="{}")", x, y - 5.5, colour);
  return fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="{}")", x, y, colour);
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
  // Ceilings: measured solid, datasheet dashed.
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
      svg += fmt::format(R"(<line class="{} compute" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>{} {}</title></line>)",
                         cls, x.to_pixel(x_start), y.to_pixel(k.flops_per_s), x.to_pixel(x.high), y.to_pixel(k.flops_per_s),
                         svg_escape(k.name), si(k.flops_per_s, "FLOP/s"));
      svg += fmt::format(R"(<text class="label" x="{:.1f}" y="{:.1f}" dominant-baseline="middle">{}{} {}</text>)",
                         x.to_pixel(x.high) + 4, y.to_pixel(k.flops_per_s), c == measured ? "" : "datasheet ", svg_escape(k.name),
                         si(k.flops_per_s, "FLOP/s")) + "\n";
    }
    if (c == measured)
      for (const auto& r : ridge_points(*c))
        svg += fmt::format(R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="3"><title>ridge of {} on {}: {:.3g} FLOP/byte</title></circle><text class="ridge-label" x="{:.1f}" y="{:.1f}">ridge {:.3g}</text>)",
                           x.to_pixel(r.intensity), y.to_pixel(r.flops_per_s), svg_escape(r.compute), svg_escape(r.level), r.intensity,
                           x.to_pixel(r.intensity) + 4, y.to_pixel(r.flops_per_s) + 14, r.intensity) + "\n";
  }
  // Results.
  std::map<std::string, std::string> colours;
  for (const auto& p : points)
    if (!colours.count(p.suite)) colours[p.suite] = kChartPalette[colours.size() % std::size(kChartPalette)];
  for (const auto& p : points)
    svg += fmt::format(R"(<g class="point" id="{}" data-suite="{}" data-dtype="{}">{}><title>{}</title></{}></g>)", svg_escape(p.id),
                       svg_escape(p.suite), svg_escape(p.dtype), marker(p.dtype, x.to_pixel(p.intensity), y.to_pixel(p.flops_per_s), colours[p.suite]),
                       svg_escape(p.tooltip), p.dtype == "bf16" || p.dtype == "fp16" ? "rect" : (p.dtype == "int8" || p.dtype == "fp8" ? "path" : "circle")) + "\n";
  // Legend.
  double ly = kTop + 8;
  for (const auto& [suite, colour] : colours) {
    svg += fmt::format(R"(<rect x="{}" y="{:.1f}" width="10" height="10" fill="{}"/><text class="label" x="{}" y="{:.1f}">{}</text>)",
                       kLeft + 8, ly, colour, kLeft + 24, ly + 9, svg_escape(suite)) + "\n";
    ly += 16;
  }
  svg += "</svg>";
  return svg;
}

}  // namespace rooftop::reports
