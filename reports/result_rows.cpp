#include "reports/result_rows.hpp"

#include <fmt/format.h>

namespace rooftop::reports {
namespace {
using ojson = nlohmann::ordered_json;

Cell text(const std::string& s) { return {s, s}; }

Cell number(const ojson& j, const char* key, double scale, const char* format) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return {"-", ""};
  const double v = j[key].get<double>() * scale;
  return {fmt::format(fmt::runtime(format), v), fmt::format("{:.9g}", v)};
}
}  // namespace

ResultTable result_table(const ojson& results_json) {
  ResultTable t;
  t.headers = {"workload", "shape", "dtype", "implementation", "median ms", "TFLOP/s", "GB/s", "AI", "% roof", "bound", "status"};
  for (const auto& r : results_json.at("results")) {
    const auto& summary = r["summary"];
    const auto& throughput = r["throughput"];
    const auto& roofline = r["roofline"];
    std::vector<Cell> row;
    row.push_back(text(r["family"].get<std::string>() + "/" + r["backend"].get<std::string>()));
    row.push_back(text(r["shape"].get<std::string>()));
    row.push_back(text(r["dtype"].get<std::string>()));
    row.push_back(text(r["implementation"].get<std::string>().empty() ? "-" : r["implementation"].get<std::string>()));
    row.push_back(number(summary, "median_s", 1e3, "{:.4g}"));
    row.push_back(number(throughput, "flops_per_s", 1e-12, "{:.4f}"));
    row.push_back(number(throughput, "bytes_per_s", 1e-9, "{:.2f}"));
    row.push_back(number(r["work"], "arithmetic_intensity", 1, "{:.1f}"));
    row.push_back(number(roofline, "percent_of_attainable", 1, "{:.1f}"));
    row.push_back(roofline.is_object() ? text(roofline["bound"].get<std::string>()) : Cell{"-", ""});
    std::string status = r["status"].get<std::string>();
    if (roofline.is_object() && roofline["above_ceiling"].get<bool>()) status += " ABOVE CEILING";
    if (!r["reason"].get<std::string>().empty()) status += ": " + r["reason"].get<std::string>();
    row.push_back(text(status));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace rooftop::reports
