#pragma once
// The adaptive `rooftop ab`: builds A and B run in alternating pairs (A B, B A, A B, ...);
// each pair gives every benchmark one difference of log-median times. The plan has a
// maximum number of pairs N, fixed before the first look (from --blocks, or from --budget
// and the length of a timed pair), and looks at every pair from the 3rd to the N-th.
//
// The noise model (docs/gate.md, "The adaptive A/B"): the difference of benchmark i in pair
// j is  d_ij = own_i + shift + drift_j + e_ij : the machine's drift within a pair moves every
// benchmark together, so with 5 or more benchmarks the pair's common factor (the median of
// its differences) is taken out and each benchmark is tested on its own change, relative to
// the suite; the suite-wide shift (the mean of the common factors, in which the drift
// cancels over the alternating pairs) is a question of its own. Each benchmark's scale is
// pooled with the others' (empirical Bayes) and robust to stray values (winsorized).
//
// The error guarantee: each question (every benchmark, and the suite's shift) gets
// alpha / q of the false-alarm rate, q the number of questions, spent over the looks by a
// group-sequential boundary (harness/sequential_boundary.hpp). FAIL needs the interval at
// that level to exclude no change and the estimate to lie beyond tau, so a benchmark that
// did not change FAILs at most alpha / q of the time over every look (at most alpha over
// the comparison, a union bound); one that changed by exactly +tau FAILs about half the
// time. PASS needs the interval at the PASS side's level (kPassAlpha, a benchmark's own,
// spent over the looks alike) within +-tau: a true change of +tau PASSes at most kPassAlpha
// of the time. Stopping at a decision keeps it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/gate.hpp"
#include "harness/sequential_boundary.hpp"

namespace rooftop {

struct LogInterval {  // of a log change
  double low, high;
};

struct AbPlan {
  double alpha = 0.01;    // over the whole comparison, each side
  int benchmarks = 0;     // compared: measured by both builds in the first pair
  int questions = 1;      // the benchmarks, and the suite's shift where it is estimated
  int max_pairs = 0;      // N
  static constexpr int kFirstLook = 3;
  // The PASS side's error, a benchmark's own: a true change of +tau PASSes at most this
  // often, over all the looks.
  static constexpr double kPassAlpha = 0.05;
  SequentialBoundary boundary;       // one-sided, alpha / questions over looks 3..N: FAIL and IMPROVED
  SequentialBoundary pass_boundary;  // one-sided, kPassAlpha over looks 3..N: PASS
  bool has_look(int pairs) const { return boundary.has_look(pairs); }
};

class SequentialAb {
 public:
  // Benchmarks with fewer than this many in a pair have no common factor taken out.
  static constexpr int kMinForCommonFactor = 5;
  // The benchmarks a pair runs at least, once some are decided: the common factor's panel.
  static constexpr int kPanel = 11;

  SequentialAb(GateConfig config, int max_pairs);
  // The plan's N, which may be set until the first look (from a measured pair's length).
  void set_max_pairs(int max_pairs);
  // One pair of runs of the same points, build A's and build B's (in either order: the
  // caller alternates it, so that a drift over a pair cancels across pairs). The first sets
  // what is compared: its points measured by both builds.
  void add_pair(const RunResults& a, const RunResults& b);
  // The benchmarks still undecided.
  std::vector<std::string> undecided() const;
  // What the next pair must run: the undecided, and enough decided ones to keep the
  // common factor's panel while anything (the suite's shift too) is undecided.
  std::vector<std::string> to_run() const;
  bool suite_decided() const;
  bool done() const;  // everything decided, or the plan's last pair reached
  int pairs() const { return pairs_; }
  int max_pairs() const { return max_pairs_; }
  const AbPlan& plan() const { return plan_; }
  // The verdicts so far; an undecided benchmark is UNRESOLVED, with its interval and the
  // change it can resolve at this noise.
  GateReport report(const std::string& a_origin, const std::string& b_origin) const;

 private:
  struct Series {
    std::string family;
    double tau = 0;
    std::map<int, double> diffs;  // pair (from 1) -> log-median of B minus that of A
    std::vector<double> a_samples, b_samples;
    std::optional<Comparison> decided;
    double scale = 0;  // the pooled scale of its residuals at the last look
  };
  struct Estimate {  // one series' own change (log), at the current pairs
    double centre = 0, se = 0, df = 0;
    int n = 0;
  };
  bool uses_common_factor() const { return plan_.benchmarks >= kMinForCommonFactor; }
  // The two-sided interval of a series' own change at a look's one-sided nominal level.
  LogInterval bounds_at(const Series& s, const Estimate& e, double nominal) const;
  std::vector<double> residuals(const Series& s) const;
  std::map<std::string, Estimate> estimates() const;
  std::optional<Estimate> suite_estimate() const;
  void ensure_plan();
  void look();
  Comparison measured(const std::string& name, const Series& s, const Estimate& e) const;
  SuiteShift suite_shift() const;

  GateConfig config_;
  int max_pairs_;
  int pairs_ = 0;
  AbPlan plan_;
  bool planned_ = false;
  std::map<std::string, Series> series_;
  std::vector<std::optional<double>> common_;  // per pair: its common factor (log), where one is taken out
  std::optional<SuiteShift> suite_decided_;
  std::vector<Comparison> one_sided_;  // MISSING, NEW: a point of one build only
};

}  // namespace rooftop
