// The gate's views (terminal, Markdown, JUnit, JSON, the HTML report) from reports built by
// hand: the four verdicts, the order of the rows, the banner and its exit code, the suite
// shift. No timing, no statistics: each verdict is set, not decided.
#include <catch2/catch.hpp>
#include <algorithm>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "harness/exit_codes.hpp"
#include "harness/gate_exit.hpp"
#include "reports/gate_printers.hpp"
#include "reports/gate_view.hpp"
#include "reports/html_report.hpp"

using namespace rooftop;
namespace {
// The report reads each record's derived numbers, computed once when a run is complete.
RunResults derived(RunResults run) {
  derive_records(run);
  return run;
}
}  // namespace
using namespace rooftop::reports;

namespace {
constexpr double kTau = 0.03;

// A compared benchmark with its own 95% interval [low, high] (its change in the middle) and
// ten samples a side.
Comparison row(const std::string& shape, Verdict v, double low, double high) {
  Comparison c;
  c.name = "gemm/cpu/fp32/" + shape;
  c.family = "gemm";
  c.verdict = v;
  c.tau = kTau;
  c.change = (low + high) / 2;
  c.change_low = low;
  c.change_high = high;
  c.p = 1e-4;
  c.p_holm = 0.02;
  c.tested = true;
  c.baseline_count = c.current_count = 10;
  for (int i = 0; i < 10; ++i) {
    c.baseline_samples.push_back(1.0 + 0.001 * i);
    c.current_samples.push_back((1.0 + c.change) * (1.0 + 0.001 * i));
  }
  c.reason = fmt::format("set by hand: {}", shape);
  return c;
}

// In the run only or the baseline only: nothing compared.
Comparison uncompared(const std::string& shape, Verdict v) {
  Comparison c;
  c.name = "gemm/cpu/fp32/" + shape;
  c.verdict = v;
  c.tau = kTau;
  (v == Verdict::added ? c.current_count : c.baseline_count) = 10;
  c.reason = "only one side";
  return c;
}

GateReport report_of(std::vector<Comparison> rows) {
  GateReport r;
  r.baseline_origin = "base.json";
  r.current_origin = "run.json";
  r.comparisons = std::move(rows);
  return r;
}

std::string terminal(const GateReport& r) {
  std::ostringstream out;
  print_gate_table(out, r);
  return out.str();
}

std::string html_of(const GateReport& r) {
  ReportOptions options;
  options.templates = default_templates_dir();
  options.gate = r;
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  return render_html_report({{"r.json", derived(run)}}, options);
}

std::string markdown_report_of(const GateReport& r) {
  ReportOptions options;
  options.templates = default_templates_dir();
  options.gate = r;
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  return render_markdown_report({{"r.json", derived(run)}}, options);
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// The names in `text` in the order they first appear.
std::vector<std::string> order_in(const std::string& text, const std::vector<std::string>& shapes) {
  std::vector<std::pair<std::size_t, std::string>> at;
  for (const auto& s : shapes) {
    const auto pos = text.find("gemm/cpu/fp32/" + s);
    if (pos != std::string::npos) at.emplace_back(pos, s);
  }
  std::sort(at.begin(), at.end());
  std::vector<std::string> names;
  for (const auto& [pos, s] : at) names.push_back(s);
  return names;
}
}  // namespace

TEST_CASE("gate views: one UNRESOLVED whose interval lies above tau is amber with exit 6, never green", "[gate][report]") {
  auto r = report_of({row("same", Verdict::pass, -0.01, 0.01), row("likely_slower", Verdict::unresolved, 0.05, 0.40)});
  REQUIRE(r.comparisons[1].unresolved_above_tau());
  const auto e = gate_exit(r);
  CHECK(e.code == kExitUnresolved);
  const auto banner = gate_banner(r);
  CHECK(banner.level == "amber");
  CHECK(banner.headline == "UNRESOLVED: 1 benchmark likely slower than tau but not confirmed at the suite's level");

  const auto html = html_of(r);
  CHECK(has(html, R"(class="banner banner-amber" id="gate-banner")"));
  CHECK_FALSE(has(html, "banner banner-green"));
  CHECK(has(html, "not confirmed at the suite&apos;s level (gate exit 6)"));
  CHECK(has(html, "1 UNRESOLVED (1 above tau)"));
  CHECK(has(html, R"(class="badge v-above")"));  // the row says it too
  CHECK(has(html, R"(class="cur above")"));     // and its run's samples are amber

  const auto text = terminal(r);
  CHECK(has(text, "UNRESOLVED>tau  gemm/cpu/fp32/likely_slower"));
  CHECK(has(text, "1 UNRESOLVED (1 above tau)"));
  CHECK(has(text, "gate: UNRESOLVED: 1 benchmark likely slower than tau but not confirmed at the suite's level (exit 6)\n"));

  const auto md = gate_markdown(r);
  CHECK(md.rfind("### rooftop gate: UNRESOLVED\n", 0) == 0);
  CHECK(has(md, "#### \U0001F7E0 Likely slower than tau, not confirmed at the suite's level (UNRESOLVED above tau, exit 6)"));
  CHECK(md.find("likely_slower") < md.find("#### Other verdicts"));
  CHECK(has(markdown_report_of(r), "### UNRESOLVED: 1 benchmark likely slower than tau"));

  const auto json = gate_json(r);
  CHECK(json["exit_code"] == 6);
  CHECK(json["banner"]["level"] == "amber");
  CHECK(json["comparisons"][0]["above_tau"] == true);

  // The same benchmark with an interval that reaches below tau is plain UNRESOLVED: green.
  r.comparisons[1].change_low = 0.02;
  CHECK(gate_exit(r).code == kExitOk);
  CHECK(has(html_of(r), "no regression (gate exit 0)"));
  CHECK(has(terminal(r), "gate: no regression (exit 0)\n"));
  CHECK(gate_markdown(r).rfind("### rooftop gate: no regression\n", 0) == 0);
}

TEST_CASE("gate views: the banner's exit code follows the rule for each outcome", "[gate][report]") {
  // A FAIL is red and exit 1, and still names the unconfirmed slowdowns beside it.
  auto r = report_of({row("slow", Verdict::fail, 0.10, 0.20), row("likely", Verdict::unresolved, 0.05, 0.40),
                      row("same", Verdict::pass, -0.01, 0.01)});
  auto b = gate_banner(r);
  CHECK(b.exit.code == kExitFailure);
  CHECK(b.level == "red");
  CHECK(b.headline == "FAIL: 1 regression; also 1 benchmark likely slower than tau but not confirmed at the suite's level");
  CHECK(has(html_of(r), "FAIL: 1 regression; also"));
  CHECK(has(html_of(r), "(gate exit 1)"));
  // Nothing decided: every compared benchmark UNRESOLVED, none above tau. Unchanged code on
  // a noisy machine: green, exit 0, and the banner says that nothing was decided.
  r = report_of({row("a", Verdict::unresolved, -0.05, 0.10), row("b", Verdict::unresolved, -0.02, 0.08)});
  b = gate_banner(r);
  CHECK(b.exit.code == kExitOk);
  CHECK(b.level == "green");
  CHECK(has(b.headline, "nothing decided: 2 benchmarks UNRESOLVED below tau at this noise"));
  // Nothing tested (too few repetitions on every benchmark): no all-clear, amber, exit 6.
  auto untested = row("a", Verdict::unresolved, 0, 0);
  untested.tested = false;
  r = report_of({untested});
  b = gate_banner(r);
  CHECK(b.exit.code == kExitUnresolved);
  CHECK(b.level == "amber");
  CHECK(has(b.headline, "nothing tested: 1 benchmark UNRESOLVED without a test"));
  // Nothing compared: red, exit 2 (usage), as `rooftop gate` says.
  r = report_of({uncompared("new", Verdict::added), uncompared("gone", Verdict::missing)});
  b = gate_banner(r);
  CHECK(b.exit.code == kExitUsage);
  CHECK(b.level == "red");
  CHECK(has(html_of(r), "share no benchmark (gate exit 2)"));
  // Only PASS and IMPROVED: green, exit 0.
  r = report_of({row("same", Verdict::pass, -0.01, 0.01), row("fast", Verdict::improved, -0.30, -0.10)});
  CHECK(gate_banner(r).level == "green");
  CHECK(gate_exit(r).code == kExitOk);
}

// Issue 52, N15: `ab` stopped by Ctrl-C exited 130 under a last line "gate: UNRESOLVED ... (exit 6)".
TEST_CASE("gate views: an ab cut short by Ctrl-C says so and exit 130 in every view, never green", "[gate][report]") {
  auto untested = row("a", Verdict::unresolved, 0, 0);
  untested.tested = false;
  auto r = report_of({untested});
  r.interrupted = "interrupted (Ctrl-C) in pair 2, which is left out";
  const auto b = gate_banner(r);
  CHECK(b.exit.code == kExitInterrupted);
  CHECK(b.level == "amber");
  CHECK(b.headline.rfind("interrupted (Ctrl-C) in pair 2, which is left out; the verdicts of the pairs that finished: "
                         "UNRESOLVED: nothing tested",
                         0) == 0);
  const auto text = terminal(r);
  CHECK(has(text, "(exit 130)\n"));
  CHECK_FALSE(has(text, "(exit 6)"));
  CHECK(gate_markdown(r).rfind("### rooftop gate: interrupted\n", 0) == 0);
  CHECK(gate_json(r)["exit_code"] == kExitInterrupted);
  // What the finished pairs showed stays: a FAIL is red, a pass is no longer green.
  r = report_of({row("slow", Verdict::fail, 0.10, 0.20)});
  r.interrupted = "interrupted (Ctrl-C) in pair 5, which is left out";
  CHECK(gate_banner(r).level == "red");
  CHECK(has(gate_banner(r).headline, "finished: FAIL: 1 regression"));
  r = report_of({row("same", Verdict::pass, -0.01, 0.01)});
  r.interrupted = "interrupted (Ctrl-C) in pair 5, which is left out";
  CHECK(gate_banner(r).level == "amber");
  CHECK(gate_banner(r).exit.code == kExitInterrupted);
}

TEST_CASE("gate views: rows by verdict, then by the interval's lower bound, largest first, in every view", "[gate][report]") {
  auto broken = uncompared("broken", Verdict::fail);  // a failed check: FAIL without an interval
  const auto r = report_of({row("pass", Verdict::pass, -0.01, 0.01), uncompared("new", Verdict::added),
                            row("unres_low", Verdict::unresolved, -0.05, 0.10), row("fail_small", Verdict::fail, 0.10, 0.20),
                            row("above_small", Verdict::unresolved, 0.04, 0.30), uncompared("gone", Verdict::missing),
                            row("improved", Verdict::improved, -0.30, -0.10), broken, row("fail_big", Verdict::fail, 0.20, 0.40),
                            row("unres_high", Verdict::unresolved, 0.01, 0.20), row("above_big", Verdict::unresolved, 0.08, 0.50)});
  const std::vector<std::string> expected = {"fail_big",  "fail_small", "broken", "above_big", "above_small", "unres_high",
                                             "unres_low", "gone",       "new",    "improved",  "pass"};
  std::vector<std::string> sorted;
  for (const auto* c : gate_rows_by_urgency(r)) sorted.push_back(c->name.substr(std::string("gemm/cpu/fp32/").size()));
  CHECK(sorted == expected);
  CHECK(order_in(terminal(r), expected) == expected);
  CHECK(order_in(html_of(r), expected) == expected);
  std::vector<std::string> in_json;
  const auto json = gate_json(r);
  for (const auto& c : json["comparisons"]) in_json.push_back(c["name"].get<std::string>().substr(14));
  CHECK(in_json == expected);
  // Markdown: the regressions' table, the amber one, then the rest, each in that order.
  const auto md = gate_markdown(r);
  CHECK(order_in(md, expected) == expected);
  CHECK(md.find("Regressions (FAIL, exit 1)") < md.find("fail_big"));
  CHECK(md.find("broken") < md.find("Likely slower than tau"));
  CHECK(md.find("Likely slower than tau") < md.find("above_big"));
  CHECK(md.find("above_small") < md.find("#### Other verdicts"));
  CHECK(md.find("#### Other verdicts") < md.find("unres_high"));
}

TEST_CASE("gate views: the suite shift is its own line above the table and keeps the gate amber", "[gate][report]") {
  auto r = report_of({row("a", Verdict::pass, -0.01, 0.01), row("b", Verdict::pass, -0.02, 0.02)});
  r.suite_shift.estimated = true;
  r.suite_shift.benchmarks = 48;
  r.suite_shift.change = 0.08;
  r.suite_shift.change_low = 0.061;
  r.suite_shift.change_high = 0.099;
  r.suite_shift.run_spread = 0.021;
  r.suite_shift.baseline_runs = 5;
  r.suite_shift.verdict = Verdict::unresolved;
  r.suite_shift.reason = "beyond the baseline runs' drift: the machine or a global change";
  const std::string line = "suite shift: +8.0% [+6.1%, +9.9%] shared by 48 benchmarks, 5 baseline runs (run-to-run sd 2.1%): "
                           "UNRESOLVED, beyond the baseline runs' drift: the machine or a global change";
  CHECK(suite_shift_line(r) == line);
  const auto b = gate_banner(r);
  CHECK(b.exit.code == kExitUnresolved);
  CHECK(b.level == "amber");
  CHECK(b.headline == "UNRESOLVED: the whole suite moved +8.0% [+6.1%, +9.9%]: beyond the baseline runs' drift: the machine "
                      "or a global change");

  const auto text = terminal(r);
  CHECK(has(text, "suite shift: +8.0% [+6.1%, +9.9%]"));
  CHECK(text.find("suite shift:") < text.find("verdict "));
  const auto md = gate_markdown(r);
  CHECK(has(md, line));
  CHECK(md.find("suite shift:") < md.find("| verdict |"));
  const auto html = html_of(r);
  CHECK(has(html, R"(<p id="suite-shift" class="shift-amber">suite shift: +8.0% [+6.1%, +9.9%])"));
  CHECK(html.find("id=\"suite-shift\"") < html.find("<table id=\"gate\">"));
  CHECK(has(html, "banner-amber"));
  CHECK(has(markdown_report_of(r), "suite shift: +8.0%"));
  const auto junit = gate_junit(r);
  CHECK(has(junit, R"(<testcase classname="suite" name="suite shift" time="0"><failure type="unresolved")"));
  CHECK(has(junit, R"(tests="3" failures="1" skipped="0")"));
  CHECK(gate_json(r)["suite_shift"]["verdict"] == "UNRESOLVED");

  // Within the machine's drift: a plain line, no failure, green.
  r.suite_shift.verdict = Verdict::pass;
  r.suite_shift.reason = "within the baseline runs' drift";
  CHECK(gate_banner(r).level == "green");
  CHECK(has(html_of(r), R"(<p id="suite-shift" class="shift-plain">)"));
  CHECK(has(gate_junit(r), "<system-out>suite shift: +8.0%"));
  // Not estimated: no line anywhere.
  r.suite_shift.estimated = false;
  CHECK_FALSE(has(terminal(r), "suite shift"));
  CHECK_FALSE(has(gate_markdown(r), "suite shift"));
  CHECK_FALSE(has(html_of(r), "suite-shift\""));
  CHECK_FALSE(has(gate_junit(r), "suite shift"));
}

TEST_CASE("gate JUnit: FAIL and UNRESOLVED above tau are failures, a plain UNRESOLVED is skipped", "[gate][report]") {
  const auto r = report_of({row("slow", Verdict::fail, 0.10, 0.20), row("likely", Verdict::unresolved, 0.05, 0.40),
                            row("unsure", Verdict::unresolved, -0.05, 0.10), row("same", Verdict::pass, -0.01, 0.01)});
  const auto xml = gate_junit(r);
  CHECK(has(xml, R"(<testsuites name="rooftop gate" tests="4" failures="2" skipped="1">)"));
  CHECK(has(xml, R"(<failure type="regression" message="FAIL: set by hand: slow")"));
  CHECK(has(xml, R"(<failure type="unresolved" message="UNRESOLVED above tau (exit 6): )"
                 R"(+22.5% [+5.0%, +40.0%] lies wholly above tau +3% but is not confirmed at the suite&apos;s level)"));
  CHECK(xml.find("name=\"gemm/cpu/fp32/slow\"") < xml.find("type=\"regression\""));
  CHECK(xml.find("name=\"gemm/cpu/fp32/likely\"") < xml.find("type=\"unresolved\""));
  CHECK(has(xml, R"(<skipped message="UNRESOLVED: set by hand: unsure"/>)"));
  CHECK(has(xml, R"(<system-out>PASS: set by hand: same</system-out>)"));
}

