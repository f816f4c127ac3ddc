#include "reports/serve_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/units.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {
using kainjow::mustache::data;

std::string rate_text(double r) { return fmt::format("{:.4g} requests/s", r); }

std::string objective_text(const ServeCurve& c) {
  return fmt::format("TTFT p99 <= {}, TPOT p99 <= {}", format_duration(c.slo_ttft_s, 3), format_duration(c.slo_tpot_s, 3));
}

// What the sustainable rate is and where it comes from.
std::string sustainable_text(const ServeCurve& c) {
  if (c.searched) {
    if (c.sustainable && *c.sustainable > 0) return rate_text(*c.sustainable) + " (--sweep-rate)";
    double lowest = 0;
    for (const auto& p : c.points) lowest = lowest > 0 ? std::min(lowest, p.rate) : p.rate;
    return fmt::format("none: no rate down to {} met it", rate_text(lowest));
  }
  if (c.sustainable) return fmt::format("at least {} (the highest rate served that met it; no --sweep-rate)", rate_text(*c.sustainable));
  return "none of the rates served met it (no --sweep-rate)";
}

constexpr std::size_t kDecodeRows = 12;

ServeCurve decode_run(const ServeCurve& c) {
  ServeCurve one = c;
  one.decode_steps.clear();
  double rate = -1;
  for (const auto& s : c.decode_steps)
    if (c.sustainable && s.rate == *c.sustainable) rate = s.rate;
  if (rate < 0)
    for (const auto& s : c.decode_steps) rate = std::max(rate, s.rate);
  for (const auto& s : c.decode_steps)
    if (s.rate == rate) one.decode_steps.push_back(s);
  return one;
}

data list(std::vector<data> items) {
  data l{data::type::list};
  for (auto& i : items) l.push_back(std::move(i));
  return l;
}
}  // namespace

std::vector<data> serving_procurement_rows(const std::vector<ServeCurve>& curves, const std::map<std::string, double>& price_usd) {
  std::vector<data> rows;
  for (const auto& c : curves) {
    data row;
    row.set("device", c.device);
    row.set("fingerprint", c.fingerprint);
    row.set("workload", c.workload);
    row.set("filter", c.device + " " + c.name);
    row.set("objective", objective_text(c));
    row.set("sustainable", sustainable_text(c));
    const bool has_tokens = c.output_tokens_per_s > 0;
    row.set("tokens", has_tokens ? fmt::format("{:.4g}", c.output_tokens_per_s) : "-");
    const auto price = price_usd.find(c.fingerprint);
    if (!has_tokens) {
      row.set("per_dollar", "-");
    } else if (price == price_usd.end()) {
      row.set("per_dollar", "- (give its price with --price)");
    } else {
      const double seconds = kAmortisationYears * 365 * 24 * 3600;
      const double per_dollar = c.output_tokens_per_s * seconds / price->second;
      std::string count = si(per_dollar, "");  // "37.7 M" or "120 "
      if (count.back() != ' ') count += ' ';
      // The buyer's unit too: the price of a million output tokens on those assumptions.
      row.set("per_dollar", fmt::format("{}tokens/$ (${:.3g} per million) over {:g} years at this rate; {:.4g} tok/s per $1000 "
                                        "of its ${:.0f}",
                                        count, 1e6 / per_dollar, kAmortisationYears,
                                        c.output_tokens_per_s / price->second * 1000, price->second));
    }
    row.set("per_joule", !has_tokens ? "-"
                         : c.joules_per_token && *c.joules_per_token > 0
                             ? fmt::format("{:.4g} tokens/J (measured: {})", 1 / *c.joules_per_token, c.energy_basis)
                             : "not measured");
    rows.push_back(std::move(row));
  }
  return rows;
}

data serving_view(const std::vector<ServeCurve>& curves) {
  std::vector<data> items;
  for (const auto& c : curves) {
    data item;
    item.set("device", c.device);
    item.set("workload", c.workload);
    item.set("filter", c.device + " " + c.name);
    item.set("objective", objective_text(c));
    item.set("sustainable", sustainable_text(c));
    std::size_t invalid = 0;
    for (const auto& p : c.points) invalid += p.valid ? 0 : 1;
    item.set("points", fmt::format("{} rate{}{}", c.points.size(), c.points.size() == 1 ? "" : "s",
                                   invalid ? fmt::format(", {} INVALID (hollow: the engine did not keep up, or no steady state)", invalid)
                                           : std::string()));
    item.set("curve_svg", load_latency_svg(c));
    // The decode steps of one run: the one at the sustainable rate where it recorded them,
    // else the highest rate's (the roofline of the steps the machine runs at its limit).
    const ServeCurve decode = decode_run(c);
    if (auto svg = decode_roofline_svg(decode); !svg.empty()) {
      // Its own class beside "roofline" (the style): the page's chart counts stay the results'.
      const std::string from = R"(<svg class="roofline")";
      if (svg.starts_with(from)) svg.replace(0, from.size(), R"(<svg class="roofline decode-roofline")");
      item.set("decode_svg", svg);
      item.set("decode_rate", fmt::format("{:.4g}", decode.decode_steps.front().rate));
      double steps = 0, bytes = 0, seconds = 0;
      for (const auto& s : decode.decode_steps) {
        steps += static_cast<double>(s.steps);
        bytes += static_cast<double>(s.steps) * s.bytes;
        seconds += static_cast<double>(s.steps) * s.median_s;
      }
      DecodeStepPoint all;
      all.bytes = bytes / steps;  // a mean step: its level is a step's, not the run's sum
      all.median_s = seconds / steps;
      if (const auto roof = decode_step_roof(all, decode))
        item.set("decode_summary", fmt::format("{:.0f} decode steps over {} batch sizes: {:.0f}% of the {} roof (their bytes over "
                                               "their time, each batch size's steps at its median)",
                                               steps, decode.decode_steps.size(), roof->percent, roof->level));
      // The batch sizes with the most steps, at most kDecodeRows, in batch order.
      auto shown = decode.decode_steps;
      if (shown.size() > kDecodeRows) {
        std::stable_sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) { return a.steps > b.steps; });
        shown.resize(kDecodeRows);
        std::sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) { return a.batch < b.batch; });
        item.set("decode_left_out", fmt::format("The {} batch sizes with the most steps of {}; the chart's tooltips give every one.",
                                                kDecodeRows, decode.decode_steps.size()));
      }
      std::vector<data> rows;
      for (const auto& s : shown) {
        data d;
        d.set("batch", std::to_string(s.batch));
        d.set("steps", std::to_string(s.steps));
        d.set("time", format_duration(s.median_s, 3));
        d.set("context", fmt::format("{:.0f}", s.mean_context));
        d.set("bytes", format_si(s.bytes, "B", 3));
        const auto roof = decode_step_roof(s, decode);
        d.set("bandwidth", format_si(s.bytes / s.median_s, "B/s", 3));
        d.set("roof", roof ? fmt::format("{:.0f}% of {}", roof->percent, roof->level) : "- (no ceilings)");
        rows.push_back(std::move(d));
      }
      item.set("decode_steps", list(std::move(rows)));
    } else {
      item.set("no_decode", c.decode_steps.empty() ? "The results record no decode steps (made before rooftop recorded them)."
                                                   : "No decode step with a time and work to place.");
    }
    items.push_back(std::move(item));
  }
  data view;
  view.set("curves", list(std::move(items)));
  return view;
}

}  // namespace rooftop::reports
