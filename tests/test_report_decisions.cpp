// What the report must say for a reader to decide from it (issue 40): a ceiling the results
// beat is named once at the top with its fix; per watt compares like with like.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "reports/diagnosis.hpp"
#include "reports/gate_strip.hpp"
#include "reports/html_report.hpp"
#include "reports/machine_text.hpp"
#include "reports/per_watt.hpp"
#include "reports/ratio_text.hpp"

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
bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// One fp32 GEMM (2*512^3 FLOPs) taking `seconds`, on a device whose fp32 roof is `peak`.
RunResults gemm_run(const std::string& fp, double seconds, double peak, double tdp = 0, double joules = 0) {
  RunResults run;
  run.meta.fingerprint = fp;
  run.meta.backend = "cpu";
  run.meta.device = {{"backend", "cpu"}, {"fingerprint", fp}, {"properties", {{"model_name", "Test CPU " + fp}}}};
  run.meta.ceilings = Ceilings{{{"fp32_vector_fma", "fp32", "fma", peak}}, {{"DRAM", 1e12, 0}}, 0, {}};
  if (tdp > 0) run.meta.datasheet = Datasheet{"sheet", "vendor", {}, tdp};
  ResultRecord r;
  r.problem = {"gemm", "cpu", Dtype::fp32, "m512_n512_k512", {{"m", 512}}, {2.0 * 512 * 512 * 512, 3.0 * 512 * 512 * 4}, 0};
  r.samples = {{seconds, 10, 0, joules, joules > 0 ? 10 * seconds : 0}};
  run.results = {r};
  return run;
}

std::string html_of(const std::vector<ReportInput>& inputs) {
  ReportOptions options;
  options.templates = default_templates_dir();
  return render_html_report(inputs, options);
}
}  // namespace

TEST_CASE("a ceiling below what the results reach raises one banner at the top, with the command that fixes it",
          "[report]") {
  // 268 MFLOP in 1 ms: 268 GFLOP/s against a roof measured at 100 GFLOP/s.
  const auto html = html_of({{"low.json", derived(gemm_run("cpu-low", 1e-3, 100e9))}});
  REQUIRE(has(html, R"(id="ceiling-banner")"));
  CHECK(has(html, "1 measured ceiling is below what the results reach"));
  CHECK(has(html, "<strong>fp32_vector_fma</strong> measured 100.0 GFLOP/s, yet 1 result reaches up to 268.4 GFLOP/s (268% of it)"));
  CHECK(has(html, "<code>rooftop characterize --backend cpu --merge</code>"));
  // At the top: before every chart and table.
  CHECK(html.find(R"(id="ceiling-banner")") < html.find("<svg"));
  CHECK(html.find(R"(id="ceiling-banner")") < html.find("<table"));
  // A roof the results stay under raises none.
  CHECK_FALSE(has(html_of({{"ok.json", derived(gemm_run("cpu-ok", 1e-3, 1e12))}}), R"(id="ceiling-banner")"));
  // The Markdown summary says it too.
  ReportOptions options;
  options.templates = default_templates_dir();
  CHECK(has(render_markdown_report({{"low.json", derived(gemm_run("cpu-low", 1e-3, 100e9))}}, options),
            "run `rooftop characterize --backend cpu --merge` on that machine"));
}

TEST_CASE("per watt: like with like, never a measured board power against a datasheet TDP", "[report]") {
  PowerSide h100{"H100", {100, 200}, {450.0, 500.0}, 700};
  PowerSide same_run_no_energy{"H100 (copy)", {100, 200}, {std::nullopt, std::nullopt}, 700};
  PowerSide cpu_no_tdp{"CPU", {10, 20}, {std::nullopt, std::nullopt}, std::nullopt};
  // Both measured: the ratio of rate per measured watt.
  PowerSide h100_faster{"H100 b", {200, 400}, {450.0, 500.0}, 700};
  CHECK(per_watt_ratio(h100_faster, h100) == "x2.00 (measured board power, both)");
  // Measured on one side, TDP on both: the TDPs on both sides, said so; the same run reads x1.00
  // (the measured power against the TDP read x1.59 before).
  CHECK(per_watt_ratio(same_run_no_energy, h100) == "x1.00 (datasheet TDP, both: measured power is on one side only)");
  // Measured against a TDP-less side without energy: refused, naming the sides.
  CHECK(per_watt_ratio(cpu_no_tdp, h100) == "not comparable: CPU has no power figure, H100 has measured board power");
  PowerSide tdp_only{"Small GPU", {50, 100}, {std::nullopt, std::nullopt}, 350};
  PowerSide measured_no_tdp{"Big GPU", {100, 200}, {500.0, 500.0}, std::nullopt};
  CHECK(per_watt_ratio(tdp_only, measured_no_tdp) ==
        "not comparable: Small GPU has datasheet TDP only (350 W), Big GPU has measured board power");
  CHECK(per_watt_ratio(measured_no_tdp, measured_no_tdp) == "x1.00 (measured board power, both)");
}

