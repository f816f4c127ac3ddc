#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/units.hpp"
#include "harness/results.hpp"
#include "reports/printers.hpp"
#include "reports/terminal_table.hpp"

using namespace rooftop;

namespace {
const std::filesystem::path kStoredResults = ROOFTOP_TEST_RESULTS_DIR;

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

std::string table_of(const RunResults& run, bool wide = false) {
  std::ostringstream out;
  reports::print_terminal_table(out, run, wide);
  return out.str();
}

// A result as `rooftop run` keeps it: one sample of `seconds`, derived without ceilings.
ResultRecord result(const std::string& family, const std::string& shape, Dtype dtype, const std::string& impl,
                    const std::string& label, double seconds, double flops, double bytes) {
  ResultRecord r;
  r.problem = {family, "cuda", dtype, shape, nlohmann::ordered_json::object(), {flops, bytes}, 0};
  r.implementation = impl;
  r.implementation_label = label;
  r.samples = {{seconds, 1, 0}};
  derive_record(r, nullptr);
  return r;
}

RunResults run_of(std::vector<ResultRecord> results) {
  RunResults run;
  run.meta.rooftop_version = "0.1.0";
  run.meta.tier = "quick";
  run.meta.backend = "cuda";
  run.meta.fingerprint = "cuda-test-gpu";
  run.meta.device = {{"model_name", "Test GPU"}};
  run.meta.ceilings_source = "/a/very/long/path/" + std::string(150, 'p') + "/profile.json";
  run.results = std::move(results);
  return run;
}
}  // namespace

TEST_CASE("units: scaled to three digits before the point at most, rounding into the next prefix", "[units]") {
  CHECK(format_si(7.926e17, "FLOP/s") == "792.6 PFLOP/s");
  CHECK(format_si(7.926e14, "FLOP/s") == "792.6 TFLOP/s");
  CHECK(format_si(3.3514e12, "B/s") == "3.351 TB/s");
  CHECK(format_si(999.96e9, "B/s") == "1.000 TB/s");
  CHECK(format_si(12.0, "B/s") == "12.00 B/s");
  CHECK(format_si(0.0, "B/s") == "0.000 B/s");
  CHECK(format_duration(0.0123456) == "12.35 ms");
  CHECK(format_duration(85.2e-6) == "85.20 us");
  CHECK(format_duration(999.99e-6) == "1.000 ms");
  CHECK(format_duration(2.5) == "2.500 s");
  CHECK(format_duration(4000.0) == "4000 s");  // no kiloseconds
  CHECK(format_duration(3e-9) == "3.000 ns");
  CHECK(rate_unit(Dtype::int8) == "OP/s");
  CHECK(rate_unit(Dtype::bf16) == "FLOP/s");
}

TEST_CASE("units: the rate a point's roof bounds", "[units]") {
  CHECK(bound_rate(Dtype::bf16, "memory", 1e12, 2e12) == "2.000 TB/s");
  CHECK(bound_rate(Dtype::bf16, "compute", 1e12, 2e12) == "1.000 TFLOP/s");
  CHECK(bound_rate(Dtype::int8, "compute", 1e12, 2e12) == "1.000 TOP/s");
  // Latency-bound: the nearer roof; 50% of the bandwidth beats 10% of the peak.
  CHECK(bound_rate(Dtype::fp32, "latency", 1e12, 1e12, 10e12, 2e12) == "1.000 TB/s");
  CHECK(bound_rate(Dtype::fp32, "latency", 5e12, 1e12, 10e12, 20e12) == "5.000 TFLOP/s");
  CHECK(bound_rate(Dtype::bf16, "", 0, 3e9) == "3.000 GB/s");  // a collective: no FLOPs
}

TEST_CASE("terminal table: the stored quick tiers fit 120 columns, --wide keeps every word", "[report]") {
  for (const auto* name : {"cuda/h100-quick-attention.json", "cuda/h100-quick-gemm.json",
                           "cuda/h200x2-quick-collectives-bf16.json", "cpu-quick-gemm.json", "cpu-quick-attention.json"}) {
    INFO(name);
    const auto run = load_results(kStoredResults / name);
    REQUIRE_FALSE(run.results.empty());
    const auto table = table_of(run);
    CHECK(widest_line(table) <= reports::kTerminalColumns);
    CHECK(table.find("e+") == std::string::npos);  // scaled units, no exponents
    const auto wide = table_of(run, true);
    for (const auto& r : run.results) CHECK(wide.find(r.implementation) != std::string::npos);
  }
}

