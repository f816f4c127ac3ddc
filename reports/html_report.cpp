#include "reports/html_report.hpp"

#include <fmt/format.h>

#include "harness/units.hpp"
#include "reports/result_rows.hpp"
#include "reports/run_scope.hpp"
#include "reports/tp_scaling.hpp"
#include "reports/tp_scaling_svg.hpp"
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <kainjow/mustache.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "harness/derived.hpp"
#include "harness/errors.hpp"
#include "harness/share_dir.hpp"
#include "harness/statistics.hpp"
#include "harness/version.hpp"
#include "reports/diagnosis.hpp"
#include "reports/gate_strip.hpp"
#include "reports/gate_view.hpp"
#include "reports/low_ceilings.hpp"
#include "reports/run_conditions.hpp"
#include "reports/machine_text.hpp"
#include "reports/per_watt.hpp"
#include "reports/ratio_text.hpp"
#include "reports/report_sides.hpp"
#include "reports/bandwidth_svg.hpp"
#include "reports/roofline_svg.hpp"
#include "reports/serve_view.hpp"
#include "reports/trend_svg.hpp"
#include "reports/svg_text.hpp"

namespace rooftop::reports {
namespace {


namespace fs = std::filesystem;

// Beyond this many rows a gate or comparison table shows the first (the most urgent) and
// says how many it left out: 10,000 gate rows with a strip each took 11 s to load.
constexpr std::size_t kMaxSectionRows = 500;
using kainjow::mustache::data;
using kainjow::mustache::mustache;
using ojson = nlohmann::ordered_json;

std::string read_template(const fs::path& dir, const char* name) {
  std::ifstream in(dir / name);
  if (!in) throw InputError(fmt::format("{}: cannot read the report template (set --templates or ROOFTOP_TEMPLATES)",
                                        (dir / name).string()));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string render(const std::string& text, const data& view, const std::string& name) {
  mustache tmpl{text};
  if (!tmpl.is_valid()) throw InputError(fmt::format("template {}: {}", name, tmpl.error_message()));
  const std::string out = tmpl.render(view);
  if (!tmpl.is_valid()) throw InputError(fmt::format("template {}: {}", name, tmpl.error_message()));
  return out;
}

// The device as people call it, then its fingerprint.
std::string device_name(const RunResults& run) {
  // A run of a repeated device carries its file in both (report_sides.hpp): once is enough.
  const auto& fp = run.meta.fingerprint;
  const std::string device = fp.substr(0, fp.find(" · "));
  return run.meta.device.is_object() ? device_display_name(run.meta.device) + " (" + device + ")" : fp;
}

// Same workload on different devices: family/dtype/shape (the backend may differ).
std::string workload_key(const ResultRecord& r) { return r.problem.family + "/" + std::string(dtype_name(r.problem.dtype)) + "/" + r.problem.shape; }

// kainjow's set(), push_back() and list constructor copy their argument: a 10,000-result
// table was copied whole three times. list_of and put move instead; the const_casts are on
// objects these functions own.
data list_of(std::vector<data> items) {
  data l{data::type::list};
  const_cast<kainjow::mustache::basic_list<std::string>&>(l.list_value()).swap(items);
  return l;
}

void put(data& object, const std::string& name, data&& value) {
  object.set(name, data{false});
  *const_cast<data*>(object.get(name)) = std::move(value);
}

// For a job summary: the results furthest below their roof.
data worst_section(const std::vector<ReportInput>& inputs) {
  struct Placed {
    double percent;
    std::string name, id, device;
  };
  std::vector<Placed> placed;
  for (std::size_t f = 0; f < inputs.size(); ++f) {
    const auto& run = inputs[f].run;
    for (std::size_t k = 0; k < run.results.size(); ++k)
      if (const auto& d = derived_of(run.results[k]); d.roofline)
        placed.push_back({100.0 * d.roofline->fraction_of_attainable, run.results[k].problem.name(),
                          fmt::format("pt-{}-{}", f, k), device_display_name(run.meta.device)});  // the chart's point id
  }
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.percent < b.percent; });
  data worst{data::type::list};
  for (std::size_t i = 0; i < std::min<std::size_t>(placed.size(), 10); ++i) {
    data w;
    w.set("name", placed[i].name);
    w.set("id", placed[i].id);
    w.set("device", placed[i].device);
    w.set("percent", fmt::format("{:.1f}", placed[i].percent));
    worst.push_back(w);
  }
  return worst;
}

// A plain decimal for a table: 4 significant digits, whole numbers from 1000 up (never
// "1.745e+05").
std::string decimal(double v) { return std::fabs(v) >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v); }

// The median of a scenario's metric, times `scale` (ms from seconds); "-" when absent.
std::string metric(const ResultRecord& r, const char* name, double scale) {
  for (const auto& [key, values] : r.metrics)
    if (key == name && !values.empty()) return decimal(median(values) * scale);
  return "-";
}

constexpr const char* kStageColours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
                                        "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295", "#a0cbe8"};
// A stage's colour, the same in every bar and in the legend: by the order stages first appear.
const char* stage_colour(std::vector<std::string>& seen, const std::string& stage) {
  auto it = std::find(seen.begin(), seen.end(), stage);
  if (it == seen.end()) it = seen.insert(seen.end(), stage);
  return kStageColours[static_cast<std::size_t>(it - seen.begin()) % std::size(kStageColours)];
}

