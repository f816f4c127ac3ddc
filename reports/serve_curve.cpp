#include "reports/serve_curve.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <cmath>
#include <map>

#include "harness/derived.hpp"
#include "harness/roofline.hpp"
#include "harness/statistics.hpp"
#include "harness/units.hpp"
#include "reports/log_axis.hpp"
#include "reports/result_rows.hpp"
#include "reports/roofline_svg.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {

using ojson = nlohmann::ordered_json;

bool is_serve(const ResultRecord& r) { return r.problem.family == "inference" && r.declared.scenario == "serve"; }

double param(const ResultRecord& r, const char* name, double fallback = 0) {
  return r.problem.params.contains(name) && r.problem.params[name].is_number() ? r.problem.params[name].get<double>() : fallback;
}
std::string param_text(const ResultRecord& r, const char* name) {
  if (!r.problem.params.contains(name)) return "";
  const auto& v = r.problem.params[name];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The median of a metric over the repetitions; -1 where the point has none.
double metric(const ResultRecord& r, const std::string& name) {
  for (const auto& [key, values] : r.metrics)
    if (key == name && !values.empty()) return median(values);
  return -1;
}

double number(const ojson& o, const char* name, double fallback = 0) {
  return o.is_object() && o.contains(name) && o[name].is_number() ? o[name].get<double>() : fallback;
}

LatencyPercentiles percentiles_of(const ojson& o) { return {number(o, "p50"), number(o, "p90"), number(o, "p99")}; }

// A short time for an axis or a tooltip: "270 us", "90.2 ms", "1.25 s".
std::string short_time(double s) {
  if (!(s > 0)) return "-";
  if (s < 1e-3) return fmt::format("{:.3g} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} s", s);
}

// A serve point's name without its rate: "llama-3.2-1b_serve_r4_n48_chat" as "llama-3.2-1b_serve_n48_chat"
// (the load's other options, "_batch8", stay).
std::string name_without_rate(std::string shape) {
  if (const auto at = shape.find("_serve_r"); at != std::string::npos) {
    const auto end = shape.find('_', at + 8);
    shape.erase(at + 7, end == std::string::npos ? std::string::npos : end - at - 6);
  }
  if (shape.ends_with("_sweep")) shape.resize(shape.size() - 6);
  return shape;
}

}  // namespace

