#pragma once
// What every view of the gate's verdicts shares (terminal, Markdown, JUnit, JSON, the HTML
// report): the order of the rows, the banner with its exit code, the suite-shift line and
// the interval texts. One place, so that no view is green where another is amber.
#include <string>
#include <vector>

#include "harness/gate.hpp"
#include "harness/gate_exit.hpp"

namespace rooftop::reports {

// What needs attention first: FAIL, UNRESOLVED above tau, UNRESOLVED, MISSING, NEW,
// IMPROVED, PASS; within each, rows with an interval by its lower bound, descending (the
// largest sure slowdown first), then those without one in the report's order.
int gate_urgency(const Comparison& c);
std::vector<const Comparison*> gate_rows_by_urgency(const GateReport& report);

// The verdict as a table shows it: "UNRESOLVED>tau" for an UNRESOLVED above tau.
std::string verdict_label(const Comparison& c);

// "+7.4% [+6.9%, +7.7%]", "-" where nothing was compared.
std::string change_text(const Comparison& c);
// The interval at the suite's level, "[+2.1%, +30.5%]", "[+5.0%, +inf)" with one side open,
// "-" where none was computed.
std::string decision_text(const Comparison& c);

struct GateBanner {
  GateExit exit;         // its code 130 where `ab` was interrupted (GateReport::interrupted)
  std::string level;     // "red" (exit 1 or 2), "amber" (exit 6, or interrupted), "green" (exit 0 only)
  std::string headline;  // "FAIL: 2 regressions", "UNRESOLVED: ...", "no regression"
};
GateBanner gate_banner(const GateReport& report);

// The suite's shared factor and the gate's answer on it; empty when it was not estimated.
std::string suite_shift_line(const GateReport& report);

}  // namespace rooftop::reports