// A stacked bar of a scenario's stages (their share of the summed stage time).
std::string stage_bar(const std::vector<std::pair<std::string, double>>& stages, std::vector<std::string>& seen) {
  double total = 0;
  for (const auto& [name, seconds] : stages) total += seconds;
  std::string svg = R"(<svg class="stages" viewBox="0 0 400 18" xmlns="http://www.w3.org/2000/svg">)";
  double x = 0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const double w = total > 0 ? 400 * stages[i].second / total : 0;
    svg += fmt::format(R"(<rect x="{:.1f}" y="0" width="{:.1f}" height="18" fill="{}"><title>{}: {:.3g} ms ({:.0f}%)</title></rect>)",
                       x, w, stage_colour(seen, stages[i].first), svg_escape(stages[i].first), stages[i].second * 1e3,
                       total > 0 ? 100 * stages[i].second / total : 0);
    x += w;
  }
  return svg + "</svg>";
}

// End-to-end inference: per scenario point its latencies and throughput, its place on
// the roofline, and (with --stages) where its time goes.
std::vector<data> inference_section(const std::vector<ReportInput>& inputs, std::vector<std::string>& stage_names) {
  std::vector<data> rows;
  for (const auto& in : inputs) {
    for (const auto& r : in.run.results) {
      if (r.declared.scenario.empty() || r.measured.is_stage() || r.samples.empty()) continue;  // a point, not its stages
      const auto& d = derived_of(r);
      data row;
      row.set("device", device_display_name(in.run.meta.device));
      row.set("name", r.problem.shape);
      row.set("dtype", std::string(dtype_name(r.problem.dtype)));
      row.set("scenario", r.declared.scenario);
      // A serve point's latencies are percentiles over its requests: the median request's,
      // p50 (its p99 is in the serving section's curve and table).
      const bool serve = r.declared.scenario == "serve";
      row.set("ttft", metric(r, serve ? "ttft_p50_s" : "ttft_s", 1e3) + (serve ? " (p50)" : ""));
      const auto tpot = metric(r, serve ? "tpot_p50_s" : "tpot_s", 1e3);
      row.set("tpot", tpot != "-" ? tpot + (serve ? " (p50)" : "") : metric(r, "itl_mean_s", 1e3));
      row.set("itl_p99", metric(r, "itl_p99_s", 1e3));
      const auto out = metric(r, "output_tokens_per_s", 1);
      row.set("tokens", out != "-" ? out : metric(r, "prompt_tokens_per_s", 1) + " (prompt)");
      row.set("joules", d.power && d.power->joules_per_token
                            ? fmt::format("{:.3g} ({:.0f} W)", *d.power->joules_per_token, d.power->board_w)
                            : "-");
      // A serve point's work over its wall time includes the idle between arrivals: no place
      // under the roof (its decode steps are placed in the serving section).
      row.set("roof", serve ? std::string("- (serve: its decode steps, below)")
                      : d.roofline ? fmt::format("{:.0f}% {}", 100 * d.roofline->fraction_of_attainable,
                                                 bound_name(d.roofline->bound))
                                   : "-");
      std::vector<std::pair<std::string, double>> stages;
      for (const auto& s : in.run.results)
        if (s.measured.is_stage() && s.measured.of == r.problem.name() && !s.samples.empty())
          stages.emplace_back(s.measured.stage, derived_of(s).summary->median);
      if (!stages.empty()) row.set("stages", stage_bar(stages, stage_names));
      rows.push_back(row);
    }
  }
  return rows;
}

// Tensor-parallel scaling across the files (tp_scaling.hpp): a row a point and tp, and the
// speed-up chart (tp_scaling_svg.hpp).
data tp_scaling_section(const std::vector<ReportInput>& inputs) {
  std::vector<const RunResults*> runs;
  for (const auto& in : inputs) runs.push_back(&in.run);
  const auto scaling = tp_scaling_rows(runs);
  std::vector<data> rows;
  double base_tokens = 0;
  for (std::size_t i = 0; i < scaling.size(); ++i) {
    const auto& r = scaling[i];
    if (i == 0 || scaling[i - 1].point != r.point || scaling[i - 1].device != r.device) base_tokens = r.tokens_per_s;
    data row;
    row.set("device", r.device);
    row.set("point", r.point);
    row.set("filter", fmt::format("{} {} {}_tp{} tp{}", r.device, r.point, r.point, r.tp, r.tp));  // "tp2" finds it
    row.set("dtype", r.dtype);
    row.set("tp", std::to_string(r.tp));
    row.set("tpot", fmt::format("{:.3f}", r.tpot_s * 1e3));
    row.set("tokens", r.tokens_per_s > 0 ? decimal(r.tokens_per_s) : "-");
    row.set("tokens_ratio", r.tokens_per_s > 0 && base_tokens > 0 ? fmt::format("{:.2f}x", r.tokens_per_s / base_tokens) : "-");
    row.set("speedup", fmt::format("{:.2f}x", r.speedup));
    row.set("efficiency", fmt::format("{:.0f}%", 100 * r.efficiency));
    rows.push_back(row);
  }
  data section;
  if (rows.empty()) return section;
  section.set("rows", list_of(rows));
  section.set("svg", tp_scaling_svg(scaling));
  return section;
}

// The device's properties: the device object as a results file holds it, or its properties alone.
ojson device_properties(const RunResults& run) {
  const auto& d = run.meta.device;
  return !d.is_object() ? ojson::object() : d.contains("properties") ? d["properties"] : d;
}

// The median clock a result's samples ran at; 0 where the backend reads none.
double median_clock_mhz(const ResultRecord& r) {
  std::vector<double> c;
  for (const auto& x : r.samples)
    if (x.clock_mhz > 0) c.push_back(x.clock_mhz);
  return c.empty() ? 0 : median(c);
}