TEST_CASE("gate terminal table: within 120 columns, the suite-level interval where there is one", "[gate][report]") {
  auto r = report_of({row("m1024_n1024_k1024", Verdict::fail, 0.10, 0.20),
                      row("llama-3.2-1b_decode_b32_c512_paged16_graph_with_a_much_longer_name_than_usual", Verdict::pass, -0.01, 0.01),
                      row("m16_n14336_k4096", Verdict::unresolved, 0.05, 0.40)});
  r.comparisons[0].reason = std::string(300, 'x').replace(100, 1, " ").replace(200, 1, " ") + " and a tail of words to wrap";
  const auto widths = [](const std::string& text) {
    std::size_t widest = 0, start = 0;
    for (auto end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start))
      widest = std::max(widest, end - start);
    return widest;
  };
  auto text = terminal(r);
  CHECK_FALSE(has(text, "suite-level CI"));  // none computed: no column of dashes
  // The verdict and the name on one line (cli.ab_detects_slowdown reads it so).
  CHECK(has(text, "\nFAIL" + std::string(12, ' ') + "gemm/cpu/fp32/m1024_n1024_k1024  "));
  // Below the first line (the run's and the baseline's paths, however long) nothing is wider.
  CHECK(widths(text.substr(text.find('\n') + 1)) <= 120);
  r.comparisons[0].decision_low = 0.04;
  r.comparisons[0].decision_high = std::numeric_limits<double>::infinity();
  r.comparisons[2].decision_low = -0.02;
  r.comparisons[2].decision_high = 0.61;
  text = terminal(r);
  CHECK(has(text, "suite-level CI"));
  CHECK(has(text, "[+4.0%, +inf)"));
  CHECK(has(text, "[-2.0%, +61.0%]"));
  CHECK(widths(text.substr(text.find('\n') + 1)) <= 120);
  CHECK(has(gate_markdown(r), "| suite-level CI |"));
  const auto html = html_of(r);
  CHECK(has(html, "<th title=\"The interval at the suite's level"));
  CHECK(has(html, R"x(<td class="num" title="at the suite&apos;s level: [+4.0%, +inf)">+15.0% [+10.0%, +20.0%]</td>)x"));
  CHECK(has(markdown_report_of(r), "| [+4.0%, +inf) |"));
}
