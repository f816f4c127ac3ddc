# Issue 52 (hardening, fourth pass): ci/nightly.sh's exit codes (N11: a missing binary, a bad
# tier, an unwritable step summary, a refused history, HOME unset), a test that fails on
# 8528c35. tests/robustness/nightly_cli.py says what each case tries; a stand-in rooftop
# plays the measuring commands, so nothing is timed.
rooftop_robustness_cases(nightly n11)
