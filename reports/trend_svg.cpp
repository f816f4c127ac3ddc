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

// Each night against the series' median, in percent (beyond +-100% it sits at the edge).
std::vector<double> percents(const HistorySeries& series) {
  std::vector<double> medians;
  for (const auto& p : series.points) medians.push_back(p.median_s);
  const double centre = median(medians);
  std::vector<double> pct;
  for (double m : medians) pct.push_back(std::clamp(100.0 * (m / centre - 1), -100.0, 100.0));
  return pct;
}

// The segments between change points: [begin, end) indices.
std::vector<std::pair<std::size_t, std::size_t>> segments(std::size_t n, const std::vector<ChangePoint>& change_points) {
  std::vector<std::size_t> bounds{0};
  for (const auto& c : change_points) bounds.push_back(c.index);
  bounds.push_back(n);
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s)
    if (bounds[s + 1] > bounds[s]) out.emplace_back(bounds[s], bounds[s + 1]);
  return out;
}

double level(const std::vector<double>& pct, std::pair<std::size_t, std::size_t> seg) {
  return median(std::vector<double>(pct.begin() + static_cast<long>(seg.first), pct.begin() + static_cast<long>(seg.second)));
}
}  // namespace

TrendScale trend_range(const HistorySeries& series, const std::vector<ChangePoint>& change_points) {
  TrendScale scale;
  if (series.points.empty()) return scale;
  const auto pct = percents(series);
  auto sorted = pct;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&](double q) { return sorted[static_cast<std::size_t>(std::lround(q * static_cast<double>(sorted.size() - 1)))]; };
  scale.low = std::min(scale.low, at(0.1));
  scale.high = std::max(scale.high, at(0.9));
  for (const auto& seg : segments(pct.size(), change_points)) {
    scale.low = std::min(scale.low, level(pct, seg));
    scale.high = std::max(scale.high, level(pct, seg));
  }
  return scale;
}

std::string trend_svg(const HistorySeries& series, const std::vector<ChangePoint>& change_points, const TrendScale& scale) {
  const auto& pts = series.points;
  if (pts.empty()) return {};
  const auto pct = percents(series);
  const double pad = 0.1 * (scale.high - scale.low);
  const double lo = scale.low - pad, hi = scale.high + pad;
  const auto x_of = [&](double i) {
    return pts.size() < 2 ? (kLeft + kWidth - kRight) / 2 : kLeft + (kWidth - kLeft - kRight) * i / (pts.size() - 1.0);
  };
  const auto y_of = [&](double v) { return kTop + (kHeight - kTop - kBottom) * (hi - std::clamp(v, lo, hi)) / (hi - lo); };

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
  for (const auto& seg : segments(pts.size(), change_points))
    svg += fmt::format(R"(<line class="level" x1="{0:.1f}" x2="{1:.1f}" y1="{2:.1f}" y2="{2:.1f}"/>)", x_of(seg.first) - 2,
                       x_of(seg.second - 1.0) + 2, y_of(level(pct, seg)));
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
    svg += fmt::format(R"(<circle class="night{}" cx="{:.1f}" cy="{:.1f}" r="2.5"><title>{} {}: {} ({:+.1f}%)</title></circle>)",
                       pct[i] < lo || pct[i] > hi ? " beyond" : "", x_of(i), y_of(pct[i]), svg_escape(pts[i].created.substr(0, 16)),
                       svg_escape(pts[i].git_commit.substr(0, 12)), format_duration(pts[i].median_s), pct[i]);
  return svg + "</svg>";
}

}  // namespace rooftop::reports
