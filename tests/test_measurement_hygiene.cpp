// Measurements on a shared machine (issue 39): the rules are tested with injected readings,
// never with timings, so that these tests pass the same on a busy host and a quiet one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <iterator>
#include <regex>
#include <sstream>

#include "devices/cpu/host_limits.hpp"
#include "harness/ceiling_trials.hpp"
#include "harness/device_conditions.hpp"
#include "harness/device_profile.hpp"
#include "harness/profile_writeback.hpp"
#include "harness/results.hpp"
#include "harness/roof_check.hpp"
#include "harness/roofline.hpp"
#include "harness/system_state.hpp"
#include "reports/diagnosis.hpp"
#include "reports/html_report.hpp"
#include "reports/machine_text.hpp"
#include "reports/run_conditions.hpp"
#include "reports/terminal_table.hpp"

using namespace rooftop;
using ojson = nlohmann::ordered_json;

namespace {
SystemReading reading(const std::string& when, double others_busy, double steal = 0, long long throttles = 0,
                      double load1 = 0.1) {
  SystemReading r;
  r.when = when;
  r.cpus = 2;
  r.load1 = load1;
  r.runnable_others = 0;
  r.others_busy = others_busy;
  r.steal = steal;
  r.window_s = 0.25;
  r.throttle_events = throttles;
  return r;
}

// A results file with one GEMM: `seconds` for `flops` over `bytes`, under `ceilings`.
RunResults one_gemm(const Ceilings& ceilings, Dtype dtype, double flops, double bytes, double seconds) {
  RunResults run;
  run.meta.rooftop_version = "0.1.0";
  run.meta.tier = "quick";
  run.meta.backend = "cpu";
  run.meta.fingerprint = "cpu-test";
  run.meta.device = {{"model_name", "Test CPU"}, {"physical_cores", 2}, {"logical_cpus", 2}, {"sockets", 1},
                     {"cpus_available", 2}, {"virtual_machine", true}, {"hypervisor", "KVM"}};
  run.meta.ceilings = ceilings;
  run.meta.ceilings_source = "test.json";
  ResultRecord r;
  r.problem = {"gemm", "cpu", dtype, "m16_n4096_k4096", {{"m", 16}, {"n", 4096}, {"k", 4096}}, {flops, bytes}, 0};
  r.samples = {{seconds, 10, 0, 0, 0}};
  run.results = {r};
  derive_records(run);
  return run;
}

// One derived point of any family and work, timed `seconds`; no ceilings: no device profile.
RunResults one_point(const Ceilings* ceilings, const char* family, Dtype dtype, Work work, double seconds) {
  RunResults run;
  run.meta.backend = "cpu";
  if (ceilings) run.meta.ceilings = *ceilings;
  ResultRecord r;
  r.problem = {family, "cpu", dtype, "point", {}, work, 0};
  r.samples = {{seconds, 10, 0, 0, 0}};
  run.results = {r};
  derive_records(run);
  return run;
}

Ceilings epyc() {  // a 2-vCPU EPYC VM's ceilings, rounded
  return {{{"fp32_vector_fma", "fp32", "avx512_fma", 260e9}, {"bf16_matrix", "bf16", "brg", 1000e9},
           {"int8_matrix", "int8", "brg", 2000e9}},
          {{"L1", 960e9, 98304}, {"L2", 450e9, 2097152}, {"L3", 250e9, 33554432}, {"DRAM", 34e9, 0}},
          0.3e-6,
          {}};
}

// Trials whose runs were all clean (our threads on a CPU throughout).
CeilingTrials clean(const std::string& name, const std::vector<double>& values, const std::string& at_least = "") {
  return {name, values, values, false, at_least};
}
void add(CeilingTrials& t, double value) {
  t.values.push_back(value);
  t.clean_values.push_back(value);
}

std::string table_of(const RunResults& run) {
  std::ostringstream out;
  reports::print_terminal_table(out, run, false);
  return out.str();
}
}  // namespace

