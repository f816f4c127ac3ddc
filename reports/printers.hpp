#pragma once
// Results on a terminal or in a file: an aligned table, CSV, Markdown, or the JSON itself.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string_view>

namespace rooftop::reports {

void print_csv(std::ostream& out, const nlohmann::ordered_json& results_json);
void print_markdown(std::ostream& out, const nlohmann::ordered_json& results_json);
// format: table (reports/terminal_table.hpp; `wide`: every column, whole texts), csv, md or json.
void print_results(std::ostream& out, std::string_view format, const nlohmann::ordered_json& results_json,
                   bool wide = false);

}  // namespace rooftop::reports
