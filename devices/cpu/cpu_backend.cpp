#include "devices/cpu/cpu_backend.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <omp.h>

#include "devices/cpu/characterize.hpp"
#include "devices/cpu/cpu_info.hpp"
#include "devices/ranks/host_transports.hpp"

namespace rooftop::cpu {
namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend() : info_(detect_cpu()) {}
  std::string name() const override { return "cpu"; }
  std::string summary() const override {
    return fmt::format("{}, {} cores / {} threads used, {:.0f} GiB, ISA: {}{}", info_.model_name, info_.physical_cores,
                       omp_get_max_threads(), static_cast<double>(info_.memory_bytes) / 0x1p30,
                       fmt::join(isa_names(info_.isa), " "), info_.isa_cap.empty() ? "" : " (" + info_.isa_cap + ")");
  }
  nlohmann::ordered_json properties() const override {
    auto j = to_json(info_);
    j["threads_used"] = omp_get_max_threads();
    return j;
  }
  std::string fingerprint() const override { return cpu::fingerprint(info_); }
  double clock_mhz() const override { return current_clock_mhz(); }
  double available_memory_bytes() const override { return cpu::available_memory_bytes(); }
  DeviceProfile characterize(const CharacterizeOptions& options, std::ostream& log) const override {
    return characterize_cpu(info_, options, log);
  }
  std::unique_ptr<Transport> make_transport() const override { return make_host_transport(); }
  // CPU ranks on one host exchange data through its memory: the measured outermost level.
  std::optional<Link> collective_link(const Ceilings* measured, const Datasheet*) const override {
    if (!measured || measured->bandwidth.empty()) return std::nullopt;
    const auto& level = measured->bandwidth.back();
    return Link{fmt::format("{} (measured)", level.level), level.bytes_per_s};
  }

 private:
  CpuInfo info_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace rooftop::cpu
