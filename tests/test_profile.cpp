#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "harness/device_profile.hpp"
#include "harness/errors.hpp"

using namespace rooftop;
namespace fs = std::filesystem;

namespace {
DeviceProfile good_profile() {
  DeviceProfile p;
  p.backend = "cpu";
  p.fingerprint = "cpu-test-2c-0000";
  p.device = {{"model_name", "Test CPU"}};
  p.created = "2026-11-21T00:00:00Z";
  p.rooftop_version = "0.1.0";
  p.threads = 2;
  p.measured.compute = {{"fp32_vector_fma", "fp32", "avx512_fma", 2.8e11}, {"int8_matrix", "int8", "brg", 7.6e11}};
  p.measured.bandwidth = {{"L1", 3.9e11, 65536}, {"DRAM", 2e10, 0}};
  p.measured.dispatch_latency_s = 1.7e-6;
  p.measured.links = {{"host_to_device", 5.5e10}};
  p.bandwidth_sweep = {{8192, 3.9e11}, {1 << 28, 2e10}};
  p.datasheet = Datasheet{"Test CPU", "vendor sheet", {{{"fp32_peak", "fp32", "avx512", 3.2e11}}, {{"DRAM", 2.5e10, 0}}, 0, {}}};
  return p;
}

nlohmann::ordered_json as_json(const DeviceProfile& p) { return nlohmann::ordered_json::parse(profile_to_json(p).dump()); }
}  // namespace

TEST_CASE("a good profile round-trips", "[profile]") {
  const auto dir = fs::temp_directory_path() / "rooftop_test_profile";
  fs::create_directories(dir);
  save_profile(dir / "p.json", good_profile());
  const auto p = load_profile(dir / "p.json");
  CHECK(p.fingerprint == "cpu-test-2c-0000");
  CHECK(p.measured.compute.size() == 2);
  CHECK(p.measured.bandwidth[1].capacity_bytes == 0);
  CHECK(p.measured.dispatch_latency_s == 1.7e-6);
  CHECK(p.bandwidth_sweep.size() == 2);
  REQUIRE(p.measured.links.size() == 1);
  CHECK(p.measured.links[0].name == "host_to_device");
  CHECK(p.measured.links[0].bytes_per_s == 5.5e10);
  REQUIRE(p.datasheet);
  CHECK(p.datasheet->source == "vendor sheet");
}

TEST_CASE("bad profiles are refused with the file and the field", "[profile]") {
  const auto good = as_json(good_profile());
  auto expect = [](const nlohmann::ordered_json& j, const std::string& needle) {
    CHECK_THROWS_WITH(profile_from_json(j, "prof.json"), Catch::Contains("prof.json") && Catch::Contains(needle));
  };
  expect(nlohmann::ordered_json::array(), "not a rooftop device profile");
  auto j = good;
  j["format"] = "something-else";
  expect(j, "not a rooftop device profile");
  j = good;
  j["version"] = 7;
  expect(j, "version 7 is not supported");
  j = good;
  j["measured"]["compute"][1].erase("flops_per_s");
  expect(j, "measured.compute[1].flops_per_s");
  j = good;
  j["measured"]["bandwidth"][0]["bytes_per_s"] = -5;
  expect(j, "measured.bandwidth[0].bytes_per_s");
  j = good;
  j["measured"]["compute"][0]["dtype"] = 3;
  expect(j, "measured.compute[0].dtype");
  j = good;
  j["measured"]["compute"] = nlohmann::ordered_json::array();
  j["measured"]["bandwidth"] = nlohmann::ordered_json::array();
  expect(j, "holds no ceiling");
  j = good;  // one roof without the other would leave every placement empty
  j["measured"]["bandwidth"] = nlohmann::ordered_json::array();
  expect(j, "no bandwidth ceiling");
  j = good;
  j["measured"]["compute"] = nlohmann::ordered_json::array();
  expect(j, "no compute ceiling");
  j = good;
  j["datasheet"].erase("source");
  expect(j, "datasheet.source");

  const auto dir = fs::temp_directory_path() / "rooftop_test_profile_bad";
  fs::create_directories(dir);
  std::ofstream(dir / "truncated.json") << R"({"format": "rooftop-device-profile", "vers)";
  CHECK_THROWS_WITH(load_profile(dir / "truncated.json"), Catch::Contains("truncated.json") && Catch::Contains("not valid JSON"));
  CHECK_THROWS_AS(load_profile(dir / "nope.json"), InputError);
}

TEST_CASE("merging ceilings keeps the best observation of each", "[profile]") {
  Ceilings stored{{{"fp32_vector_fma", "fp32", "avx512_fma", 300e9}, {"int8_matrix", "int8", "brg", 600e9}},
                  {{"L1", 500e9, 65536}, {"DRAM", 20e9, 0}}, 1.0e-6, {}};
  Ceilings measured{{{"fp32_vector_fma", "fp32", "avx512_fma", 250e9}, {"int8_matrix", "int8", "brg", 880e9}},
                    {{"L1", 550e9, 65536}, {"DRAM", 18e9, 0}}, 2.0e-6, {}};
  const auto m = merge_ceilings(stored, measured);
  CHECK(m.compute[0].flops_per_s == 300e9);  // the stored figure was higher
  CHECK(m.compute[1].flops_per_s == 880e9);  // the new one was
  CHECK(m.bandwidth[0].bytes_per_s == 550e9);
  CHECK(m.bandwidth[1].bytes_per_s == 20e9);
  CHECK(m.dispatch_latency_s == 1.0e-6);     // the lower latency
}
