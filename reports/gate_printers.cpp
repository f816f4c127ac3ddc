#include "reports/gate_printers.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "reports/gate_view.hpp"
#include "reports/terminal_table.hpp"

namespace rooftop::reports {
namespace {
std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t') out += ch;
    }
  }
  return out;
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

double median_seconds(const std::vector<double>& v) {
  if (v.empty()) return 0;
  auto s = v;
  std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
  return s[s.size() / 2];
}

std::string p_text(const Comparison& c) { return c.compared() ? fmt::format("{:.2g}", c.p_holm) : "-"; }
std::string cv_text(const Comparison& c) {
  return c.compared() ? fmt::format("{:.1f}/{:.1f}%", 100 * c.cv_baseline, 100 * c.cv_current) : "-";
}

// A column of the suite's level only where some benchmark has such an interval.
bool any_decision_interval(const GateReport& r) {
  return std::any_of(r.comparisons.begin(), r.comparisons.end(), [](const Comparison& c) { return decision_text(c) != "-"; });
}

constexpr const char* kDecisionHeader = "suite-level CI";

// `text` in lines of at most `width` characters after `indent` spaces, broken between
// words (a word longer than a line keeps its own line, whole).
void print_wrapped(std::ostream& out, const std::string& text, std::size_t indent, std::size_t width) {
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const auto word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      fmt::print(out, "{:{}}{}\n", "", indent, line);
      line.clear();
    }
    if (!word.empty()) line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) fmt::print(out, "{:{}}{}\n", "", indent, line);
}
}  // namespace

std::string gate_summary_line(const GateReport& r) {
  const int above = r.count_unresolved_above_tau();
  return fmt::format("{} FAIL, {} IMPROVED, {} PASS, {} UNRESOLVED{}, {} NEW, {} MISSING (alpha {} {}, tau {:.0f}% kernels / "
                     "{:.0f}% systems)",
                     r.count(Verdict::fail), r.count(Verdict::improved), r.count(Verdict::pass), r.count(Verdict::unresolved),
                     above ? fmt::format(" ({} above tau)", above) : std::string(), r.count(Verdict::added),
                     r.count(Verdict::missing), r.config.alpha, r.correction, 100 * r.config.tau_kernel, 100 * r.config.tau_system);
}

std::string gate_banner_line(const GateReport& r) {
  const auto b = gate_banner(r);
  return fmt::format("{} (exit {})", b.headline, b.exit.code);
}

// One line a benchmark within kTerminalColumns (a name too long for its column gets a line
// of its own), its reason below, indented and wrapped.
void print_gate_table(std::ostream& out, const GateReport& r) {
  fmt::print(out, "gate: {} against baseline {}\n", r.current_origin, r.baseline_origin);
  if (const auto shift = suite_shift_line(r); !shift.empty()) print_wrapped(out, shift, 0, kTerminalColumns);
  const auto rows = gate_rows_by_urgency(r);
  const bool decision = any_decision_interval(r);
  const std::string change_header = "change [" + r.interval_label + "]";
  std::size_t verdict_w = 7, change_w = change_header.size(), decision_w = decision ? std::string(kDecisionHeader).size() : 0,
              p_w = r.p_label.size(), cv_w = 11, longest_name = 9;
  for (const auto* c : rows) {
    verdict_w = std::max(verdict_w, verdict_label(*c).size());
    change_w = std::max(change_w, change_text(*c).size());
    if (decision) decision_w = std::max(decision_w, decision_text(*c).size());
    p_w = std::max(p_w, p_text(*c).size());
    cv_w = std::max(cv_w, cv_text(*c).size());
    longest_name = std::max(longest_name, c->name.size());
  }
  const std::size_t fixed = verdict_w + change_w + p_w + cv_w + 2 * 4 + (decision ? decision_w + 2 : 0);
  const std::size_t name_w = std::min(longest_name, std::max<std::size_t>(9, kTerminalColumns > fixed ? kTerminalColumns - fixed : 9));
  const auto numbers = [&](const std::string& change, const std::string& interval, const std::string& p, const std::string& cv) {
    return fmt::format("{:>{}}{}  {:>{}}  {:>{}}", change, change_w,
                       decision ? fmt::format("  {:>{}}", interval, decision_w) : std::string(), p, p_w, cv, cv_w);
  };
  fmt::print(out, "{:<{}}  {:<{}}  {}\n", "verdict", verdict_w, "benchmark", name_w,
             numbers(change_header, kDecisionHeader, r.p_label, "CV base/run"));
  for (const auto* c : rows) {
    const auto cells = numbers(change_text(*c), decision_text(*c), p_text(*c), cv_text(*c));
    if (c->name.size() <= name_w) {
      fmt::print(out, "{:<{}}  {:<{}}  {}\n", verdict_label(*c), verdict_w, c->name, name_w, cells);
    } else {
      fmt::print(out, "{:<{}}  {}\n", verdict_label(*c), verdict_w, c->name);
      fmt::print(out, "{:<{}}  {:<{}}  {}\n", "", verdict_w, "", name_w, cells);
    }
    if (!c->reason.empty()) print_wrapped(out, c->reason, 4, kTerminalColumns);
  }
  print_wrapped(out, gate_summary_line(r), 0, kTerminalColumns);
  print_wrapped(out, "gate: " + gate_banner_line(r), 0, kTerminalColumns);
}