TEST_CASE("a pass is all threads' rate only when their reads overlapped for nearly all of it", "[hygiene]") {
  // Both threads read together: clean.
  CHECK(threads_overlapped({{0.0, 1.0}, {0.02, 1.01}}));
  // One thread woken late: for half the pass one thread read alone (a DRAM pass of 48 GB/s
  // of 70, clean by the CPU clocks as the first thread spun at the join).
  CHECK_FALSE(threads_overlapped({{0.0, 1.0}, {0.5, 1.5}}));
  // One after the other: no overlap at all.
  CHECK_FALSE(threads_overlapped({{0.0, 1.0}, {1.0, 2.0}}));
  // Just inside and just outside the share.
  CHECK(threads_overlapped({{0.0, 1.0}, {0.09, 1.0}}));
  CHECK_FALSE(threads_overlapped({{0.0, 1.0}, {0.11, 1.0}}));
  // One thread: nothing to overlap with.
  CHECK(threads_overlapped({{0.0, 1.0}}));
  CHECK(threads_overlapped({}));
}

TEST_CASE("DRAM settles only once its agreeing clean trials span its time window", "[hygiene]") {
  const TrialPlan plan = default_trial_plan(true);
  CeilingTrials dram{"DRAM", {}, {}, false, ""};
  dram.min_span_s = dram_min_span_s(true);
  auto add = [&](double v, double at) {
    dram.values.push_back(v);
    dram.clean_values.push_back(v);
    dram.clean_at_s.push_back(at);
  };
  // Two trials moments apart agree on a low spell (47 and 48 GB/s, 0.4 s apart): not settled,
  // and the next round may wait for it alone.
  add(47e9, 0.5);
  add(48e9, 0.9);
  std::vector<CeilingTrials> trials{dram, clean("L3", {240e9, 241e9})};
  CHECK(another_round(trials, 2, 1.0, plan));
  CHECK_FALSE(trials[0].settled);
  CHECK(trials[1].settled);
  CHECK(only_spread_left(trials));
  // Later trials read the quiet spell; two of them agree and the trials span the window.
  trials[0].values.push_back(70e9), trials[0].clean_values.push_back(70e9), trials[0].clean_at_s.push_back(2.5);
  CHECK(another_round(trials, 3, 2.6, plan));  // 70 alone: the best two (70, 48) disagree
  CHECK(only_spread_left(trials));              // and 2 s of 4 spanned: the rounds still wait
  trials[0].values.push_back(69e9), trials[0].clean_values.push_back(69e9), trials[0].clean_at_s.push_back(4.6);
  CHECK_FALSE(another_round(trials, 4, 4.7, plan));
  CHECK(trials[0].settled);
  CHECK(best_value(trials[0].values) == 70e9);
  const auto j = trials_to_json(trials, plan, 4, 4.7);
  CHECK(j["ceilings"][0]["min_span_s"] == 4.0);
  CHECK(j["ceilings"][0]["clean_at_s"].size() == 4);
  CHECK_FALSE(j["ceilings"][1].contains("min_span_s"));
}

TEST_CASE("a ceiling settles when its best two clean trials agree within the tolerance, or the bound stops the rounds",
          "[hygiene]") {
  CHECK(best_two_spread({100}) < 0);  // one trial: nothing to agree with
  CHECK_FALSE(best_two_agree({100}, 0.03));
  CHECK(best_two_spread({50, 100, 98}) == Approx(0.02));  // the best two, not the first two
  CHECK(best_two_agree({50, 100, 98}, 0.03));
  CHECK_FALSE(best_two_agree({50, 100, 90}, 0.03));
  CHECK(best_value({50, 100, 90}) == 100);

  const TrialPlan plan{5, 30, 0.03};
  std::vector<CeilingTrials> trials{clean("fp32_vector_fma", {100, 99}), clean("DRAM", {30})};
  CHECK(another_round(trials, 1, 1.0, plan));  // DRAM has one trial
  CHECK(trials[0].settled);
  CHECK_FALSE(trials[1].settled);
  add(trials[1], 40);  // a busy first trial, a quiet second: 25% apart
  CHECK(another_round(trials, 2, 2.0, plan));
  add(trials[1], 39.5);
  CHECK_FALSE(another_round(trials, 3, 3.0, plan));  // 40 and 39.5 agree: done
  CHECK(trials[1].settled);

  std::vector<CeilingTrials> noisy{clean("L3", {100, 50})};
  CHECK_FALSE(another_round(noisy, 5, 1.0, plan));   // out of rounds
  CHECK_FALSE(another_round(noisy, 2, 31.0, plan));  // out of time
  CHECK(another_round(noisy, 2, 1.0, plan));

  // Two disturbed L1 trials that agree, below the L2: not settled.
  std::vector<CeilingTrials> levels{clean("L1", {2.8, 2.8}, "L2"), clean("L2", {470, 469})};
  CHECK(another_round(levels, 2, 1.0, plan));
  CHECK_FALSE(levels[0].settled);
  CHECK(levels[1].settled);
  add(levels[0], 960);
  add(levels[0], 955);
  CHECK_FALSE(another_round(levels, 4, 2.0, plan));
  CHECK(levels[0].settled);

  // Disturbed trials (our threads off the CPU for part of the fastest run) that agree at an
  // eighth of the peak: kept as values, but they settle nothing.
  std::vector<CeilingTrials> disturbed{{"fp32_vector_fma", {68.2, 65.6}, {}, false, ""}};
  CHECK(another_round(disturbed, 2, 1.0, plan));
  CHECK_FALSE(disturbed[0].settled);
  disturbed[0].values.push_back(530);
  disturbed[0].clean_values.push_back(530);
  disturbed[0].values.push_back(535);
  disturbed[0].clean_values.push_back(535);
  CHECK_FALSE(another_round(disturbed, 4, 2.0, plan));
  CHECK(best_value(disturbed[0].values) == 535);

  const auto j = trials_to_json(trials, plan, 3, 3.0);
  CHECK(j["ceilings"][1]["best"] == 40.0);
  CHECK(j["ceilings"][1]["spread"].get<double>() == Approx(0.0125));
  CHECK(j["tolerance"] == 0.03);
}

