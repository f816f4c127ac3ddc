#pragma once
// Special functions for the gate's tests on run medians: the polygamma functions that
// empirical Bayes needs to pool variances, and Student's t distribution.
namespace rooftop {

double digamma(double x);     // x > 0
double trigamma(double x);    // x > 0
double tetragamma(double x);  // x > 0: the derivative of trigamma
// The y > 0 with trigamma(y) = x (Newton's method from Smyth 2004's starting point).
double trigamma_inverse(double x);

// P(T <= t) for Student's t with `df` degrees of freedom (df > 0; infinite df: the normal).
double student_t_cdf(double t, double df);
// The t with student_t_cdf(t, df) = p, 0 < p < 1.
double student_t_quantile(double p, double df);

}  // namespace rooftop
