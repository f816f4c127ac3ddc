#include "suites/collectives/collectives_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "harness/bf16.hpp"
#include "harness/errors.hpp"
#include "harness/exit_codes.hpp"
#include "harness/fp16.hpp"
#include "harness/fp8.hpp"
#include "suites/collectives/collectives_plan.hpp"

namespace rooftop::collectives {
namespace {

using Clock = std::chrono::steady_clock;

void store(Dtype d, void* base, std::size_t i, double v) {
  switch (d) {
    case Dtype::fp32: static_cast<float*>(base)[i] = static_cast<float>(v); break;
    case Dtype::bf16: static_cast<std::uint16_t*>(base)[i] = float_to_bf16(static_cast<float>(v)); break;
    case Dtype::fp16: static_cast<std::uint16_t*>(base)[i] = float_to_half(static_cast<float>(v)); break;
    case Dtype::fp8: static_cast<std::uint8_t*>(base)[i] = float_to_fp8_e4m3(static_cast<float>(v)); break;
    default: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(v); break;
  }
}
double load(Dtype d, const void* base, std::size_t i) {
  switch (d) {
    case Dtype::fp32: return static_cast<const float*>(base)[i];
    case Dtype::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case Dtype::fp16: return half_to_float(static_cast<const std::uint16_t*>(base)[i]);
    case Dtype::fp8: return fp8_e4m3_to_float(static_cast<const std::uint8_t*>(base)[i]);
    default: return static_cast<const std::int8_t*>(base)[i];
  }
}
// A value no pattern sum takes: NaN for floats (fp8 e4m3 included), 127 for int8.
void poison(Dtype d, void* base, std::size_t n) {
  if (d == Dtype::int8) std::memset(base, 0x7f, n);
  else std::memset(base, 0xff, n * input_size(d));
}

// Ends the process when a blocking collective outlives its deadline: MPI has no timeout of
// its own, and a dead peer would hang the others forever. The launcher then ends the rest.
class Watchdog {
 public:
  Watchdog() : thread_([this] { watch(); }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }
  void arm(double seconds, std::string what) {
    {
      std::lock_guard lock(mutex_);
      what_ = std::move(what);
    }
    deadline_ = Clock::now().time_since_epoch().count() +
                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)).count();
  }
  void disarm() { deadline_ = 0; }
  // Armed for one scope: disarmed however it ends (a timeout thrown by a wait included).
  struct Armed {
    Armed(Watchdog& w, double seconds, std::string what) : dog(w) { dog.arm(seconds, std::move(what)); }
    ~Armed() { dog.disarm(); }
    Watchdog& dog;
  };

 private:
  void watch() {
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const auto d = deadline_.load();
      if (d != 0 && Clock::now().time_since_epoch().count() > d) {
        std::lock_guard lock(mutex_);
        fmt::print(stderr, "rooftop: {} did not finish in time: a rank died or hangs. The finished points are saved; "
                           "ending every rank (exit {})\n", what_, kExitCommFault);
        std::fflush(stderr);
        std::_Exit(kExitCommFault);
      }
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<Clock::rep> deadline_{0};
  std::mutex mutex_;
  std::string what_;
  std::thread thread_;
};

struct RankBuffers {
  void* base = nullptr;  // what was allocated (one buffer in place, two otherwise)
  void* extra = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};

class PointRun {
 public:
  PointRun(Transport& t, const Problem& p, Watchdog& dog, double timeout)
      : t_(t), p_(p), c_(collective_of(p)), dtype_(parse_dtype(p.dtype)), dog_(dog), timeout_(timeout) {
    elem_ = input_size(dtype_);
    counts_ = c_.counts(p.params.at("size_bytes").get<std::size_t>(), elem_, t.ranks());
    in_place_ = p.params.at("in_place").get<bool>();
    bufs_.resize(t.local_ranks());
    for (int l = 0; l < t.local_ranks(); ++l) {
      auto& b = bufs_[l];
      const int r = t.rank_of(l);
      if (in_place_) {
        const std::size_t big = std::max(counts_.send, counts_.recv);
        b.base = t.allocate(l, big * elem_);
        char* inner = static_cast<char*>(b.base) + c_.in_place_offset(r, counts_) * elem_;
        b.send = counts_.send >= counts_.recv ? b.base : inner;
        b.recv = counts_.send >= counts_.recv ? inner : b.base;
      } else {
        b.base = t.allocate(l, counts_.send * elem_);
        b.extra = t.allocate(l, counts_.recv * elem_);
        b.send = b.base;
        b.recv = b.extra;
      }
    }
  }
  ~PointRun() {
    for (int l = 0; l < t_.local_ranks(); ++l) {
      if (bufs_[l].base) t_.release(l, bufs_[l].base);
      if (bufs_[l].extra) t_.release(l, bufs_[l].extra);
    }
  }

