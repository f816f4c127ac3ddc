#pragma once
// The benchmarks a program declared through the public API, and their registration as
// harness families (one implementation each, on the benchmark's backend).
#include <deque>

#include "rooftop/rooftop.hpp"

namespace rooftop {

const std::deque<Benchmark>& declared_benchmarks();
// Registers each declared benchmark as a family; throws InputError for a declaration that
// cannot run (no setup, an unknown dtype or backend, an axis without values, a name taken).
void register_declared_benchmarks();
// The checks register_declared_benchmarks makes of one declaration (InputError).
void check_declaration(const Benchmark& b);

}  // namespace rooftop
