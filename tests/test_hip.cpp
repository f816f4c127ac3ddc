// The HIP build's logic that needs no AMD GPU: the vendor's capabilities and wave size, the
// backend's refusal without a GPU, ROCm SMI's device matching, the libraries' search, and
// rocBLAS's refusals.
#include <catch2/catch.hpp>

#include <string>

#include "devices/cuda/cuda_info.hpp"
#include "devices/cuda/dynamic_library.hpp"
#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/vendors/gpu.hpp"
#include "devices/devices.hpp"
#include "devices/hip/rocblas_api.hpp"
#include "devices/hip/rocblas_matmul.hpp"
#include "devices/hip/rocm_smi.hpp"
#include "devices/hip/vendor_gemm_library.hpp"
#include "harness/backend.hpp"
#include "harness/errors.hpp"

using namespace rooftop;

TEST_CASE("the HIP build's vendor header: wave size 64, no fp8, no mma.sync", "[hip]") {
  CHECK(std::string(ROOFTOP_GPU_BACKEND) == "hip");
  CHECK(kGpuWarpSize == 64);
  CHECK(ROOFTOP_GPU_HAS_FP8 == 0);
  CHECK(ROOFTOP_GPU_HAS_MMA_SYNC == 0);
}

TEST_CASE("an fp8 fill in the HIP build is skipped with the reason", "[hip]") {
  try {
    gpu::fill_uniform(Dtype::fp8, nullptr, 16, 1, -1, 1);
    FAIL("no skip");
  } catch (const PointSkipped& e) {
    CHECK_THAT(e.what(), Catch::Contains("fp8") && Catch::Contains("gfx90a"));
  }
}

TEST_CASE("HIP versions are read as major x 10^7 + minor x 10^5", "[hip]") {
  CHECK(gpu::version_text(50221153) == "5.2");
  CHECK(gpu::version_text(60140091) == "6.1");
}

TEST_CASE("the hip backend without an AMD GPU is unavailable with the reason", "[hip]") {
  if (backends().empty()) register_all_backends();
  const std::string reason = gpu::gpu_unavailable_reason();
  if (reason.empty()) {  // an AMD GPU is here: the backend is found, not refused
    CHECK_NOTHROW(find_backend("hip"));
    return;
  }
  CHECK_THAT(reason, Catch::Contains("AMD GPU"));
  CHECK_THROWS_AS(find_backend("hip"), DeviceUnavailable);
}

TEST_CASE("ROCm SMI's packed bus id from a PCI bus id", "[hip]") {
  CHECK(gpu::rocm_smi_bdf("0000:03:00.0") == 0x300u);
  CHECK(gpu::rocm_smi_bdf("0001:c1:1f.7") == ((1ull << 32) | (0xc1u << 8) | (0x1fu << 3) | 7u));
  CHECK_FALSE(gpu::rocm_smi_bdf("03:00.0").has_value());
  CHECK_FALSE(gpu::rocm_smi_bdf("0000:03:00.0x").has_value());
  CHECK_FALSE(gpu::rocm_smi_bdf("0000:03:20.0").has_value());  // device numbers stop at 0x1f
  CHECK_FALSE(gpu::rocm_smi_bdf("0000:+3:00.0").has_value());
  CHECK(gpu::rocm_smi_bdf("0000:3B:00.0") == 0x3b00u);  // NVML's and HIP's capitals
}

TEST_CASE("ROCm SMI for a device it does not know says why its readings are absent", "[hip]") {
  const gpu::RocmSmi smi("0000:ff:1f.7");
  CHECK_FALSE(smi.present());
  CHECK_FALSE(smi.sm_clock_mhz().has_value());
  CHECK_FALSE(smi.total_energy_j().has_value());
  CHECK_FALSE(smi.temperature_c().has_value());
  CHECK_THAT(smi.absent_reason(), Catch::Contains("ROCm SMI"));
}

TEST_CASE("ROCm libraries are looked for in the documented order", "[hip]") {
  const auto places = gpu::rocm_library_places("ROOFTOP_TEST_UNSET_VARIABLE", {"liba.so.1", "liba.so.5"});
  REQUIRE(places.size() >= 6);
  CHECK(places[0].ends_with("lib/liba.so.1"));  // the bundle's lib/ first
  CHECK(places[1].ends_with("lib/liba.so.5"));
  CHECK(places[2] == "liba.so.1");  // then the loader's path, and ROCm's folders
  CHECK(places.back() == "/opt/rocm/lib/liba.so.5");
}

TEST_CASE("a GEMM point without rocBLAS or hipBLASLt is skipped, naming the places searched", "[hip]") {
  try {
    const auto& library = gpu::amd_gemm_library();  // found: it names itself and where
    CHECK((library.name == "rocBLAS" || library.name == "hipBLASLt"));
    CHECK_FALSE(library.path.empty());
  } catch (const PointSkipped& e) {
    CHECK_THAT(e.what(), Catch::Contains("searched: ") && Catch::Contains("librocblas.so") &&
                             Catch::Contains("libhipblaslt.so") && Catch::Contains("/opt/rocm/lib/"));
  }
}

TEST_CASE("a GEMM point with hipBLASLt and no rocBLAS is skipped, naming both", "[hip]") {
  gpu::GemmLibrary hipblaslt{"hipBLASLt", "/opt/rocm/lib/libhipblaslt.so.0", nullptr, {"/opt/rocm/lib/librocblas.so.0"}};
  try {
    gpu::load_rocblas(hipblaslt);
    FAIL("no skip");
  } catch (const PointSkipped& e) {
    CHECK_THAT(e.what(), Catch::Contains("hipBLASLt found at /opt/rocm/lib/libhipblaslt.so.0") &&
                             Catch::Contains("rooftop calls rocBLAS's gemm_ex") &&
                             Catch::Contains("searched: /opt/rocm/lib/librocblas.so.0") &&
                             Catch::Contains("ROOFTOP_ROCBLAS="));
  }
}

TEST_CASE("a rocBLAS GEMM gemm_ex cannot run is skipped with the reason before any library or GPU call", "[hip]") {
  CHECK_THROWS_WITH(gpu::RocblasMatmul(Dtype::tf32, 64, 64, 64), Catch::Contains("takes no tf32"));
  CHECK_THROWS_WITH(gpu::RocblasMatmul(Dtype::fp8, gpu::MatmulShape{64, 64, 64}), Catch::Contains("takes no fp8"));
  CHECK_THROWS_WITH(gpu::RocblasMatmul(Dtype::fp32, gpu::MatmulShape{64, 64, 64}), Catch::Contains("take bf16 or fp16"));
}