// The clock a run's results are held against: the device's maximum SM clock where it reports
// one, else the fastest median of the run.
double top_clock_mhz(const RunResults& run) {
  const auto props = device_properties(run);
  if (props.contains("max_sm_clock_mhz") && props["max_sm_clock_mhz"].is_number()) return props["max_sm_clock_mhz"].get<double>();
  double top = 0;
  for (const auto& r : run.results) top = std::max(top, median_clock_mhz(r));
  return top;
}
constexpr double kThrottled = 0.95;  // a median clock below this share of the top: throttled

// What a procurement reader needs to trust a column: the tier and date, the driver and
// CUDA versions and power limit where the device reports them, and the clocks the samples
// ran at, with the results whose median clock was below 95% of the maximum (throttled).
std::string run_context(const RunResults& run) {
  const auto props = device_properties(run);
  std::vector<std::string> parts{run_scope(run.meta.tier, run.meta.command),
                                 run.meta.created.substr(0, 10)};
  if (props.contains("driver_version") && props["driver_version"].is_string())
    parts.push_back("driver " + props["driver_version"].get<std::string>());
  if (props.contains("runtime_version") && props["runtime_version"].is_string())
    parts.push_back("CUDA " + props["runtime_version"].get<std::string>());
  if (props.contains("power_limit_w") && props["power_limit_w"].is_number() && props["power_limit_w"].get<double>() > 0)
    parts.push_back(fmt::format("{:.0f} W limit", props["power_limit_w"].get<double>()));
  std::vector<double> medians;
  for (const auto& r : run.results)
    if (const double m = median_clock_mhz(r); m > 0) medians.push_back(m);
  if (!medians.empty()) {
    const double top = top_clock_mhz(run);
    const auto throttled = std::count_if(medians.begin(), medians.end(), [&](double m) { return m < kThrottled * top; });
    parts.push_back(fmt::format("clocks {:.0f}-{:.0f} MHz of {:.0f}{}", *std::min_element(medians.begin(), medians.end()),
                                *std::max_element(medians.begin(), medians.end()), top,
                                throttled ? fmt::format(", {} of {} results throttled", throttled, medians.size()) : ""));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

// The procurement reader's first table: per device, over the workloads every machine ran,
// the geometric mean of its speed, its speed per dollar and per watt, each against the first
// device. Per watt compares like with like (reports/per_watt.hpp); a figure whose inputs are
// missing is "-", never guessed.
using RateTable = std::map<std::string, std::map<std::string, double>>;  // workload -> device -> value
data procurement_summary(const std::vector<std::string>& order, const RateTable& rate, const RateTable& watts,
                         const std::map<std::string, double>& tdp_w, const std::vector<std::string>& fingerprints,
                         const std::vector<data>& heads, const ReportOptions& options) {
  const auto& ref = fingerprints[0];
  const auto power_side = [&](std::size_t i) {
    const auto& fp = fingerprints[i];
    PowerSide side;
    side.name = heads[i].get("name") ? heads[i].get("name")->string_value() : fp;
    if (tdp_w.count(fp)) side.tdp_w = tdp_w.at(fp);
    for (const auto& key : order) {
      const auto& r = rate.at(key);
      if (r.size() != fingerprints.size()) continue;  // not run on every machine
      side.rate.push_back(r.at(fp));
      const auto w = watts.find(key);
      side.board_w.push_back(w != watts.end() && w->second.count(fp) ? std::optional<double>(w->second.at(fp)) : std::nullopt);
    }
    return side;
  };
  const PowerSide reference = power_side(0);
  std::vector<data> rows;
  for (std::size_t i = 0; i < fingerprints.size(); ++i) {
    const auto& fp = fingerprints[i];
    double speed = 0;
    int n = 0;
    for (const auto& key : order) {
      const auto& r = rate.at(key);
      if (r.size() != fingerprints.size()) continue;  // not run on every machine
      speed += std::log(r.at(fp) / r.at(ref));
      ++n;
    }
    data row = heads[i];
    row.set("workloads", std::to_string(n));
    row.set("speed", n ? ratio_text(std::exp(speed / n)) : "-");
    const bool priced = options.price_usd.count(fp) && options.price_usd.count(ref);
    row.set("per_dollar", n && priced ? ratio_text(std::exp(speed / n) * options.price_usd.at(ref) / options.price_usd.at(fp))
                          : priced    ? "-"
                                      : "- (give both prices with --price)");
    const auto per_watt = per_watt_ratio(power_side(i), reference);
    row.set("per_watt", per_watt);
    if (per_watt.rfind("not comparable", 0) == 0) row.set("per_watt_refused", true);
    rows.push_back(row);
  }
  return list_of(rows);
}

// The same workload on several devices, against the first: rates, ratios, per dollar and
// per watt, and a geometric mean per suite.
data comparison_section(const std::vector<ReportInput>& inputs, const std::vector<std::string>& fingerprints,
                        const ReportOptions& options) {
  // workload -> device -> its rate: FLOP/s, or bytes/s for work without FLOPs (a
  // collective's bus bandwidth, else its algorithm bandwidth).
  RateTable rate;
  std::map<std::string, bool> in_bytes;
  std::map<std::string, std::map<std::string, double>> roof;  // workload -> device -> % of own roof
  RateTable watts;  // workload -> device -> measured board power
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, std::string>> throttled;  // workload -> device -> its clock
  for (const auto& in : inputs) {
    const double top = top_clock_mhz(in.run);
    for (const auto& rec : in.run.results) {
      const auto& d = derived_of(rec);
      if (!d.throughput) continue;
      if (const double m = median_clock_mhz(rec); m > 0 && m < kThrottled * top)
        throttled[workload_key(rec)][in.run.meta.fingerprint] = fmt::format("{:.0f} of {:.0f} MHz", m, top);
      const auto key = workload_key(rec);
      const bool bytes = d.throughput->flops_per_s <= 0;
      const double value = bytes ? d.throughput->bus_bytes_per_s.value_or(d.throughput->bytes_per_s) : d.throughput->flops_per_s;
      if (!(value > 0)) continue;  // nothing to compare (a zero-time or empty point)
      if (!rate.count(key)) order.push_back(key);
      rate[key][in.run.meta.fingerprint] = value;
      in_bytes[key] = bytes;
      if (d.roofline) roof[key][in.run.meta.fingerprint] = 100.0 * d.roofline->fraction_of_attainable;
      if (d.power) watts[key][in.run.meta.fingerprint] = d.power->board_w;
    }
  }
  std::map<std::string, double> tdp_w;  // from the datasheet in the run's profile, never invented
  for (const auto& in : inputs)
    if (in.run.meta.datasheet && in.run.meta.datasheet->tdp_w > 0) tdp_w[in.run.meta.fingerprint] = in.run.meta.datasheet->tdp_w;
  std::vector<data> heads, comp_rows;
  for (const auto& fp : fingerprints) {
    data h;
    h.set("fingerprint", fp);
    for (const auto& in : inputs)
      if (in.run.meta.fingerprint == fp) {
        h.set("name", device_display_name(in.run.meta.device));
        h.set("context", run_context(in.run));
        h.set("machine", machine_text(in.run.meta.device));
        break;
      }
    h.set("price", options.price_usd.count(fp) ? fmt::format("${:.0f}", options.price_usd.at(fp)) : "price not given");
    heads.push_back(h);
  }
  std::map<std::string, std::map<std::string, std::vector<double>>> log_ratios;  // suite -> device -> log ratios
  std::map<std::string, std::map<std::string, int>> throttled_in;  // suite -> device -> its ratios with a throttled side
  for (const auto& key : order) {
    data row;
    row.set("workload", key);
    std::vector<data> cells;
    const auto& first = rate[key];
    const auto base = first.find(fingerprints[0]);
    for (const auto& fp : fingerprints) {
      data cell;
      const auto it = rate[key].find(fp);
      if (it == rate[key].end()) {
        cell.set("value", "-");
      } else {
        const bool bytes = in_bytes[key];
        cell.set("value", format_si(it->second, bytes ? "B/s" : "FLOP/s"));
        if (base != first.end()) {
          cell.set("ratio", ratio_text(it->second / base->second));
          // The geomeans cover the workloads every machine ran, so that they compare alike.
          if (rate[key].size() == fingerprints.size()) {
            log_ratios[key.substr(0, key.find('/'))][fp].push_back(std::log(it->second / base->second));
            if (throttled[key].count(fp) || throttled[key].count(fingerprints[0])) ++throttled_in[key.substr(0, key.find('/'))][fp];
          }
        }
        if (roof[key].count(fp)) cell.set("roof", fmt::format("{:.0f}% of own roof", roof[key][fp]));
        if (throttled[key].count(fp)) cell.set("throttled", throttled[key][fp]);
        const auto scaled = [&](double v) { return format_si(v, bytes ? "B/s" : "FLOP/s"); };
        if (options.price_usd.count(fp))
          cell.set("per_dollar", fmt::format("{} per $1000", scaled(it->second / options.price_usd.at(fp) * 1000)));
        // Measured board power where the run has it; the datasheet's TDP otherwise, said so.
        if (watts[key].count(fp))
          cell.set("per_watt", fmt::format("{} per W (measured, {:.0f} W)", scaled(it->second / watts[key][fp]), watts[key][fp]));
        else if (tdp_w.count(fp))
          cell.set("per_watt", fmt::format("{} per W (TDP {:.0f} W: no power measured)", scaled(it->second / tdp_w.at(fp)),
                                           tdp_w.at(fp)));
      }
      cells.push_back(cell);
    }
    row.set("cells", list_of(cells));
    if (comp_rows.size() < kMaxSectionRows) comp_rows.push_back(row);  // the geomeans and summary cover all
  }
  std::vector<data> geo;
  for (const auto& [suite, by_device] : log_ratios) {
    data g;
    g.set("suite", suite);
    std::vector<data> cells;
    for (const auto& fp : fingerprints) {
      data cell;
      const auto it = by_device.find(fp);
      if (it == by_device.end() || it->second.empty()) cell.set("value", "-");
      else {
        double s = 0;
        for (double x : it->second) s += x;
        const int hot = throttled_in[suite][fp];
        cell.set("value", ratio_text(std::exp(s / it->second.size())) +
                              fmt::format(" over the {} workloads all machines ran{}", it->second.size(),
                                          hot ? fmt::format(" ({} with a throttled side)", hot) : std::string()));
      }
      cells.push_back(cell);
    }
    g.set("cells", list_of(cells));
    geo.push_back(g);
  }
  data comparison;
  comparison.set("summary", procurement_summary(order, rate, watts, tdp_w, fingerprints, heads, options));
  std::vector<std::string> common;
  for (const auto& key : order)
    if (rate[key].size() == fingerprints.size()) common.push_back(key);
  comparison.set("common_count", std::to_string(common.size()));
  comparison.set("common", fmt::format("{}", fmt::join(common, ", ")));
  if (order.size() > comp_rows.size())
    comparison.set("left_out", fmt::format("The first {} of {} workloads are shown; the summary and geomeans cover all.",
                                           comp_rows.size(), order.size()));
  comparison.set("devices", list_of(heads));
  comparison.set("rows", list_of(comp_rows));
  comparison.set("geomeans", list_of(geo));
  comparison.set("reference", heads[0].get("name") ? heads[0].get("name")->string_value() : fingerprints[0]);
  return comparison;
}

// Markdown table cell: pipes escaped, no line breaks; not HTML-escaped (the template uses
// triple braces for it).
std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

// The gate's verdicts, most urgent first (reports/gate_view.hpp), each with a strip of both
// sides' samples on one percent scale shared by every row (so that +14.5% looks larger
// than -0.1%).
data gate_section(const GateReport& g) {
  auto order = gate_rows_by_urgency(g);
  const std::size_t all_rows = order.size();
  if (order.size() > kMaxSectionRows) order.resize(kMaxSectionRows);
  const auto scale = strip_scale(order);  // one percent scale for every row, robust to a wild sample
  std::vector<data> gate_rows;
  for (const auto* cp : order) {
    const auto& c = *cp;
    data row;
    row.set("name", c.name);
    row.set("verdict", std::string(verdict_name(c.verdict)));
    row.set("verdict_class", "v-" + std::string(verdict_name(c.verdict)));
    row.set("verdict_md", verdict_label(c));
    if (c.unresolved_above_tau()) row.set("above_tau", true);
    row.set("change", change_text(c));
    row.set("decision", decision_text(c));
    if (decision_text(c) != "-") row.set("decision_title", "at the suite's level: " + decision_text(c));
    row.set("p", c.compared() ? fmt::format("{:.2g}", c.p_holm) : "-");
    row.set("reason", c.reason);
    row.set("name_md", md_cell(c.name));
    row.set("reason_md", md_cell(c.reason));
    row.set("strip", gate_strip_svg(c, scale));
    if (c.verdict != Verdict::pass) row.set("notable", true);
    gate_rows.push_back(row);
  }
  data gate;
  const int above = g.count_unresolved_above_tau();
  gate.set("summary", fmt::format("{} FAIL, {} IMPROVED, {} UNRESOLVED{}, {} PASS, {} NEW, {} MISSING", g.count(Verdict::fail),
                                  g.count(Verdict::improved), g.count(Verdict::unresolved),
                                  above ? fmt::format(" ({} above tau)", above) : std::string(), g.count(Verdict::pass),
                                  g.count(Verdict::added), g.count(Verdict::missing)));
  gate.set("baseline", g.baseline_origin);
  gate.set("scale", scale.text() + "; an arrow: samples beyond it");
  gate.set("rows", list_of(gate_rows));
  if (all_rows > order.size())
    gate.set("left_out", fmt::format("The {} most urgent of {} verdicts are shown; `rooftop gate --json` lists every one.",
                                     order.size(), all_rows));
  if (std::any_of(order.begin(), order.end(), [](const Comparison* c) { return decision_text(*c) != "-"; }))
    gate.set("has_decision", true);
  gate.set("interval_label", g.interval_label);
  gate.set("p_label", g.p_label);
  if (const auto shift = suite_shift_line(g); !shift.empty()) {
    gate.set("suite_shift", shift);
    gate.set("suite_shift_class", g.suite_shift.verdict == Verdict::unresolved ? "shift-amber" : "shift-plain");
  }
  // The banner says what `rooftop gate` exits with, by the same rule (harness/gate_exit.hpp).
  const auto banner = gate_banner(g);
  gate.set("banner_class", "banner-" + banner.level);
  gate.set("banner", fmt::format("{} (gate exit {})", banner.headline, banner.exit.code));
  if (banner.exit.failures) gate.set("failed", true);
  return gate;
}

// The first run's benchmarks in the nightly history: a trend chart each, change points
// marked. The series with a change point among the last three nights come first, then
// any with one, then the rest; at most 24 charts, the count of the others said.
data trend_section(const RunResults& run, const std::vector<HistorySeries>& history) {
  constexpr std::size_t kMaxCharts = 24, kRecent = 3;
  std::set<std::string> names;
  for (const auto& r : run.results) names.insert(r.problem.name());
  struct Trend {
    int rank;
    const HistorySeries* series;
    std::vector<ChangePoint> change_points;
  };
  std::vector<Trend> trends;
  for (const auto& s : history) {
    if (s.fingerprint != run.meta.fingerprint || s.tier != run.meta.tier || !names.count(s.benchmark) || s.points.size() < 2)
      continue;
    std::vector<double> logs;
    for (const auto& p : s.points) logs.push_back(std::log(p.median_s));
    auto cps = find_change_points(logs);
    const bool recent = std::any_of(cps.begin(), cps.end(), [&](const ChangePoint& c) { return c.index + kRecent >= s.points.size(); });
    trends.push_back({recent ? 0 : cps.empty() ? 2 : 1, &s, std::move(cps)});
  }
  // What changed lately, counted over every series: the reader's first question.
  int slowdowns = 0, speedups = 0;
  for (const auto& t : trends)
    for (const auto& c : t.change_points)
      if (c.index + kRecent >= t.series->points.size()) ++(c.change > 0 ? slowdowns : speedups);
  std::stable_sort(trends.begin(), trends.end(), [](const Trend& a, const Trend& b) { return a.rank < b.rank; });
  data section;
  if (trends.empty()) return section;
  std::vector<data> charts;
  // One y scale for every chart, so that their heights compare.
  TrendScale scale;
  for (std::size_t i = 0; i < std::min(trends.size(), kMaxCharts); ++i) {
    const auto r = trend_range(*trends[i].series, trends[i].change_points);
    scale.low = std::min(scale.low, r.low);
    scale.high = std::max(scale.high, r.high);
  }
  for (std::size_t i = 0; i < std::min(trends.size(), kMaxCharts); ++i) {
    data c;
    c.set("name", trends[i].series->benchmark);
    c.set("nights", std::to_string(trends[i].series->points.size()));
    c.set("svg", trend_svg(*trends[i].series, trends[i].change_points, scale));
    if (trends[i].rank == 0) c.set("recent", true);
    charts.push_back(c);
  }
  section.set("charts", list_of(charts));
  section.set("headline", fmt::format("{} new slowdown{}, {} new speed-up{} in the last {} nights", slowdowns,
                                      slowdowns == 1 ? "" : "s", speedups, speedups == 1 ? "" : "s", kRecent));
  if (slowdowns) section.set("slowdowns", true);
  section.set("summary", fmt::format("{} of {} benchmarks with a series{}", charts.size(), trends.size(),
                                     trends.size() > charts.size() ? ": those with recent change points first" : ""));
  return section;
}

// One device's charts, filled record by record: its roofline points, the collectives'
// bandwidth against size (not a roofline) and the ranks they ran on.
struct DeviceCharts {
  std::set<int> ranks;
  std::vector<ChartPoint> points;
  std::vector<BandwidthPoint> bandwidth;
  int unplaced = 0;  // measured, with FLOPs, but no roof for the dtype
};

// A record's row of the results table; its point goes on the device's chart.
data record_row(const RunMetadata& meta, const ResultRecord& r, const std::string& id, int index,
                const std::string& display_name, double top_clock, DeviceCharts& charts) {
  const std::string& fp = meta.fingerprint;
  const auto& d = derived_of(r);
  const std::string dtype(dtype_name(r.problem.dtype));
  const auto diagnosis = diagnose(r, meta.ceilings ? &*meta.ceilings : nullptr);
  const bool measured = d.throughput.has_value();
  // A collective is drawn as bandwidth against a link, not on a roofline.
  const bool collective = r.declared.bus_factor > 0;
  const auto* bus = measured && collective && d.throughput->bus_bytes_per_s ? &*d.throughput->bus_bytes_per_s : nullptr;
  if (bus) {
    const auto& t = *d.throughput;
    const auto& shape = r.declared;  // the collective's own words: its name, size, ranks
    charts.ranks.insert(shape.ranks);
    charts.bandwidth.push_back({id, fmt::format("{} {} {}", shape.collective, dtype, shape.in_place ? "in place" : "oop"),
                                shape.size_bytes, *bus, t.link ? t.link->link : "", t.link ? t.link->link_bytes_per_s : 0,
                                fmt::format("{} | {} ranks | busbw {}, algbw {}{}", r.problem.name(), shape.ranks,
                                            format_si(*bus, "B/s"), format_si(t.bytes_per_s, "B/s"),
                                            t.link ? fmt::format(" | {:.1f}% of {}", t.link->percent, t.link->link) : "")});
  } else if (measured && !collective && d.throughput->flops_per_s > 0) {
    // Work without FLOPs has no place on a FLOP roofline.
    const double flops = d.throughput->flops_per_s;
    charts.points.push_back({id, r.problem.work.arithmetic_intensity(), flops, r.problem.family, dtype,
                             fmt::format("{} | {} | {} | {} | {} | {}", r.problem.name(), r.implementation,
                                         format_duration(d.summary->median), format_si(flops, rate_unit(r.problem.dtype)),
                                         d.roofline ? fmt::format("{:.0f}% of attainable, {}-bound",
                                                                  100.0 * d.roofline->fraction_of_attainable,
                                                                  bound_name(d.roofline->bound))
                                                    : "no roof",
                                         diagnosis.finding)});
    if (!d.roofline) ++charts.unplaced;
  }
  data row;
  row.set("id", id);
  row.set("index", std::to_string(index));
  row.set("device", display_name);  // the fingerprint in its tooltip
  row.set("fingerprint", fp);
  row.set("name", r.problem.name());
  row.set("family", r.problem.family);
  row.set("shape", r.problem.shape);
  row.set("dtype", dtype);
  row.set("implementation", r.implementation);
  // Shown scaled with their units ("10.73 us", "15.65 TFLOP/s"); sorted on the raw value.
  const auto scaled_cell = [&](const char* prefix, std::optional<double> value, const auto& format) {
    row.set(std::string(prefix), value ? format(*value) : std::string("-"));
    row.set(std::string(prefix) + "_sort", value ? fmt::format("{:.9g}", *value) : std::string("-1"));
  };
  const auto from_throughput = [&](double Throughput::*field) {
    return measured ? std::optional<double>((*d.throughput).*field) : std::nullopt;
  };
  scaled_cell("median", d.summary ? std::optional<double>(d.summary->median) : std::nullopt,
              [](double v) { return format_duration(v); });
  scaled_cell("compute", from_throughput(&Throughput::flops_per_s),
              [&](double v) { return v > 0 ? format_si(v, rate_unit(r.problem.dtype)) : std::string("-"); });
  if (bus) {
    // A collective's bandwidth is its bus bandwidth (nccl-tests' busbw), held against its link.
    scaled_cell("bandwidth", *bus, [](double v) { return format_si(v, "B/s") + " bus"; });
    row.set("ai", "-");
    row.set("percent", d.throughput->link ? fmt::format("{:.1f}", d.throughput->link->percent) : "-");
    row.set("bound", "link");
  } else {
    scaled_cell("bandwidth", from_throughput(&Throughput::bytes_per_s), [](double v) { return format_si(v, "B/s"); });
    const double ai = r.problem.work.arithmetic_intensity();
    row.set("ai", ai > 0 ? format_si(ai, "") : std::string("-"));
    row.set("percent", d.roofline ? fmt::format("{:.1f}", 100.0 * d.roofline->fraction_of_attainable) : "-");
    row.set("bound", d.roofline ? std::string(bound_name(d.roofline->bound)) : "-");
  }
  row.set("status", std::string(status_name(r.status)));
  row.set("finding", diagnosis.finding);
  row.set("next_step", diagnosis.next_step);
  if (!diagnosis.evidence.empty()) row.set("evidence", diagnosis.evidence);
  if (measured) row.set("plotted", true);
  if (const double m = median_clock_mhz(r); m > 0 && m < kThrottled * top_clock)
    row.set("throttled", fmt::format("{:.0f} of {:.0f} MHz", m, top_clock));
  return row;
}

// The device's ceilings as the report lists them: measured, then the datasheet's, then the
// links its collectives crossed (their roof). A collectives-only device has no FLOP chart,
// so no compute ceilings.
std::vector<data> ceiling_rows(const Ceilings* ceilings, const Datasheet* datasheet, const DeviceCharts& charts) {
  std::vector<data> rows;
  const bool flops_charted = !charts.points.empty() || charts.bandwidth.empty();
  for (const auto* c : {ceilings, datasheet ? &datasheet->ceilings : nullptr}) {
    if (!c) continue;
    const std::string kind = c == ceilings ? "measured" : "datasheet";
    for (const auto& k : c->compute) {
      if (!flops_charted) break;
      data x;
      x.set("kind", kind);
      x.set("name", k.name + " (" + k.unit + ")");
      x.set("value", format_si(k.flops_per_s, rate_unit(find_dtype(k.dtype).value_or(Dtype::fp32))));
      rows.push_back(x);
    }
    for (const auto& b : c->bandwidth) {
      data x;
      x.set("kind", kind);
      x.set("name", b.level + " bandwidth");
      x.set("value", format_si(b.bytes_per_s, "B/s"));
      rows.push_back(x);
    }
  }
  std::set<std::string> links;
  for (const auto& b : charts.bandwidth)
    if (!b.link.empty() && b.link_bytes_per_s > 0 && links.insert(b.link).second) {
      data x;
      x.set("kind", "link");
      x.set("name", b.link);
      x.set("value", format_si(b.link_bytes_per_s, "B/s"));
      rows.push_back(x);
    }
  return rows;
}

data build_view(const std::vector<ReportInput>& given, const ReportOptions& given_options) {
  // Two files of one device are two runs, compared as two sides (report_sides.hpp).
  const ReportSides sides = report_sides(given, given_options);
  const auto& inputs = sides.inputs;
  const auto& options = sides.options;
  data view;
  view.set("generated", utc_now_iso8601());
  view.set("rooftop_version", std::string(kVersion) + "+" + kGitCommit);
  std::vector<std::string> origins;
  for (const auto& in : inputs) origins.push_back(in.origin);
  view.set("sources", fmt::format("{}", fmt::join(origins, ", ")));

  // One chart per device: results of several devices never share a roofline.
  std::vector<std::string> fingerprints;
  for (const auto& in : inputs)
    if (std::find(fingerprints.begin(), fingerprints.end(), in.run.meta.fingerprint) == fingerprints.end())
      fingerprints.push_back(in.run.meta.fingerprint);
  data devices{data::type::list};
  std::vector<data> rows;  // reserved: kainjow's move is not noexcept, so a growing vector copies
  std::size_t result_total = 0;
  for (const auto& in : inputs) result_total += in.run.results.size();
  rows.reserve(result_total);
  int row_index = 0, row_count = 0;
  std::vector<OverlayDevice> overlay;  // every device's points on one chart, when there are several
  for (const auto& fp : fingerprints) {
    const Ceilings* ceilings = nullptr;
    const Datasheet* datasheet = nullptr;
    std::string name, display_name, source, machine, device_state;
    DeviceCharts charts;
    const auto& [ranks, points, bandwidth, unplaced] = charts;
    for (std::size_t f = 0; f < inputs.size(); ++f) {
      const auto& run = inputs[f].run;
      if (run.meta.fingerprint != fp) continue;
      if (!ceilings && run.meta.ceilings) ceilings = &*run.meta.ceilings;
      if (!datasheet && run.meta.datasheet) datasheet = &*run.meta.datasheet;
      name = device_name(run);
      display_name = device_display_name(run.meta.device);
      source = run.meta.ceilings_source;
      machine = machine_text(run.meta.device);
      if (const auto gpu = device_state_line(run.meta.conditions); !gpu.empty()) device_state = gpu;
      const double top_clock = top_clock_mhz(run);
      for (std::size_t k = 0; k < run.results.size(); ++k) {
        rows.push_back(record_row(run.meta, run.results[k], fmt::format("pt-{}-{}", f, k), row_index++, display_name,
                                  top_clock, charts));
        ++row_count;
      }
    }
    data dev;
    dev.set("name", name);
    dev.set("fingerprint", fp);
    // A device that ran only collectives has no roofline: its heading and chart say so.
    std::string rank_text;
    for (const int n : ranks) rank_text += (rank_text.empty() ? "" : ", ") + std::to_string(n);
    dev.set("heading", points.empty() && !bandwidth.empty()
                           ? fmt::format("Collectives: {} ({} rank{})", name, rank_text, ranks.size() == 1 && *ranks.begin() == 1 ? "" : "s")
                           : "Roofline: " + name);
    dev.set("machine", machine);
    if (!device_state.empty()) dev.set("device_state", device_state);
    if (!points.empty() || bandwidth.empty()) dev.set("ceilings_source", source);
    if (!points.empty() || bandwidth.empty()) dev.set("svg", roofline_svg(ceilings, datasheet, points));
    if (!points.empty())
      overlay.push_back({display_name, ceilings ? ceilings : datasheet ? &datasheet->ceilings : nullptr, !ceilings && datasheet, points});
    if (!bandwidth.empty()) dev.set("bandwidth_svg", bandwidth_svg(bandwidth));
    if (!ceilings && !points.empty()) dev.set("no_ceilings", true);  // collectives draw their own roof
    if (unplaced) dev.set("unplaced", std::to_string(unplaced));
    dev.set("ceilings", list_of(ceiling_rows(ceilings, datasheet, charts)));
    devices.push_back(dev);
  }
  view.set("devices", devices);
  if (const auto low = low_ceilings(inputs); !low.empty()) {
    std::vector<data> items;
    for (const auto& c : low) {
      data x;
      x.set("device", c.device);
      x.set("ceiling", c.ceiling);
      x.set("value", c.value);
      x.set("reached", c.reached);
      x.set("percent", fmt::format("{:.0f}", c.percent));
      x.set("results", fmt::format("{} result{}", c.results, c.results == 1 ? " reaches" : "s reach"));
      x.set("command", c.command);
      items.push_back(x);
    }
    data section;
    section.set("headline", fmt::format("{} measured ceiling{} below what the results reach: their rows' % of roof is wrong",
                                        low.size(), low.size() == 1 ? " is" : "s are"));
    section.set("items", list_of(items));
    view.set("low_ceilings", section);
  }
  {  // A run on a busy host, or one that raised a ceiling, says so above everything else.
    std::vector<data> items;
    for (const auto& in : inputs) {
      std::vector<std::string> lines = remeasured_lines(in.run.meta.conditions);
      if (const auto busy = busy_host_warning(in.run.meta.conditions); !busy.empty()) lines.insert(lines.begin(), busy);
      for (const auto& line : lines) {
        data x;
        x.set("origin", in.origin);
        x.set("text", line);
        items.push_back(x);
      }
    }
    if (!items.empty()) {
      data section;
      section.set("items", list_of(items));
      view.set("run_conditions", section);
    }
  }
  // Tensor-parallel scaling across the files (tp_scaling.hpp).
  if (auto scaling = tp_scaling_section(inputs); !scaling.is_empty_object()) view.set("tp_scaling", scaling);
  const data worst = worst_section(inputs);
  if (!worst.is_empty_list()) view.set("has_worst", true);
  view.set("worst", worst);
  std::vector<std::string> stage_names;
  if (auto inference = inference_section(inputs, stage_names); !inference.empty()) {
    data section;
    section.set("rows", list_of(inference));
    std::vector<data> legend;
    for (const auto& name : stage_names) {
      data entry;
      entry.set("name", name);
      entry.set("colour", std::string(stage_colour(stage_names, name)));
      legend.push_back(entry);
    }
    if (!legend.empty()) section.set("has_stages", true);
    section.set("stage_legend", list_of(legend));
    view.set("inference", section);
  }
  // Serving: a load-latency curve per workload; the procurement rows go with the machine
  // comparison where there is one, else under the curves.
  const auto curves = serve_curves(inputs);
  std::vector<data> serving_rows;
  if (!curves.empty()) {
    data serving = serving_view(curves);
    serving_rows = serving_procurement_rows(curves, options.price_usd);
    if (fingerprints.size() <= 1) {
      serving.set("procurement", list_of(serving_rows));
      serving.set("has_procurement", true);
    }
    view.set("serving", serving);
  }
  put(view, "rows", list_of(std::move(rows)));
  view.set("result_count", std::to_string(row_count));
  // Beyond this many rows the table shows pages (the browser lays out each shown row).
  if (row_count > 500) view.set("paged", true);

  // Machine comparison: the same workload on several devices, against the first.
  if (fingerprints.size() > 1) {
    data comparison = comparison_section(inputs, fingerprints, options);
    if (sides.runs_of_one_device) comparison.set("runs_of_one_device", true);
    if (overlay.size() > 1) comparison.set("overlay_svg", overlay_roofline_svg(overlay));
    if (!serving_rows.empty()) {
      comparison.set("serving", list_of(serving_rows));
      comparison.set("has_serving", true);
    }
    view.set("comparison", comparison);
  }

  if (options.gate) view.set("gate", gate_section(*options.gate));
  // The history's series are keyed by the device's own fingerprint.
  if (!options.history.empty() && !given.empty())
    if (auto trends = trend_section(given.front().run, options.history); !trends.is_empty_object())
      view.set("trends", trends);
  return view;
}
}  // namespace

fs::path default_templates_dir() {
  return find_share_dir("ROOFTOP_TEMPLATES", "templates", "report.html.mustache", ROOFTOP_SOURCE_TEMPLATES);
}

std::string render_html_report(const std::vector<ReportInput>& inputs, const ReportOptions& options) {
  return render(read_template(options.templates, "report.html.mustache"), build_view(inputs, options), "report.html.mustache");
}

std::string render_markdown_report(const std::vector<ReportInput>& inputs, const ReportOptions& options) {
  return render(read_template(options.templates, "report.md.mustache"), build_view(inputs, options), "report.md.mustache");
}

}  // namespace rooftop::reports
