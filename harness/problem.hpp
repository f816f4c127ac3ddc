#pragma once
// The data model every suite shares: a Problem (one point of a sweep) declares its Work;
// an Instance is that problem set up on a backend, checked and run; a Family is a suite.
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/tier.hpp"
#include "harness/work.hpp"

namespace rooftop {

struct Problem {
  std::string family;   // "gemm"
  std::string backend;  // "cpu"
  std::string dtype;    // "fp32", "bf16", "int8"
  std::string shape;    // name-safe shape label, e.g. "m2048_n2048_k2048"
  nlohmann::ordered_json params;  // shape and layout parameters, as numbers
  Work work;
  double memory_bytes = 0;  // what an instance allocates, checked before any allocation

  // "gemm/cpu/bf16/m2048_n2048_k2048": the benchmark name and the key of baselines.
  std::string name() const { return family + "/" + backend + "/" + dtype + "/" + shape; }
};

struct Correctness {
  bool passed = false;
  std::uint64_t elements_checked = 0;
  std::uint64_t elements_total = 0;
  double max_abs_error = 0;
  double max_error_ratio = 0;  // max over checked elements of |out - ref| / allowed; <= 1 passes
  std::string tolerance;       // the allowed error, as a formula
  std::string worst_element;   // where max_error_ratio was found, with both values
};

// One problem, set up on a backend with seeded random inputs.
class Instance {
 public:
  virtual ~Instance() = default;
  virtual std::string implementation() const = 0;  // e.g. oneDNN's "brg:avx512_core_amx"
  // A few words for the terminal table ("wgm192n128w12s2", "cuBLASLt algo 43"); the
  // results keep implementation() whole. Where the shape's name ends with the label (an
  // attention point's "_fused"), the table shows it once, in the implementation column.
  virtual std::string implementation_label() const { return implementation(); }
  // Poisons the output, runs once and compares with the family's reference.
  virtual Correctness check() = 0;
  // One timed iteration; returns when its results are complete.
  virtual void run() = 0;
};

struct Family {
  std::string name;
  std::string description;
  std::vector<std::string> backends;
  std::vector<std::string> dtypes;
  std::string shape_syntax;  // how a user writes a shape, e.g. "MxNxK"
  // Every point of the tier's sweep on a backend, all dtypes.
  std::function<std::vector<Problem>(Tier, std::string_view backend)> sweep;
  // A point from a user's shape text; throws InputError on an impossible shape.
  std::function<Problem(std::string_view shape, std::string_view dtype, std::string_view backend)>
      make_problem;
  // Allocates and fills inputs; throws PointSkipped where the point does not apply.
  std::function<std::unique_ptr<Instance>(const Problem&, std::uint64_t seed)> create;
};

}  // namespace rooftop
