#!/usr/bin/env python3
"""The report's serving views, read from the HTML (no browser): the load-latency curve, the
decode step on the roofline and the procurement table; and an empty --slo refused.

1. A --sweep-rate point (tests/data/serve/tiny-sweep.json, measured on the tiny model): one
   curve of three panels, a marker for every recorded percentile of every rate tried, the
   INVALID runs hollow, the objective a line in the TTFT and TPOT panels only, the
   sustainable rate a line in each; a roofline point for each batch size its decode steps
   reached; the procurement row with its sustainable rate, tokens/s, "not measured" per joule.
2. The same file and a copy under another fingerprint with energy, both priced: the
   procurement rows in the machine comparison, per dollar and per joule as computed here.
3. Two points served at fixed rates (no sweep), one INVALID: one curve of both, the
   sustainable rate the valid one's, said to be no search.

usage: serve_report_cli.py ROOFTOP FIXTURE.json OUT_DIR
"""
import copy
import json
import os
import re
import statistics
import sys

from cli_checks import expect, fresh_dir, runner

rooftop, fixture, out = sys.argv[1], sys.argv[2], fresh_dir(sys.argv[3])
run = runner(rooftop)
problems = []
with open(fixture) as f:
    results = json.load(f)
record = results["results"][0]
sweep = record["outputs"]["sweep"]


def check(ok, what):
    if not ok:
        problems.append(what)


def report(*paths, extra=()):
    html_path = os.path.join(out, "report.html")
    expect(0, "wrote", run("report", *paths, "-o", html_path, *extra))
    with open(html_path) as f:
        return f.read()


def panels(html):
    """metric -> the panel's SVG text."""
    return dict(re.findall(r'<g class="panel" data-metric="(\w+)">(.*?)</g>', html, re.S))


def markers(panel, cls=""):
    return len(re.findall(r'<circle class="curve-point [^"]*' + cls, panel))


def write(name, data):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        json.dump(data, f)
    return path


# 1. The sweep's curve.
html = report(fixture)
check(html.count('<div class="serve-curve"') == 1, "not one load-latency curve")
p = panels(html)
check(sorted(p) == ["E2E", "TPOT", "TTFT"], f"panels {sorted(p)}")
runs = sweep["runs"]
for metric, key in (("TTFT", "ttft_s"), ("TPOT", "tpot_s"), ("E2E", "e2e_s")):
    values = sum(1 for t in runs for q in ("p50", "p90", "p99") if t[key][q] > 0)
    invalid = sum(1 for t in runs if not t["valid"] for q in ("p50", "p90", "p99") if t[key][q] > 0)
    check(markers(p.get(metric, "")) == values, f"{metric}: {markers(p.get(metric, ''))} markers, expected {values}")
    check(markers(p.get(metric, ""), "invalid") == invalid, f"{metric}: {markers(p.get(metric, ''), 'invalid')} hollow, expected {invalid}")
    check(p.get(metric, "").count('<line class="sustainable"') == 1, f"{metric}: no sustainable-rate line")
check('<line class="objective"' in p.get("TTFT", "") and "objective: p99 within 500 ms" in p.get("TTFT", ""), "TTFT: no objective line")
check('<line class="objective"' in p.get("TPOT", "") and "objective: p99 within 50 ms" in p.get("TPOT", ""), "TPOT: no objective line")
check('<line class="objective"' not in p.get("E2E", ""), "E2E has an objective line")
rate = sweep["sustainable_rate"]
check(f"sustainable: {rate:.4g} requests/s" in html, "the sustainable line's title")
decode = re.search(r'<svg class="roofline decode-roofline".*?</svg>', html, re.S)
steps = record["outputs"]["decode_steps"]
placed = decode.group(0).count('<g class="point"') if decode else 0
check(placed == len(steps), f"the decode roofline has {placed} points, expected {len(steps)}")
check(f"The decode step at {rate:.4g} requests/s" in html, "the decode roofline's heading")
tokens = statistics.median(record["metrics"]["output_tokens_per_s"])
row = re.search(r'<table class="serve-procurement".*?</table>', html, re.S)
check(row and f"{rate:.4g} requests/s (--sweep-rate)" in row.group(0) and f">{tokens:.4g}<" in row.group(0)
      and "not measured" in row.group(0) and "give its price with --price" in row.group(0), "the procurement row")

