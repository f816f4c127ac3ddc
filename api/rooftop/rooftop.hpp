#pragma once
// rooftop's public API: benchmarks of your own kernels, run, gated and reported by rooftop's
// harness. One statement declares a benchmark; linking rooftop::main gives the program
// rooftop's whole command line (run, gate, compare, ab, report, history, perf-test) over
// the benchmarks it declares. Results use rooftop's schema, so every command works on them.
//
//   ROOFTOP_BENCHMARK("rmsnorm")
//       .axis("rows", {1024, 4096})
//       .axis("cols", {4096, 8192})
//       .dtypes({"fp32"})
//       .work([](const rooftop::Point& p) { return rooftop::Work{...flops, ...bytes}; })
//       .setup([](const rooftop::Point& p, std::uint64_t seed) { return std::make_unique<MyCase>(p, seed); });
//
// Only the standard library is needed to include this header.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rooftop/types.hpp"  // Work, Tier

namespace rooftop {

// One point of a benchmark's sweep: a value of each axis, a dtype, the backend it runs on.
class Point {
 public:
  Point(std::vector<std::pair<std::string, std::int64_t>> values, std::string dtype, std::string backend);
  // The axis's value; throws std::invalid_argument naming the axes for an unknown one.
  std::int64_t get(std::string_view axis) const;
  const std::string& dtype() const { return dtype_; }      // "fp32", "bf16", "fp16", ...
  std::size_t dtype_bytes() const;                          // bytes of one element of the dtype
  const std::string& backend() const { return backend_; }  // "cpu" or "cuda"
  const std::vector<std::pair<std::string, std::int64_t>>& values() const { return values_; }

 private:
  std::vector<std::pair<std::string, std::int64_t>> values_;
  std::string dtype_, backend_;
};

// A point's output against a reference. The harness decides: it passes when elements were
// checked and every one is within the tolerance (max_error_ratio <= 1, not NaN).
struct Check {
  std::uint64_t elements_checked = 0;
  std::uint64_t elements_total = 0;
  double max_abs_error = 0;
  double max_error_ratio = 0;  // max over elements of |out - ref| / allowed error
  std::string tolerance;       // the allowed error, as a formula ("1e-5 * |ref| + 1e-6")
  std::string worst_element;   // where max_error_ratio was found, with both values
};

// A point set up with its inputs. The harness calls check() once before timing (poison the
// output first, so elements the kernel never writes show), then run() in its timed loop.
// On the cuda backend, run() enqueues on cuda_stream() and returns; the harness times
// the stream with CUDA events and flushes the L2 between cold launches. That stream does
// not wait for the legacy default stream: copies and memsets go on it too (the Async forms).
// Either may throw Skip, or any std::exception to record the point as an error.
class Case {
 public:
  virtual ~Case() = default;
  virtual void run() = 0;
  virtual Check check() = 0;
  // What ran, for the results and the report ("fused rmsnorm, avx512").
  virtual std::string implementation() const { return "custom"; }
};

// Thrown by a setup where a point does not apply (a dtype the CPU lacks): the point is
// recorded as skipped with the reason, the others run.
struct Skip : std::exception {
  explicit Skip(std::string reason) : reason_(std::move(reason)) {}
  const char* what() const noexcept override { return reason_.c_str(); }

 private:
  std::string reason_;
};

// A benchmark's declaration; every setter returns the benchmark, so one statement declares it.
class Benchmark {
 public:
  using WorkFunction = std::function<Work(const Point&)>;
  using BytesFunction = std::function<double(const Point&)>;
  using SetupFunction = std::function<std::unique_ptr<Case>(const Point&, std::uint64_t seed)>;

  explicit Benchmark(std::string name);
  Benchmark& description(std::string text);
  Benchmark& backend(std::string name);  // "cpu" (the default) or "cuda"
  Benchmark& dtypes(std::vector<std::string> names);  // default {"fp32"}
  // An axis and its values in every tier; the sweep is the product of the axes. The smoke
  // tier takes each axis's first value. Names: lower-case letters and '_', not one the
  // harness keeps for itself (cache, tile, of, stage, link, ...); values positive, distinct.
  Benchmark& axis(std::string name, std::vector<std::int64_t> values);
  // The axis's values in one tier, in place of those above.
  Benchmark& axis(std::string name, std::vector<std::int64_t> values, Tier tier);
  // Powers of two from 2^first to 2^last.
  Benchmark& power_of_two_axis(std::string name, int first, int last);
  Benchmark& work(WorkFunction f);
  // Bytes a point allocates, checked against free memory before its setup (optional).
  Benchmark& memory(BytesFunction f);
  Benchmark& setup(SetupFunction f);

  struct Axis {
    std::string name;
    std::vector<std::int64_t> values;
    std::vector<std::pair<Tier, std::vector<std::int64_t>>> per_tier;
  };
  const std::string& name() const { return name_; }
  const std::string& description_text() const { return description_; }
  const std::string& backend_name() const { return backend_; }
  const std::vector<std::string>& dtype_names() const { return dtypes_; }
  const std::vector<Axis>& axes() const { return axes_; }
  const WorkFunction& work_function() const { return work_; }
  const BytesFunction& memory_function() const { return memory_; }
  const SetupFunction& setup_function() const { return setup_; }

 private:
  Axis& axis_named(const std::string& name);
  std::string name_, description_, backend_ = "cpu";
  std::vector<std::string> dtypes_{"fp32"};
  std::vector<Axis> axes_;
  WorkFunction work_;
  BytesFunction memory_;
  SetupFunction setup_;
};

// Declares a benchmark (at namespace scope, in a static's initialiser; ROOFTOP_BENCHMARK
// below is that statement; in the program's own sources, not a static library, whose
// unreferenced objects the linker drops). The reference stays valid for the program's life. A name
// declared twice, or a declaration that cannot run, is an error when the program starts.
Benchmark& add_benchmark(std::string name);

// The stream a cuda-backend Case enqueues on (a cudaStream_t); null where CUDA is not built.
void* cuda_stream();

// rooftop's command line over the declared benchmarks (rooftop::main's main() calls it).
int run_main(int argc, char** argv);

}  // namespace rooftop

#define ROOFTOP_DETAIL_CONCAT2(a, b) a##b
#define ROOFTOP_DETAIL_CONCAT(a, b) ROOFTOP_DETAIL_CONCAT2(a, b)
// ROOFTOP_BENCHMARK("name").axis(...).work(...).setup(...);  at namespace scope.
#define ROOFTOP_BENCHMARK(name)                                                                \
  [[maybe_unused]] static ::rooftop::Benchmark& ROOFTOP_DETAIL_CONCAT(rooftop_benchmark_, __COUNTER__) = \
      ::rooftop::add_benchmark(name)
