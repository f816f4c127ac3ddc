#include "reports/serve_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "harness/statistics.hpp"
#include "reports/terminal_table.hpp"

namespace rooftop::reports {
namespace {

bool is_serve(const ResultRecord& r) {
  return r.problem.family == "inference" && r.declared.scenario == "serve";
}

// The median of a metric over the repetitions; NaN where the point has none.
double metric(const ResultRecord& r, const std::string& name) {
  for (const auto& [key, values] : r.metrics)
    if (key == name && !values.empty()) return median(values);
  return std::nan("");
}

// "270us", "90.2ms", "1.25s": short enough for two in a cell.
std::string short_time(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 1e-3) return fmt::format("{:.0f}us", s * 1e6);
  if (s < 1) return fmt::format("{:.3g}ms", s * 1e3);
  return fmt::format("{:.3g}s", s);
}

std::string short_rate(double x) {
  if (!std::isfinite(x)) return "-";
  if (x >= 1e6) return fmt::format("{:.0f}k", x / 1e3);
  if (x >= 100) return fmt::format("{:.0f}", x);
  return fmt::format("{:.3g}", x);
}

std::string fit(const std::string& s, std::size_t width) {
  if (s.size() <= width) return s;
  const std::size_t head = (width - 2 + 1) / 2;
  return s.substr(0, head) + ".." + s.substr(s.size() - (width - 2 - head));
}

// --sweep-rate's runs, a table a swept point (the load-latency curve in short): each rate
// tried, lowest first, its p99s, goodput and whether it was VALID and met the objective.
void print_sweep_tables(std::ostream& out, const RunResults& run) {
  for (const auto& r : run.results) {
    if (!is_serve(r) || !r.outputs.is_object() || !r.outputs.contains("sweep") || !r.outputs["sweep"].is_object()) continue;
    const auto& sweep = r.outputs["sweep"];
    auto runs = sweep.value("runs", nlohmann::ordered_json::array());
    std::vector<const nlohmann::ordered_json*> order;
    for (const auto& t : runs) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->value("rate", 0.0) < b->value("rate", 0.0); });
    std::string name = r.problem.shape;
    if (const auto at = name.find("_serve_"); at != std::string::npos) name.erase(at, 6);
    fmt::print(out, "\nsweep {} {}: TTFT p99 <= {} and TPOT p99 <= {}, VALID\n", fit(name, 60), dtype_name(r.problem.dtype),
               short_time(r.declared.slo_ttft_s), short_time(r.declared.slo_tpot_s));
    fmt::print(out, "  {:>10}  {:>9}  {:>9}  {:>10}  {:<7}  {}\n", "rate", "TTFT p99", "TPOT p99", "goodput", "valid", "objective");
    for (const auto* t : order) {
      const auto number = [&](const char* key) { return t->contains(key) && (*t)[key].is_number() ? (*t)[key].get<double>() : std::nan(""); };
      const bool valid = t->contains("valid") ? (*t)["valid"].get<bool>() : t->value("verdict", std::string()) == "VALID";
      fmt::print(out, "  {:>8}/s  {:>9}  {:>9}  {:>8}/s  {:<7}  {}\n", short_rate(number("rate")), short_time(number("ttft_p99_s")),
                 short_time(number("tpot_p99_s")), short_rate(number("goodput_requests_per_s")), valid ? "VALID" : "INVALID",
                 t->value("meets_slo", false) ? "met" : "missed");
    }
    const double sustainable = sweep.value("sustainable_rate", 0.0);
    fmt::print(out, "  sustainable: {}\n", sustainable > 0 ? fmt::format("{}/s", short_rate(sustainable))
                                                          : fmt::format("none of the {} rates tried", order.size()));
  }
}

}  // namespace

