#pragma once
#include <span>
#include <vector>

namespace rooftop {

// Linear-interpolation quantile (Hyndman & Fan type 7, R's default); q in [0, 1].
double quantile(std::span<const double> values, double q);
double median(std::span<const double> values);
double mean(std::span<const double> values);
double sample_stddev(std::span<const double> values);  // n - 1 in the denominator

// Distribution-free confidence interval of the median from order statistics:
// [x_(k), x_(n-k+1)] with the largest k whose binomial coverage is >= the level asked.
// With fewer than 6 samples no k reaches 95%; the full range is returned with its
// (lower) coverage, so the caller can say so.
struct MedianInterval {
  double low = 0;
  double high = 0;
  double coverage = 0;  // the exact coverage of this interval
};
MedianInterval median_confidence_interval(std::span<const double> values, double level = 0.95);

struct Summary {
  int count = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double iqr = 0;  // Q3 - Q1
  double cv = 0;   // sample standard deviation / mean
  MedianInterval median_ci;
};
Summary summarize(std::span<const double> values);

}  // namespace rooftop