std::string gate_markdown(const GateReport& r) {
  const auto banner = gate_banner(r);
  const char* title = !r.interrupted.empty()                                 ? "interrupted"
                      : banner.exit.failures || banner.exit.suite_shift_failed ? "FAIL"
                      : banner.level == "red"                                  ? "nothing compared"
                      : banner.level == "amber"                                ? "UNRESOLVED"
                                                                               : "no regression";
  const char* light = banner.level == "red" ? "\U0001F534" : banner.level == "amber" ? "\U0001F7E0" : "\U0001F7E2";
  std::string md = fmt::format("### rooftop gate: {}\n\n{} **{}**\n\n{}\n\n", title, light, md_escape(gate_banner_line(r)),
                               md_escape(gate_summary_line(r)));
  if (const auto shift = suite_shift_line(r); !shift.empty()) md += md_escape(shift) + "\n\n";
  md += fmt::format("Run `{}` against baseline `{}`.\n\n", md_escape(r.current_origin), md_escape(r.baseline_origin));
  const bool decision = any_decision_interval(r);
  const auto table = [&](const std::vector<const Comparison*>& rows) {
    std::string t = fmt::format("| verdict | benchmark | change [{}] |{} {} | why |\n| --- | --- | --- |{} --- | --- |\n",
                                r.interval_label, decision ? fmt::format(" {} |", kDecisionHeader) : "", r.p_label,
                                decision ? " --- |" : "");
    for (const auto* c : rows)
      t += fmt::format("| **{}** | `{}` | {} |{} {} | {} |\n", verdict_label(*c), md_escape(c->name), change_text(*c),
                       decision ? fmt::format(" {} |", decision_text(*c)) : "", p_text(*c), md_escape(c->reason));
    return t;
  };
  // Regressions first, then what keeps the gate amber, then the rest, each most urgent first.
  std::vector<const Comparison*> failed, above, rest;
  for (const auto* c : gate_rows_by_urgency(r))
    (c->verdict == Verdict::fail ? failed : c->unresolved_above_tau() ? above : rest).push_back(c);
  if (!failed.empty()) md += "#### \U0001F534 Regressions (FAIL, exit 1)\n\n" + table(failed) + "\n";
  if (!above.empty())
    md += "#### \U0001F7E0 Likely slower than tau, not confirmed at the suite's level (UNRESOLVED above tau, exit 6)\n\n" +
          table(above) + "\n";
  if (!rest.empty()) md += fmt::format("#### {}\n\n", failed.empty() && above.empty() ? "Verdicts" : "Other verdicts") + table(rest);
  return md;
}

