#include "reports/tp_scaling_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {

constexpr double kWidth = 560, kHeight = 330, kLeft = 56, kRight = 190, kTop = 24, kBottom = 46;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

}  // namespace

std::string tp_scaling_svg(const std::vector<TpScalingRow>& rows) {
  if (rows.empty()) return "";
  // Series in the rows' order (grouped by point, tp ascending).
  std::vector<std::vector<const TpScalingRow*>> series;
  for (const auto& r : rows) {
    if (series.empty() || series.back().front()->point != r.point || series.back().front()->device != r.device ||
        series.back().front()->dtype != r.dtype)
      series.emplace_back();
    series.back().push_back(&r);
  }
  double tp_low = 1e9, tp_high = 0, s_high = 1;
  for (const auto& r : rows) {
    tp_low = std::min(tp_low, static_cast<double>(r.tp));
    tp_high = std::max(tp_high, static_cast<double>(r.tp));
    s_high = std::max({s_high, r.speedup, static_cast<double>(r.tp) / series.front().front()->tp});
  }
  if (!(tp_high > tp_low)) return "";
  // log2 axes: x from the smallest to the largest tp, y from 1/2 to the largest speed-up.
  const double y_low = 0.5, y_high = std::pow(2.0, std::ceil(std::log2(std::max(s_high, tp_high / tp_low)) + 0.01));
  const auto x = [&](double tp) { return kLeft + (kWidth - kLeft - kRight) * std::log2(tp / tp_low) / std::log2(tp_high / tp_low); };
  const auto y = [&](double s) {
    return (kHeight - kBottom) - (kHeight - kBottom - kTop) * std::log2(s / y_low) / std::log2(y_high / y_low);
  };
  std::string svg = fmt::format(R"(<svg class="tp-scaling" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)",
                                kWidth, kHeight);
  for (double s = y_low; s <= y_high * 1.0001; s *= 2)
    svg += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/><text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end" dominant-baseline="middle">{:g}x</text>)",
                       kLeft, y(s), kWidth - kRight, y(s), kLeft - 5, y(s), s);
  for (double tp = tp_low; tp <= tp_high * 1.0001; tp *= 2)
    svg += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text class="tick" x="{0:.1f}" y="{3}" text-anchor="middle">tp{4:g}</text>)",
                       x(tp), kTop, kHeight - kBottom, kHeight - kBottom + 15, tp);
  svg += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">tensor-parallel ranks</text>)",
                     (kLeft + kWidth - kRight) / 2, kHeight - 10);
  svg += fmt::format(R"svg(<text class="axis" transform="translate(14,{:.1f}) rotate(-90)" text-anchor="middle">speed-up (TPOT)</text>)svg",
                     (kTop + kHeight - kBottom) / 2);
  // The ideal: speed-up equal to the tp ratio.
  svg += fmt::format(R"(<line class="ideal" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>ideal: the speed-up equals the tp ratio</title></line>)",
                     x(tp_low), y(1), x(tp_high), y(tp_high / tp_low));
  double legend_y = kTop + 6;
  const auto legend = [&](const std::string& mark, const std::string& text) {
    svg += mark + fmt::format(R"(<text class="legend-label" x="{:.1f}" y="{:.1f}" dominant-baseline="middle">{}</text>)",
                              kWidth - kRight + 34, legend_y, svg_escape(text));
    legend_y += 18;
  };
  legend(fmt::format(R"(<line class="ideal" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", kWidth - kRight + 8, legend_y,
                     kWidth - kRight + 28, legend_y),
         "ideal");
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = kColours[i % std::size(kColours)];
    const double base = series[i].front()->tp;
    std::string path;
    for (const auto* r : series[i]) {
      // Against the smallest tp of the chart, so that every line starts on the ideal's scale.
      const double s = r->speedup * base / tp_low;
      path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x(r->tp), y(s));
    }
    svg += fmt::format(R"(<path class="tp-line" d="{}" style="stroke:{}"/>)", path, colour);
    for (const auto* r : series[i])
      svg += fmt::format(
          R"(<circle class="tp-point" cx="{:.1f}" cy="{:.1f}" r="4" style="fill:{}"><title>{} {} tp{}: {:.2f}x TPOT speed-up, {:.0f}% efficiency; {} output tokens/s</title></circle>)",
          x(r->tp), y(r->speedup * base / tp_low), colour, svg_escape(r->point), r->dtype, r->tp, r->speedup,
          100 * r->efficiency, si(r->tokens_per_s, ""));
    legend(fmt::format(R"(<line class="tp-line" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" style="stroke:{}"/>)", kWidth - kRight + 8,
                       legend_y, kWidth - kRight + 28, legend_y, colour),
           series[i].front()->point.size() > 22 ? series[i].front()->point.substr(0, 21) + "…" : series[i].front()->point);
  }
  return svg + "</svg>";
}

}  // namespace rooftop::reports
