#pragma once
// The adaptive `rooftop ab`: builds A and B run in alternating pairs (A B, B A, A B, ...);
// each pair gives every benchmark one difference of log-median times, and at fixed looks
// each benchmark's interval of the change is read at a level that spends the false-alarm
// rate over the looks. A benchmark is decided once its interval lies wholly inside the band
// of +-tau (PASS) or wholly beyond it (FAIL, IMPROVED), and is not run again; stopping at
// the first decision keeps the error rates, because every look was paid for in advance.
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "harness/gate.hpp"

namespace rooftop {

// Where the intervals are read: the first look at the fewest pairs whose exact interval
// can reach the first look's level, then at each 25% more pairs, up to max_pairs.
// Look j (from 0) reads the two-sided distribution-free interval at 1 - 2 a_j, with
// a_j = alpha / (m (j + 1)(j + 2)) for m benchmarks: the a_j add up to alpha / m, so over
// every look and benchmark the chance of a false FAIL is at most alpha, and that of a false
// PASS too (a union bound; it holds whatever the looks see, with no independence assumed).
struct LookPlan {
  double alpha = 0.001;
  int benchmarks = 1;
  std::vector<int> looks;  // pair counts, increasing
  double side_alpha(std::size_t look) const;
};
LookPlan plan_looks(double alpha, int benchmarks, int max_pairs);

class SequentialAb {
 public:
  SequentialAb(GateConfig config, int max_pairs);
  // One pair of runs of the same points, build A's and build B's (in either order: the
  // caller alternates it, so that a drift over a pair cancels across pairs). The first sets
  // what is compared: its points measured by both builds.
  void add_pair(const RunResults& a, const RunResults& b);
  // The benchmarks still undecided: the next pair need run only these.
  std::vector<std::string> undecided() const;
  bool done() const;  // every benchmark decided, or no look left
  int pairs() const { return pairs_; }
  const LookPlan& plan() const { return plan_; }
  // The verdicts so far; an undecided benchmark is UNRESOLVED, with the change it can
  // resolve at this noise.
  GateReport report(const std::string& a_origin, const std::string& b_origin) const;

 private:
  struct Series {
    std::string family;
    std::vector<double> diffs;  // log-median of B minus that of A, one per pair
    std::vector<double> a_samples, b_samples;
    std::optional<Comparison> decided;
  };
  void look();
  Comparison measured(const std::string& name, const Series& s, std::size_t look) const;

  GateConfig config_;
  int max_pairs_;
  int pairs_ = 0;
  std::size_t next_look_ = 0;
  LookPlan plan_;
  std::map<std::string, Series> series_;
  std::vector<Comparison> one_sided_;  // MISSING, NEW: a point of one build only
};

}  // namespace rooftop
