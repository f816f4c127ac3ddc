# Issue 52 (hardening, fourth pass): paths that name the wrong thing (N7, N9, N10), each case a
# test that fails on 8888ff0. tests/robustness/paths_cli.py says what each tries.
rooftop_robustness_cases(paths n7 n9 n10)
