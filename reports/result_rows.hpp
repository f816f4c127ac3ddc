#pragma once
// The columns every tabular format shows, read from the results JSON (the one place where
// derived numbers are computed is results.cpp; printers only format them).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rooftop::reports {

struct Cell {
  std::string display;  // rounded, with units where the header has none
  std::string raw;      // full precision, for machine formats
};

struct ResultTable {
  std::vector<std::string> headers;
  std::vector<std::vector<Cell>> rows;
};

ResultTable result_table(const nlohmann::ordered_json& results_json);

}  // namespace rooftop::reports
