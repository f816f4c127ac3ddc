#include "reports/printers.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <ostream>

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

void print_results(std::ostream& out, std::string_view format, const RunResults& run, bool wide) {
  if (format == "json") out << results_to_json(run).dump(2) << "\n";
  else if (format == "csv") print_csv(out, run);
  else if (format == "md") print_markdown(out, run);
  else print_terminal_table(out, run, wide);
}

}  // namespace rooftop::reports