std::vector<ServeCurve> serve_curves(const std::vector<ReportInput>& inputs) {
  std::vector<ServeCurve> curves;
  std::map<std::string, std::size_t> index;  // device and workload -> curve
  for (std::size_t f = 0; f < inputs.size(); ++f) {
    const auto& run = inputs[f].run;
    for (std::size_t k = 0; k < run.results.size(); ++k) {
      const auto& r = run.results[k];
      if (!is_serve(r) || r.metrics.empty()) continue;
      const double slo_ttft = param(r, "slo_ttft_s", r.declared.slo_ttft_s), slo_tpot = param(r, "slo_tpot_s", r.declared.slo_tpot_s);
      const std::string workload =
          fmt::format("{} {}, lengths {}, {} requests, batch {}, budget {}", param_text(r, "model"), dtype_name(r.problem.dtype),
                      param_text(r, "lengths"), param_text(r, "requests"), param_text(r, "max_batch"), param_text(r, "token_budget"));
      // The name without its rate holds every option of the load (seed, window, cache, ...):
      // loads that differ in one are two curves.
      const std::string key = fmt::format("{}|{}|{}|{}|{}|{}", run.meta.fingerprint, r.problem.backend, workload,
                                          name_without_rate(r.problem.shape), slo_ttft, slo_tpot);
      auto [it, added] = index.emplace(key, curves.size());
      if (added) {
        ServeCurve c;
        c.fingerprint = run.meta.fingerprint;
        c.device = run.meta.device.is_object() ? device_display_name(run.meta.device) : run.meta.fingerprint;
        c.workload = workload;
        c.name = name_without_rate(r.problem.shape);
        c.slo_ttft_s = slo_ttft;
        c.slo_tpot_s = slo_tpot;
        c.ceilings = run.meta.ceilings ? &*run.meta.ceilings : nullptr;
        c.datasheet = run.meta.datasheet ? &*run.meta.datasheet : nullptr;
        curves.push_back(std::move(c));
      }
      ServeCurve& c = curves[it->second];
      const auto& out = r.outputs;
      const bool swept = out.is_object() && out.contains("sweep") && out["sweep"].is_object();
      const double rate = number(out, "rate", param(r, "rate"));
      const auto meets = [&](const ServeRatePoint& p) { return p.valid && p.ttft.p99 <= slo_ttft && p.tpot.p99 <= slo_tpot; };
      if (swept) {
        // Every rate the search tried is a point of the curve (the record's own metrics are one of them).
        for (const auto& t : out["sweep"].value("runs", ojson::array())) {
          ServeRatePoint p;
          p.rate = number(t, "rate");
          p.ttft = t.contains("ttft_s") ? percentiles_of(t["ttft_s"]) : LatencyPercentiles{0, 0, number(t, "ttft_p99_s")};
          p.tpot = t.contains("tpot_s") ? percentiles_of(t["tpot_s"]) : LatencyPercentiles{0, 0, number(t, "tpot_p99_s")};
          if (t.contains("e2e_s")) p.e2e = percentiles_of(t["e2e_s"]);
          p.verdict = t.value("verdict", std::string());
          p.valid = t.contains("valid") ? t["valid"].get<bool>() : p.verdict == "VALID";
          p.meets = t.value("meets_slo", meets(p));
          p.goodput = number(t, "goodput_requests_per_s", -1);
          p.output_tokens_per_s = number(t, "output_tokens_per_s", -1);
          c.points.push_back(p);
        }
        const double sustainable = number(out["sweep"], "sustainable_rate", metric(r, "sustainable_rate"));
        if (!c.searched || sustainable > c.sustainable.value_or(0)) {
          c.searched = true;
          c.sustainable = sustainable;
          c.output_tokens_per_s = sustainable > 0 ? metric(r, "output_tokens_per_s") : -1;
          const auto& d = derived_of(r);
          c.joules_per_token.reset();
          if (sustainable > 0 && d.power && d.power->joules_per_token) {
            c.joules_per_token = d.power->joules_per_token;
            c.energy_basis = fmt::format("the mean board power over the search's {} runs ({:.0f} W)",
                                         out["sweep"].value("runs", ojson::array()).size(), d.power->board_w);
          }
        }
      } else {
        ServeRatePoint p;
        p.rate = rate;
        p.ttft = {metric(r, "ttft_p50_s"), metric(r, "ttft_p90_s"), metric(r, "ttft_p99_s")};
        p.tpot = {metric(r, "tpot_p50_s"), metric(r, "tpot_p90_s"), metric(r, "tpot_p99_s")};
        p.e2e = {metric(r, "e2e_p50_s"), metric(r, "e2e_p90_s"), metric(r, "e2e_p99_s")};
        std::size_t reps = 0, valid = 0;
        for (const auto& [name, values] : r.metrics)
          if (name == "valid") {
            reps = values.size();
            valid = static_cast<std::size_t>(std::count(values.begin(), values.end(), 1.0));
          }
        p.valid = reps > 0 && valid == reps;
        p.verdict = out.is_object() && out.contains("verdict") ? out["verdict"].get<std::string>() : p.valid ? "VALID" : "INVALID";
        p.meets = meets(p);
        p.goodput = metric(r, "goodput_requests_per_s");
        p.output_tokens_per_s = metric(r, "output_tokens_per_s");
        c.points.push_back(p);
        // Without a search, the highest rate served that met the objective.
        if (!c.searched && p.meets && p.rate > c.sustainable.value_or(0)) {
          c.sustainable = p.rate;
          c.output_tokens_per_s = p.output_tokens_per_s;
          const auto& d = derived_of(r);
          c.joules_per_token.reset();
          if (d.power && d.power->joules_per_token) {
            c.joules_per_token = d.power->joules_per_token;
            c.energy_basis = fmt::format("the mean board power over the point's repetitions ({:.0f} W)", d.power->board_w);
          }
        }
      }
      if (out.is_object() && out.contains("decode_steps"))
        for (const auto& s : out["decode_steps"])
          c.decode_steps.push_back({rate, fmt::format("pt-{}-{}", f, k), static_cast<std::int64_t>(number(s, "batch")),
                                    static_cast<std::int64_t>(number(s, "steps")), number(s, "median_s"),
                                    number(s, "mean_context"), number(s, "flops"), number(s, "bytes")});
    }
  }
  for (auto& c : curves)
    std::stable_sort(c.points.begin(), c.points.end(), [](const ServeRatePoint& a, const ServeRatePoint& b) { return a.rate < b.rate; });
  return curves;
}

