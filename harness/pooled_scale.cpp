#include "harness/pooled_scale.hpp"

#include <algorithm>
#include <cmath>

#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {

ScalePrior fit_scale_prior(std::span<const double> variances, std::span<const double> dfs, bool robust, double max_df) {
  ScalePrior prior;
  std::vector<double> e, d;
  for (std::size_t i = 0; i < variances.size() && i < dfs.size(); ++i) {
    if (!(variances[i] > 0) || !(dfs[i] > 0) || !std::isfinite(variances[i])) continue;
    // log s^2 - digamma(d/2) + log(d/2) has mean log s0^2 - digamma(d0/2) + log(d0/2) and
    // variance trigamma(d/2) + trigamma(d0/2).
    e.push_back(std::log(variances[i]) - digamma(dfs[i] / 2) + std::log(dfs[i] / 2));
    d.push_back(dfs[i]);
  }
  if (e.size() < 5) return prior;  // a spread of fewer variances says too little
  // Robust moments (the median, and the median absolute deviation as a standard
  // deviation) where asked and there are enough series: one series whose variance a stray
  // value inflated must not make the others look unlike each other. The classical moments
  // otherwise: a real spread of scales shows in full, so no series is shrunk too far.
  const bool use_robust = robust;
  double centre = use_robust ? median(e) : mean(e);
  double sd = 0;
  if (use_robust) {
    std::vector<double> deviation;
    for (const double x : e) deviation.push_back(std::abs(x - centre));
    sd = 1.4826 * median(deviation);
  } else {
    sd = sample_stddev(e);
  }
  double own = 0;
  for (const double di : d) own += trigamma(di / 2);
  const double spread = sd * sd - own / static_cast<double>(e.size());
  // Variances that agree beyond what their own degrees of freedom explain: the prior is
  // strong, but never worth more than max_df (a few series can agree by chance).
  prior.df = spread > 0 ? std::min(max_df, 2 * trigamma_inverse(spread)) : max_df;
  prior.variance = std::exp(centre + digamma(prior.df / 2) - std::log(prior.df / 2));
  return prior;
}

double moderated_variance(const ScalePrior& prior, double s2, double df) {
  if (!(prior.df > 0)) return s2;
  return (prior.df * prior.variance + df * s2) / (prior.df + df);
}

RobustLocation winsorized_location(std::span<const double> values, double scale, double limit) {
  RobustLocation out;
  out.n = static_cast<int>(values.size());
  if (values.empty()) return out;
  std::vector<double> w(values.begin(), values.end());
  if (scale > 0 && std::isfinite(scale)) {
    const double mid = median(values);
    for (auto& x : w) x = std::clamp(x, mid - limit * scale, mid + limit * scale);
  }
  out.centre = mean(w);
  if (w.size() >= 2) {
    const double sd = sample_stddev(w);
    // For Gaussian values winsorizing at 2.5 sd keeps 97.7% of the variance: undo that, so
    // that the clean case is not made to look quieter than it is.
    // E min(x^2, c^2) = 1 - 2 (c phi(c) - (c^2 - 1) Q(c)) for a standard normal x.
    const double c = limit;
    const double kept = scale > 0 ? 1 - 2 * (c * std::exp(-0.5 * c * c) / std::sqrt(2 * M_PI) -
                                             (c * c - 1) * 0.5 * std::erfc(c / std::sqrt(2.0)))
                                  : 1.0;
    out.variance = sd * sd / kept;
  }
  return out;
}

}  // namespace rooftop
