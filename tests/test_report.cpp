#include <catch2/catch.hpp>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "harness/errors.hpp"
#include "reports/diagnosis.hpp"
#include "reports/result_rows.hpp"
#include "reports/html_report.hpp"
#include "reports/log_axis.hpp"
#include "reports/roofline_svg.hpp"
#include "reports/serve_curve.hpp"

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
std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("log axis: whole decades onto pixels", "[report]") {
  const auto a = fit_log_axis({0.5, 3, 250}, 100, 500);
  CHECK(a.low == Approx(0.1));
  CHECK(a.high == Approx(1000));
  CHECK(a.to_pixel(0.1) == Approx(100));
  CHECK(a.to_pixel(1000) == Approx(500));
  CHECK(a.to_pixel(1) == Approx(200));   // one decade of four
  CHECK(a.to_pixel(1e9) == Approx(500));  // clamped
  CHECK(a.decades().size() == 5);
  // Inverted (a y axis) and degenerate inputs.
  const auto y = fit_log_axis({10}, 400, 0);
  CHECK(y.low == Approx(10));
  CHECK(y.high == Approx(100));
  CHECK(y.to_pixel(10) == Approx(400));
  const auto empty = fit_log_axis({0, -1, NAN}, 0, 1);
  CHECK(empty.high > empty.low);
}

TEST_CASE("ridge points: each compute ceiling against the slowest level", "[report]") {
  Ceilings c{{{"fp32", "fp32", "fma", 300e9}, {"int8", "int8", "vnni", 900e9}}, {{"L1", 500e9, 64e3}, {"DRAM", 20e9, 0}}, 0, {}};
  const auto r = ridge_points(c);
  REQUIRE(r.size() == 2);
  CHECK(r[0].level == "DRAM");
  CHECK(r[0].intensity == Approx(15));
  CHECK(r[1].intensity == Approx(45));
  CHECK(ridge_points(Ceilings{}).empty());
}