namespace {
constexpr double kPanelWidth = 400, kHeight = 330, kLegend = 24, kLeft = 58, kRight = 14, kTop = 34, kBottom = 46;
constexpr const char* kPercentileColour[] = {"#9ecae1", "#4292c6", "#08306b"};  // p50, p90, p99
constexpr const char* kPercentileName[] = {"p50", "p90", "p99"};

// Ticks at 1, 2 or 5 times a power of ten, about five over [0, high].
std::vector<double> linear_ticks(double high) {
  const double raw = high / 5, step10 = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / step10 < 1.5 ? step10 : raw / step10 < 3.5 ? 2 * step10 : raw / step10 < 7.5 ? 5 * step10 : 10 * step10;
  std::vector<double> t;
  for (double v = 0; v <= high * (1 + 1e-9); v += step) t.push_back(v);
  return t;
}

// One panel: a metric's three percentiles against the rate; `objective` > 0 drawn as a line.
std::string panel(const ServeCurve& c, double x0, const char* title, LatencyPercentiles ServeRatePoint::*metric_of,
                  double objective, double rate_high) {
  const double left = x0 + kLeft, right = x0 + kPanelWidth - kRight;
  std::vector<double> values;
  for (const auto& p : c.points)
    for (double v : {(p.*metric_of).p50, (p.*metric_of).p90, (p.*metric_of).p99}) values.push_back(v);
  if (objective > 0) values.push_back(objective);
  const LogAxis y = fit_log_axis(values, kHeight - kBottom, kTop);
  const auto x = [&](double rate) { return left + (right - left) * rate / rate_high; };
  std::string svg = fmt::format(R"(<g class="panel" data-metric="{}">)", title);
  svg += fmt::format(R"(<text class="panel-title" x="{:.1f}" y="{}">{}</text>)", left, kTop - 12,
                     svg_escape(objective > 0 ? fmt::format("{} (objective {})", title, short_time(objective))
                                              : fmt::format("{} (no objective)", title)));
  for (double d : y.decades())
    svg += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/><text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end" dominant-baseline="middle">{}</text>)",
                       left, y.to_pixel(d), right, y.to_pixel(d), left - 5, y.to_pixel(d), short_time(d));
  for (double t : linear_ticks(rate_high))
    svg += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text class="tick" x="{0:.1f}" y="{3}" text-anchor="middle">{4:g}</text>)",
                       x(t), kTop, kHeight - kBottom, kHeight - kBottom + 15, t);
  svg += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">offered rate (requests/s)</text>)", (left + right) / 2,
                     kHeight - 10);
  if (objective > 0)
    svg += fmt::format(R"(<line class="objective" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>objective: p99 within {}</title></line>)",
                       left, y.to_pixel(objective), right, y.to_pixel(objective), short_time(objective));
  if (c.sustainable && *c.sustainable > 0)
    svg += fmt::format(R"(<line class="sustainable" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"><title>sustainable: {3:.4g} requests/s</title></line><text class="sustainable-label" x="{4:.1f}" y="{5}" text-anchor="{6}">{3:.4g}/s</text>)",
                       x(*c.sustainable), kTop, kHeight - kBottom, *c.sustainable,
                       x(*c.sustainable) + (x(*c.sustainable) > right - 50 ? -4 : 4), kTop + 12,
                       x(*c.sustainable) > right - 50 ? "end" : "start");
  // A line a percentile through its points in rate order, then the markers: an INVALID run hollow.
  for (int q = 0; q < 3; ++q) {
    std::string path;
    for (const auto& p : c.points) {
      const double v = q == 0 ? (p.*metric_of).p50 : q == 1 ? (p.*metric_of).p90 : (p.*metric_of).p99;
      if (v > 0) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x(p.rate), y.to_pixel(v));
    }
    if (!path.empty())
      svg += fmt::format(R"(<path class="curve {}" d="{}" style="stroke:{}"/>)", kPercentileName[q], path, kPercentileColour[q]);
  }
  for (const auto& p : c.points)
    for (int q = 0; q < 3; ++q) {
      const double v = q == 0 ? (p.*metric_of).p50 : q == 1 ? (p.*metric_of).p90 : (p.*metric_of).p99;
      if (!(v > 0)) continue;
      svg += fmt::format(
          R"(<circle class="curve-point {} {}" data-rate="{:g}" cx="{:.1f}" cy="{:.1f}" r="{}" style="{}:{}"><title>{:.4g} requests/s: {} {} {}; {}</title></circle>)",
          kPercentileName[q], p.valid ? "valid" : "invalid", p.rate, x(p.rate), y.to_pixel(v), q == 2 ? 4.5 : 3.5,
          p.valid ? "fill" : "stroke", kPercentileColour[q], p.rate, title, kPercentileName[q], short_time(v),
          svg_escape(p.verdict.empty() ? (p.valid ? "VALID" : "INVALID") : p.verdict));
    }
  return svg + "</g>";
}

