#pragma once
// Timing of asynchronous device work (GPU kernels): the device's own clock around one
// launch, the launch gap kept out, the cache optionally flushed before it.
#include <functional>
#include <string>

namespace rooftop {

class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  // Seconds per launch the device spent on the work `enqueue` submits, run `launches`
  // times back to back between two timestamps. With `cold`, the device's last-level cache
  // is flushed (untimed) before a single launch, so inputs come from memory.
  virtual double time(const std::function<void()>& enqueue, bool cold, int launches = 1) = 0;
  // Capacity of the cache a flush clears (the runner times work up to twice it cold).
  virtual double cache_bytes() const = 0;
};

}  // namespace rooftop
