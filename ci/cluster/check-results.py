#!/usr/bin/env python3
"""Checks a collectives results file written across the CI cluster's hosts.

check-results.py RESULTS --ranks N --hosts H [--partial]
  every point that ran passed its exact check; the ranks and their hosts are as asked; every
  point is drawn against the network between the hosts (a link named "network ...",
  "between H hosts") with a bus bandwidth and its share of that link. --partial: a fault
  ended the run: some points finished (kept), the run is not complete, and a point recorded
  as an error (if any) is the communication timeout.
Prints the largest point of each collective against the link's roof.
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--partial", action="store_true")
    a = ap.parse_args()
    problems = []
    try:
        d = json.load(open(a.results))
    except (OSError, ValueError) as e:
        sys.exit(f"check-results: {a.results}: {e}")
    props = d["device"]["properties"]
    placement = props.get("placement", [])
    hosts = sorted({p.split(":")[0] for p in placement})
    if props.get("ranks") != a.ranks or len(placement) != a.ranks:
        problems.append(f"{props.get('ranks')} ranks placed as {placement}, expected {a.ranks}")
    if len(hosts) != a.hosts:
        problems.append(f"the ranks ran on {len(hosts)} hosts {hosts}, expected {a.hosts}")
    results = d["results"]
    ok = [r for r in results if r["status"] == "ok"]
    errors = [r for r in results if r["status"] == "error"]
    if not ok:
        problems.append("no point finished")
    for r in ok:
        c = r.get("correctness") or {}
        if not c.get("passed") or c.get("elements_checked") != c.get("elements_total"):
            problems.append(f"{r['name']}: exact check not passed: {c}")
        t = r.get("throughput") or {}
        link = t.get("link", "")
        if not (link.startswith("network") and f"between {a.hosts} hosts" in link):
            problems.append(f"{r['name']}: drawn against {link!r}, not the network between {a.hosts} hosts")
        if not t.get("bus_bytes_per_s", 0) > 0 or "percent_of_link" not in t:
            problems.append(f"{r['name']}: no bus bandwidth or share of the link: {t}")
    if a.partial:
        # Which rank sees the fault first is a race: when rank 0 does, its point is recorded as
        # an error; when another does, the launcher ends rank 0 with the finished points saved.
        if d.get("complete"):
            problems.append("the run is marked complete, but a fault should have ended it")
        for r in errors:
            if "did not finish in time" not in r.get("reason", ""):
                problems.append(f"{r['name']}: an error that is not the fault: {r['reason']}")
    else:
        if errors or len(ok) != len(results) or not d.get("complete"):
            problems.append(f"not every point ran: {[(r['name'], r['status'], r['reason']) for r in results if r['status'] != 'ok']}")
    largest = {}
    for r in ok:
        p = r["params"]
        if p["size_bytes"] >= largest.get(p["collective"], {"params": {"size_bytes": -1}})["params"]["size_bytes"]:
            largest[p["collective"]] = r
    if ok:
        print(f"check-results: {len(ok)} points ok on {a.ranks} ranks across {hosts}, "
              f"{len(errors)} error; link: {ok[0]['throughput']['link']} "
              f"{ok[0]['throughput']['link_bytes_per_s'] / 1e9:.2f} GB/s")
    for name, r in sorted(largest.items()):
        t = r["throughput"]
        print(f"  {r['shape']:<28} busbw {t['bus_bytes_per_s'] / 1e9:7.3f} GB/s = {t['percent_of_link']:5.1f}% of the link")
    for p in problems:
        print(f"check-results: {a.results}: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


main()
