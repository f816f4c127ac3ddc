"""A ceiling a run re-measures higher goes back to this device's own profile; a file named with
--profile only with --update-profile (issue 39). The stored fp32 peak is set to 1 MFLOP/s, so
any GEMM beats it, whatever the machine and its load."""
import json
import os
import sys

from cli_checks import expect, fresh_dir, run

rooftop, work = sys.argv[1], fresh_dir(sys.argv[2])
code, out = run(rooftop, "info", "--backend", "cpu")
fingerprint = next(line.split()[1] for line in out.splitlines() if line.startswith("fingerprint:"))
profile = {
    "format": "rooftop-device-profile", "version": 1, "backend": "cpu", "fingerprint": fingerprint,
    "created": "2026-11-26T00:00:00Z", "rooftop_version": "test", "threads": 1, "device": {},
    "measured": {"compute": [{"name": "fp32_vector_fma", "dtype": "fp32", "unit": "test", "flops_per_s": 1e6}],
                 "bandwidth": [{"level": "DRAM", "bytes_per_s": 1e12, "capacity_bytes": 0}],
                 "links": [], "dispatch_latency_s": 0},
    "datasheet": None}
gemm = ["run", "--backend", "cpu", "--suite", "gemm", "--dtype", "fp32", "--shape", "64x64x64", "--repetitions", "1"]


def write(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(profile, f)


def raised(path):
    with open(path) as f:
        p = json.load(f)
    return p["measured"]["compute"][0]["flops_per_s"], p.get("raised")


# Named with --profile: left as it is, and the run says how to keep the raised value.
given = os.path.join(work, "given.json")
write(given)
before = open(given).read()
expect(0, "given with --profile) left as it is: add --update-profile", run(rooftop, *gemm, "--profile", given))
if open(given).read() != before:
    sys.exit(f"{given} was changed without --update-profile")

# With --update-profile: the raised value and a record of the old one.
expect(0, "wrote 1 raised ceiling(s) back to", run(rooftop, *gemm, "--profile", given, "--update-profile"))
value, records = raised(given)
if not (value > 1e6 and records and records[0]["old"] == 1e6 and records[0]["ceiling"] == "fp32_vector_fma"):
    sys.exit(f"{given}: fp32 peak {value}, raised records {records}")

# This device's own profile (found by its fingerprint): written back without asking.
home = os.path.join(work, "home")
own = os.path.join(home, "profiles", fingerprint + ".json")
write(own)
os.environ["ROOFTOP_HOME"] = home
expect(0, "wrote 1 raised ceiling(s) back to " + own, run(rooftop, *gemm))
value, records = raised(own)
if not (value > 1e6 and records and "ran at" in records[0]["reason"] and records[0]["at"].endswith("Z")):
    sys.exit(f"{own}: fp32 peak {value}, raised records {records}")
print("ok")
