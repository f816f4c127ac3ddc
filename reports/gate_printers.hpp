#pragma once
// The gate's verdicts as a terminal table, Markdown (CI job summaries, PR comments),
// JUnit XML (one testcase per benchmark) and JSON (for the HTML report).
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/gate.hpp"

namespace rooftop::reports {

void print_gate_table(std::ostream& out, const GateReport& report);
std::string gate_markdown(const GateReport& report);
std::string gate_junit(const GateReport& report);
nlohmann::ordered_json gate_json(const GateReport& report);
std::string gate_summary_line(const GateReport& report);

}  // namespace rooftop::reports
