#include "reports/gate_strip.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/statistics.hpp"

namespace rooftop::reports {
namespace {
constexpr double kLimit = 100.0;  // percent: beyond this even the robust scale stops

double relative(const Comparison& c, double seconds) { return 100.0 * (seconds / median(c.baseline_samples) - 1.0); }

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::lround(q * static_cast<double>(v.size() - 1)))];
}
}  // namespace

std::string StripScale::text() const { return fmt::format("{:+.0f}% to {:+.0f}% of each baseline's median", low, high); }

StripScale strip_scale(const std::vector<const Comparison*>& rows) {
  double lo = 0, hi = 0;
  std::vector<double> all;
  const auto take = [&](double pct) {
    if (!std::isfinite(pct)) return;
    lo = std::min(lo, std::max(-kLimit, pct));
    hi = std::max(hi, std::min(kLimit, pct));
  };
  for (const auto* c : rows) {
    if (!c->compared() || c->baseline_samples.empty() || c->current_samples.empty()) continue;
    take(100.0 * c->tau);
    take(-100.0 * c->tau);
    take(relative(*c, median(c->current_samples)));
    if (c->change_low != 0 || c->change_high != 0) {  // an interval was computed
      take(100.0 * c->change_low);
      take(100.0 * c->change_high);
    }
    for (const auto* side : {&c->baseline_samples, &c->current_samples})
      for (double s : *side) all.push_back(relative(*c, s));
  }
  if (!all.empty()) {
    take(quantile(all, 0.01));
    take(quantile(all, 0.99));
  }
  // A little room beyond the outermost mark.
  const double pad = 0.04 * (hi - lo);
  return {std::max(-kLimit, lo - pad), std::min(kLimit, hi + pad)};
}

std::string gate_strip_svg(const Comparison& c, const StripScale& scale) {
  std::string svg = R"(<svg class="strip" viewBox="0 0 160 24" xmlns="http://www.w3.org/2000/svg">)";
  if (!c.compared() || c.baseline_samples.empty() || c.current_samples.empty()) return svg + "</svg>";
  const double span = scale.high > scale.low ? scale.high - scale.low : 1;
  const auto x_of = [&](double pct) { return 5 + 150 * (std::clamp(pct, scale.low, scale.high) - scale.low) / span; };
  svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="0" y2="24" class="zero"/>)", x_of(0));
  svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="0" y2="24" class="tau"><title>+{1:.0f}%: tau</title></line>)",
                     x_of(100 * c.tau), 100 * c.tau);
  const char* current = c.verdict == Verdict::fail ? "cur fail" : c.unresolved_above_tau() ? "cur above" : "cur";
  // Samples beyond the scale: one arrow per side and edge, with how many and the furthest.
  const auto side = [&](const std::vector<double>& samples, double y, const char* cls) {
    int below = 0, above = 0;
    double lowest = 0, highest = 0;
    for (double s : samples) {
      const double pct = relative(c, s);
      if (pct < scale.low) lowest = below++ ? std::min(lowest, pct) : pct;
      else if (pct > scale.high) highest = above++ ? std::max(highest, pct) : pct;
      else svg += fmt::format(R"(<circle cx="{:.1f}" cy="{}" r="2.5" class="{}"/>)", x_of(pct), y, cls);
    }
    if (below)
      svg += fmt::format(R"(<path d="M1,{0} l5,-3.5 v7 z" class="beyond {1}"><title>{2} sample{3} beyond the scale, down to {4:+.1f}%</title></path>)",
                         y, cls, below, below == 1 ? "" : "s", lowest);
    if (above)
      svg += fmt::format(R"(<path d="M159,{0} l-5,-3.5 v7 z" class="beyond {1}"><title>{2} sample{3} beyond the scale, up to {4:+.1f}%</title></path>)",
                         y, cls, above, above == 1 ? "" : "s", highest);
  };
  side(c.baseline_samples, 7, "base");
  side(c.current_samples, 17, current);
  svg += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="12" y2="22" class="median"/>)", x_of(relative(c, median(c.current_samples))));
  return svg + "</svg>";
}

}  // namespace rooftop::reports
