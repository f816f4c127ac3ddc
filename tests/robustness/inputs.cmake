# Issue 52 (hardening, fourth pass): inference inputs taken other than as given (N6: a serve
# load's options missing from its point's name; N12: lenient parsing; N16: a checkpoint's
# config.json run with random weights), each case a test that fails on 8528c35.
# tests/robustness/inputs_cli.py says what each tries.
rooftop_robustness_cases(inputs n6 n12 n16)
