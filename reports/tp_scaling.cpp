#include "reports/tp_scaling.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <regex>
#include <tuple>

#include "harness/statistics.hpp"
#include "reports/result_rows.hpp"
#include "reports/terminal_table.hpp"

namespace rooftop::reports {
namespace {

double median_metric(const ResultRecord& r, const std::string& name) {
  for (const auto& [key, values] : r.metrics)
    if (key == name && !values.empty()) return median(values);
  return std::nan("");
}

int tp_of(const ResultRecord& r) {
  const auto& p = r.problem.params;
  return p.is_object() && p.contains("tp") && p["tp"].is_number_integer() ? p["tp"].get<int>() : 1;
}

}  // namespace

std::vector<TpScalingRow> tp_scaling_rows(const std::vector<const RunResults*>& runs) {
  // (device, point, dtype) -> rows by tp; a tp measured in two files keeps the first.
  std::map<std::tuple<std::string, std::string, std::string>, std::map<int, TpScalingRow>> groups;
  const std::regex tp_suffix("_tp[0-9]+$");
  for (const auto* run : runs)
    for (const auto& r : run->results) {
      if (r.problem.family != "inference" || r.measured.is_stage() || r.status != Status::ok) continue;
      if (r.declared.scenario != "decode" && r.declared.scenario != "generate") continue;
      TpScalingRow row;
      row.device = device_display_name(run->meta.device);
      row.point = std::regex_replace(r.problem.shape, tp_suffix, "");
      row.dtype = std::string(dtype_name(r.problem.dtype));
      row.tp = tp_of(r);
      row.tpot_s = median_metric(r, r.declared.scenario == "decode" ? "tpot_s" : "itl_mean_s");
      row.tokens_per_s = median_metric(r, "output_tokens_per_s");
      if (!std::isfinite(row.tpot_s) || row.tpot_s <= 0) continue;
      groups[{row.device, row.point, row.dtype}].emplace(row.tp, row);
    }
  std::vector<TpScalingRow> out;
  for (auto& [key, by_tp] : groups) {
    if (by_tp.size() < 2) continue;
    const auto& base = by_tp.begin()->second;
    for (auto& [tp, row] : by_tp) {
      row.speedup = base.tpot_s / row.tpot_s;
      row.efficiency = row.speedup / (static_cast<double>(tp) / base.tp);
      out.push_back(row);
    }
  }
  return out;
}

void print_tp_scaling(std::ostream& out, const std::vector<TpScalingRow>& rows) {
  if (rows.empty()) return;
  fmt::print(out, "\ntensor-parallel scaling (TPOT: decode step, or a generation's mean inter-token latency; "
                  "efficiency: speed-up / tp ratio)\n");
  fmt::print(out, "{:<36} {:<6} {:<28} {:>4} {:>11} {:>10} {:>8} {:>10}\n", "point", "dtype", "device", "tp", "TPOT",
             "tokens/s", "speedup", "efficiency");
  const auto cut = [](const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n - 2) + ".."; };
  for (const auto& r : rows)
    fmt::print(out, "{:<36} {:<6} {:<28} {:>4} {:>8.3f} ms {:>10} {:>7.2f}x {:>9.0f}%\n", cut(r.point, 36), r.dtype,
               cut(r.device, 28), r.tp, r.tpot_s * 1e3,
               r.tokens_per_s >= 1000 ? fmt::format("{:.0f}", r.tokens_per_s) : fmt::format("{:.4g}", r.tokens_per_s),
               r.speedup, 100 * r.efficiency);
}

}  // namespace rooftop::reports
