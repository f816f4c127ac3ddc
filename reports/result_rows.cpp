#include "reports/result_rows.hpp"

#include <fmt/format.h>

#include "harness/units.hpp"

namespace rooftop::reports {
namespace {
Cell text(const std::string& s) { return {s, s}; }

// `raw` in the CSV header's unit (value x scale); `display` formatted by `show`; "-" when absent.
template <class Show>
Cell number(std::optional<double> v, double scale, Show show) {
  if (!v) return {"-", ""};
  return {show(*v), fmt::format("{:.9g}", *v * scale)};
}
}  // namespace

ResultTable result_table(const RunResults& run) {
  ResultTable t;
  t.headers = {"workload", "shape", "dtype", "implementation", "median ms", "TFLOP/s", "GB/s", "AI", "% roof", "bound", "status"};
  t.display_headers = {"workload", "shape", "dtype", "implementation", "time", "compute", "memory", "AI", "% roof", "bound", "status"};
  for (const auto& r : run.results) {
    const auto& d = derived_of(r);
    const auto& roof = d.roofline;
    const auto some = [](bool has, double v) { return has ? std::optional<double>(v) : std::nullopt; };
    std::vector<Cell> row;
    row.push_back(text(r.problem.family + "/" + r.problem.backend));
    row.push_back(text(r.problem.shape));
    row.push_back(text(std::string(dtype_name(r.problem.dtype))));
    row.push_back(text(r.implementation.empty() ? "-" : r.implementation));
    row.push_back(number(some(d.summary.has_value(), d.summary ? d.summary->median : 0), 1e3,
                         [](double s) { return format_duration(s); }));
    row.push_back(number(some(d.throughput.has_value(), d.throughput ? d.throughput->flops_per_s : 0), 1e-12,
                         [&](double v) { return format_si(v, rate_unit(r.problem.dtype)); }));
    row.push_back(number(some(d.throughput.has_value(), d.throughput ? d.throughput->bytes_per_s : 0), 1e-9,
                         [](double v) { return format_si(v, "B/s"); }));
    row.push_back(number(r.problem.work.arithmetic_intensity(), 1, [](double v) { return fmt::format("{:.1f}", v); }));
    row.push_back(number(some(roof.has_value(), roof ? 100.0 * roof->fraction_of_attainable : 0), 1,
                         [](double v) { return fmt::format("{:.1f}", v); }));
    row.push_back(roof ? text(std::string(bound_name(roof->bound))) : Cell{"-", ""});
    std::string status(status_name(r.status));
    if (roof && roof->above_ceiling) status += " ABOVE CEILING";
    if (!r.reason.empty()) status += ": " + r.reason;
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

std::string device_display_name_of(const RunMetadata& meta) {
  return device_display_name(nlohmann::ordered_json{{"backend", meta.backend}, {"properties", meta.device}});
}

std::string label_of(const ResultRecord& r) {
  const auto& label = r.implementation_label.empty() ? r.implementation : r.implementation_label;
  return label.empty() ? "-" : label;
}

std::string ceilings_text(const RunMetadata& meta) {
  return fmt::format("{}: {}", meta.ceilings ? "ceilings" : "no ceilings", meta.ceilings_source);
}

}  // namespace rooftop::reports
