#pragma once
// A backend is one kind of device behind a small interface; each registers itself once
// (see devices/devices.cpp), the ggml-backend way.
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/device_profile.hpp"

namespace rooftop {

struct CharacterizeOptions {
  bool quick = false;  // shorter measurements (tests); the full one is the default
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
  // Measures the ceilings; progress lines go to `log`.
  virtual DeviceProfile characterize(const CharacterizeOptions& options, std::ostream& log) const = 0;
};

void register_backend(std::unique_ptr<Backend> backend);
const std::vector<std::unique_ptr<Backend>>& backends();
// Throws InputError listing the backends built in.
const Backend& find_backend(std::string_view name);

}  // namespace rooftop
