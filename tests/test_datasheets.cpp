#include <catch2/catch.hpp>
#include <filesystem>

#include "harness/datasheets.hpp"
#include "harness/errors.hpp"

using namespace rooftop;

namespace {
const std::filesystem::path kSpecs = ROOFTOP_TEST_SPECS_DIR;

std::string matched(const std::vector<SpecFile>& specs, const std::string& name) {
  const auto s = match_spec(specs, name);
  return s ? s->id : "none";
}
}  // namespace

TEST_CASE("every datasheet in devices/specs loads and names its source", "[datasheet]") {
  const auto specs = load_specs(kSpecs);
  REQUIRE(specs.size() >= 9);
  for (const auto& s : specs) {
    INFO(s.id);
    CHECK(s.sheet.source.size() > 20);
    CHECK(s.sheet.tdp_w > 0);
    CHECK_FALSE(s.sheet.ceilings.compute.empty());
    REQUIRE(s.sheet.ceilings.bandwidth.size() == 1);
    CHECK(s.sheet.ceilings.bandwidth[0].bytes_per_s > 1e11);
  }
}

TEST_CASE("datasheets match detected device names, and only theirs", "[datasheet]") {
  const auto specs = load_specs(kSpecs);
  // Names as the CUDA runtime, ROCm and /proc/cpuinfo give them.
  CHECK(matched(specs, "NVIDIA H100 80GB HBM3") == "nvidia-h100-sxm");
  CHECK(matched(specs, "NVIDIA H100 PCIe") == "nvidia-h100-pcie");
  CHECK(matched(specs, "NVIDIA H200") == "nvidia-h200-sxm");
  CHECK(matched(specs, "NVIDIA A100-SXM4-40GB") == "nvidia-a100-sxm-40gb");
  CHECK(matched(specs, "NVIDIA A100-SXM4-80GB") == "nvidia-a100-sxm-80gb");
  CHECK(matched(specs, "NVIDIA L40S") == "nvidia-l40s");
  CHECK(matched(specs, "AMD Instinct MI300X") == "amd-mi300x");
  CHECK(matched(specs, "AMD Instinct MI250X") == "amd-mi250x");
  CHECK(matched(specs, "Intel(R) Xeon(R) Platinum 8480+") == "intel-xeon-sapphire-rapids");
  CHECK(matched(specs, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz") == "none");  // Ice Lake
  CHECK(matched(specs, "Intel(R) Xeon(R) Processor @ 2.50GHz") == "none");
  CHECK(matched(specs, "NVIDIA GeForce RTX 4090") == "none");
}

TEST_CASE("the datasheet option: by name, by file, none, or a clear error", "[datasheet]") {
  CHECK(resolve_datasheet("", "NVIDIA H100 80GB HBM3", kSpecs)->name == "NVIDIA H100 SXM5 80GB");
  CHECK_FALSE(resolve_datasheet("", "a GPU nobody lists", kSpecs));
  CHECK_FALSE(resolve_datasheet("none", "NVIDIA H100 80GB HBM3", kSpecs));
  CHECK(resolve_datasheet("amd-mi300x", "NVIDIA H100 80GB HBM3", kSpecs)->name == "AMD Instinct MI300X 192GB");
  CHECK(resolve_datasheet((kSpecs / "nvidia-l40s.json").string(), "", kSpecs)->tdp_w == 350);
  try {
    resolve_datasheet("h100", "", kSpecs);
    FAIL("an unknown spec was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("nvidia-h100-sxm"));
  }
}