TEST_CASE("the SVG has every ceiling, the ridges and one marker per point", "[report]") {
  Ceilings c{{{"fp32_vector_fma", "fp32", "fma", 300e9}}, {{"L1", 500e9, 64e3}, {"DRAM", 20e9, 0}}, 0, {}};
  Datasheet d{"sheet", "src", {{{"fp32_peak", "fp32", "fma", 400e9}}, {{"DRAM", 25e9, 0}}, 0, {}}};
  std::vector<ChartPoint> pts = {{"p1", 2, 30e9, "gemm", "fp32", "a<b"}, {"p2", 80, 250e9, "gemm", "bf16", "x"},
                                 {"p3", 5, 60e9, "attention", "int8", "y"}};
  const auto svg = roofline_svg(&c, &d, pts);
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = svg.find(needle); pos != std::string::npos; pos = svg.find(needle, pos + 1)) ++n;
    return n;
  };
  CHECK(count("class=\"point\"") == 3);
  CHECK(count("class=\"ceiling memory\"") == 2);
  CHECK(count("class=\"ceiling compute\"") == 1);
  CHECK(count("class=\"ceiling datasheet") == 2);  // one compute, one memory line, dashed
  CHECK(count("class=\"ridge\"") == 1);
  CHECK(svg.find("a&lt;b") != std::string::npos);  // tooltips are escaped
  CHECK(svg.find("<rect x") != std::string::npos);  // the second suite's marker (attention)
  // Colour by dtype, the same as the dtype's compute roof: fp32's blue on the point and the line.
  CHECK(svg.find(R"(style="stroke:#1f77b4")") != std::string::npos);
  CHECK(std::regex_search(svg, std::regex(R"re(id="p1"[^>]*><circle[^>]*fill="#1f77b4")re")));
  CHECK(std::regex_search(svg, std::regex(R"re(id="p2"[^>]*><circle[^>]*fill="#d62728")re")));  // bf16
  // The ceilings' labels never overprint: measured 300 and datasheet 400 GFLOP/s are close.
  std::vector<double> ys;
  const std::regex label(R"re(class="label ceiling-label" x="[0-9.]+" y="([0-9.]+)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it)
    ys.push_back(std::stod((*it)[1]));
  REQUIRE(ys.size() == 2);
  CHECK(std::fabs(ys[0] - ys[1]) >= 13);
  CHECK(svg.find("datasheet fp32_peak") != std::string::npos);
  // A chart without ceilings still plots its points.
  CHECK(roofline_svg(nullptr, nullptr, pts).find("id=\"p3\"") != std::string::npos);
}

TEST_CASE("diagnosis rules", "[report]") {
  // A record placed by hand: `pct` of its roof, bound by `bound`.
  auto result = [](Bound bound, double pct, bool above = false) {
    ResultRecord r;
    r.problem = {"test", "cpu", Dtype::fp32, "x", nlohmann::ordered_json::object(), {1e9, 1e9}, 0};
    RooflinePlacement roof;
    roof.fraction_of_attainable = pct / 100;
    roof.bound = bound;
    roof.above_ceiling = above;
    roof.memory_level = "L3";
    roof.compute_ceiling = "fp32_vector_fma";
    roof.compute_peak = 300e9;
    Derived d;
    d.throughput = Throughput{1e9, 1e9, std::nullopt, std::nullopt};
    d.roofline = roof;
    r.derived = d;
    return r;
  };
  const auto memory = Bound::memory, latency = Bound::latency, compute = Bound::compute;
  CHECK_THAT(diagnose(result(memory, 82), nullptr).finding, Catch::Contains("memory-bound at 82% of the L3"));
  CHECK_THAT(diagnose(result(memory, 82), nullptr).next_step, Catch::Contains("cut bytes"));
  CHECK_THAT(diagnose(result(memory, 20), nullptr).next_step, Catch::Contains("access pattern"));
  CHECK_THAT(diagnose(result(latency, 5), nullptr).next_step, Catch::Contains("larger batch"));
  CHECK_THAT(diagnose(result(compute, 30), nullptr).next_step, Catch::Contains("autotune"));
  Ceilings with_matrix{{{"fp32_vector_fma", "fp32", "fma", 300e9}, {"bf16_matrix", "bf16", "amx", 2000e9}}, {}, 0, {}};
  CHECK_THAT(diagnose(result(compute, 90), &with_matrix).next_step, Catch::Contains("bf16 matrix units"));
  CHECK_THAT(diagnose(result(compute, 90), nullptr).next_step, Catch::Contains("near the roof"));
  CHECK_THAT(diagnose(result(compute, 140, true), nullptr).finding, Catch::Contains("ceiling is wrong"));
  // The nearest narrower unit, not the last one listed: fp32 near its roof is pointed at
  // tf32, never at int8; a bf16 row is not told to move to bf16, nor a row at 51% called near.
  Ceilings gpu{{{"fp32_vector_fma", "fp32", "fma", 60e12}, {"tf32_matrix", "tf32", "mma", 400e12},
                {"bf16_matrix", "bf16", "mma", 800e12}, {"fp8_matrix", "fp8", "mma", 1600e12},
                {"int8_matrix", "int8", "mma", 1600e12}}, {}, 0, {}};
  CHECK_THAT(diagnose(result(compute, 90), &gpu).next_step, Catch::Contains("tf32 matrix units"));
  auto bf16_row = result(compute, 90);
  bf16_row.problem.dtype = Dtype::bf16;
  bf16_row.derived->roofline->compute_peak = 800e12;
  CHECK_THAT(diagnose(bf16_row, &gpu).next_step, Catch::Contains("fp8 matrix units"));
  auto int8_row = bf16_row;
  int8_row.problem.dtype = Dtype::int8;
  int8_row.derived->roofline->compute_peak = 1600e12;
  CHECK_THAT(diagnose(int8_row, &gpu).next_step, !Catch::Contains("matrix units"));
  CHECK_THAT(diagnose(result(compute, 51), &gpu).next_step, !Catch::Contains("near"));
  auto memory_bf16 = result(memory, 90);
  memory_bf16.problem.dtype = Dtype::bf16;
  CHECK_THAT(diagnose(memory_bf16, nullptr).next_step, !Catch::Contains("bf16"));
  memory_bf16.problem.dtype = Dtype::int8;
  CHECK_THAT(diagnose(memory_bf16, nullptr).next_step, !Catch::Contains("narrower") && !Catch::Contains("int8"));
  // Where the cause is knowable, it is said: K = 7001 leaves bf16 rows unaligned. The sizes are
  // the ones the results module reads from a GEMM's params (DeclaredFacts::matrix).
  auto odd = result(compute, 24.5);
  odd.problem.dtype = Dtype::bf16;
  odd.problem.family = "gemm";
  odd.declared = record_of({"gemm", "cpu", Dtype::bf16, "m3_n5000_k7001", {{"m", 3}, {"n", 5000}, {"k", 7001}}, {}, 0}).declared;
  REQUIRE(odd.declared.matrix);
  CHECK_THAT(diagnose(odd, &gpu).next_step, Catch::Contains("K = 7001 is not a multiple of 8") && Catch::Contains("7008"));
  // As it ran on the H100: memory-bound (AI about 3) at 24.5%, the cause the same.
  odd.derived->roofline->bound = Bound::memory;
  odd.derived->roofline->memory_level = "HBM";
  CHECK_THAT(diagnose(odd, &gpu).next_step, Catch::Contains("K = 7001 is not a multiple of 8"));
  CHECK_THAT(diagnose(odd, &gpu).finding, Catch::Contains("memory-bound at 24% of its roof") ||
                                              Catch::Contains("memory-bound at 25% of its roof"));
  // A collective is held against its link, never told to characterize a roofline.
  auto coll = result(compute, 0);
  coll.problem.dtype = Dtype::bf16;
  coll.derived->roofline.reset();
  coll.derived->throughput->link = LinkShare{"nvlink (datasheet)", 0, 75.0};
  coll.declared.bus_factor = 1.0;
  coll.declared.size_bytes = 1 << 30;
  CHECK_THAT(diagnose(coll, nullptr).finding, Catch::Contains("bus bandwidth at 75% of the nvlink (datasheet)"));
  CHECK_THAT(diagnose(coll, nullptr).next_step, Catch::Contains("NCCL_MIN_NCHANNELS") && !Catch::Contains("characterize"));
  coll.declared.size_bytes = 4096;
  coll.derived->throughput->link->percent = 1.0;
  CHECK_THAT(diagnose(coll, nullptr).next_step, Catch::Contains("latency-bound at this size"));
  auto no_roof = result(compute, 1);
  no_roof.derived->roofline.reset();
  CHECK_THAT(diagnose(no_roof, nullptr).finding, Catch::Contains("without a roof"));
  auto skipped = result(compute, 1);
  skipped.status = Status::skipped;
  skipped.reason = "no oneDNN bf16 matmul here";
  CHECK(diagnose(skipped, nullptr).finding == "skipped: no oneDNN bf16 matmul here");
}

TEST_CASE("the HTML report renders from the templates with its structure", "[report]") {
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  run.meta.backend = "cpu";
  run.meta.tier = "smoke";
  run.meta.ceilings = Ceilings{{{"fp32_vector_fma", "fp32", "fma", 300e9}}, {{"DRAM", 20e9, 0}}, 1e-6, {}};
  ResultRecord r;
  r.problem = {"gemm", "cpu", Dtype::fp32, "m64_n64_k64", {{"m", 64}}, {2.0 * 64 * 64 * 64, 3.0 * 64 * 64 * 4}, 0};
  r.samples = {{1e-5, 10, 0}, {1.1e-5, 10, 0}};
  run.results = {r, r};
  run.results[1].problem.dtype = Dtype::int8;  // no int8 ceiling: plotted without a roof
  ReportOptions options;
  options.templates = default_templates_dir();
  const auto html = render_html_report({{"r.json", derived(run)}}, options);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  // The results furthest below their roof, each linked to its point.
  CHECK(html.find("Furthest below the roof") != std::string::npos);
  CHECK(std::regex_search(html, std::regex(R"re(<table id="worst">[\s\S]*<tr data-point="pt-0-0">)re")));
  CHECK(std::regex_search(html, std::regex("<svg class=\"roofline\"")));
  CHECK(std::count(html.begin(), html.end(), '\n') > 50);
  CHECK(html.find("data-point=\"pt-0-1\"") != std::string::npos);
  CHECK(html.find("plotted without a roof") != std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);  // self-contained
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));
  const auto md = render_markdown_report({{"r.json", derived(run)}}, options);
  CHECK(md.find("### Furthest below their roof") != std::string::npos);
  CHECK(md.find("| `gemm/cpu/fp32/m64_n64_k64` |") != std::string::npos);  // the one placed result
  CHECK(md.find("int8/m64_n64_k64` |") == std::string::npos);              // no roof: not ranked
  options.templates = "/nonexistent";
  CHECK_THROWS_AS(render_html_report({{"r.json", derived(run)}}, options), InputError);
}

TEST_CASE("comparison view: ratios, per dollar only with a price, per watt measured or from a datasheet TDP", "[report]") {
  auto device = [](const std::string& fp, double seconds, double tdp, double joules = 0) {
    RunResults run;
    run.meta.fingerprint = fp;
    run.meta.ceilings = Ceilings{{{"fp32_vector_fma", "fp32", "fma", 1e12}}, {{"DRAM", 1e11, 0}}, 0, {}};
    if (tdp > 0) run.meta.datasheet = Datasheet{"sheet", "vendor", {}, tdp};
    ResultRecord r;
    r.problem = {"gemm", "cpu", Dtype::fp32, "m512_n512_k512", {{"m", 512}}, {2.0 * 512 * 512 * 512, 3.0 * 512 * 512 * 4}, 0};
    r.samples = {{seconds, 10, 0, joules, joules > 0 ? 10 * seconds : 0}};
    run.results = {r};
    return run;
  };
  ReportOptions options;
  options.templates = default_templates_dir();
  options.price_usd["cpu-b"] = 1000;
  const auto html = render_html_report({{"a.json", derived(device("cpu-a", 2e-3, 0))}, {"b.json", derived(device("cpu-b", 1e-3, 350))},
                                        {"c.json", derived(device("cpu-c", 1e-3, 350, 2.5))}},
                                       options);
  CHECK(html.find("Machine comparison") != std::string::npos);
  CHECK(html.find("x2.00") != std::string::npos);
  CHECK(html.find("per $1000") != std::string::npos);
  CHECK(html.find("per W (TDP 350 W: no power measured)") != std::string::npos);
  // 2.5 J over 10 ms: 250 W measured, preferred to the datasheet's 350.
  CHECK(html.find("per W (measured, 250 W)") != std::string::npos);
  CHECK(count_of(html, "<svg class=\"roofline\"") == 3);  // one per device
}

TEST_CASE("a GPU is named by its CUDA name, a CPU by its model name", "[report]") {
  RunResults run;
  run.meta.fingerprint = "cuda-nvidia-h200-132sm-b917d95f";
  run.meta.device = {{"name", "NVIDIA H200"}, {"multiprocessors", 132}};  // the properties, as read from a file
  ReportOptions options;
  options.templates = default_templates_dir();
  CHECK(render_html_report({{"r.json", derived(run)}}, options).find("NVIDIA H200 (cuda-nvidia-h200-132sm-b917d95f)") !=
        std::string::npos);
  // A results file's "device" object: the properties under "properties".
  CHECK(device_display_name({{"backend", "cuda"}, {"properties", {{"name", "NVIDIA H200"}}}}) == "NVIDIA H200");
  CHECK(device_display_name({{"backend", "cpu"}, {"properties", {{"model_name", "AMD EPYC 9R14"}}}}) == "AMD EPYC 9R14");
  CHECK(device_display_name({{"backend", "cpu"}}) == "cpu");
}

TEST_CASE("comparison view: each device's run context, throttled results counted", "[report]") {
  auto device = [](const std::string& fp, double clock) {
    RunResults run;
    run.meta.fingerprint = fp;
    run.meta.tier = "quick";
    run.meta.created = "2026-11-21T22:35:33Z";
    run.meta.device = {{"name", "NVIDIA H100 80GB HBM3"}, {"driver_version", "580.159.04"}, {"runtime_version", "13.0"},
                       {"power_limit_w", 700.0}, {"max_sm_clock_mhz", 1980.0}};
    ResultRecord r;
    r.problem = {"gemm", "cuda", Dtype::bf16, "m4096_n4096_k4096", {{"m", 4096}}, {2.0 * 4096 * 4096 * 4096, 1e8}, 0};
    r.samples = {{1e-3, 10, clock}, {1e-3, 10, clock}};
    ResultRecord fast = r;
    fast.problem.shape = "m8192_n8192_k8192";
    fast.samples = {{8e-3, 1, 1980}};
    run.results = {r, fast};
    return run;
  };
  ReportOptions options;
  options.templates = default_templates_dir();
  const auto html = render_html_report({{"a.json", derived(device("gpu-a", 1980))}, {"b.json", derived(device("gpu-b", 1395))}}, options);
  CHECK(html.find("NVIDIA H100 80GB HBM3 · a.json<br>") != std::string::npos);  // two of one model: by file
  CHECK(html.find("tier quick · 2026-11-21 · driver 580.159.04 · CUDA 13.0 · 700 W limit · clocks 1980-1980 MHz of 1980") !=
        std::string::npos);
  CHECK(html.find("clocks 1395-1980 MHz of 1980, 1 of 2 results throttled") != std::string::npos);
  // The row of the throttled result says so, with its clock; no other row does.
  CHECK(count_of(html, R"(<span class="flag">throttled</span>)") == 1);
  CHECK(html.find("median SM clock 1395 of 1980 MHz") != std::string::npos);
  // And its cell in the comparison.
  CHECK(html.find(R"(title="median SM clock 1395 of 1980 MHz: below 95% of the maximum">throttled</span>)") != std::string::npos);
  // The geomean says how many of its ratios had a throttled side (the reference's is not).
  CHECK(html.find("x1.00 over the 2 workloads all machines ran (1 with a throttled side)") != std::string::npos);
}

TEST_CASE("comparison view: a procurement summary over the common workloads, and every device on one roofline", "[report]") {
  auto device = [](const std::string& fp, const std::string& name, double seconds, double tdp, bool extra) {
    RunResults run;
    run.meta.fingerprint = fp;
    run.meta.device = {{"name", name}};
    run.meta.ceilings = Ceilings{{{"bf16_matrix", "bf16", "tensor", 1e15}}, {{"HBM", 3e12, 0}}, 0, {}};
    run.meta.datasheet = Datasheet{"sheet", "vendor", {}, tdp};
    ResultRecord r;
    r.problem = {"gemm", "cuda", Dtype::bf16, "m4096_n4096_k4096", {{"m", 4096}}, {2.0 * 4096 * 4096 * 4096, 1e8}, 0};
    r.samples = {{seconds, 10, 0}};
    run.results = {r};
    if (extra) {  // a workload the other machine did not run: in its chart, not in the summary
      r.problem.shape = "m1_n4096_k4096";
      r.problem.work = {2.0 * 4096 * 4096, 2.0 * 4096 * 4096};
      run.results.push_back(r);
    }
    return run;
  };
  ReportOptions options;
  options.templates = default_templates_dir();
  options.price_usd = {{"gpu-a", 30000}, {"gpu-b", 10000}};
  const auto html = render_html_report({{"a.json", derived(device("gpu-a", "Big GPU", 2e-3, 700, false))},
                                        {"b.json", derived(device("gpu-b", "Small GPU", 1e-3, 350, true))}},
                                       options);
  // Twice as fast, at a third of the price, on half the TDP: x2.00, x6.00 per $, x4.00 per W.
  CHECK(std::regex_search(html, std::regex(R"re(<table id="procurement">[\s\S]*Small GPU[\s\S]*>1</td>[\s\S]*x2\.00[\s\S]*x6\.00[\s\S]*x4\.00 \(datasheet TDP, both\))re")));
  CHECK(html.find("The 1 workloads in common") != std::string::npos);
  // The Markdown summary says the same, its columns headed by the devices' names.
  const auto md = render_markdown_report({{"a.json", derived(device("gpu-a", "Big GPU", 2e-3, 700, false))},
                                          {"b.json", derived(device("gpu-b", "Small GPU", 1e-3, 350, true))}},
                                         options);
  CHECK(md.find("| Small GPU | 1 | x2.00 | x6.00 | x4.00 (datasheet TDP, both) |") != std::string::npos);
  CHECK(md.find("| suite | Big GPU | Small GPU |") != std::string::npos);
  CHECK(md.find("| workload | device | % of roof |") != std::string::npos);
  // One overlay: both devices' points (3) without ids, each device's roof in its colour.
  const auto overlay = html.substr(html.find(R"(<svg class="roofline overlay")"));
  const auto svg = overlay.substr(0, overlay.find("</svg>"));
  CHECK(count_of(svg, R"(<g class="point")") == 3);
  CHECK(count_of(svg, R"(<g class="point" id=)") == 0);
  CHECK(count_of(svg, "class=\"ceiling compute\" style=\"stroke:#1f77b4\"") == 1);
  CHECK(count_of(svg, "class=\"ceiling compute\" style=\"stroke:#d62728\"") == 1);
  CHECK(svg.find("Small GPU: bf16_matrix") != std::string::npos);  // a roof's tooltip names its device
  // One device alone: no overlay.
  CHECK(render_html_report({{"a.json", derived(device("gpu-a", "Big GPU", 2e-3, 700, false))}}, options).find("roofline overlay") ==
        std::string::npos);
}

TEST_CASE("comparison view: collectives compare their bus bandwidth, never a ratio of zero FLOP/s", "[report]") {
  auto device = [](const std::string& fp, double seconds) {
    RunResults run;
    run.meta.fingerprint = fp;
    ResultRecord r;
    r.problem = {"collectives", "nccl", Dtype::bf16, "all_reduce_1g_r2",
                 {{"ranks", 2}, {"collective", "all_reduce"}, {"bus_factor", 1.0}, {"in_place", false}, {"size_bytes", 1e9}},
                 {0, 1e9}, 0};
    r.samples = {{seconds, 1, 0}};
    run.results = {r};
    return run;
  };
  ReportOptions options;
  options.templates = default_templates_dir();
  const auto html = render_html_report({{"a.json", derived(device("gpu-a", 2e-3))}, {"b.json", derived(device("gpu-b", 1e-3))}}, options);
  CHECK(html.find("Machine comparison") != std::string::npos);
  CHECK(html.find("x2.00") != std::string::npos);
  CHECK(html.find("x-nan") == std::string::npos);
  // A third machine without this workload: no geomean over sets that differ per machine.
  RunResults empty;
  empty.meta.fingerprint = "gpu-c";
  const auto three = render_html_report({{"a.json", derived(device("gpu-a", 2e-3))}, {"b.json", derived(device("gpu-b", 1e-3))},
                                         {"c.json", derived(empty)}}, options);
  CHECK(three.find("workloads all machines ran") == std::string::npos);
  CHECK(html.find("x2.00 over the 1 workloads all machines ran") != std::string::npos);
  CHECK(html.find("xnan") == std::string::npos);
  CHECK(html.find("GB/s</") != std::string::npos);  // the rate cell: bus bandwidth, scaled
  CHECK_FALSE(std::regex_search(html, std::regex("[^0-9.]0 (G)?FLOP/s")));  // no point of 0 FLOP/s on a roofline
}

TEST_CASE("the inference section: latencies from the metrics, a bar of the stages with its legend", "[report]") {
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  run.meta.ceilings = Ceilings{{{"bf16_matrix", "bf16", "fma", 300e9}}, {{"DRAM", 20e9, 0}}, 1e-6, {}};
  // Made as a run makes it: its declared facts (the scenario) read from its params by record_of.
  ResultRecord r = record_of({"inference", "cpu", Dtype::bf16, "tiny_decode_b1_c128", {{"scenario", "decode"}}, {5e6, 5e6}, 0});
  r.samples = {{2e-3, 8, 0}, {3e-3, 8, 0}, {4e-3, 8, 0}};
  r.metrics = {{"tpot_s", {2e-3, 3e-3, 4e-3}}, {"output_tokens_per_s", {500, 333, 250}}};
  ResultRecord qkv = r, attention = r;
  qkv.problem.shape += ".qkv";
  qkv.problem.params = nlohmann::ordered_json::object();
  qkv.measured.stage = "qkv";
  qkv.measured.of = r.problem.name();
  qkv.metrics.clear();
  attention.problem.shape += ".attention";
  attention.problem.params = nlohmann::ordered_json::object();
  attention.measured.stage = "attention";
  attention.measured.of = r.problem.name();
  attention.metrics.clear();
  run.results = {r, qkv, attention};
  ReportOptions options;
  options.templates = default_templates_dir();
  const auto html = render_html_report({{"r.json", derived(run)}}, options);
  CHECK(html.find("<h2>Inference</h2>") != std::string::npos);
  CHECK(html.find("<td class=\"num\">3</td>") != std::string::npos);  // the median TPOT, ms
  CHECK(html.find("<td class=\"num\">333</td>") != std::string::npos);
  CHECK(html.find("<svg class=\"stages\"") != std::string::npos);
  CHECK(html.find("<title>qkv: 3 ms (50%)</title>") != std::string::npos);
  // A legend names each stage's colour, the same colour as in the bar.
  CHECK(html.find(R"(id="stage-legend">The stages bar, left to right: <span><i style="background:#4e79a7"></i>qkv</span> )"
                  R"(<span><i style="background:#f28e2b"></i>attention</span>)") != std::string::npos);
  CHECK(html.find(R"(fill="#f28e2b"><title>attention)") != std::string::npos);
  const auto md = render_markdown_report({{"r.json", derived(run)}}, options);
  CHECK(md.find("| `tiny_decode_b1_c128` | bf16 | decode | - | 3 | - | 333 |") != std::string::npos);
}

TEST_CASE("the gate view: a banner with gate's exit code, FAILs first, strips on one percent scale, Markdown unescaped",
          "[report]") {
  auto comparison = [](const std::string& name, Verdict v, double change) {
    Comparison c;
    c.name = name;
    c.verdict = v;
    c.tau = 0.03;
    c.change = change;
    c.change_low = change - 0.01;
    c.change_high = change + 0.01;
    c.p_holm = 1.5e-5;
    for (int i = 0; i < 10; ++i) {
      c.baseline_samples.push_back(1.0 + 0.001 * i);
      c.current_samples.push_back((1.0 + change) * (1.0 + 0.001 * i));
    }
    c.baseline_count = c.current_count = 10;
    c.reason = "slower by \"a lot\" <see> | this";
    return c;
  };
  GateReport g;
  g.baseline_origin = "base.json";
  g.comparisons = {comparison("gemm/cpu/fp32/pass_small", Verdict::pass, -0.001),
                   comparison("gemm/cpu/fp32/fail_big", Verdict::fail, 0.145)};
  ReportOptions options;
  options.templates = default_templates_dir();
  options.gate = g;
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  const auto html = render_html_report({{"r.json", derived(run)}}, options);
  CHECK(html.find("banner-red") != std::string::npos);
  CHECK(html.find("gate exit 1") != std::string::npos);
  CHECK(html.find("fail_big") < html.find("pass_small"));  // FAIL first
  CHECK(html.find("1.5e-05") != std::string::npos);        // the p column
  // One scale: the +14.5% run's median marker sits right of the -0.1% one's.
  std::vector<double> xs;
  const std::regex line(R"re(<line x1="([0-9.]+)" x2="[0-9.]+" y1="12" y2="22" class="median"/>)re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), line); it != std::sregex_iterator(); ++it)
    xs.push_back(std::stod((*it)[1]));
  REQUIRE(xs.size() == 2);
  CHECK(xs[0] > xs[1] + 100);  // fail_big first, far to the right
  const auto md = render_markdown_report({{"r.json", derived(run)}}, options);
  CHECK(md.find("FAIL: 1 regression (gate exit 1)") != std::string::npos);
  CHECK(md.find("&quot;") == std::string::npos);
  CHECK(md.find("\"a lot\" <see> \\| this") != std::string::npos);
  g.comparisons = {comparison("gemm/cpu/fp32/pass_small", Verdict::pass, -0.001)};
  options.gate = g;
  CHECK(render_html_report({{"r.json", derived(run)}}, options).find("banner-green") != std::string::npos);
  // A gate of 600 benchmarks shows the 500 most urgent (its FAIL among them) and says so.
  for (int i = 0; i < 599; ++i) g.comparisons.push_back(comparison(fmt::format("gemm/cpu/fp32/p{}", i), Verdict::pass, 0));
  g.comparisons.push_back(comparison("gemm/cpu/fp32/fail_last", Verdict::fail, 0.2));
  options.gate = g;
  const auto big = render_html_report({{"r.json", derived(run)}}, options);
  CHECK(count_of(big, R"(<svg class="strip")") == 500);
  CHECK(big.find("fail_last") != std::string::npos);
  CHECK(big.find("The 500 most urgent of 601 verdicts are shown") != std::string::npos);
  CHECK(big.find("1 FAIL, 0 IMPROVED, 0 UNRESOLVED, 600 PASS") != std::string::npos);  // the counts cover all
}

TEST_CASE("trend charts from the history: the first run's series, change points marked, recent ones first, one scale", "[report]") {
  RunResults run;
  run.meta.fingerprint = "cpu-test";
  run.meta.tier = "quick";
  ResultRecord r;
  r.problem = {"gemm", "cpu", Dtype::fp32, "m64_n64_k64", {{"m", 64}}, {1e6, 1e5}, 0};
  r.samples = {{1e-3, 10, 0}};
  run.results = {r};
  run.results.push_back(r);
  run.results[1].problem.shape = "m32_n32_k32";
  auto series = [](const std::string& benchmark, double step_at, const std::string& fingerprint = "cpu-test") {
    HistorySeries s{fingerprint, "quick", benchmark, {}};
    for (int night = 0; night < 14; ++night)
      s.points.push_back({fmt::format("2026-11-{:02d}T02:17:00Z", night + 1), fmt::format("c{:07d}", night),
                          1e-3 * (night >= step_at ? 1.2 : 1.0) * (1 + 0.003 * (night % 3))});
    return s;
  };
  ReportOptions options;
  options.templates = default_templates_dir();
  options.history = {series("gemm/cpu/fp32/m32_n32_k32", 99), series("gemm/cpu/fp32/m64_n64_k64", 12),
                     series("gemm/cpu/fp32/m64_n64_k64", 5, "cpu-other"), series("gemm/cpu/fp32/not_in_run", 5)};
  const auto html = render_html_report({{"r.json", derived(run)}}, options);
  CHECK(count_of(html, R"(<svg class="trend")") == 2);  // this device's series of this run's benchmarks
  CHECK(count_of(html, R"(class="change slower")") == 1);
  CHECK(html.find("+20.0%") != std::string::npos);
  // The series with the recent step comes first.
  CHECK(html.find("trend-chart recent") < html.find("m32_n32_k32 <span"));
  // It leads with what changed lately, above the rooflines; one y scale for both charts (their
  // +-tick labels alike).
  CHECK(html.find("<strong>1 new slowdown, 0 new speed-ups in the last 3 nights</strong>") != std::string::npos);
  CHECK(html.find("Trends in the nightly history") < html.find("<h2>Roofline:"));
  std::vector<std::string> ticks;
  const std::regex tick(R"re(<svg class="trend"[^>]*>.*?text-anchor="end" dominant-baseline="middle">([-+0-9]+%)</text>)re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tick); it != std::sregex_iterator(); ++it) ticks.push_back((*it)[1]);
  REQUIRE(ticks.size() == 2);
  CHECK(ticks[0] == ticks[1]);
  options.history.clear();
  CHECK(render_html_report({{"r.json", derived(run)}}, options).find("Trends in the nightly history") == std::string::npos);
}

namespace {
// One H100-named GEMM result of `seconds`, derived: the runs of the device-naming tests below.
RunResults h100_gemm_run(const std::string& fingerprint, double seconds) {
  RunResults run;
  run.meta.fingerprint = fingerprint;
  run.meta.device = {{"name", "NVIDIA H100 80GB HBM3"}};
  ResultRecord r;
  r.problem = {"gemm", "cuda", Dtype::bf16, "m4096_n4096_k4096", {{"m", 4096}}, {2.0 * 4096 * 4096 * 4096, 3.0 * 4096 * 4096 * 2}, 0};
  r.samples = {{seconds, 10, 0}};
  run.results = {r};
  return run;
}
}  // namespace

TEST_CASE("two results files of one device are two runs, compared and named by file, date and commit", "[report]") {
  auto night = [](const std::string& created, const std::string& commit, double seconds) {
    RunResults run = h100_gemm_run("cuda-nvidia-h100-132sm-0f1e2d3c", seconds);
    run.meta.created = created;
    run.meta.git_commit = commit;
    run.meta.ceilings = Ceilings{{{"bf16_tensor", "bf16", "mma", 1e15}}, {{"HBM", 3e12, 0}}, 0, {}};
    return derived(run);
  };
  ReportOptions options;
  options.templates = default_templates_dir();
  options.price_usd["cuda-nvidia-h100-132sm-0f1e2d3c"] = 30000;
  const std::vector<ReportInput> inputs{{"nightly/night1.json", night("2026-11-27T03:12:45Z", "1a2b3c4d5e", 2e-4)},
                                        {"nightly/night2.json", night("2026-11-28T03:10:02Z", "9f8e7d6c5b", 2.5e-4)}};
  const auto html = render_html_report(inputs, options);
  // Compared against the first run, not merged onto one roofline.
  CHECK(html.find("Run and machine comparison") != std::string::npos);
  CHECK(html.find("id=\"runs-of-one-device\"") != std::string::npos);
  CHECK(count_of(html, "<svg class=\"roofline\"") == 2);
  CHECK(html.find("NVIDIA H100 80GB HBM3 · night1.json, 2026-11-27 03:12, 1a2b3c4") != std::string::npos);
  CHECK(html.find("NVIDIA H100 80GB HBM3 · night2.json, 2026-11-28 03:10, 9f8e7d6") != std::string::npos);
  CHECK(html.find("x0.80") != std::string::npos);  // night 2 at 1/1.25 of night 1's speed
  CHECK(html.find("$30000") != std::string::npos);  // the device's price carried to both runs
  const auto md = render_markdown_report(inputs, options);
  CHECK(md.find("### Run and machine comparison") != std::string::npos);
  // One night's files of other suites (no point in common) are one run of the device: one
  // side, no comparison; two such nights, two sides named by their files.
  auto other_suite = [&](const std::string& created) {
    auto run = night(created, "1a2b3c4d5e", 2e-4);
    run.results[0].problem.shape = "m8192_n8192_k8192";  // stands for another suite's point
    return run;
  };
  const auto one_night = render_html_report({inputs[0], {"nightly/night1-other.json", other_suite("2026-11-27T03:40:00Z")}},
                                            options);
  CHECK(one_night.find("comparison") == std::string::npos);
  CHECK(count_of(one_night, "<svg class=\"roofline\"") == 1);
  const auto two_nights = render_html_report({inputs[0], {"nightly/night1-other.json", other_suite("2026-11-27T03:40:00Z")},
                                              inputs[1], {"nightly/night2-other.json", other_suite("2026-11-28T03:40:00Z")}},
                                             options);
  CHECK(two_nights.find("NVIDIA H100 80GB HBM3 · night1.json + night1-other.json, 2026-11-27 03:12") != std::string::npos);
  CHECK(two_nights.find("NVIDIA H100 80GB HBM3 · night2.json + night2-other.json, 2026-11-28 03:10") != std::string::npos);
  CHECK(count_of(two_nights, "<svg class=\"roofline\"") == 2);  // a chart a run
  // One device in one file: a machine report as before.
  const auto one = render_html_report({inputs[0]}, options);
  CHECK(one.find("comparison") == std::string::npos);
  CHECK(one.find("NVIDIA H100 80GB HBM3 (cuda-nvidia-h100-132sm-0f1e2d3c)") != std::string::npos);
}

TEST_CASE("two devices of one model are told apart by their files", "[report]") {
  auto host = [](const std::string& fp, double seconds) { return derived(h100_gemm_run(fp, seconds)); };
  ReportOptions options;
  options.templates = default_templates_dir();
  const auto md = render_markdown_report({{"clouds/cloud-a.json", host("cuda-nvidia-h100-132sm-0f1e2d3c", 2e-4)},
                                          {"clouds/cloud-b.json", host("cuda-nvidia-h100-132sm-77aa88bb", 2.2e-4)}},
                                         options);
  CHECK(md.find("NVIDIA H100 80GB HBM3 · cloud-a.json") != std::string::npos);
  CHECK(md.find("NVIDIA H100 80GB HBM3 · cloud-b.json") != std::string::npos);
  CHECK(md.find("### Machine comparison") != std::string::npos);  // two machines, not two runs
}

TEST_CASE("the load-latency curve draws what the runs recorded: no empty panel, no percentile it lacks", "[report]") {
  ServeCurve c;
  c.slo_ttft_s = 0.5;
  c.slo_tpot_s = 0.05;
  c.sustainable = 8;
  c.searched = true;
  for (double rate : {4.0, 8.0, 16.0}) {
    ServeRatePoint p;
    p.rate = rate;
    p.ttft = {0, 0, 0.1 * rate};  // a --sweep-rate run of before 2026-11-27: p99 only, no E2E
    p.tpot = {0, 0, 0.005 * rate};
    p.valid = rate < 16;
    p.goodput = rate < 16 ? rate : 3;
    p.output_tokens_per_s = 100 * rate;
    c.points.push_back(p);
  }
  const auto html = load_latency_svg(c);
  CHECK(html.find(R"(data-metric="TTFT")") != std::string::npos);
  CHECK(html.find(R"(data-metric="E2E")") == std::string::npos);  // not recorded: not drawn
  CHECK(html.find("E2E: not recorded by these runs") != std::string::npos);
  CHECK(html.find("p99 only") != std::string::npos);
  CHECK(html.find(">p50<") == std::string::npos);  // the legend lists only what is drawn
  CHECK(html.find(">p99<") != std::string::npos);
  // Goodput under the offered rate's diagonal, and the output tokens a second.
  CHECK(count_of(html, R"(class="curve-point throughput)") == 6);
  CHECK(html.find(R"(<line class="offered")") != std::string::npos);
}