TEST_CASE("per watt in the comparison summary: a TDP-vs-measured mix is marked not comparable", "[report]") {
  // cpu-a: energy measured, no datasheet; cpu-b: only a TDP.
  const auto html = html_of({{"a.json", derived(gemm_run("cpu-a", 2e-3, 1e12, 0, 5.0))}, {"b.json", derived(gemm_run("cpu-b", 1e-3, 1e12, 350))}});
  CHECK(has(html, R"(class="num refused" data-label="per W">not comparable: Test CPU cpu-b has datasheet TDP only (350 W), )"
                  R"(Test CPU cpu-a has measured board power)"));
  CHECK_FALSE(has(html, "(measured power)"));
}

TEST_CASE("the machine measured, from the fields the results carry: a CPU's cores and memory, a GPU's board and power limit",
          "[report]") {
  const nlohmann::ordered_json cpu = {{"backend", "cpu"},
                                      {"properties",
                                       {{"model_name", "AMD EPYC"}, {"sockets", 1}, {"physical_cores", 8}, {"logical_cpus", 16},
                                        {"threads_used", 8}, {"memory_bytes", 32.0 * (1 << 30)}, {"onednn_isa", "avx2"}}}};
  CHECK(machine_text(cpu) == "8 cores / 16 threads (8 used), 1 socket, 32.0 GiB memory, avx2");
  const nlohmann::ordered_json gpu = {{"name", "NVIDIA H100 80GB HBM3"}, {"multiprocessors", 132},
                                      {"memory_bytes", 85017493504.0}, {"power_limit_w", 700.0},
                                      {"max_sm_clock_mhz", 1980.0}, {"compute_capability", "9.0"}};
  CHECK(machine_text(gpu) == "132 SMs, 79.2 GiB memory, 700 W power limit, SM clock up to 1980 MHz, compute 9.0");
  CHECK(machine_text(nlohmann::ordered_json()) == "");
  // On the page, under the device's heading.
  auto run = gemm_run("cpu-m", 1e-3, 1e12);
  run.meta.device = cpu;
  CHECK(has(html_of({{"m.json", derived(run)}}), R"(<div class="meta machine">measured on: 8 cores / 16 threads (8 used), 1 socket)"));
}

TEST_CASE("a stage without FLOPs (an embedding) is read by its bandwidth, never told to run characterize", "[report]") {
  Ceilings c{{{"bf16_matrix", "bf16", "mma", 800e12}}, {{"L2", 5e12, 50e6}, {"HBM", 3e12, 0}}, 1e-6, {}};
  auto stage = [](double bytes, double bytes_per_s) {
    ResultRecord r;
    r.problem = {"inference", "cpu", Dtype::bf16, "tiny.embedding", nlohmann::ordered_json::object(), {0.0, bytes}, 0};
    Derived d;
    d.throughput = Throughput{0.0, bytes_per_s, std::nullopt, std::nullopt};
    r.derived = d;
    return r;
  };
  const auto big = diagnose(stage(6e9, 2.4e12), &c);  // 6 GB from HBM at 80% of it
  CHECK(big.finding == "no FLOPs (a gather or copy): 80% of the HBM bandwidth");
  CHECK_THAT(big.next_step, Catch::Contains("near the bandwidth"));
  const auto small = diagnose(stage(12288, 2.5e9), &c);  // 12 KB: a few dispatches' worth
  CHECK_THAT(small.finding, Catch::StartsWith("no FLOPs, latency-bound"));
  for (const auto& d : {big, small, diagnose(stage(1e6, 1e9), nullptr)})
    CHECK_THAT(d.finding + d.next_step, !Catch::Contains("characterize"));
}

TEST_CASE("the gate's shared strip scale is robust: one wild sample neither stretches it nor vanishes", "[report][gate]") {
  // 50 benchmarks of ten quiet samples a side (+-0.5%), one at +20%, one whose run holds a
  // single -95% sample (a timer glitch).
  std::vector<Comparison> rows;
  for (int k = 0; k < 50; ++k) {
    Comparison c;
    c.name = fmt::format("b{}", k);
    c.tau = 0.03;
    c.baseline_count = c.current_count = 10;
    const double change = k == 0 ? 0.20 : 0.0;
    c.change = change;
    c.change_low = change - 0.005;
    c.change_high = change + 0.005;
    for (int i = 0; i < 10; ++i) {
      c.baseline_samples.push_back(1.0 + 0.001 * (i - 5));
      c.current_samples.push_back((1.0 + change) * (1.0 + 0.001 * (i - 5)));
    }
    if (k == 1) c.current_samples[0] = 0.05;
    rows.push_back(c);
  }
  std::vector<const Comparison*> order;
  for (const auto& c : rows) order.push_back(&c);
  const auto scale = strip_scale(order);
  CHECK(scale.low > -10);   // not stretched to -95%
  CHECK(scale.high > 20);   // every row's median and interval inside
  CHECK(scale.high < 30);
  const auto wild = gate_strip_svg(rows[1], scale);
  CHECK_THAT(wild, Catch::Contains("1 sample beyond the scale, down to -95.0%"));
  CHECK_THAT(gate_strip_svg(rows[0], scale), !Catch::Contains("beyond"));
}

TEST_CASE("a ratio far below one says how many times slower", "[report]") {
  CHECK(ratio_text(1.1449) == "x1.14");
  CHECK(ratio_text(0.1) == "x0.10");
  CHECK(ratio_text(0.0078125) == "128x slower");
  CHECK(ratio_text(0.05) == "20.0x slower");
}
