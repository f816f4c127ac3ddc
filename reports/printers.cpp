#include "reports/printers.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/result_rows.hpp"
#include "reports/run_scope.hpp"
#include "reports/terminal_table.hpp"

namespace rooftop::reports {
namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string md_field(const std::string& s) {
  std::string escaped;
  for (char c : s) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

std::string header_line(const RunMetadata& m) {
  return fmt::format("rooftop {} | {} | {} | {} | {}", m.rooftop_version, device_display_name_of(m), m.fingerprint,
                     run_scope(m.tier, m.command), ceilings_text(m));
}
}  // namespace

void print_csv(std::ostream& out, const RunResults& run) {
  const auto t = result_table(run);
  std::string line;
  for (std::size_t c = 0; c < t.headers.size(); ++c) line += (c ? "," : "") + csv_field(t.headers[c]);
  fmt::print(out, "{}\n", line);
  for (const auto& row : t.rows) {
    line.clear();
    for (std::size_t c = 0; c < row.size(); ++c) line += (c ? "," : "") + csv_field(row[c].raw);
    fmt::print(out, "{}\n", line);
  }
}

void print_markdown(std::ostream& out, const RunResults& run) {
  const auto t = result_table(run);
  fmt::print(out, "**{}**\n\n", md_field(header_line(run.meta)));
  std::string line = "|", rule = "|";
  for (const auto& h : t.display_headers) {
    line += " " + md_field(h) + " |";
    rule += " --- |";
  }
  fmt::print(out, "{}\n{}\n", line, rule);
  for (const auto& row : t.rows) {
    line = "|";
    for (const auto& cell : row) line += " " + md_field(cell.display) + " |";
    fmt::print(out, "{}\n", line);
  }
}

namespace {
// Every format `run --format` takes, in the order its help lists them: a new one is a line here.
struct OutputFormat {
  const char* name;
  void (*print)(std::ostream& out, const RunResults& run, bool wide);
};
constexpr OutputFormat kFormats[] = {
    {"table", [](std::ostream& out, const RunResults& run, bool wide) { print_terminal_table(out, run, wide); }},
    {"json", [](std::ostream& out, const RunResults& run, bool) { out << results_to_json(run).dump(2) << "\n"; }},
    {"csv", [](std::ostream& out, const RunResults& run, bool) { print_csv(out, run); }},
    {"md", [](std::ostream& out, const RunResults& run, bool) { print_markdown(out, run); }},
};
}  // namespace

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  for (const auto& f : kFormats) names.emplace_back(f.name);
  return names;
}

void print_results(std::ostream& out, std::string_view format, const RunResults& run, bool wide) {
  for (const auto& f : kFormats)
    if (format == f.name) return f.print(out, run, wide);
  throw std::invalid_argument(fmt::format("output format '{}' is none of {}", format, fmt::join(output_format_names(), ", ")));
}

}  // namespace rooftop::reports
