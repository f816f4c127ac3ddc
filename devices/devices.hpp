#pragma once
namespace rooftop {
// Registers every backend this build has: one line per backend.
void register_all_backends();
}  // namespace rooftop