  // Fresh data, poisoned receive buffers, one run, every element compared exactly.
  Correctness check() {
    for (int l = 0; l < t_.local_ranks(); ++l) {
      const int r = t_.rank_of(l);
      const std::size_t whole = in_place_ ? std::max(counts_.send, counts_.recv) : counts_.recv;
      std::vector<std::uint8_t> host(whole * elem_);
      poison(dtype_, host.data(), whole);
      guarded_upload(l, in_place_ ? bufs_[l].base : bufs_[l].recv, host);
      host.assign(counts_.send * elem_, 0);
      // In parallel, as the comparison below: a 4 GiB point holds 2^31 bf16 elements.
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < counts_.send; ++i) store(dtype_, host.data(), i, pattern(r, i));
      guarded_upload(l, bufs_[l].send, host);
    }
    run_once();
    Correctness out;
    out.passed = true;
    out.tolerance = "exact: every element equals its sum of small integers (or the data moved)";
    for (int l = 0; l < t_.local_ranks(); ++l) {
      const int r = t_.rank_of(l);
      std::vector<std::uint8_t> host(counts_.recv * elem_);
      {
        // A device copy waits for the rank's stream: a collective stuck there is a hang.
        Watchdog::Armed armed(dog_, timeout_ + 1, p_.name() + " (reading the results back)");
        t_.download(l, host.data(), bufs_[l].recv, host.size());
      }
      std::uint64_t checked = 0, wrong = 0;
      std::size_t first_wrong = 0;
#pragma omp parallel for reduction(+ : checked, wrong) reduction(max : first_wrong) schedule(static)
      for (std::size_t i = 0; i < counts_.recv; ++i) {
        double want = 0;
        if (!c_.expected(r, i, counts_, t_.ranks(), want)) continue;
        ++checked;
        if (load(dtype_, host.data(), i) != want) {
          ++wrong;
          first_wrong = std::max(first_wrong, i + 1);  // the last wrong one, 1-based
        }
      }
      out.elements_checked += checked;
      out.elements_total += counts_.recv;
      if (wrong && out.passed) {
        const std::size_t i = first_wrong - 1;
        double want = 0;
        c_.expected(r, i, counts_, t_.ranks(), want);
        out.passed = false;
        out.max_error_ratio = INFINITY;
        out.max_abs_error = std::fabs(load(dtype_, host.data(), i) - want);
        out.worst_element = fmt::format("rank {}: {} of {} elements wrong; element {} is {}, expected {}", r, wrong,
                                        checked, i, load(dtype_, host.data(), i), want);
        if (!t_.writes_results()) fmt::print(stderr, "rooftop: {}: {}\n", p_.name(), out.worst_element);
      }
    }
    const bool everyone = t_.all_processes(out.passed);
    if (!everyone && out.passed) {
      out.passed = false;
      out.worst_element = "another rank received wrong data (its stderr names the element)";
    }
    return out;
  }

  // `iterations` collectives queued back to back, then one wait: the time per collective.
  double time(std::int64_t iterations) {
    t_.barrier();
    const auto start = Clock::now();
    {
      Watchdog::Armed armed(dog_, timeout_ + 1, fmt::format("{} ({} iterations)", p_.name(), iterations));
      for (std::int64_t i = 0; i < iterations; ++i) queue();
      t_.wait(timeout_);
    }
    return std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(iterations);
  }

  std::string implementation() const { return fmt::format("{} {} on {} ranks", t_.name(), c_.name, t_.ranks()); }
  // "NCCL 2.28.3 x2", "MPI x2": the transport's name without its library path or vendor.
  std::string implementation_label() const {
    const auto name = t_.name();
    return fmt::format("{} x{}", name.substr(0, name.find(" (")), t_.ranks());
  }

 private:
  void guarded_upload(int l, void* device, const std::vector<std::uint8_t>& host) {
    Watchdog::Armed armed(dog_, timeout_ + 1, p_.name() + " (writing the check's data)");
    t_.upload(l, device, host.data(), host.size());
  }
  void queue() {
    t_.begin();
    for (int l = 0; l < t_.local_ranks(); ++l) c_.run(t_, l, bufs_[l].send, bufs_[l].recv, counts_, dtype_);
    t_.end();
  }
  void run_once() {
    Watchdog::Armed armed(dog_, timeout_ + 1, p_.name());
    queue();
    t_.wait(timeout_);
  }

  Transport& t_;
  const Problem& p_;
  const Collective& c_;
  Dtype dtype_;
  Watchdog& dog_;
  double timeout_;
  std::size_t elem_ = 1;
  Counts counts_;
  bool in_place_ = false;
  std::vector<RankBuffers> bufs_;
};