// A rate a second against the offered rate, on a linear axis from 0 (the throughput curve
// users know from serving benchmarks: it follows the offered rate, then bends at the knee).
// `diagonal`: the offered rate itself drawn as a line, what a goodput that keeps up reaches.
std::string throughput_panel(const ServeCurve& c, const char* title, const char* unit, double ServeRatePoint::*value_of,
                             bool diagonal, double rate_high) {
  const double left = kLeft, right = kPanelWidth - kRight;
  double high = diagonal ? rate_high : 0;
  for (const auto& p : c.points) high = std::max(high, p.*value_of);
  high = high > 0 ? high * 1.08 : 1;
  const auto x = [&](double rate) { return left + (right - left) * rate / rate_high; };
  const auto y = [&](double v) { return (kHeight - kBottom) - (kHeight - kBottom - kTop) * v / high; };
  std::string svg = fmt::format(R"(<g class="panel" data-metric="{}">)", title);
  svg += fmt::format(R"(<text class="panel-title" x="{:.1f}" y="{}">{}</text>)", left, kTop - 12, svg_escape(title));
  for (double t : linear_ticks(high))
    svg += fmt::format(R"(<line class="grid" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/><text class="tick" x="{:.1f}" y="{:.1f}" text-anchor="end" dominant-baseline="middle">{}</text>)",
                       left, y(t), right, y(t), left - 5, y(t), si(t, ""));
  for (double t : linear_ticks(rate_high))
    svg += fmt::format(R"(<line class="grid" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"/><text class="tick" x="{0:.1f}" y="{3}" text-anchor="middle">{4:g}</text>)",
                       x(t), kTop, kHeight - kBottom, kHeight - kBottom + 15, t);
  svg += fmt::format(R"(<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">offered rate (requests/s)</text>)", (left + right) / 2,
                     kHeight - 10);
  if (diagonal) {
    const double top = std::min(rate_high, high);
    svg += fmt::format(R"(<line class="offered" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"><title>the offered rate: every request served within the objective</title></line>)",
                       x(0), y(0), x(top), y(top));
  }
  if (c.sustainable && *c.sustainable > 0)
    svg += fmt::format(R"(<line class="sustainable" x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}"><title>sustainable: {3:.4g} requests/s</title></line>)",
                       x(*c.sustainable), kTop, kHeight - kBottom, *c.sustainable);
  std::string path;
  for (const auto& p : c.points)
    if (p.*value_of >= 0) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", x(p.rate), y(p.*value_of));
  if (!path.empty()) svg += fmt::format(R"(<path class="curve throughput" d="{}" style="stroke:{}"/>)", path, kPercentileColour[2]);
  for (const auto& p : c.points) {
    if (p.*value_of < 0) continue;
    svg += fmt::format(
        R"(<circle class="curve-point throughput {}" data-rate="{:g}" cx="{:.1f}" cy="{:.1f}" r="4" style="{}:{}"><title>{:.4g} requests/s offered: {} {}; {}</title></circle>)",
        p.valid ? "valid" : "invalid", p.rate, x(p.rate), y(p.*value_of), p.valid ? "fill" : "stroke", kPercentileColour[2], p.rate,
        si(p.*value_of, ""), unit, svg_escape(p.verdict.empty() ? (p.valid ? "VALID" : "INVALID") : p.verdict));
  }
  return svg + "</g>";
}
}  // namespace

