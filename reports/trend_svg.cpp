#include "reports/trend_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/statistics.hpp"
#include "harness/units.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {
constexpr double kWidth = 380, kHeight = 130, kLeft = 44, kRight = 10, kTop = 12, kBottom = 22;
}  // namespace

std::string trend_svg(const HistorySeries& series, const std::vector<ChangePoint>& change_points) {
  const auto& pts = series.points;
  if (pts.empty()) return {};
  std::vector<double> medians;
  for (const auto& p : pts) medians.push_back(p.median_s);
  const double centre = median(medians);
  // Each night against the series' median, in percent (beyond +-100% it sits at the edge).
  std::vector<double> pct;
  for (double m : medians) pct.push_back(std::clamp(100.0 * (m / centre - 1), -100.0, 100.0));
  double lo = std::min(-1.0, *std::min_element(pct.begin(), pct.end()));
  double hi = std::max(1.0, *std::max_element(pct.begin(), pct.end()));
  const double pad = 0.1 * (hi - lo);
  lo -= pad;
  hi += pad;
  const auto x_of = [&](double i) {
    return pts.size() < 2 ? (kLeft + kWidth - kRight) / 2 : kLeft + (kWidth - kLeft - kRight) * i / (pts.size() - 1.0);
  };
  const auto y_of = [&](double v) { return kTop + (kHeight - kTop - kBottom) * (hi - v) / (hi - lo); };

  std::string svg = fmt::format(R"(<svg class="trend" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)",
                                kWidth, kHeight);
  // The zero line (the series' median) and the extremes, labelled.
  for (double v : {lo + pad, 0.0, hi - pad})
    if (v == 0.0 || std::fabs(y_of(v) - y_of(0.0)) >= 12)  // an extreme beside the zero line would overprint it
      svg += fmt::format(R"(<line class="grid" x1="{0}" x2="{1}" y1="{2:.1f}" y2="{2:.1f}"/><text class="tick" x="{3}" y="{2:.1f}" text-anchor="end" dominant-baseline="middle">{4:+.0f}%</text>)",
                         kLeft, kWidth - kRight, y_of(v), kLeft - 4, v);
  svg += fmt::format(R"(<text class="tick" x="{}" y="{}">{}</text><text class="tick" x="{}" y="{}" text-anchor="end">{}</text>)",
                     kLeft, kHeight - 6, svg_escape(pts.front().created.substr(0, 10)), kWidth - kRight, kHeight - 6,
                     svg_escape(pts.back().created.substr(0, 10)));
  // Each segment's level: the median of its nights.
  std::vector<std::size_t> bounds{0};
  for (const auto& c : change_points) bounds.push_back(c.index);
  bounds.push_back(pts.size());
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    if (bounds[s + 1] <= bounds[s]) continue;
    const std::vector<double> seg(pct.begin() + static_cast<long>(bounds[s]), pct.begin() + static_cast<long>(bounds[s + 1]));
    svg += fmt::format(R"(<line class="level" x1="{0:.1f}" x2="{1:.1f}" y1="{2:.1f}" y2="{2:.1f}"/>)", x_of(bounds[s]) - 2,
                       x_of(bounds[s + 1] - 1.0) + 2, y_of(median(seg)));
  }
  for (const auto& c : change_points) {
    const double x = (x_of(c.index - 1.0) + x_of(static_cast<double>(c.index))) / 2;
    const char* kind = c.change >= 0 ? "slower" : "faster";
    svg += fmt::format(R"(<line class="change {}" x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{}"><title>change point before {} ({}): {:+.1f}%, p {:.2g}</title></line>)",
                       kind, x, x, kTop, kHeight - kBottom, svg_escape(pts[c.index].git_commit.substr(0, 12)),
                       svg_escape(pts[c.index].created.substr(0, 10)), 100 * c.change, c.p);
    svg += fmt::format(R"(<text class="change-label {}" x="{:.1f}" y="{}" text-anchor="middle">{:+.1f}%</text>)", kind, x,
                       kTop - 2, 100 * c.change);
  }
  std::string path;
  for (std::size_t i = 0; i < pts.size(); ++i) path += fmt::format("{}{:.1f},{:.1f}", i ? " L" : "M", x_of(i), y_of(pct[i]));
  svg += fmt::format(R"(<path class="series" d="{}"/>)", path);
  for (std::size_t i = 0; i < pts.size(); ++i)
    svg += fmt::format(R"(<circle class="night" cx="{:.1f}" cy="{:.1f}" r="2.5"><title>{} {}: {} ({:+.1f}%)</title></circle>)",
                       x_of(i), y_of(pct[i]), svg_escape(pts[i].created.substr(0, 16)),
                       svg_escape(pts[i].git_commit.substr(0, 12)), format_duration(pts[i].median_s), pct[i]);
  return svg + "</svg>";
}

}  // namespace rooftop::reports