std::string gate_junit(const GateReport& r) {
  const auto rows = gate_rows_by_urgency(r);
  const bool shift_case = r.suite_shift.estimated;
  const bool shift_unresolved = shift_case && r.suite_shift.verdict != Verdict::pass;  // UNRESOLVED or FAIL
  const int tests = static_cast<int>(rows.size()) + shift_case;
  // What keeps the gate from exit 0 is a failure (exit 1 or 6); a plain UNRESOLVED is skipped.
  const int failures = r.count(Verdict::fail) + r.count_unresolved_above_tau() + shift_unresolved;
  const int skipped = r.count(Verdict::unresolved) - r.count_unresolved_above_tau();
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"rooftop gate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", tests, failures, skipped);
  xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\">\n",
                     xml_escape(r.current_origin), tests, failures, skipped);
  if (shift_case) {
    const auto line = xml_escape(suite_shift_line(r));
    xml += "    <testcase classname=\"suite\" name=\"suite shift\" time=\"0\">";
    const bool failed = r.suite_shift.verdict == Verdict::fail;
    xml += shift_unresolved ? fmt::format("<failure type=\"{}\" message=\"{} (exit {})\">{}</failure>",
                                          failed ? "regression" : "unresolved", line, failed ? 1 : 6, line)
                            : fmt::format("<system-out>{}</system-out>", line);
    xml += "</testcase>\n";
  }
  for (const auto* cp : rows) {
    const auto& c = *cp;
    const auto slash = c.name.find('/', c.name.find('/') + 1);
    xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\">", xml_escape(c.name.substr(0, slash)),
                       xml_escape(c.name), median_seconds(c.current_samples));
    const std::string message = xml_escape(fmt::format("{}: {}", verdict_name(c.verdict), c.reason));
    if (c.verdict == Verdict::fail) {
      xml += fmt::format("<failure type=\"regression\" message=\"{}\">{}</failure>", message, message);
    } else if (c.unresolved_above_tau()) {
      const auto above = xml_escape(fmt::format("UNRESOLVED above tau (exit 6): {} lies wholly above tau {:+.0f}% but is not "
                                                "confirmed at the suite's level: {}",
                                                change_text(c), 100 * c.tau, c.reason));
      xml += fmt::format("<failure type=\"unresolved\" message=\"{}\">{}</failure>", above, above);
    } else if (c.verdict == Verdict::unresolved) {
      xml += fmt::format("<skipped message=\"{}\"/>", message);
    } else {
      xml += fmt::format("<system-out>{}</system-out>", message);
    }
    xml += "</testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

nlohmann::ordered_json gate_json(const GateReport& r) {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); };
  const auto banner = gate_banner(r);
  const auto& s = r.suite_shift;
  nlohmann::ordered_json j = {{"baseline", r.baseline_origin},
                              {"current", r.current_origin},
                              {"alpha", r.config.alpha},
                              {"tau_kernel", r.config.tau_kernel},
                              {"tau_system", r.config.tau_system},
                              {"summary", gate_summary_line(r)},
                              {"exit_code", banner.exit.code},
                              {"banner", {{"level", banner.level}, {"text", banner.headline}}},
                              {"suite_shift", {{"estimated", s.estimated}, {"benchmarks", s.benchmarks},
                                               {"change", number(s.change)}, {"change_ci", {number(s.change_low), number(s.change_high)}},
                                               {"run_spread", s.run_spread}, {"baseline_runs", s.baseline_runs},
                                               {"verdict", verdict_name(s.verdict)}, {"reason", s.reason}}},
                              {"comparisons", nlohmann::ordered_json::array()}};
  // Most urgent first, as every other view.
  for (const auto* cp : gate_rows_by_urgency(r)) {
    const auto& c = *cp;
    j["comparisons"].push_back({{"name", c.name}, {"verdict", verdict_name(c.verdict)}, {"above_tau", c.unresolved_above_tau()},
                                {"reason", c.reason}, {"change", number(c.change)},
                                {"change_ci", {number(c.change_low), number(c.change_high)}},
                                {"decision_ci", {number(c.decision_low), number(c.decision_high)}},
                                {"p", c.p}, {"p_holm", c.p_holm}, {"tau", c.tau},
                                {"counts", {c.baseline_count, c.current_count}},
                                {"cv_baseline", c.cv_baseline}, {"cv_current", c.cv_current},
                                {"minimum_detectable_change", number(c.minimum_detectable)},
                                {"clock_mhz", {c.clock_baseline, c.clock_current}}, {"clock_differs", c.clock_differs}, {"broken", c.broken},
                                {"baseline_samples", c.baseline_samples}, {"current_samples", c.current_samples}});
  }
  return j;
}

}  // namespace rooftop::reports