# 2. Two machines, priced, one with energy: the rows in the comparison.
other = copy.deepcopy(results)
fingerprint = "cpu-test-fixture-other-device-64c-00000000"
other["device"]["fingerprint"] = fingerprint
watts = 50.0
for r in other["results"]:
    r["samples"]["wall_s"] = [2.0 for _ in r["samples"]["seconds_per_iteration"]]
    r["samples"]["energy_j"] = [watts * w for w in r["samples"]["wall_s"]]
other_path = write("other.json", other)
html = report(fixture, other_path, extra=("--price", f"{results['device']['fingerprint']}=3000", "--price", f"{fingerprint}=6000"))
comparison = html[html.find("<h2>Machine comparison</h2>"):html.find("<h2>Serving</h2>")]
table = re.search(r'<table class="serve-procurement".*?</table>', comparison, re.S)
check(table is not None, "no serving rows in the machine comparison")
if table:
    rows = re.findall(r"<tr data-filter.*?</tr>", table.group(0), re.S)
    check(len(rows) == 2, f"{len(rows)} procurement rows, expected 2")
    seconds = statistics.median(record["samples"]["seconds_per_iteration"])
    per_joule = f"{1 / (watts * seconds):.4g} tokens/J (measured"
    check(any(fingerprint in r and per_joule in r for r in rows), f"no '{per_joule}' in the other device's row")
    check(any(fingerprint not in r and "not measured" in r for r in rows), "the first device's per J is not 'not measured'")
    per_1000 = f"{tokens / 6000 * 1000:.4g} tok/s per $1000 of its $6000"
    per_million = f"(${6000 / (tokens * 3 * 365 * 24 * 3600) * 1e6:.3g} per million) over 3 years"
    check(any(per_1000 in r and per_million in r for r in rows), f"no '{per_1000}' with '{per_million}'")
check("Serving at the objective" not in html[html.find("<h2>Serving</h2>"):], "the procurement rows shown twice")

# 3. Points at fixed rates, no sweep: one curve of both, the valid one sustainable.
fixed = copy.deepcopy(results)
points = []
for rate_, valid in ((50.0, 1.0), (100.0, 0.0)):
    r = copy.deepcopy(record)
    del r["outputs"]["sweep"]
    r["metrics"].pop("sustainable_rate", None)
    r["params"]["rate"] = rate_
    r["params"]["sweep_rate"] = False
    r["outputs"]["rate"] = rate_
    r["outputs"]["verdict"] = "VALID" if valid else "INVALID: the engine did not keep up (a test fixture)"
    r["metrics"]["valid"] = [valid]
    r["shape"] = r["shape"].replace("r1000", f"r{rate_:g}").replace("_sweep", "")
    r["name"] = r["name"].replace("r1000", f"r{rate_:g}").replace("_sweep", "")
    points.append(r)
fixed["results"] = points
html = report(write("fixed.json", fixed))
p = panels(html)
check(html.count('<div class="serve-curve"') == 1, "two fixed-rate points are not one curve")
check(markers(p.get("TTFT", ""), "invalid") == 3 and markers(p.get("TTFT", "")) == 6, "fixed points: 6 TTFT markers, 3 hollow")
check("at least 50 requests/s (the highest rate served that met it; no --sweep-rate)" in html, "fixed points' sustainable rate")

# An objective given empty is refused, not read as the default.
code, said = run("run", "--suite", "inference", "--shape", "tiny:serve:40x24:fixed=16/6:window=0", "--slo", "")
check(code == 2 and "--slo: it is empty" in said, f"an empty --slo: exit {code}, {said[-300:]!r}")

if problems:
    sys.exit("\n".join(problems))
print("serve report: all checks passed")
