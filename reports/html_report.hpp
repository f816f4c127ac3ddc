#pragma once
// `rooftop report`: one self-contained HTML page (and a Markdown summary) rendered from the
// mustache templates in reports/templates/, so a user can restyle it without touching C++.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/gate.hpp"
#include "harness/history_store.hpp"
#include "harness/results.hpp"

namespace rooftop::reports {

struct ReportInput {
  std::string origin;  // the file it came from
  RunResults run;
};

struct ReportOptions {
  std::filesystem::path templates;           // folder with report.html.mustache, report.md.mustache
  std::optional<GateReport> gate;            // verdicts to show beside the results
  std::map<std::string, double> price_usd;   // device fingerprint -> price the user gave
  std::vector<HistorySeries> history;        // the nightly series: a trend chart per benchmark of the first run
};

// The folder of templates: $ROOFTOP_TEMPLATES, else share/rooftop/templates beside the
// binary (the bundle), else the source tree's reports/templates.
std::filesystem::path default_templates_dir();

// Throws InputError on an unreadable template or a render error; returns the whole page.
std::string render_html_report(const std::vector<ReportInput>& inputs, const ReportOptions& options);
std::string render_markdown_report(const std::vector<ReportInput>& inputs, const ReportOptions& options);

}  // namespace rooftop::reports
