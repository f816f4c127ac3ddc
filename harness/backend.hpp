#pragma once
// A backend is one kind of device behind a small interface; each registers itself once
// (see devices/devices.cpp), the ggml-backend way.
#include <iosfwd>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/device_conditions.hpp"
#include "harness/device_profile.hpp"
#include "harness/device_timer.hpp"
#include "harness/transport.hpp"

namespace rooftop {

// A link between ranks: its name as a results file says it, and its bandwidth one way.
struct Link {
  std::string name;  // "nvlink (datasheet NVIDIA H200 SXM, one direction)"
  double bytes_per_s = 0;
};

struct CharacterizeOptions {
  bool quick = false;  // shorter measurements (tests); the full one is the default
  // Measure only these ceilings (compute names or memory levels): a run re-measures the one
  // a result exceeded. Empty: all. A backend may measure more than asked.
  std::vector<std::string> only;
  int max_rounds = 0;  // 0: the trial plan's (harness/ceiling_trials.hpp)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;                   // "cpu"
  virtual std::string summary() const = 0;                // one line for humans
  virtual nlohmann::ordered_json properties() const = 0;  // model, cores, ISA, caches, memory
  // Stable across runs and reboots of the same machine; safe as a directory name.
  virtual std::string fingerprint() const = 0;
  // The clock now, recorded beside every sample so a sample at another clock shows.
  virtual double clock_mhz() const = 0;
  // The device's energy counter in joules (monotonic; only differences mean anything), read
  // before and after each repetition; none where the device has no counter.
  virtual std::optional<double> energy_j() const { return std::nullopt; }
  // The device's own state now (a GPU's clocks, temperature, power, throttle reasons), for the
  // run's conditions; none for the CPU, whose host readings are harness/system_state's.
  virtual std::optional<DeviceReading> read_device(const std::string& /*when*/) const { return std::nullopt; }
  // Measures the ceilings; progress lines go to `log`.
  virtual DeviceProfile characterize(const CharacterizeOptions& options, std::ostream& log) const = 0;
  // Empty when the device can be used; else why not (no GPU, no driver), said so that a
  // user knows the way out. A backend is built in whether or not its device is present.
  virtual std::string unavailable_reason() const { return {}; }
  // Bytes a point may allocate on the device now; 0 when unknown (no check).
  virtual double available_memory_bytes() const = 0;
  // Times device work with the device's own clock; nullptr: the host's wall clock times
  // the synchronous Instance::run().
  virtual std::unique_ptr<DeviceTimer> make_timer() const { return nullptr; }

  // The ranks of a multi-rank run and their primitives (collectives): NCCL between GPUs,
  // MPI between CPU processes. Throws InputError where the backend has none.
  virtual std::unique_ptr<Transport> make_transport() const;
  // The link a collective's bus bandwidth is drawn against, from the measured ceilings or
  // the datasheet; none when neither names one.
  virtual std::optional<Link> collective_link(const Ceilings* measured, const Datasheet* datasheet) const;
};

void register_backend(std::unique_ptr<Backend> backend);
const std::vector<std::unique_ptr<Backend>>& backends();
// Throws InputError listing the backends built in, or DeviceUnavailable with the reason.
const Backend& find_backend(std::string_view name);

}  // namespace rooftop
