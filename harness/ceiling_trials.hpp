#pragma once
// Robust ceilings: each ceiling is the best of several trials spread over time, taken in
// rounds that interleave the ceilings (a burst of other work then lowers one trial of each,
// not every trial of one), until the best two trials agree within a tolerance or a time
// bound passes. The trials are kept in the profile ("trials", docs/device-profile.md).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rooftop {

struct CeilingTrials {
  std::string name;            // "fp32_vector_fma", "bf16_matrix", "L2", "DRAM"
  std::vector<double> values;  // each trial's rate, in the order taken
  // The rates of the clean trials (all our threads held a CPU through the run that gave
  // them): only these settle a ceiling, as two disturbed trials can agree.
  std::vector<double> clean_values;
  bool settled = false;        // its best two clean trials agree within the plan's tolerance
  std::string at_least;        // a ceiling this one cannot be below (the next memory level out); "" none
  // A ceiling that other tenants' traffic moves for seconds at a time (DRAM on a shared VM:
  // two threads read 40-47 GB/s for a few seconds, then 62-70, in one process) settles only
  // once its clean trials span this long; 0 for the others.
  double min_span_s = 0;
  std::vector<double> clean_at_s = {};  // when each clean trial was taken, seconds from the first round
};

// DRAM's spread (quick, full): its trials are taken at least this far apart in time.
double dram_min_span_s(bool quick);

struct TrialPlan {
  int max_rounds = 8;
  double time_bound_s = 90;  // no new round starts past it; the unsettled keep their best
  double tolerance = 0.03;   // the best two trials within 3% of the best: settled
};
// The default plan and --quick's (tests and first looks: looser and shorter).
TrialPlan default_trial_plan(bool quick);

double best_value(const std::vector<double>& values);  // 0 when empty
// (best - second best) / best; negative when fewer than two trials.
double best_two_spread(const std::vector<double>& values);
bool best_two_agree(const std::vector<double>& values, double tolerance);

// After a round: marks the settled (the best two clean trials agree, and the best of all
// is not below its at_least ceiling's best); true when another round is due (some ceiling is
// unsettled, rounds and time are left).
bool another_round(std::vector<CeilingTrials>& trials, int rounds_done, double elapsed_s, const TrialPlan& plan);
// Every unsettled ceiling is only waiting for its trials to spread over time: the next round
// may wait (a quarter of the span) instead of taking trials moments apart.
bool only_spread_left(const std::vector<CeilingTrials>& trials);

// One thread's part of a timed pass, as the steady clock saw it start and end (seconds).
struct ThreadSpan {
  double start = 0, end = 0;
};
// The threads ran together for nearly all of the pass (from the first start to the last end):
// only then is the pass all threads' rate. The CPU clocks alone count a thread spinning at
// the join, so a pass where one thread read while the other waited to be scheduled looked
// clean (DRAM read 48 GB/s of 70: one thread's 35 and a little overlap).
inline constexpr double kThreadsOverlap = 0.9;
bool threads_overlapped(const std::vector<ThreadSpan>& spans, double share = kThreadsOverlap);

nlohmann::ordered_json trials_to_json(const std::vector<CeilingTrials>& trials, const TrialPlan& plan, int rounds,
                                      double elapsed_s);

}  // namespace rooftop