// The link a collective's bus bandwidth is drawn against: NVLink from the datasheet between
// GPUs, else the measured outermost memory level (CPU ranks on one host share its memory).
void set_link(Problem& p, const RunMetadata& meta) {
  if (meta.backend == "cuda" && meta.datasheet) {
    for (const auto& l : meta.datasheet->ceilings.links)
      if (l.name == "nvlink") {
        p.params["link"] = fmt::format("nvlink (datasheet {}, one direction)", meta.datasheet->name);
        p.params["link_bytes_per_s"] = l.bytes_per_s;
        return;
      }
  }
  if (meta.backend == "cpu" && meta.ceilings && !meta.ceilings->bandwidth.empty()) {
    const auto& level = meta.ceilings->bandwidth.back();
    p.params["link"] = fmt::format("{} (measured)", level.level);
    p.params["link_bytes_per_s"] = level.bytes_per_s;
  }
}

}  // namespace

std::vector<Problem> plan_collectives(const RunOptions& o, int ranks) {
  std::vector<Problem> points;
  if (!o.shapes.empty()) {
    const std::vector<std::string> dtypes = o.dtypes.empty() ? std::vector<std::string>{"fp32"} : o.dtypes;
    for (const auto& shape : o.shapes)
      for (const auto& d : dtypes)
        for (auto& p : parse_collective_shape(shape, parse_dtype(d), ranks, o.backend)) points.push_back(std::move(p));
  } else {
    for (auto& p : collectives_sweep(o.tier, o.backend, ranks))
      if (o.dtypes.empty() || std::find(o.dtypes.begin(), o.dtypes.end(), p.dtype) != o.dtypes.end())
        points.push_back(std::move(p));
  }
  if (!o.filter.empty()) {
    std::regex re;
    try {
      re = std::regex(o.filter);
    } catch (const std::regex_error& e) {
      throw InputError(fmt::format("--filter '{}' is not a regular expression: {}", o.filter, e.what()));
    }
    std::erase_if(points, [&](const Problem& p) { return !std::regex_search(p.name(), re); });
  }
  if (points.empty()) throw InputError("no collectives point matches the dtype, shape and filter given");
  std::set<std::string> seen;
  for (const auto& p : points)
    if (!seen.insert(p.name()).second)
      throw InputError(fmt::format("{} is asked for twice (a shape or dtype given twice?): a run measures each point "
                                   "once; use --repetitions for more samples", p.name()));
  return points;
}

RunResults run_collectives(const RunOptions& o, Transport& t, RunMetadata meta) {
  auto points = plan_collectives(o, t.ranks());
  // Every rank must run the same points in the same order, or they deadlock.
  std::string plan;
  for (const auto& p : points) plan += p.name() + "\n";
  const auto plans = t.gather_strings(fmt::format("{:x}", std::hash<std::string>{}(plan)));
  for (std::size_t i = 1; i < plans.size(); ++i)
    if (plans[i] != plans[0])
      throw InputError(fmt::format("process {} plans other collectives (dtype, sizes or filter) than process 0: give "
                                   "every rank the same arguments", i));

  meta.device["transport"] = t.name();
  meta.device["ranks"] = t.ranks();
  meta.device["placement"] = t.placement();
  RunResults run{std::move(meta), {}};
  Watchdog dog;
  const int reps = o.repetitions;
  const double min_time = o.min_time_s.value_or(default_min_time(o.tier));
  for (auto& p : points) {
    set_link(p, run.meta);
    ResultRecord rec;
    rec.problem = p;
    try {
      if (auto why = unusable_size(collective_of(p), p.params.at("size_bytes"), parse_dtype(p.dtype), t.ranks()); !why.empty())
        throw PointSkipped(why);
      PointRun point(t, p, dog, o.comm_timeout_s);
      rec.implementation = point.implementation();
      rec.implementation_label = point.implementation_label();
      rec.correctness = point.check();
      if (!rec.correctness->passed) {
        rec.status = Status::failed;
        rec.reason = rec.correctness->worst_element;
      } else {
        point.time(2);  // warm-up: connections, buffers registered
        const double probe = t.max_over_processes(point.time(1));
        const auto iterations = static_cast<std::int64_t>(std::clamp(std::ceil(min_time / std::max(probe, 1e-9)), 1.0, 100000.0));
        for (int r = 0; r < reps; ++r)
          rec.samples.push_back({t.max_over_processes(point.time(iterations)), iterations, 0});
      }
    } catch (const PointSkipped& e) {
      rec.status = Status::skipped;
      rec.reason = e.what();
    } catch (const CommTimeout& e) {
      rec.status = Status::error;
      rec.reason = e.what();
      run.results.push_back(std::move(rec));
      if (t.writes_results() && o.out) save_results(*o.out, run);
      fmt::print(stderr, "rooftop: {}: {}; the finished points are saved; ending every rank (exit {})\n", p.name(),
                 run.results.back().reason, kExitCommFault);
      t.abort(kExitCommFault);
    } catch (const std::exception& e) {  // a GPU or MPI error in this point; the others go on
      rec.status = Status::error;
      rec.reason = e.what();
    }
    run.results.push_back(std::move(rec));
    if (t.writes_results() && o.out) save_results(*o.out, run);
  }
  run.meta.complete = true;
  if (t.writes_results() && o.out) save_results(*o.out, run);
  return run;
}

}  // namespace rooftop::collectives
