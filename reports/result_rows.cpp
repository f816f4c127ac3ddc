#include "reports/result_rows.hpp"

#include <fmt/format.h>

#include "harness/units.hpp"

namespace rooftop::reports {
namespace {
using ojson = nlohmann::ordered_json;

Cell text(const std::string& s) { return {s, s}; }

bool has_number(const ojson& j, const char* key) { return j.is_object() && j.contains(key) && j[key].is_number(); }

// `raw` in the CSV header's unit (value x scale); `display` formatted by `show`.
template <class Show>
Cell number(const ojson& j, const char* key, double scale, Show show) {
  if (!has_number(j, key)) return {"-", ""};
  const double v = j[key].get<double>();
  return {show(v), fmt::format("{:.9g}", v * scale)};
}
}  // namespace

ResultTable result_table(const ojson& results_json) {
  ResultTable t;
  t.headers = {"workload", "shape", "dtype", "implementation", "median ms", "TFLOP/s", "GB/s", "AI", "% roof", "bound", "status"};
  t.display_headers = {"workload", "shape", "dtype", "implementation", "time", "compute", "memory", "AI", "% roof", "bound", "status"};
  for (const auto& r : results_json.at("results")) {
    const auto& summary = r["summary"];
    const auto& throughput = r["throughput"];
    const auto& roofline = r["roofline"];
    const auto dtype = r["dtype"].get<std::string>();
    std::vector<Cell> row;
    row.push_back(text(r["family"].get<std::string>() + "/" + r["backend"].get<std::string>()));
    row.push_back(text(r["shape"].get<std::string>()));
    row.push_back(text(dtype));
    row.push_back(text(r["implementation"].get<std::string>().empty() ? "-" : r["implementation"].get<std::string>()));
    row.push_back(number(summary, "median_s", 1e3, [](double s) { return format_duration(s); }));
    row.push_back(number(throughput, "flops_per_s", 1e-12, [&](double v) { return format_si(v, rate_unit(dtype)); }));
    row.push_back(number(throughput, "bytes_per_s", 1e-9, [](double v) { return format_si(v, "B/s"); }));
    row.push_back(number(r["work"], "arithmetic_intensity", 1, [](double v) { return fmt::format("{:.1f}", v); }));
    row.push_back(number(roofline, "percent_of_attainable", 1, [](double v) { return fmt::format("{:.1f}", v); }));
    row.push_back(roofline.is_object() ? text(roofline["bound"].get<std::string>()) : Cell{"-", ""});
    std::string status = r["status"].get<std::string>();
    if (roofline.is_object() && roofline["above_ceiling"].get<bool>()) status += " ABOVE CEILING";
    if (!r["reason"].get<std::string>().empty()) status += ": " + r["reason"].get<std::string>();
    row.push_back(text(status));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string device_display_name(const nlohmann::ordered_json& device) {
  if (!device.is_object()) return "unknown device";
  const auto& props = device.contains("properties") ? device["properties"] : device;
  for (const char* key : {"model_name", "name"})
    if (props.is_object() && props.contains(key) && props[key].is_string() && !props[key].get<std::string>().empty())
      return props[key].get<std::string>();
  return device.value("backend", std::string("unknown device"));
}

}  // namespace rooftop::reports
