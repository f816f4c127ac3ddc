#pragma once
// The columns every tabular format shows, read from the typed records: their derived numbers
// were computed once (harness/derived.cpp); printers only format them.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results.hpp"

namespace rooftop::reports {

struct Cell {
  std::string display;  // for people: scaled, with its unit ("612.3 TFLOP/s", "85.20 us")
  std::string raw;      // full precision in the header's unit, for machine formats
};

struct ResultTable {
  std::vector<std::string> headers;          // with fixed units, for CSV ("median ms", "TFLOP/s")
  std::vector<std::string> display_headers;  // for cells that carry their unit ("time", "compute")
  std::vector<std::vector<Cell>> rows;
};

// Every column, the implementation whole: CSV, Markdown and `run --wide`.
ResultTable result_table(const RunResults& run);

// The device as people call it, from a results file's "device" object: a CPU's model_name,
// a GPU's name (CUDA's property), else the backend.
std::string device_display_name(const nlohmann::ordered_json& device);
// The same for a run's metadata (its properties, else its backend).
std::string device_display_name_of(const RunMetadata& meta);

// The implementation's short label as the table shows it: the label, else the whole text, else "-".
std::string label_of(const ResultRecord& record);

// The header line of the run's tables: version, device, fingerprint, what was run, its ceilings.
std::string ceilings_text(const RunMetadata& meta);

}  // namespace rooftop::reports
