// A collective point on the ranks of a run, through the backend's transport: buffers on
// every local rank, a poisoned receive buffer, one checked run with every element compared
// exactly, then lockstep timing (harness/lockstep_loop.cpp).
#include "suites/collectives/collective_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "harness/dtype_facts.hpp"
#include "harness/errors.hpp"
#include "harness/watchdog.hpp"
#include "suites/collectives/collectives_plan.hpp"

namespace rooftop::collectives {
namespace {

using Clock = std::chrono::steady_clock;

struct RankBuffers {
  void* base = nullptr;  // what was allocated (one buffer in place, two otherwise)
  void* extra = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};

class CollectiveInstance final : public LockstepInstance {
 public:
  CollectiveInstance(const Problem& p, Transport& t, Watchdog& dog, double timeout)
      : t_(t), p_(p), c_(collective_of(p)), dtype_(p.dtype), dog_(dog), timeout_(timeout) {
    elem_ = input_size(dtype_);
    counts_ = c_.counts(point_of(p).size_bytes, elem_, t.ranks());
    in_place_ = point_of(p).in_place;
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
  ~CollectiveInstance() override {
    for (int l = 0; l < t_.local_ranks(); ++l) {
      if (bufs_[l].base) t_.release(l, bufs_[l].base);
      if (bufs_[l].extra) t_.release(l, bufs_[l].extra);
    }
  }

  // Fresh data, poisoned receive buffers, one run, every element compared exactly.
  Correctness check() override {
    for (int l = 0; l < t_.local_ranks(); ++l) {
      const int r = t_.rank_of(l);
      const std::size_t whole = in_place_ ? std::max(counts_.send, counts_.recv) : counts_.recv;
      std::vector<std::uint8_t> host(whole * elem_);
      poison_elements(dtype_, host.data(), whole);
      guarded_upload(l, in_place_ ? bufs_[l].base : bufs_[l].recv, host);
      host.assign(counts_.send * elem_, 0);
      // In parallel, as the comparison below: a 4 GiB point holds 2^31 bf16 elements.
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < counts_.send; ++i) store_element(dtype_, host.data(), i, pattern(r, i));
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
        if (load_element(dtype_, host.data(), i) != want) {
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
        out.max_abs_error = std::fabs(load_element(dtype_, host.data(), i) - want);
        out.worst_element = fmt::format("rank {}: {} of {} elements wrong; element {} is {}, expected {}", r, wrong,
                                        checked, i, load_element(dtype_, host.data(), i), want);
        if (!t_.writes_results()) fmt::print(stderr, "rooftop: {}: {}\n", p_.name(), out.worst_element);
      }
    }
    bool everyone = false;
    {
      Watchdog::Armed armed(dog_, timeout_ + 1, p_.name() + " (ranks agreeing on the check)");
      everyone = t_.all_processes(out.passed);
    }
    if (!everyone && out.passed) {
      out.passed = false;
      out.worst_element = "another rank received wrong data (its stderr names the element)";
    }
    return out;
  }

  void run() override { run_once(); }

  // `iterations` collectives queued back to back, then one wait: the time per collective.
  double time_iterations(std::int64_t iterations) override {
    t_.barrier();
    const auto start = Clock::now();
    {
      Watchdog::Armed armed(dog_, timeout_ + 1, fmt::format("{} ({} iterations)", p_.name(), iterations));
      for (std::int64_t i = 0; i < iterations; ++i) queue();
      t_.wait(timeout_);
    }
    return std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(iterations);
  }

  std::string implementation() const override { return fmt::format("{} {} on {} ranks", t_.name(), c_.name, t_.ranks()); }
  // "NCCL 2.28.3 x2", "MPI x2": the transport's name without its library path or vendor.
  std::string implementation_label() const override {
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
  const Problem p_;
  const Collective& c_;
  Dtype dtype_;
  Watchdog& dog_;
  double timeout_;
  std::size_t elem_ = 1;
  Counts counts_;
  bool in_place_ = false;
  std::vector<RankBuffers> bufs_;
};

}  // namespace

std::unique_ptr<Instance> create_collective(const Problem& p, const SetupContext& setup) {
  if (!setup.transport || !setup.watchdog) throw std::logic_error(p.name() + ": collectives need the run's transport");
  if (auto why = unusable_size(collective_of(p), point_of(p).size_bytes, p.dtype, setup.transport->ranks());
      !why.empty())
    throw PointSkipped(why);
  return std::make_unique<CollectiveInstance>(p, *setup.transport, *setup.watchdog, setup.comm_timeout_s);
}

}  // namespace rooftop::collectives