TEST_CASE("contention: other processes' CPU share, steal and throttling make a host busy, load alone does not",
          "[hygiene]") {
  const auto quiet = assess({reading("before", 0.02), reading("after", 0.04)});
  CHECK_FALSE(quiet.busy);
  CHECK(quiet.reasons.empty());

  // A busy loop on one of two CPUs: half of the CPU time.
  const auto loop = assess({reading("before", 0.50), reading("after", 0.49)});
  REQUIRE(loop.busy);
  CHECK(loop.reasons.front() == "other processes used 50% of the 2 CPUs (before)");

  const auto busy_after = assess({reading("before", 0.0), reading("after", 0.3)});
  CHECK(busy_after.busy);
  CHECK_THAT(busy_after.reasons.front(), Catch::EndsWith("(after)"));

  const auto stolen = assess({reading("before", 0.0, 0.12), reading("after", 0.0, 0.01)});
  REQUIRE(stolen.busy);
  CHECK_THAT(stolen.reasons.front(), Catch::Contains("12%") && Catch::Contains("steal"));

  const auto hot = assess({reading("before", 0.0, 0, 10), reading("after", 0.0, 0, 13)});
  REQUIRE(hot.busy);
  CHECK(hot.reasons.front() == "the CPUs were thermally throttled 3 times");

  // The load average lags a minute behind: a note, not a verdict.
  const auto lagging = assess({reading("before", 0.01, 0, 0, 3.5), reading("after", 0.02)});
  CHECK_FALSE(lagging.busy);
  CHECK_THAT(lagging.notes.front(), Catch::Contains("load average 3.50 on 2 CPUs"));

  // Unknown fields (no /proc) judge nothing.
  SystemReading unknown;
  unknown.when = "before";
  CHECK_FALSE(assess({unknown}).busy);
  const auto j = conditions_to_json({unknown});
  CHECK(j["readings"][0]["others_busy"].is_null());
  CHECK(j["busy"] == false);
}

TEST_CASE("the /proc and cgroup readers parse the kernel's text", "[hygiene]") {
  const std::string stat = "cpu  100 10 50 800 40 0 5 20 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nprocs_running 3\nprocs_blocked 0\n";
  const auto t = parse_cpu_times(stat);
  CHECK(t.busy == 165);  // user nice system irq softirq
  CHECK(t.idle == 840);  // idle iowait
  CHECK(t.steal == 20);
  CHECK(parse_procs_running(stat) == 3);
  CHECK(parse_procs_running("cpu 1 2 3\n") == -1);
  CHECK(parse_load1("0.52 0.58 0.59 1/467 12345\n") == Approx(0.52));
  CHECK(parse_load1("") == -1);
  CHECK(cpu::parse_cgroup_cpu_max("max 100000") == 0);
  CHECK(cpu::parse_cgroup_cpu_max("150000 100000") == Approx(1.5));
  CHECK(cpu::parse_cgroup_cpu_max("") == 0);
  CHECK(cpu::parse_cgroup_v1_quota("-1", "100000") == 0);
  CHECK(cpu::parse_cgroup_v1_quota("200000", "100000") == Approx(2));
  CHECK(cpu::hypervisor_name(std::string("KVMKVMKVM\0\0\0", 12)) == "KVM");
  CHECK(cpu::hypervisor_name("Microsoft Hv") == "Hyper-V");
  CHECK(cpu::hypervisor_name("NewVisorXYZ!") == "NewVisorXYZ!");
}

