#include "reports/gate_printers.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace rooftop::reports {
namespace {
std::string pct(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "-"; }

std::string change_text(const Comparison& c) {
  if (!c.compared() || (c.p == 1 && c.change == 0 && c.change_low == 0 && c.change_high == 0)) return "-";
  return fmt::format("{} [{}, {}]", pct(c.change), pct(c.change_low), pct(c.change_high));
}

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
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

double median_seconds(const std::vector<double>& v) {
  if (v.empty()) return 0;
  auto s = v;
  std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
  return s[s.size() / 2];
}
}  // namespace

std::string gate_summary_line(const GateReport& r) {
  return fmt::format("{} FAIL, {} IMPROVED, {} PASS, {} UNRESOLVED, {} NEW, {} MISSING (alpha {} {}, tau {:.0f}% kernels / {:.0f}% systems)",
                     r.count(Verdict::fail), r.count(Verdict::improved), r.count(Verdict::pass),
                     r.count(Verdict::unresolved), r.count(Verdict::added), r.count(Verdict::missing), r.config.alpha, r.correction,
                     100 * r.config.tau_kernel, 100 * r.config.tau_system);
}

void print_gate_table(std::ostream& out, const GateReport& r) {
  fmt::print(out, "gate: {} against baseline {}\n", r.current_origin, r.baseline_origin);
  std::size_t name_width = 9;
  for (const auto& c : r.comparisons) name_width = std::max(name_width, c.name.size());
  fmt::print(out, "{:<12}  {:<{}}  {:>30}  {:>8}  {:>11}  {}\n", "verdict", "benchmark", name_width,
             "change [" + r.interval_label + "]", r.p_label, "CV base/run", "why");
  for (const auto& c : r.comparisons)
    fmt::print(out, "{:<12}  {:<{}}  {:>30}  {:>8}  {:>11}  {}\n", verdict_name(c.verdict), c.name, name_width,
               change_text(c), c.compared() ? fmt::format("{:.2g}", c.p_holm) : "-",
               c.compared() ? fmt::format("{:.1f}/{:.1f}%", 100 * c.cv_baseline, 100 * c.cv_current) : "-", c.reason);
  fmt::print(out, "{}\n", gate_summary_line(r));
}

std::string gate_markdown(const GateReport& r) {
  std::string md = fmt::format("### rooftop gate: {}\n\n{}\n\n", r.count(Verdict::fail) ? "FAIL" : "no regression",
                               md_escape(gate_summary_line(r)));
  md += fmt::format("Run `{}` against baseline `{}`.\n\n", md_escape(r.current_origin), md_escape(r.baseline_origin));
  md += fmt::format("| verdict | benchmark | change [{}] | {} | why |\n| --- | --- | --- | --- | --- |\n", r.interval_label, r.p_label);
  // Regressions first, then what needs attention, then the rest.
  auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::fail: return 0;
      case Verdict::unresolved: return 1;
      case Verdict::missing: return 2;
      case Verdict::improved: return 3;
      case Verdict::added: return 4;
      case Verdict::pass: return 5;
    }
    return 6;
  };
  auto rows = r.comparisons;
  std::stable_sort(rows.begin(), rows.end(), [&](auto& a, auto& b) { return rank(a.verdict) < rank(b.verdict); });
  for (const auto& c : rows)
    md += fmt::format("| **{}** | `{}` | {} | {} | {} |\n", verdict_name(c.verdict), md_escape(c.name), change_text(c),
                      c.compared() ? fmt::format("{:.2g}", c.p_holm) : "-", md_escape(c.reason));
  return md;
}

std::string gate_junit(const GateReport& r) {
  const int tests = static_cast<int>(r.comparisons.size());
  const int failures = r.count(Verdict::fail);
  const int skipped = r.count(Verdict::unresolved);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"rooftop gate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", tests, failures, skipped);
  xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\">\n",
                     xml_escape(r.current_origin), tests, failures, skipped);
  for (const auto& c : r.comparisons) {
    const auto slash = c.name.find('/', c.name.find('/') + 1);
    xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\">", xml_escape(c.name.substr(0, slash)),
                       xml_escape(c.name), median_seconds(c.current_samples));
    const std::string message = xml_escape(fmt::format("{}: {}", verdict_name(c.verdict), c.reason));
    if (c.verdict == Verdict::fail) xml += fmt::format("<failure message=\"{}\">{}</failure>", message, message);
    else if (c.verdict == Verdict::unresolved) xml += fmt::format("<skipped message=\"{}\"/>", message);
    else xml += fmt::format("<system-out>{}</system-out>", message);
    xml += "</testcase>\n";
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

nlohmann::ordered_json gate_json(const GateReport& r) {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json j = {{"baseline", r.baseline_origin},
                              {"current", r.current_origin},
                              {"alpha", r.config.alpha},
                              {"tau_kernel", r.config.tau_kernel},
                              {"tau_system", r.config.tau_system},
                              {"summary", gate_summary_line(r)},
                              {"comparisons", nlohmann::ordered_json::array()}};
  for (const auto& c : r.comparisons)
    j["comparisons"].push_back({{"name", c.name}, {"verdict", verdict_name(c.verdict)}, {"reason", c.reason},
                                {"change", number(c.change)}, {"change_ci", {number(c.change_low), number(c.change_high)}},
                                {"p", c.p}, {"p_holm", c.p_holm}, {"tau", c.tau},
                                {"counts", {c.baseline_count, c.current_count}},
                                {"cv_baseline", c.cv_baseline}, {"cv_current", c.cv_current},
                                {"minimum_detectable_change", number(c.minimum_detectable)},
                                {"clock_mhz", {c.clock_baseline, c.clock_current}}, {"clock_differs", c.clock_differs}, {"broken", c.broken},
                                {"baseline_samples", c.baseline_samples}, {"current_samples", c.current_samples}});
  return j;
}

}  // namespace rooftop::reports
