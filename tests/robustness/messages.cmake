# Issue 52 (hardening, fourth pass): messages that said the wrong thing (N15: ab's exit line
# when interrupted, samples no run measures, a NUL byte of a tuned tile, a folder as an input
# file), a test that fails on 8528c35. tests/robustness/messages_cli.py says what each tries.
rooftop_robustness_cases(messages n15)