std::string load_latency_svg(const ServeCurve& c) {
  double high = 0;
  for (const auto& p : c.points) high = std::max(high, p.rate);
  if (c.sustainable) high = std::max(high, *c.sustainable);
  high = high > 0 ? high * 1.08 : 1;
  // A panel an SVG, so that a narrow screen stacks them (each read at its own width), and the
  // legend under them.
  const auto one = [&](const char* title, LatencyPercentiles ServeRatePoint::*metric_of, double objective) {
    return fmt::format(R"(<svg class="serve-panel" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)", kPanelWidth,
                       kHeight) +
           panel(c, 0, title, metric_of, objective, high) + "</svg>\n";
  };
  // A panel only where its metric was recorded, and in the legend only the percentiles that
  // were (a --sweep-rate search kept each run's p99 only before 2026-11-27: the page drew an
  // empty E2E panel and listed p50 and p90 it did not have).
  const auto recorded = [&](LatencyPercentiles ServeRatePoint::*metric_of, double LatencyPercentiles::*q) {
    return std::any_of(c.points.begin(), c.points.end(), [&](const ServeRatePoint& p) { return (p.*metric_of).*q > 0; });
  };
  std::string html = "<div class=\"serve-curve\">\n", missing;
  bool has[3] = {false, false, false};
  for (const auto& [title, metric_of, objective] :
       {std::tuple{"TTFT", &ServeRatePoint::ttft, c.slo_ttft_s}, std::tuple{"TPOT", &ServeRatePoint::tpot, c.slo_tpot_s},
        std::tuple{"E2E", &ServeRatePoint::e2e, 0.0}}) {
    const bool q[3] = {recorded(metric_of, &LatencyPercentiles::p50), recorded(metric_of, &LatencyPercentiles::p90),
                       recorded(metric_of, &LatencyPercentiles::p99)};
    if (!q[0] && !q[1] && !q[2]) {
      missing += (missing.empty() ? "" : ", ") + std::string(title);
      continue;
    }
    for (int i = 0; i < 3; ++i) has[i] = has[i] || q[i];
    html += one(title, metric_of, objective);
  }
  // Throughput against the offered rate: goodput (with the offered rate as its ceiling) and
  // output tokens a second, where recorded.
  const auto throughput = [&](const char* title, const char* unit, double ServeRatePoint::*value_of, bool diagonal) {
    if (std::none_of(c.points.begin(), c.points.end(), [&](const ServeRatePoint& p) { return p.*value_of >= 0; })) return;
    html += fmt::format(R"(<svg class="serve-panel" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" role="img">)", kPanelWidth,
                        kHeight) +
            throughput_panel(c, title, unit, value_of, diagonal, high) + "</svg>\n";
  };
  throughput("Goodput (requests/s)", "requests/s within the objective", &ServeRatePoint::goodput, true);
  throughput("Output tokens/s", "output tokens/s", &ServeRatePoint::output_tokens_per_s, false);
  std::string legend;
  double lx = 8;
  const double ly = kLegend / 2;
  const auto entry = [&](const std::string& mark, const std::string& text) {
    legend += mark + fmt::format(R"(<text class="legend-label" x="{:.1f}" y="{:.1f}" dominant-baseline="middle">{}</text>)", lx + 26, ly, text);
    lx += 34 + 7.0 * static_cast<double>(text.size());
  };
  for (int q = 0; q < 3; ++q)
    if (has[q])
      entry(fmt::format(R"(<line class="curve {}" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" style="stroke:{}"/>)", kPercentileName[q],
                        lx, ly, lx + 20, ly, kPercentileColour[q]),
            kPercentileName[q]);
  entry(fmt::format(R"(<line class="objective" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", lx, ly, lx + 20, ly), "objective");
  entry(fmt::format(R"(<line class="sustainable" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", lx + 10, ly - 7, lx + 10, ly + 7),
        "sustainable rate");
  entry(fmt::format(R"(<circle class="curve-point invalid" cx="{:.1f}" cy="{:.1f}" r="4" style="stroke:#08306b"/>)", lx + 10, ly),
        "INVALID run (hollow)");
  html += fmt::format(R"(<svg class="serve-legend" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {:.0f} {}" role="img">)", lx, kLegend) +
          legend + "</svg>\n";
  std::string notes;
  if (!has[0] && !has[1] && has[2]) notes += "p99 only: these runs recorded no p50 or p90. ";
  if (!missing.empty()) notes += missing + ": not recorded by these runs, so not drawn.";
  if (!notes.empty()) html += "<p class=\"small serve-note\">" + svg_escape(notes) + "</p>\n";
  return html + "</div>";
}

