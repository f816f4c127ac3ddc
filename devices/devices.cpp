#include "devices/devices.hpp"

#include "devices/cpu/cpu_backend.hpp"
#include "harness/backend.hpp"

namespace rooftop {

void register_all_backends() {
  register_backend(cpu::make_cpu_backend());
}

}  // namespace rooftop