TEST_CASE("a result above its roof triggers a re-measure of the roof it met, and the run keeps the higher value",
          "[hygiene]") {
  auto c = epyc();
  c.compute[2].flops_per_s = 727e9;  // int8 measured low on a busy host
  // 2 TOP/s on a compute-bound int8 GEMM: 275% of 727 GOP/s.
  const double n = 1024, flops = 2 * n * n * n, bytes = 3 * n * n;
  auto run = one_gemm(c, Dtype::int8, flops, bytes, flops / 2e12);
  auto exceeded = exceeded_ceilings(results_to_json(run));
  REQUIRE(exceeded.size() == 1);
  CHECK(exceeded[0].ceiling == "int8_matrix");
  CHECK(exceeded[0].compute);
  CHECK(exceeded[0].percent == Approx(275).epsilon(0.01));
  CHECK(exceeded[0].trigger == "gemm/cpu/int8/m16_n4096_k4096");

  auto fresh = epyc();  // the re-measure finds 2 TOP/s
  auto conditions = ojson::object();
  conditions["remeasured"] = raise_ceilings(*run.meta.ceilings, exceeded, fresh);
  CHECK(run.meta.ceilings->compute[2].flops_per_s == 2000e9);
  CHECK(conditions["remeasured"][0]["old"] == 727e9);
  CHECK(conditions["remeasured"][0]["raised"] == true);
  derive_records(run);  // placed again, against the raised ceiling
  CHECK(exceeded_ceilings(results_to_json(run)).empty());  // now at 100% of its roof
  const auto lines = reports::remeasured_lines(conditions);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("int8_matrix raised 727.0 GFLOP/s -> 2.000 TFLOP/s") &&
                           Catch::Contains("ran at 275% of it"));

  // A re-measure that finds no more keeps the ceiling and says so.
  auto low = epyc();
  low.compute[2].flops_per_s = 700e9;
  auto again = exceeded;
  Ceilings kept = c;
  const auto entries = raise_ceilings(kept, again, low);
  CHECK(kept.compute[2].flops_per_s == 727e9);
  CHECK(entries[0]["raised"] == false);

  // A memory-bound result above its level's slope names the level, not the compute peak.
  auto slow_dram = epyc();
  slow_dram.bandwidth[3].bytes_per_s = 10e9;
  const double gemv_bytes = 4096.0 * 14336 * 4;  // 235 MB: DRAM
  auto gemv = one_gemm(slow_dram, Dtype::fp32, 2.0 * 4096 * 14336, gemv_bytes, gemv_bytes / 30e9);
  exceeded = exceeded_ceilings(results_to_json(gemv));
  REQUIRE(exceeded.size() == 1);
  CHECK(exceeded[0].ceiling == "DRAM");
  CHECK_FALSE(exceeded[0].compute);
  // Under its roof: nothing to re-measure.
  CHECK(exceeded_ceilings(results_to_json(one_gemm(epyc(), Dtype::fp32, flops, bytes, flops / 200e9))).empty());
}

TEST_CASE("a working set between one and two L3s streams from DRAM: memory-bound there, and the diagnosis says so",
          "[hygiene]") {
  const auto c = epyc();
  // fp32 GEMV 1x4096x4096: 64 MiB of weights, twice the 32 MiB L3, 0.5 FLOP/byte.
  const double bytes = 4096.0 * 4096 * 4, flops = 2.0 * 4096 * 4096;
  const double seconds = bytes / 22e9;  // 22 GB/s: 65% of DRAM
  const auto p = place_on_roofline(c, Dtype::fp32, {flops, bytes}, seconds);
  REQUIRE(p);
  CHECK(p->memory_level == "L3");  // the upper bound: part of the set may stay resident
  CHECK(p->stream_level == "DRAM");
  CHECK(p->bound == Bound::memory);
  CHECK(p->fraction_of_stream == Approx(22.0 / 34).epsilon(0.01));
  CHECK(streaming_level_for(c, 30e6)->level == "L3");
  CHECK(streaming_level_for(c, 40e6)->level == "DRAM");

  // A bf16 decode GEMM (m16, 4096x7168 weights: 59 MB, AI 16): under the L3's slope (ridge 4)
  // it looked compute-bound at 35% and was told "larger tiles"; from DRAM (ridge 29) it is
  // memory-bound at 65% of the DRAM bandwidth.
  const double m16_bytes = 4096.0 * 7168 * 2, m16_flops = 2.0 * 16 * 4096 * 7168;
  const auto decode = one_gemm(c, Dtype::bf16, m16_flops, m16_bytes, m16_bytes / 22e9);
  const auto j = results_to_json(decode);
  const auto& roof = j["results"][0]["roofline"];
  CHECK(roof["stream_level"] == "DRAM");
  CHECK(roof["bound"] == "memory");
  const auto d = reports::diagnose(decode.results[0], &c);
  CHECK_THAT(d.finding, Catch::StartsWith("memory-bound, streaming from DRAM at 65% of its bandwidth"));
  CHECK_THAT(d.next_step, !Catch::Contains("tiles"));
}

