// derive(): the numbers every reader shows, from one record and the ceilings, checked by hand
// here; and the record's typed facts through the results file and back.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "harness/derived.hpp"
#include "harness/results.hpp"

using namespace rooftop;

namespace {
// 1 GFLOP and 1 GB a run: arithmetic intensity 1.
ResultRecord gemm_record(std::vector<double> seconds) {
  ResultRecord r;
  r.problem = {"gemm", "cpu", Dtype::fp32, "m1_n1_k1", {{"m", 1}}, {1e9, 1e9}, 0};
  for (double s : seconds) r.samples.push_back({s, 1, 0});
  return r;
}
const Ceilings kCeilings{{{"fp32_vector_fma", "fp32", "fma", 1e12}}, {{"DRAM", 1e11, 0}}, 1e-9, {}};
}  // namespace

TEST_CASE("derive: summary and throughput from the median sample, roofline from the ceilings", "[derived]") {
  const auto d = derive(gemm_record({0.04, 0.1, 0.05}), &kCeilings);
  REQUIRE(d.summary);
  CHECK(d.summary->median == 0.05);
  CHECK(d.summary->count == 3);
  REQUIRE(d.throughput);
  CHECK(d.throughput->flops_per_s == Approx(2e10));
  CHECK(d.throughput->bytes_per_s == Approx(2e10));
  CHECK_FALSE(d.throughput->bus_bytes_per_s);
  REQUIRE(d.roofline);
  CHECK(d.roofline->memory_level == "DRAM");
  CHECK(d.roofline->bound == Bound::memory);                     // AI 1 under a ridge of 10
  CHECK(d.roofline->attainable_flops == Approx(1e11));            // 1 x 100 GB/s
  CHECK(d.roofline->fraction_of_attainable == Approx(0.2));
  CHECK_FALSE(d.power);
  CHECK_FALSE(d.cold);
  CHECK_FALSE(derive(gemm_record({0.05}), nullptr).roofline);  // no ceilings, no place
}

TEST_CASE("derive: no samples, no numbers - a cold cache is the harness's fact, not a parameter", "[derived]") {
  auto r = gemm_record({});
  auto d = derive(r, &kCeilings);
  CHECK_FALSE(d.summary);
  CHECK_FALSE(d.throughput);
  CHECK_FALSE(d.roofline);
  r.measured.cache = "cold (flushed before each launch)";
  CHECK(derive(r, &kCeilings).cold);
  r.problem.params["cache"] = "cold";  // a suite's parameter of that name is not the harness's finding
  r.measured.cache = "warm";
  CHECK_FALSE(derive(r, &kCeilings).cold);
}

TEST_CASE("derive: a collective's bus bandwidth and its share of the link - joules per token", "[derived]") {
  auto r = gemm_record({0.5});
  r.problem.work = {0, 1e9};
  r.declared.bus_factor = 1.5;  // all_reduce on 4 ranks: 2 (n-1)/n
  auto d = derive(r, nullptr);
  REQUIRE(d.throughput->bus_bytes_per_s);
  CHECK(*d.throughput->bus_bytes_per_s == Approx(3e9));
  CHECK_FALSE(d.throughput->link);  // no link measured
  r.measured.link = "nvlink";
  r.measured.link_bytes_per_s = 6e9;
  d = derive(r, nullptr);
  REQUIRE(d.throughput->link);
  CHECK(d.throughput->link->link == "nvlink");
  CHECK(d.throughput->link->percent == Approx(50));

  auto t = gemm_record({0.5, 0.5});
  t.samples[0].energy_j = t.samples[1].energy_j = 100;
  t.samples[0].wall_s = t.samples[1].wall_s = 1;
  t.declared.tokens_per_iteration = 10;
  d = derive(t, nullptr);
  REQUIRE(d.power);
  CHECK(d.power->board_w == Approx(100));
  CHECK(d.power->joules_per_iteration == Approx(50));
  REQUIRE(d.power->joules_per_token);
  CHECK(*d.power->joules_per_token == Approx(5));
}

TEST_CASE("a record is derived once - reading its numbers before that is a logic error", "[derived]") {
  RunResults run;
  run.meta.ceilings = kCeilings;
  run.results = {gemm_record({0.05})};
  CHECK_THROWS_AS(derived_of(run.results[0]), std::logic_error);
  CHECK_THROWS_AS(results_to_json(run), std::logic_error);
  derive_records(run);
  CHECK(derived_of(run.results[0]).roofline->fraction_of_attainable == Approx(0.2));
}

