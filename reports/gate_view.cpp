#include "reports/gate_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/exit_codes.hpp"

namespace rooftop::reports {
namespace {
std::string pct(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "-"; }

std::string plural(int n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

bool has_interval(const Comparison& c) { return c.compared() && !std::isnan(c.change_low); }
}  // namespace

int gate_urgency(const Comparison& c) {
  switch (c.verdict) {
    case Verdict::fail: return 0;
    case Verdict::unresolved: return c.unresolved_above_tau() ? 1 : 2;
    case Verdict::missing: return 3;
    case Verdict::added: return 4;
    case Verdict::improved: return 5;
    case Verdict::pass: return 6;
  }
  return 7;
}

std::vector<const Comparison*> gate_rows_by_urgency(const GateReport& r) {
  std::vector<const Comparison*> rows;
  for (const auto& c : r.comparisons) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(), [](const Comparison* a, const Comparison* b) {
    if (gate_urgency(*a) != gate_urgency(*b)) return gate_urgency(*a) < gate_urgency(*b);
    if (has_interval(*a) != has_interval(*b)) return has_interval(*a);
    return has_interval(*a) && a->change_low > b->change_low;
  });
  return rows;
}

std::string verdict_label(const Comparison& c) {
  return c.unresolved_above_tau() ? "UNRESOLVED>tau" : std::string(verdict_name(c.verdict));
}

std::string change_text(const Comparison& c) {
  if (!c.compared() || (c.p == 1 && c.change == 0 && c.change_low == 0 && c.change_high == 0)) return "-";
  return fmt::format("{} [{}, {}]", pct(c.change), pct(c.change_low), pct(c.change_high));
}

std::string decision_text(const Comparison& c) {
  const bool low = std::isfinite(c.decision_low), high = std::isfinite(c.decision_high);
  if (!c.compared() || (!low && !high)) return "-";
  return fmt::format("{}{}, {}{}", low ? "[" : "(", low ? pct(c.decision_low) : "-inf", high ? pct(c.decision_high) : "+inf",
                     high ? "]" : ")");
}

GateBanner gate_banner(const GateReport& r) {
  GateBanner b;
  b.exit = gate_exit(r);
  const auto& e = b.exit;
  // Every reason for exit 6, so that the amber banner says why it is not green.
  std::vector<std::string> unresolved;
  if (e.unresolved_above_tau > 0)
    unresolved.push_back(fmt::format("{} likely slower than tau but not confirmed at the suite's level",
                                     plural(e.unresolved_above_tau, "benchmark", "benchmarks")));
  if (e.suite_shift_unresolved) {
    const auto& s = r.suite_shift;
    unresolved.push_back(fmt::format("the whole suite moved {} [{}, {}]{}{}", pct(s.change), pct(s.change_low),
                                     pct(s.change_high), s.reason.empty() ? "" : ": ", s.reason));
  }
  if (e.nothing_tested)
    unresolved.push_back(fmt::format("nothing tested: {} UNRESOLVED without a test (the reasons say why: too few "
                                     "repetitions, a point skipped, identical medians)",
                                     plural(e.compared, "benchmark", "benchmarks")));
  if (e.code == kExitFailure) {
    b.level = "red";
    b.headline = e.failures ? fmt::format("FAIL: {}", plural(e.failures, "regression", "regressions"))
                            : fmt::format("FAIL: the whole suite slower, {}", r.suite_shift.reason);
    if (e.unresolved_above_tau > 0) b.headline += "; also " + unresolved.front();
  } else if (e.code == kExitUsage) {
    b.level = "red";
    b.headline = "nothing compared: the run and the baseline share no benchmark";
  } else if (e.code == kExitUnresolved) {
    b.level = "amber";
    b.headline = "UNRESOLVED: ";
    for (std::size_t i = 0; i < unresolved.size(); ++i) b.headline += (i ? "; " : "") + unresolved[i];
  } else {
    b.level = "green";
    b.headline = "no regression";
    // Green, yet say it: at this noise nothing was shown to be within tau either.
    if (e.nothing_decided)
      b.headline += fmt::format(" found; nothing decided: {} UNRESOLVED below tau at this noise",
                                plural(e.compared, "benchmark", "benchmarks"));
  }
  // An `ab` cut short exits 130 (issue 52, N15: its last line said "(exit 6)" as it exited
  // 130); what the finished pairs showed follows, never green.
  if (!r.interrupted.empty()) {
    b.headline = fmt::format("{}; the verdicts of the pairs that finished: {}", r.interrupted, b.headline);
    b.exit.code = kExitInterrupted;
    if (b.level == "green") b.level = "amber";
  }
  return b;
}

std::string suite_shift_line(const GateReport& r) {
  const auto& s = r.suite_shift;
  if (!s.estimated) return {};
  const std::string runs = s.baseline_runs > 0 ? fmt::format(", {} baseline run{}{}", s.baseline_runs, s.baseline_runs == 1 ? "" : "s",
                                                              s.run_spread > 0 ? fmt::format(" (run-to-run sd {:.1f}%)", 100 * s.run_spread)
                                                                               : std::string())
                                                : std::string();
  return fmt::format("suite shift: {} [{}, {}] shared by {}{}: {}{}{}", pct(s.change), pct(s.change_low), pct(s.change_high),
                     plural(s.benchmarks, "benchmark", "benchmarks"), runs, verdict_name(s.verdict),
                     s.reason.empty() ? "" : ", ", s.reason);
}

}  // namespace rooftop::reports
