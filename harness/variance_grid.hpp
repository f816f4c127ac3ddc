#pragma once
// The suite's distribution of true run-to-run variances, estimated nonparametrically
// (Kiefer and Wolfowitz's maximum likelihood over all distributions, on a log grid, by EM):
// a GPU's kernels spread 2,500-fold (0.07% to 3.5% from night to night on an H200), in
// clusters that no one scaled inverse chi-square fits (Smyth's prior fitted 1.5 df there,
// and every test was a Student t of 3 df). Each benchmark's posterior over the grid then
// says how quiet it is from its own few runs and from how many others look like it.
#include <span>
#include <vector>

namespace rooftop {

struct VarianceGrid {
  std::vector<double> variance, weight;  // grid points (log-spaced) and their mass, summing to 1
  double log_sd = 0;                     // a log-normal fit's sd of the log-variance (else 0)
};

// From the benchmarks' sample variances s2 on dfs degrees of freedom; `floor` stands in for
// a zero variance (identical medians) and bounds the grid below.
VarianceGrid fit_variance_grid(std::span<const double> s2, std::span<const double> dfs, double floor);

// The same grid weighted by a log-normal on the variance, fitted by maximum likelihood to
// the same sample variances: smooth where the nonparametric fit, from a few df a benchmark,
// puts its mass in clusters that overstate how different the benchmarks are.
VarianceGrid fit_lognormal_grid(const VarianceGrid& grid, std::span<const double> s2, std::span<const double> dfs,
                                double floor);

// A benchmark's posterior weights over the grid, from its own sample variance s2 on df.
std::vector<double> posterior_weights(const VarianceGrid& grid, double s2, double df, double floor);

}  // namespace rooftop
