#pragma once
// The report's serving section (docs/report.md, "Serving"): per serve workload its
// load-latency curve and the decode step on the roofline, and the procurement table (per
// machine: the sustainable rate at the objective, output tokens a second, per dollar and per
// joule), as the mustache view the templates render.
#include <kainjow/mustache.hpp>
#include <map>
#include <string>
#include <vector>

#include "reports/serve_curve.hpp"

namespace rooftop::reports {

// A purchase price (--price) turned into tokens per dollar: the machine's output over this
// many years of use at the sustainable rate, round the clock (stated beside every figure).
inline constexpr double kAmortisationYears = 3;

kainjow::mustache::data serving_view(const std::vector<ServeCurve>& curves);
// The procurement rows alone: one a machine and workload.
std::vector<kainjow::mustache::data> serving_procurement_rows(const std::vector<ServeCurve>& curves,
                                                              const std::map<std::string, double>& price_usd);

}  // namespace rooftop::reports