TEST_CASE("fp32 GEMM advice names the faster matrix units of this machine, even below the roof", "[hygiene]") {
  Ceilings h100{{{"fp32_fma", "fp32", "fma", 60e12}, {"tf32_matrix", "tf32", "tensor core", 380e12},
                 {"bf16_matrix", "bf16", "tensor core", 760e12}},
                {{"L2", 8e12, 50e6}, {"HBM", 3e12, 0}},
                3e-6,
                {}};
  const double n = 8192, flops = 2 * n * n * n, bytes = 3 * n * n * 4;
  const auto run = one_gemm(h100, Dtype::fp32, flops, bytes, flops / (0.78 * 60e12));
  const auto d = reports::diagnose(run.results[0], &h100);
  CHECK_THAT(d.finding, Catch::StartsWith("compute-bound at 78%"));
  CHECK_THAT(d.next_step, Catch::Contains("the tf32 units here are 6.3x this peak, if accuracy allows"));
  // No faster unit: tiles only.
  Ceilings plain{{{"fp32_fma", "fp32", "fma", 60e12}}, {{"HBM", 3e12, 0}}, 3e-6, {}};
  const auto alone = reports::diagnose(one_gemm(plain, Dtype::fp32, flops, bytes, flops / (0.78 * 60e12)).results[0], &plain);
  CHECK_THAT(alone.next_step, !Catch::Contains("units here"));
}

TEST_CASE("a busy host is flagged at the top of the table and the report, a quiet one is not, and the machine is named",
          "[hygiene]") {
  auto run = one_gemm(epyc(), Dtype::fp32, 2e9, 1e7, 0.02);
  run.meta.conditions = conditions_to_json({reading("before", 0.5), reading("after", 0.5)});
  const auto busy = table_of(run);
  CHECK_THAT(busy, Catch::Contains("BUSY HOST: other processes used 50% of the 2 CPUs (before)"));
  CHECK(busy.find("BUSY HOST") < busy.find("gemm/cpu"));  // above the table
  CHECK_THAT(busy, Catch::Contains("2 cores / 2 threads, 1 socket, virtual machine (KVM)"));

  reports::ReportOptions options;
  options.templates = reports::default_templates_dir();
  const auto html = reports::render_html_report({{"busy.json", run}}, options);
  REQUIRE_THAT(html, Catch::Contains(R"(id="conditions-banner")"));
  CHECK(html.find(R"(id="conditions-banner")") < html.find("<svg"));
  CHECK_THAT(html, Catch::Contains("busy.json: BUSY HOST: other processes used 50%"));
  CHECK_THAT(reports::render_markdown_report({{"busy.json", run}}, options), Catch::Contains("BUSY HOST"));

  run.meta.conditions = conditions_to_json({reading("before", 0.02), reading("after", 0.03)});
  CHECK_THAT(table_of(run), !Catch::Contains("BUSY HOST"));
  CHECK_THAT(reports::render_html_report({{"quiet.json", run}}, options), !Catch::Contains(R"(id="conditions-banner")"));
  // The readings survive the file.
  const auto back = results_from_json(results_to_json(run), "test");
  CHECK(back.meta.conditions["readings"][1]["others_busy"] == 0.03);
  run.meta.conditions = nullptr;  // files written before the readings existed
  CHECK_FALSE(results_to_json(run).contains("conditions"));
}

