#pragma once
// Results on a terminal or in a file: an aligned table, CSV, Markdown, or the JSON itself.
// All but the JSON read the typed records; the JSON is the results module's own writer.
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "harness/results.hpp"

namespace rooftop::reports {

void print_csv(std::ostream& out, const RunResults& run);
void print_markdown(std::ostream& out, const RunResults& run);
// The formats print_results knows: table, json, csv, md (what `run --format` accepts).
std::vector<std::string> output_format_names();
// format: table (reports/terminal_table.hpp; `wide`: every column, whole texts), csv, md or json;
// std::invalid_argument for another.
void print_results(std::ostream& out, std::string_view format, const RunResults& run, bool wide = false);

}  // namespace rooftop::reports
