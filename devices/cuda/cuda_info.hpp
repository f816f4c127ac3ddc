#pragma once
// What this GPU is: name, multiprocessors, clocks, memory, L2, driver and runtime, power.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace rooftop::gpu {

struct GpuInfo {
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;  // 64 on AMD's CDNA: kernels sized by warps read it
  std::string arch;    // HIP: the gfx target ("gfx90a:sramecc+:xnack-"); empty for CUDA
  double max_sm_clock_mhz = 0;
  double memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  double memory_bytes = 0;
  double l2_bytes = 0;
  double shared_per_block_optin_bytes = 0;
  double shared_per_sm_bytes = 0;
  int driver_cuda_version = 0;   // the newest CUDA version the driver supports, e.g. 13000
  int runtime_version = 0;       // the CUDA runtime this build carries
  std::string driver_version;    // from NVML, "580.159.04"; empty without NVML
  double power_limit_w = 0;      // from NVML; 0 without it
  double default_power_limit_w = 0;  // the board's default: a lower current limit lowers every roof
  std::optional<bool> ecc, mig, persistence;  // NVML's current modes; empty where unknown or unsupported
  std::string nvml_status;       // why NVML (ROCm SMI) readings are absent, if they are
};

// Empty when a device is usable, else the reason (no driver, no device, old driver).
std::string gpu_unavailable_reason();
// The device rooftop uses: ordinal $ROOFTOP_GPU (default 0). Throws GpuError.
GpuInfo detect_gpu();
nlohmann::ordered_json to_json(const GpuInfo& info);
// "cuda-nvidia-h100-80gb-hbm3-132sm-<hash>": model, SMs, memory, L2, clocks; not the
// serial number, so identical cards share baselines.
std::string fingerprint(const GpuInfo& info);
std::string version_text(int cuda_version);  // 13000 -> "13.0"; HIP: 50221153 -> "5.2"

}  // namespace rooftop::gpu
