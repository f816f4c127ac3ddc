#pragma once
// Statistics of the performance gate: rank tests that assume nothing about the shape of
// timing noise, an effect size with its confidence interval, and multiple-test correction.
#include <cstdint>
#include <span>
#include <vector>

namespace rooftop {

// Two-sided Mann-Whitney U test of x against y. Exact up to 50 values a side without ties,
// and with ties up to 60 values in all (the permutation distribution of the mid-rank sum,
// counted); beyond, the normal approximation with tie and continuity corrections.
double mann_whitney_p(std::span<const double> x, std::span<const double> y);

// Two-sided Wilcoxon signed-rank test that the paired differences d are centred on zero.
// Zeros are dropped. Exact up to 50 non-zero differences without ties in |d|; otherwise
// the normal approximation with tie and continuity corrections.
double wilcoxon_signed_rank_p(std::span<const double> d);

// The Hodges-Lehmann estimates and intervals below are order statistics of all n x m
// differences (n (n + 1) / 2 Walsh averages), found without making them: O(n log^2 n) time
// and O(n) memory, the same values as sorting them all (20,000 samples a point had taken
// 3 GB and most of a minute).

// Hodges-Lehmann estimate of the shift of y against x: the median of all y_j - x_i.
double hodges_lehmann_shift(std::span<const double> x, std::span<const double> y);

struct Interval {
  double low = 0, high = 0;
};
// Distribution-free CI of the Hodges-Lehmann shift (Moses; Hollander & Wolfe, Nonparametric
// Statistical Methods, section 4.3): [D(k), D(nm + 1 - k)] of the sorted differences
// y_j - x_i, with k from the Mann-Whitney null distribution (exact up to 50 a side, else
// its normal approximation) so that the coverage is at least `level`. Unbounded when no
// interval reaches that coverage with so few values. No resampling.
Interval hodges_lehmann_ci(std::span<const double> x, std::span<const double> y, double level = 0.95);

// Hodges-Lehmann estimate of one sample's centre: the median of the Walsh averages
// (d_i + d_j) / 2, i <= j (the paired blocks of `ab`).
double walsh_median(std::span<const double> d);
// Its distribution-free CI (Tukey; Hollander & Wolfe 3.3): [W(c), W(K + 1 - c)] of the K
// sorted Walsh averages, c from the signed-rank null distribution (exact up to 50 values)
// so that the coverage is at least `level`. Unbounded when no interval reaches it.
Interval walsh_ci(std::span<const double> d, double level = 0.95);

// Holm's step-down adjustment: adjusted p-values in the input order (family-wise error).
std::vector<double> holm_adjust(std::span<const double> p);

// Benjamini-Hochberg adjusted p-values (the smallest false discovery rate at which each is
// a discovery), in the input order.
std::vector<double> benjamini_hochberg(std::span<const double> p);

// Zaykin et al.'s truncated product (Genet. Epidemiol. 2002): the p of the product of those
// of `p` at or below `truncation`, `tests` independent uniform p's under the null (the p's
// given may be a subset of them: leaving out any keeps the test valid, and conservative).
// Several moderate p's together, where no one alone is a discovery among `tests`. Exact:
// the count below the truncation is binomial, and the product's log given that count a
// gamma. 1 where none is at or below it.
double truncated_product_p(std::span<const double> p, int tests, double truncation);

// Standard normal quantile.
double normal_quantile(double p);

// The smallest two-sided p the exact Mann-Whitney test can give with n and m values
// (complete separation): 2 / C(n + m, n).
double smallest_mann_whitney_p(int n, int m);

// The smallest shift of log-times a two-sided rank test at level `alpha` detects with
// power `power`, from the pooled standard deviation of the log-times.
double minimum_detectable_log_shift(double log_sd, int n, int m, double alpha, double power = 0.8);

}  // namespace rooftop
