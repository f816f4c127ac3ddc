# Issue 35 (hardening, third pass): the history group's cases, each a test that fails on 0312b28.
