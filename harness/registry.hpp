#pragma once
// The families (suites) and their implementations per backend. Each registers itself from
// its own source file with a static registrar, the way Google Benchmark's BENCHMARK and
// nvbench's NVBENCH_BENCH do: adding a backend's implementation touches no suite file.
#include <string>
#include <string_view>
#include <vector>

#include "harness/family.hpp"

namespace rooftop {

void register_family(Family family);
const std::vector<Family>& families();
// Throws InputError listing the registered families.
const Family& find_family(std::string_view name);
// Null when no family of that name is registered (a results file of another build).
const Family* family_named(std::string_view name);

// An implementation for every backend: one written against the backend's seams (the
// collectives, through Backend::make_transport).
inline constexpr std::string_view kAnyBackend = "*";

void register_implementation(std::string_view family, std::string_view backend, InstanceFactory factory);
// The backends a family has an implementation for in this build, sorted.
std::vector<std::string> family_backends(std::string_view family);
// Null when the family has no implementation for the backend.
const InstanceFactory* find_implementation(std::string_view family, std::string_view backend);

// At namespace scope in the file that defines them:
//   const RegisterFamily kGemm(make_gemm_family);
//   const RegisterImplementation kGemmCpu("gemm", "cpu", create_gemm_cpu);
struct RegisterFamily {
  explicit RegisterFamily(Family (*make)()) { register_family(make()); }
};
struct RegisterImplementation {
  RegisterImplementation(const char* family, const char* backend, InstanceFactory factory) {
    register_implementation(family, backend, std::move(factory));
  }
};

}  // namespace rooftop
