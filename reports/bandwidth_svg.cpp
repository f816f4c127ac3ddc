#include "reports/bandwidth_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/log_axis.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {
constexpr double kWidth = 820, kHeight = 460, kLeft = 80, kRight = 200, kTop = 24, kBottom = 56;
}  // namespace

std::string bandwidth_svg(const std::vector<BandwidthPoint>& points) {
  if (points.empty()) return {};
  std::vector<double> xs, ys;
  std::map<std::string, double> links;
  for (const auto& p : points) {
    xs.push_back(p.size_bytes);
    ys.push_back(p.bus_bytes_per_s);
    if (!p.link.empty()) links[p.link] = p.link_bytes_per_s;
  }
  for (const auto& [name, bw] : links) ys.push_back(bw);
  const LogAxis x = fit_log_axis(xs, kLeft, kWidth - kRight);
  const LogAxis y = fit_log_axis(ys, kHeight - kBottom, kTop);
  std::string svg = fmt::format(R"(<svg class="roofline bandwidth" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)",
                                kWidth, kHeight) + "\n";
  for (double d : x.decades())
    svg += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text class="tick" x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)",
                       x.to_pixel(d), kTop, kHeight - kBottom, kHeight - kBottom + 16, si(d, "B")) + "\n";
  for (double d : y.decades())
    svg += fmt::format(R"(<line class="grid" x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}"/><text class="tick" x="{3}" y="{0:.1f}" text-anchor="end" dominant-baseline="middle">{4}</text>)",
                       y.to_pixel(d), kLeft, kWidth - kRight, kLeft - 6, si(d, "B/s")) + "\n";
  svg += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">message size (nccl-tests' size)</text>)",
                     (kLeft + kWidth - kRight) / 2, kHeight - 12);
  svg += fmt::format(R"~(<text class="axis" transform="translate(16,{:.1f}) rotate(-90)" text-anchor="middle">bus bandwidth</text>)~",
                     (kTop + kHeight - kBottom) / 2) + "\n";
  for (const auto& [name, bw] : links)
    svg += fmt::format(R"(<line class="ceiling" x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}"><title>{}</title></line><text class="label" x="{}" y="{:.1f}" dominant-baseline="middle">{} {:.4g} GB/s</text>)",
                       kLeft, y.to_pixel(bw), kWidth - kRight, y.to_pixel(bw), svg_escape(name), kWidth - kRight + 4, y.to_pixel(bw),
                       svg_escape(name.substr(0, name.find(' '))), bw / 1e9) + "\n";
  std::map<std::string, std::vector<const BandwidthPoint*>> series;
  for (const auto& p : points) series[p.series].push_back(&p);
  std::size_t k = 0;
  double ly = kTop + 8;
  for (auto& [name, ps] : series) {
    const char* colour = kChartPalette[k++ % std::size(kChartPalette)];
    std::sort(ps.begin(), ps.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
    std::string path;
    for (const auto* p : ps) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x.to_pixel(p->size_bytes), y.to_pixel(p->bus_bytes_per_s));
    svg += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", path, colour) + "\n";
    for (const auto* p : ps)
      svg += fmt::format(R"(<g class="point" id="{0}" data-row="{0}" data-suite="collectives"><circle cx="{1:.1f}" cy="{2:.1f}" r="4" fill="{3}"><title>{4}</title></circle></g>)",
                         svg_escape(p->id), x.to_pixel(p->size_bytes), y.to_pixel(p->bus_bytes_per_s), colour, svg_escape(p->tooltip)) + "\n";
    svg += fmt::format(R"(<rect x="{}" y="{:.1f}" width="10" height="10" fill="{}"/><text class="label" x="{}" y="{:.1f}">{}</text>)",
                       kWidth - kRight + 8, ly + 30, colour, kWidth - kRight + 24, ly + 39, svg_escape(name)) + "\n";
    ly += 16;
  }
  svg += "</svg>";
  return svg;
}

}  // namespace rooftop::reports
