# Issue 52 (hardening, fourth pass): results files the stores and the gate must not take at
# their word (N8: an injected slowdown; N17: a date in the future), rewritten with another
# mode (N13), or read in time quadratic in a point's samples (N14), each case a test that
# fails on 9605003. tests/robustness/results_cli.py says what each tries.
rooftop_robustness_cases(results n8 n13 n14 n17)
# 20,000 samples a point: under a second now, 55 s in compare alone before.
set_tests_properties(cli.results_n14 PROPERTIES TIMEOUT 20)
