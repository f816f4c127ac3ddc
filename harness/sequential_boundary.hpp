#pragma once
// A one-sided group-sequential boundary over a plan of looks known in advance (Armitage,
// McPherson and Rowe 1969; Lan and DeMets 1983): looks at every step n = first..last of a
// random walk with N(0, 1) increments; at look n the z statistic S_n / sqrt(n) is compared
// with z[n - first]. The boundary spends alpha over the looks as alpha (n / last)^rho
// (Kim and DeMets 1987's power family): the chance that the walk of a true null crosses it
// at any look is alpha exactly (for Gaussian steps), and the looks' correlation is used, so
// it costs far less than a Bonferroni split over the looks.
#include <vector>

namespace rooftop {

struct SequentialBoundary {
  double alpha = 0;  // one-sided, over all the looks
  int first = 1, last = 1;
  double rho = 2;
  std::vector<double> z;  // z[n - first]: the boundary at look n
  // The one-sided nominal level of look n: 1 - Phi(z), the level of a single test that
  // crosses where the boundary does (read on a Student t where the scale is estimated).
  double nominal(int n) const;
  bool has_look(int n) const { return n >= first && n - first < static_cast<int>(z.size()); }
};

// alpha in (0, 0.5); 1 <= first <= last.
SequentialBoundary spending_boundary(double alpha, int first, int last, double rho = 2);

}  // namespace rooftop
