#pragma once
// The scale of many short series at once, for `rooftop ab`'s pair differences: each
// series' variance shrunk towards what the others show (empirical Bayes: Smyth 2004,
// "Linear models and empirical Bayes methods for assessing differential expression in
// microarray experiments", section 6: a scaled inverse chi-square prior on the variances
// fitted by moments of log s^2), and a location and variance robust to a stray value
// (winsorized at a multiple of that scale), so a few values per series suffice and one
// outlier cannot make a decision alone.
#include <span>
#include <vector>

namespace rooftop {

struct ScalePrior {
  double variance = 0;  // s0^2
  double df = 0;        // d0: 0 when nothing is pooled, capped where the variances agree
};
// variances[i] on dfs[i] degrees of freedom (each > 0); fewer than 5 series: no prior.
// robust: the median and MAD of log s^2, for a first scale to winsorize
// with; else the mean and standard deviation.
ScalePrior fit_scale_prior(std::span<const double> variances, std::span<const double> dfs, bool robust = false,
                           double max_df = 60);
// The posterior variance (d0 s0^2 + d s^2) / (d0 + d), on d0 + d degrees of freedom.
double moderated_variance(const ScalePrior& prior, double s2, double df);

struct RobustLocation {
  double centre = 0;    // mean of the winsorized values
  double variance = 0;  // their variance (n - 1), made consistent for Gaussian values
  int n = 0;
};
// Values beyond median +- limit * scale are pulled in to that bound (scale <= 0: none).
RobustLocation winsorized_location(std::span<const double> values, double scale, double limit = 2.5);

}  // namespace rooftop