TEST_CASE("a profile keeps its trials and the host readings of its rounds", "[hygiene]") {
  auto p = new_profile("cpu", "cpu-test", {{"model_name", "Test"}}, 2);
  p.measured = epyc();
  const TrialPlan plan;
  p.trials = trials_to_json({clean("L1", {900e9, 960e9})}, plan, 2, 4.0);
  p.conditions = conditions_to_json({reading("characterize round 1", 0.01)});
  const auto back = profile_from_json(profile_to_json(p), "test");
  CHECK(back.trials["ceilings"][0]["best"] == 960e9);
  CHECK(back.conditions["readings"][0]["when"] == "characterize round 1");
}

TEST_CASE("a raised ceiling is written back to the profile with its old value, and only a raise changes it",
          "[hygiene]") {
  auto p = new_profile("cpu", "cpu-test", {{"model_name", "Test"}}, 2);
  p.measured = epyc();
  p.measured.compute[2].flops_per_s = 727e9;  // int8 measured low on a busy host
  const ojson remeasured = ojson::array(
      {{{"ceiling", "int8_matrix"}, {"unit", "FLOP/s"}, {"old", 727e9}, {"new", 1990e9}, {"raised", true},
        {"trigger", "gemm/cpu/int8/m512_n512_k512"}, {"trigger_percent", 248.0}},
       // re-measured no higher: nothing to write
       {{"ceiling", "DRAM"}, {"unit", "B/s"}, {"old", 34e9}, {"new", 30e9}, {"raised", false},
        {"trigger", "x"}, {"trigger_percent", 120.0}}});
  CHECK(apply_raised_ceilings(p, remeasured, "2026-11-26T00:30:00Z") == 1);
  CHECK(p.measured.compute[2].flops_per_s == 1990e9);
  CHECK(p.measured.bandwidth[3].bytes_per_s == 34e9);
  REQUIRE(p.raised.size() == 1);
  CHECK(p.raised[0]["old"] == 727e9);
  CHECK(p.raised[0]["new"] == 1990e9);
  CHECK(p.raised[0]["at"] == "2026-11-26T00:30:00Z");
  CHECK(p.raised[0]["reason"] == "re-measured: gemm/cpu/int8/m512_n512_k512 ran at 248% of it");
  // Applied again (a second run raised it to the same value): the profile already holds it.
  CHECK(apply_raised_ceilings(p, remeasured, "2026-11-26T00:31:00Z") == 0);
  CHECK(p.raised.size() == 1);

  // Through the file: re-read, raised, replaced; the records survive a load.
  const auto dir = std::filesystem::temp_directory_path() / "rooftop_test_writeback";
  std::filesystem::create_directories(dir);
  const auto path = dir / "cpu-test.json";
  p.measured.compute[2].flops_per_s = 727e9;
  p.raised = nullptr;
  save_profile(path, p);
  CHECK(write_raised_ceilings(path, "cpu-test", remeasured, "2026-11-26T00:32:00Z") == 1);
  const auto back = load_profile(path);
  CHECK(back.measured.compute[2].flops_per_s == 1990e9);
  CHECK(back.raised[0]["ceiling"] == "int8_matrix");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 1);  // no temp file left beside it
  // A file that is now another device's profile is not touched.
  CHECK_THROWS_WITH(write_raised_ceilings(path, "cpu-other", remeasured, "x"), Catch::Contains("not written back"));
  // A profile without records reads back without them; a broken `raised` is named.
  auto j = profile_to_json(p);
  CHECK_FALSE(j.contains("raised"));
  j["raised"] = "yes";
  CHECK_THROWS_WITH(profile_from_json(j, "bad.json"), Catch::Contains("raised"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("each diagnosis names the measured numbers it rests on", "[hygiene]") {
  const auto c = epyc();
  // Memory-bound from DRAM: the bytes it streams, its rate, the ceiling it met and the ridge.
  const double m16_bytes = 4096.0 * 7168 * 2, m16_flops = 2.0 * 16 * 4096 * 7168;
  const auto memory = reports::diagnose(one_gemm(c, Dtype::bf16, m16_flops, m16_bytes, m16_bytes / 22e9).results[0], &c);
  CHECK_THAT(memory.evidence, Catch::Contains("streams 58.72 MB from DRAM at 22.00 GB/s, 65% of the 34.00 GB/s measured "
                                              "DRAM ceiling"));
  CHECK_THAT(memory.evidence, Catch::Contains("16 FLOP/B, under the ridge at"));

  // Compute-bound: its rate against the peak it met, and the faster units measured here.
  Ceilings h100{{{"fp32_fma", "fp32", "fma", 60e12}, {"tf32_matrix", "tf32", "tensor core", 380e12}},
                {{"L2", 8e12, 50e6}, {"HBM", 3e12, 0}}, 3e-6, {}};
  const double n = 8192, flops = 2 * n * n * n, bytes = 3 * n * n * 4;
  const auto compute = reports::diagnose(one_gemm(h100, Dtype::fp32, flops, bytes, flops / (0.78 * 60e12)).results[0], &h100);
  CHECK_THAT(compute.evidence, Catch::StartsWith("46.80 TFLOP/s of the 60.00 TFLOP/s measured fp32_fma ceiling (78% of"));
  CHECK_THAT(compute.evidence, Catch::Contains("over the ridge at 20") && Catch::Contains("the tf32 units measured 6.3x"));

  // A stage with no FLOPs: read by its bandwidth, and it says that is the rule applied.
  const auto gather = one_point(&c, "inference", Dtype::bf16, {0, 1.2e9}, 1.2e9 / 22e9);
  const auto no_flops = reports::diagnose(gather.results[0], &c);
  CHECK_THAT(no_flops.evidence, Catch::Contains("0 FLOPs, 1.200 GB moved at 22.00 GB/s: 65% of the 34.00 GB/s measured "
                                                "DRAM ceiling (a stage with no FLOPs is read by its bandwidth)"));
  CHECK_THAT(reports::diagnose(one_point(nullptr, "inference", Dtype::bf16, {0, 1.2e9}, 1.2e9 / 22e9).results[0], nullptr)
                 .evidence,
             Catch::Contains("no device profile"));

  // A result with FLOPs but no ceiling for its dtype says which is missing; nothing measured, no evidence.
  const auto unplaced = one_point(&c, "gemm", Dtype::fp8, {1e9, 1e6}, 2e-4);
  CHECK(reports::diagnose(unplaced.results[0], &c).evidence ==
        "5.000 TFLOP/s measured; the run's profile has no fp8 compute ceiling");
  auto skipped = unplaced.results[0];
  skipped.status = Status::skipped;
  skipped.reason = "no fp8 on this CPU";
  CHECK(reports::diagnose(skipped, &c).evidence.empty());

  // The terminal's note on a result above its roof cites the numbers too.
  const double f = 2.0 * 512 * 512 * 512;
  const auto above = one_gemm(c, Dtype::fp32, f, 3.0 * 512 * 512 * 4, f / 520e9);
  std::string note = table_of(above);  // wrapped at 120 columns: read as one line
  note = std::regex_replace(note, std::regex(R"(\s+)"), " ");
  CHECK_THAT(note, Catch::Contains("above its roof: the ceiling was measured low (520.0 GFLOP/s of the "
                                              "260.0 GFLOP/s measured fp32_vector_fma ceiling"));

  // The report shows it beside the finding.
  auto run = one_gemm(c, Dtype::bf16, m16_flops, m16_bytes, m16_bytes / 22e9);
  reports::ReportOptions options;
  options.templates = reports::default_templates_dir();
  CHECK_THAT(reports::render_html_report({{"decode.json", run}}, options),
             Catch::Contains(R"(<span class="evidence">evidence: streams 58.72 MB from DRAM)"));
}

TEST_CASE("a GPU is identified by its board, power limits, ECC, MIG, persistence, driver and memory", "[hygiene]") {
  // As devices/cuda/cuda_info.cpp writes an H100's properties, NVML present.
  ojson h100 = {{"name", "NVIDIA H100 80GB HBM3"}, {"vendor", "CUDA"}, {"pci_bus_id", "00000000:19:00.0"},
                {"compute_capability", "9.0"}, {"multiprocessors", 132}, {"max_sm_clock_mhz", 1980.0},
                {"memory_bytes", 85017493504.0}, {"driver_version", "580.95.05"}, {"driver_cuda_version", "13.0"},
                {"power_limit_w", 700.0}, {"default_power_limit_w", 700.0}, {"ecc", true}, {"mig", false},
                {"persistence", true}, {"nvml", "ok"}};
  CHECK(reports::machine_text(h100) == "132 SMs, 79.2 GiB memory, 700 W power limit, SM clock up to 1980 MHz, compute 9.0, "
                                       "ECC on, driver 580.95.05 (CUDA 13.0), PCI 00000000:19:00.0");
  // A capped board, MIG on, persistence off: each said, as each changes what is measured.
  h100["power_limit_w"] = 500.0;
  h100["ecc"] = false;
  h100["mig"] = true;
  h100["persistence"] = false;
  CHECK_THAT(reports::machine_text(h100), Catch::Contains("500 W power limit (default 700 W)") &&
                                              Catch::Contains("ECC off, MIG on, persistence off"));
  // Without NVML: the modes are null and left out, nothing else breaks.
  for (const char* key : {"ecc", "mig", "persistence"}) h100[key] = nullptr;
  h100["driver_version"] = "";
  h100["default_power_limit_w"] = 0.0;
  CHECK(reports::machine_text(h100) == "132 SMs, 79.2 GiB memory, 500 W power limit, SM clock up to 1980 MHz, compute 9.0, "
                                       "PCI 00000000:19:00.0");
}

TEST_CASE("a GPU's readings go into the conditions: a slowdown makes them busy, a power cap is a note", "[hygiene]") {
  CHECK(throttle_reason_names(0) == std::vector<std::string>{});
  CHECK(throttle_reason_names(0x1) == std::vector<std::string>{"gpu_idle"});
  CHECK(throttle_reason_names(0x4 | 0x20) == std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"});
  CHECK(throttle_reason_names(0x1000) == std::vector<std::string>{"other (0x1000)"});
  CHECK_FALSE(slowing_reasons(0x1 | 0x4));
  CHECK(slowing_reasons(0x40));

  DeviceReading before{"before", "2026-11-26T01:00:00Z", 1980.0, 2619.0, 41.0, 95.0, 0x1, 1};
  DeviceReading hot{"after", "2026-11-26T01:01:00Z", 1410.0, 2619.0, 87.0, 690.0, 0x4 | 0x20, 1};
  auto quiet = conditions_to_json({reading("before", 0.01), reading("after", 0.01)});
  add_device_readings(quiet, {before});
  CHECK(quiet["busy"] == false);
  CHECK(quiet["device_readings"][0]["throttle_reasons"] == ojson::array({"gpu_idle"}));
  CHECK(quiet["device_readings"][0]["sm_clock_mhz"] == 1980.0);

  auto run = one_gemm(epyc(), Dtype::fp32, 2e9, 1e7, 0.02);
  run.meta.conditions = conditions_to_json({reading("before", 0.01), reading("after", 0.01)});
  add_device_readings(run.meta.conditions, {before, hot});
  CHECK(run.meta.conditions["busy"] == true);
  CHECK(run.meta.conditions["reasons"][0] == "the GPU held its clocks down: sw_thermal_slowdown at 87 C (after)");
  CHECK_THAT(table_of(run), Catch::Contains("the GPU held its clocks down: sw_thermal_slowdown"));
  // The header and the report say the card's state from before to after.
  const std::string state = "GPU before -> after: SM 1980 -> 1410 MHz, 41 -> 87 C, 95 -> 690 W; held down by "
                            "sw_power_cap, sw_thermal_slowdown (after)";
  CHECK(reports::device_state_line(run.meta.conditions) == state);
  CHECK_THAT(std::regex_replace(table_of(run), std::regex(R"(\s+)"), " "), Catch::Contains(state));  // wrapped
  reports::ReportOptions options;
  options.templates = reports::default_templates_dir();
  CHECK_THAT(reports::render_html_report({{"gpu.json", run}}, options),
             Catch::Contains(std::regex_replace(state, std::regex("->"), "-&gt;")));
  CHECK(reports::device_state_line(conditions_to_json({reading("before", 0.01)})).empty());

  // At its power limit and nothing else: a note, not busy (a GEMM at full load meets it).
  DeviceReading capped{"after", "", 1755.0, std::nullopt, 70.0, 699.0, 0x4, std::nullopt};
  auto c = conditions_to_json({reading("before", 0.01)});
  add_device_readings(c, {capped});
  CHECK(c["busy"] == false);
  CHECK(c["notes"].back() == "the GPU ran at its power limit, drawing 699 W (sw_power_cap, after)");
  CHECK(c["device_readings"][0]["memory_clock_mhz"].is_null());
  // Without NVML there are no readings and the conditions stay as they were.
  auto none = conditions_to_json({reading("before", 0.01)});
  add_device_readings(none, {});
  CHECK_FALSE(none.contains("device_readings"));
  // They survive the results file.
  CHECK(results_from_json(results_to_json(run), "t").meta.conditions["device_readings"][1]["temperature_c"] == 87.0);
}