std::optional<DecodeStepRoof> decode_step_roof(const DecodeStepPoint& s, const ServeCurve& c) {
  const Ceilings* ceilings = c.ceilings ? c.ceilings : c.datasheet ? &c.datasheet->ceilings : nullptr;
  if (!ceilings || !(s.median_s > 0)) return std::nullopt;
  // The level a step's bytes stream from (the weights and the cache it reads): HBM for a
  // model of gigabytes, a cache for the tiny one.
  const auto* level = streaming_level_for(*ceilings, s.bytes);
  if (!level || !(level->bytes_per_s > 0)) return std::nullopt;
  const double rate = s.bytes / s.median_s;
  return DecodeStepRoof{rate, 100 * rate / level->bytes_per_s, level->level + (c.ceilings ? "" : " (datasheet)")};
}

std::string decode_roofline_svg(const ServeCurve& c) {
  std::vector<ChartPoint> points;
  for (const auto& s : c.decode_steps) {
    if (!(s.median_s > 0 && s.bytes > 0 && s.flops > 0)) continue;
    const auto roof = decode_step_roof(s, c);
    ChartPoint p;
    p.intensity = s.flops / s.bytes;
    p.flops_per_s = s.flops / s.median_s;
    p.suite = fmt::format("decode step at {:.4g} requests/s", s.rate);
    p.dtype = c.workload.substr(c.workload.find(' ') + 1, c.workload.find(',') - c.workload.find(' ') - 1);
    p.row = s.row;
    p.tooltip = fmt::format("batch {} | {} decode steps, median {} | {} at context {:.0f} | {}{}", s.batch, s.steps,
                            short_time(s.median_s), si(s.bytes, "B"), s.mean_context, si(s.bytes / s.median_s, "B/s"),
                            roof ? fmt::format(", {:.0f}% of {}", roof->percent, roof->level) : "");
    points.push_back(p);
  }
  if (points.empty()) return "";
  return roofline_svg(c.ceilings, c.datasheet, points);
}

}  // namespace rooftop::reports