TEST_CASE("the harness's facts are typed in the record and written after the suite's params, as before", "[derived][results]") {
  RunResults run;
  auto coll = record_of({"collectives", "cpu", Dtype::fp32, "all_reduce_1K_oop_r2",
                         {{"collective", "all_reduce"}, {"bus_factor", 1.0}, {"root", 0}}, {0, 1024}, 2048});
  CHECK(coll.declared.bus_factor == 1.0);
  coll.measured.link = "shared memory";
  coll.measured.link_bytes_per_s = 1e10;
  coll.measured.cache = "warm";
  coll.samples = {{1e-6, 1, 0}};
  ResultRecord stage;
  stage.problem = {"inference", "cpu", Dtype::bf16, "tiny.qkv", nlohmann::ordered_json::object(), {1e6, 1e6}, 0};
  stage.measured.stage = "qkv";
  stage.measured.of = "inference/cpu/bf16/tiny";
  stage.measured.timing = "profiling pass";
  stage.samples = {{1e-6, 1, 0}};
  run.results = {coll, stage};
  derive_records(run);
  const auto j = results_to_json(run);
  CHECK(j["results"][0]["params"].dump() ==
        R"({"collective":"all_reduce","bus_factor":1.0,"root":0,"cache":"warm","link":"shared memory","link_bytes_per_s":10000000000.0})");
  CHECK(j["results"][1]["params"].dump() == R"({"stage":"qkv","of":"inference/cpu/bf16/tiny","timing":"profiling pass"})");
  const auto back = results_from_json(nlohmann::ordered_json::parse(j.dump()), "mem");
  CHECK(back.results[0].measured.link == "shared memory");
  CHECK(back.results[0].measured.cache == "warm");
  CHECK_FALSE(back.results[0].problem.params.contains("link"));  // the suite's params alone
  CHECK(back.results[0].declared.bus_factor == 1.0);
  CHECK(back.results[1].measured.of == "inference/cpu/bf16/tiny");
  CHECK(back.results[1].problem.params.empty());
  CHECK(derived_of(back.results[0]).throughput->link->percent == Approx(100.0 * 1024 / 1e-6 / 1e10));
  CHECK(results_to_json(back).dump() == j.dump());
}

TEST_CASE("the runner's tile is the point's, written where the suite's tile is and read back", "[derived][results]") {
  RunResults run;
  auto tuned = record_of({"attention", "cpu", Dtype::fp32, "prefill_x",
                          {{"kind", "prefill"}, {"tile", ""}, {"layout", "Q, O"}}, {1e6, 1e6}, 0});
  tuned.problem.tile = "m64n128";
  tuned.problem.tile_source = "tuned 2026-11-24T00:00:00Z";
  tuned.samples = {{1e-6, 1, 0}};
  auto by_default = record_of({"attention", "cpu", Dtype::fp32, "prefill_y", {{"kind", "prefill"}, {"tile", ""}}, {1e6, 1e6}, 0});
  by_default.problem.tile_source = "default (no tuned tile for this device: rooftop tune)";
  by_default.samples = {{1e-6, 1, 0}};
  run.results = {tuned, by_default};
  derive_records(run);
  const auto j = results_to_json(run);
  CHECK(j["results"][0]["params"].dump() ==
        R"({"kind":"prefill","tile":"m64n128","layout":"Q, O","tile_source":"tuned 2026-11-24T00:00:00Z"})");
  CHECK(j["results"][1]["params"].dump() ==
        R"j({"kind":"prefill","tile":"","tile_source":"default (no tuned tile for this device: rooftop tune)"})j");
  const auto back = results_from_json(nlohmann::ordered_json::parse(j.dump()), "mem");
  CHECK(back.results[0].problem.tile == "m64n128");
  CHECK(back.results[0].problem.tile_source == "tuned 2026-11-24T00:00:00Z");
  CHECK(back.results[1].problem.tile.empty());
  CHECK_FALSE(back.results[1].problem.params.contains("tile_source"));
  CHECK(results_to_json(back).dump() == j.dump());
}

TEST_CASE("a suite's declared words for the report are typed at the door", "[derived][results]") {
  const auto coll = record_of({"collectives", "cpu", Dtype::fp32, "all_reduce_1K_inplace_r4",
                               {{"collective", "all_reduce"}, {"size_bytes", 1024}, {"ranks", 4}, {"in_place", true},
                                {"bus_factor", 1.5}}, {0, 1024}, 0});
  CHECK(coll.declared.collective == "all_reduce");
  CHECK(coll.declared.size_bytes == 1024);
  CHECK(coll.declared.ranks == 4);
  CHECK(coll.declared.in_place);
  CHECK(coll.declared.scenario.empty());
  const auto scenario = record_of({"inference", "cpu", Dtype::bf16, "tiny_decode_b1_c8",
                                   {{"scenario", "decode"}, {"tokens_per_iteration", 1}}, {1e6, 1e6}, 0});
  CHECK(scenario.declared.scenario == "decode");
  CHECK(scenario.declared.collective.empty());
}
