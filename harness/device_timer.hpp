#pragma once
// Timing of asynchronous device work (GPU kernels): the device's own clock around one
// launch, the launch gap kept out, the cache optionally flushed before it.
#include <functional>
#include <string>

namespace rooftop {

class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  // Seconds the device spent on the work `enqueue` submits. With `cold`, the device's
  // last-level cache is flushed first (untimed), so inputs come from memory.
  virtual double time(const std::function<void()>& enqueue, bool cold) = 0;
  // Capacity of the cache a flush clears: work that fits is timed cold by default.
  virtual double cache_bytes() const = 0;
};

}  // namespace rooftop
