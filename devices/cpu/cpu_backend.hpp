#pragma once
#include <memory>

#include "harness/backend.hpp"

namespace rooftop::cpu {
std::unique_ptr<Backend> make_cpu_backend();
}  // namespace rooftop::cpu