void print_serve_table(std::ostream& out, const RunResults& run) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
  const ResultRecord* first = nullptr;
  for (const auto& r : run.results) {
    if (!is_serve(r) || r.metrics.empty()) continue;
    if (!first) first = &r;
    std::size_t valid = 0, reps = 0;
    for (const auto& [key, values] : r.metrics)
      if (key == "valid") {
        reps = values.size();
        valid = static_cast<std::size_t>(std::count(values.begin(), values.end(), 1.0));
      }
    const double goodput = metric(r, "goodput_requests_per_s"), met = metric(r, "slo_met_fraction");
    const double sustainable = metric(r, "sustainable_rate");
    std::string verdict = valid == reps ? "VALID" : reps == 1 ? "INVALID" : fmt::format("INVALID {}/{}", reps - valid, reps);
    if (std::isfinite(sustainable)) verdict = sustainable > 0 ? fmt::format("max {}/s", short_rate(sustainable)) : "none met";
    std::string name = r.problem.shape;  // "tiny_serve_r40_..." as "tiny_r40_...": the table says serve
    if (const auto at = name.find("_serve_"); at != std::string::npos) name.erase(at, 6);
    rows.push_back({fmt::format("{} {}", name, dtype_name(r.problem.dtype)),
                    fmt::format("{}/{}", short_time(metric(r, "ttft_p50_s")), short_time(metric(r, "ttft_p99_s"))),
                    fmt::format("{}/{}", short_time(metric(r, "tpot_p50_s")), short_time(metric(r, "tpot_p99_s"))),
                    short_time(metric(r, "itl_p99_s")), short_time(metric(r, "e2e_p99_s")),
                    short_rate(metric(r, "output_tokens_per_s")),
                    fmt::format("{}/s {:.0f}%", short_rate(goodput), 100 * met),
                    fmt::format("{:.1f}/{:.0f}", metric(r, "batch_mean"), metric(r, "batch_max")),
                    fmt::format("{:.0f}%", 100 * metric(r, "cache_occupancy_max")), verdict});
    if (valid != reps && r.outputs.is_object() && r.outputs.contains("verdict"))
      notes.push_back(fmt::format("{}: {}", r.problem.shape, r.outputs["verdict"].get<std::string>()));
  }
  if (rows.empty()) return;
  const std::vector<std::string> headers{"serve",   "TTFT p50/p99", "TPOT p50/p99", "ITL p99", "E2E p99",
                                         "tok/s",   "goodput",      "batch",        "cache",   "verdict"};
  std::vector<std::size_t> width(headers.size());
  for (std::size_t c = 0; c < headers.size(); ++c) {
    width[c] = headers[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  // The point's name gives way to fit the line.
  std::size_t total = 2 * (headers.size() - 1);
  for (auto w : width) total += w;
  if (total > kTerminalColumns) width[0] = std::max<std::size_t>(16, width[0] - std::min(width[0], total - kTerminalColumns));
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto cell = fit(cells[c], width[c]);
      const std::string pad(width[c] - cell.size(), ' ');
      s += (c ? "  " : "") + (c == 0 || c + 1 == cells.size() ? cell + (c + 1 < cells.size() ? pad : "") : pad + cell);
    }
    fmt::print(out, "{}\n", s);
  };
  fmt::print(out, "\n");
  line(headers);
  for (const auto& row : rows) line(row);
  for (const auto& note : notes) {  // wrapped, not cut: the reason is the point
    std::string line = " ";
    std::size_t at = 0;
    while (at < note.size()) {
      auto end = note.find(' ', at);
      if (end == std::string::npos) end = note.size();
      const auto word = note.substr(at, end - at);
      if (line.size() + 1 + word.size() > kTerminalColumns && line.size() > 4) {
        fmt::print(out, "{}\n", line);
        line = "   ";
      }
      line += " " + word;
      at = end + 1;
    }
    fmt::print(out, "{}\n", line);
  }
  fmt::print(out, "  medians of the repetitions; goodput: requests a second that meet TTFT <= {} and TPOT <= {} (their share)\n",
             short_time(first->declared.slo_ttft_s), short_time(first->declared.slo_tpot_s));
  fmt::print(out, "  tok/s: output tokens a second; batch: sequences a step, mean/max; cache: most of its blocks in use\n");
  print_sweep_tables(out, run);
}

}  // namespace rooftop::reports
