#include "devices/hip/rocm_smi.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rocm_smi/rocm_smi.h>

#include <algorithm>
#include <charconv>

#include "devices/cuda/dynamic_library.hpp"

namespace rooftop::gpu {
namespace {

// Debian names the library by its own soname; AMD's packages by ROCm's major version.
const std::vector<std::string> kSonames = {"librocm_smi64.so.1", "librocm_smi64.so.5", "librocm_smi64.so.6"};

template <class F>
F symbol(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(::dlsym(lib, name)) : nullptr;
}
#define ROOFTOP_RSMI(lib, name) symbol<decltype(&::name)>(lib, #name)

}  // namespace

std::optional<std::uint64_t> rocm_smi_bdf(const std::string& id) {
  // "dddd:bb:dd.f", hexadecimal, each field whole (sscanf's %x would take "0x" prefixes and signs).
  const auto field = [&](std::size_t at, std::size_t digits, char after) -> std::optional<unsigned> {
    if (at + digits > id.size() || (after && (at + digits >= id.size() || id[at + digits] != after))) return std::nullopt;
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(id.data() + at, id.data() + at + digits, v, 16);
    if (ec != std::errc() || end != id.data() + at + digits) return std::nullopt;
    return v;
  };
  const auto domain = field(0, 4, ':'), bus = field(5, 2, ':'), device = field(8, 2, '.'), function = field(11, 1, 0);
  if (!domain || !bus || !device || !function || id.size() != 12 || *device > 0x1f || *function > 0x7) return std::nullopt;
  return (static_cast<std::uint64_t>(*domain) << 32) | (*bus << 8) | (*device << 3) | *function;
}

RocmSmi::RocmSmi(const std::string& pci_bus_id) {
  const auto places = rocm_library_places("ROOFTOP_ROCM_SMI", kSonames);
  std::string opened;
  library_ = open_first(places, opened);
  if (!library_) {
    reason_ = fmt::format("ROCm SMI not found (searched: {}): no clock, power or temperature readings", fmt::join(places, ", "));
    return;
  }
  const auto init = ROOFTOP_RSMI(library_, rsmi_init);
  const auto count = ROOFTOP_RSMI(library_, rsmi_num_monitor_devices);
  const auto bdf_of = ROOFTOP_RSMI(library_, rsmi_dev_pci_id_get);
  if (!init || !count || !bdf_of || init(0) != RSMI_STATUS_SUCCESS) {
    reason_ = fmt::format("ROCm SMI ({}) did not initialise: no clock, power or temperature readings", opened);
    return;
  }
  const auto wanted = rocm_smi_bdf(pci_bus_id);
  std::uint32_t devices = 0;
  if (wanted && count(&devices) == RSMI_STATUS_SUCCESS)
    for (std::uint32_t i = 0; i < devices && !present_; ++i) {
      std::uint64_t bdf = 0;
      if (bdf_of(i, &bdf) == RSMI_STATUS_SUCCESS && bdf == *wanted) {
        index_ = i;
        present_ = true;
      }
    }
  if (!present_) reason_ = "ROCm SMI does not know the device at " + pci_bus_id;
}

RocmSmi::~RocmSmi() {
  if (!library_) return;
  if (const auto shut_down = ROOFTOP_RSMI(library_, rsmi_shut_down); shut_down && present_) shut_down();
  ::dlclose(library_);
}

std::optional<double> RocmSmi::sm_clock_mhz() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_dev_gpu_clk_freq_get);
  rsmi_frequencies_t levels{};
  if (!present_ || !f || f(index_, RSMI_CLK_TYPE_SYS, &levels) != RSMI_STATUS_SUCCESS) return std::nullopt;
  if (levels.current >= levels.num_supported || levels.current >= RSMI_MAX_NUM_FREQUENCIES) return std::nullopt;
  return static_cast<double>(levels.frequency[levels.current]) / 1e6;  // Hz
}

std::optional<double> RocmSmi::max_sm_clock_mhz() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_dev_gpu_clk_freq_get);
  rsmi_frequencies_t levels{};
  if (!present_ || !f || f(index_, RSMI_CLK_TYPE_SYS, &levels) != RSMI_STATUS_SUCCESS || levels.num_supported == 0)
    return std::nullopt;
  const auto n = std::min<std::uint32_t>(levels.num_supported, RSMI_MAX_NUM_FREQUENCIES);
  return static_cast<double>(*std::max_element(levels.frequency, levels.frequency + n)) / 1e6;
}

std::optional<double> RocmSmi::power_limit_w() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_dev_power_cap_get);
  std::uint64_t microwatts = 0;
  if (!present_ || !f || f(index_, 0, &microwatts) != RSMI_STATUS_SUCCESS) return std::nullopt;
  return static_cast<double>(microwatts) / 1e6;
}

std::optional<double> RocmSmi::power_w() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_dev_power_ave_get);
  std::uint64_t microwatts = 0;
  if (!present_ || !f || f(index_, 0, &microwatts) != RSMI_STATUS_SUCCESS) return std::nullopt;
  return static_cast<double>(microwatts) / 1e6;
}

std::optional<double> RocmSmi::total_energy_j() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_dev_energy_count_get);
  std::uint64_t ticks = 0, timestamp = 0;
  float microjoules_per_tick = 0;
  if (!present_ || !f || f(index_, &ticks, &microjoules_per_tick, &timestamp) != RSMI_STATUS_SUCCESS) return std::nullopt;
  return static_cast<double>(ticks) * microjoules_per_tick * 1e-6;
}

std::optional<double> RocmSmi::temperature_c() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_dev_temp_metric_get);
  if (!present_ || !f) return std::nullopt;
  for (const auto sensor : {RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_TYPE_EDGE}) {
    std::int64_t millidegrees = 0;
    if (f(index_, sensor, RSMI_TEMP_CURRENT, &millidegrees) == RSMI_STATUS_SUCCESS) return millidegrees / 1000.0;
  }
  return std::nullopt;
}

std::optional<std::string> RocmSmi::driver_version() const {
  const auto f = ROOFTOP_RSMI(library_, rsmi_version_str_get);
  char text[64] = {};
  if (!present_ || !f || f(RSMI_SW_COMP_DRIVER, text, sizeof text) != RSMI_STATUS_SUCCESS) return std::nullopt;
  return std::string(text);
}

}  // namespace rooftop::gpu
