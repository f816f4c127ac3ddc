#pragma once
// The gate's verdicts as a terminal table, Markdown (CI job summaries, PR comments),
// JUnit XML (one testcase per benchmark) and JSON (for the HTML report), every one most
// urgent first (reports/gate_view.hpp) and ending in the exit code the verdicts give.
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/gate.hpp"

namespace rooftop::reports {

void print_gate_table(std::ostream& out, const GateReport& report);
std::string gate_markdown(const GateReport& report);
std::string gate_junit(const GateReport& report);
nlohmann::ordered_json gate_json(const GateReport& report);
// "1 FAIL, 0 IMPROVED, 9 PASS, 2 UNRESOLVED (1 above tau), ... (alpha 0.001 Holm, tau ...)"
std::string gate_summary_line(const GateReport& report);
// The banner as a line: "UNRESOLVED: 1 benchmark likely slower than tau ... (exit 6)".
std::string gate_banner_line(const GateReport& report);

}  // namespace rooftop::reports