TEST_CASE("terminal table: labels, shapes without the label, scaled rates, notes for reasons", "[report]") {
  const std::string tile = "wgm192n128w12s2";
  auto fused = result("attention", "prefill_b2_hq16_hkv16_s8192_d128_causal_fused_" + tile, Dtype::bf16,
                      "rooftop fused prefill, wgmma m64nNk16 (" + tile + ": 192 query rows x 128 keys, 12 warps, 2 stages; "
                      "168 registers, 177 KiB shared, 0 B spilled)", tile, 4.1e-3, 3.3e15, 1.1e9);
  auto decode = result("attention", "decode_b32_hq32_hkv8_kv8192_d128_paged16", Dtype::bf16, "rooftop split-KV decode",
                       "split-KV x8", 250e-6, 2.1e9, 1.1e9);
  RooflinePlacement place;  // as an H200's ceilings would place it
  place.bound = Bound::memory;
  place.fraction_of_attainable = 0.836;
  place.compute_peak = 990e12;
  place.bandwidth = 3.35e12;
  decode.derived->roofline = place;
  auto int8 = result("gemm", "m4096_n4096_k4096", Dtype::int8, "cublasLt 13.1.0 algo 43 tile 15 stages 34", "cuBLASLt algo 43",
                     70e-6, 1.37e11, 5e7);
  auto failed = result("gemm", "m16_n14336_k4096", Dtype::fp8, "cublasLt", "cuBLASLt algo 66", 1e-3, 1e9, 1e8);
  failed.status = Status::failed;
  failed.reason = "wrong results: error 3.2x the allowed bound (" + std::string(200, 'x') + ") at element 12";
  const auto table = table_of(run_of({fused, decode, int8, failed}));
  INFO(table);
  CHECK(widest_line(table) <= reports::kTerminalColumns);
  CHECK(table.find("prefill_b2_hq16_hkv16_s8192_d128_causal_fused  ") != std::string::npos);  // the tile shown once
  CHECK(table.find("  " + tile + "  ") != std::string::npos);
  CHECK(table.find("rooftop fused prefill") == std::string::npos);  // the whole text only in --wide
  CHECK(table.find("4.100 ms") != std::string::npos);
  CHECK(table.find("4.400 TB/s") != std::string::npos);  // memory-bound: its bandwidth, not its FLOP/s
  CHECK(table.find("84% mem") != std::string::npos);
  CHECK(table.find("1.957 POP/s") != std::string::npos);  // int8: operations, not FLOPs
  CHECK(table.find("FAIL [1]") != std::string::npos);
  CHECK(table.find("[1] fp8 m16_n14336_k4096: wrong results") != std::string::npos);
  CHECK(table.find("\nattention/cuda ") != std::string::npos);  // one table per workload
  CHECK(table.find("\ngemm/cuda ") != std::string::npos);
}

TEST_CASE("terminal table: a shape and a label too long for the width are elided, never the numbers", "[report]") {
  auto r = result("attention", "prefill_b1024_hq128_hkv128_s1048576_d256_causal_" + std::string(60, 'z'), Dtype::bf16,
                  std::string(90, 'i'), std::string(60, 'l'), 1.0, 1e15, 1e9);
  const auto table = table_of(run_of({r}));
  INFO(table);
  CHECK(widest_line(table) <= reports::kTerminalColumns);
  CHECK(table.find("1.000 s") != std::string::npos);
  CHECK(table.find("1.000 PFLOP/s") != std::string::npos);
  CHECK(table.find("prefill_b1024") != std::string::npos);  // elided in the middle: both ends stay
  CHECK(table.find("zzz  ") != std::string::npos);
  CHECK(widest_line(table_of(run_of({r}), true)) > reports::kTerminalColumns);
}

TEST_CASE("units: digits counted after rounding, beyond the prefixes an exponent", "[units]") {
  CHECK(format_si(9.9996, "B/s") == "10.00 B/s");
  CHECK(format_si(99.996, "B/s") == "100.0 B/s");
  CHECK(format_si(-2.5e12, "B/s") == "-2.500 TB/s");
  CHECK(format_duration(999.96) == "1000 s");
  CHECK(format_duration(99999.0) == "1e+05 s");
  CHECK(format_si(1e300, "B/s").size() < 20);
  CHECK(format_duration(1e-12) == "0.001 ns");
}
