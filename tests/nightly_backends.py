#!/usr/bin/env python3
"""ci/nightly.sh gates every backend the runner has, and its exit is the most serious of
theirs. A stand-in rooftop (a shell script) plays the device and the gate's verdicts, so the
test needs no GPU and measures nothing: it checks which commands the nightly gives and what
it exits with.

usage: nightly_backends.py SOURCE_DIR WORK_DIR
"""
import os
import pathlib
import stat
import subprocess
import sys

from cli_checks import fresh_dir

# info --backend cuda: 0 where FAKE_CUDA=1 (a GPU), else 4 as a CUDA build without one says.
# gate: the exit in FAKE_GATE_<backend> (default 0). Every call is logged.
FAKE_ROOFTOP = r"""#!/usr/bin/env bash
echo "$*" >> "$FAKE_LOG"
backend=cpu out=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --backend) backend=${args[i+1]} ;;
    --out) out=${args[i+1]} ;;
  esac
done
case $1 in
  info)
    [ "$backend" = cpu ] && exit 0
    [ "$backend" = cuda ] && [ "${FAKE_CUDA:-0}" = 1 ] && { echo "NVIDIA H100"; exit 0; }
    echo "rooftop: error: no $backend device here (stand-in)" >&2; exit 4 ;;
  run) [ -n "$out" ] && echo '{}' > "$out"; exit 0 ;;
  gate)
    for a in "$@"; do case $a in *results-*.json) b=${a##*results-}; backend=${b%.json} ;; esac; done
    var=FAKE_GATE_$backend; exit "${!var:-0}" ;;
  *) exit 0 ;;
esac
"""


def nightly(source, work, name, **env):
    """(exit code, the stand-in's log, output) of one `ci/nightly.sh nightly` with `env`."""
    case = work / name
    case.mkdir()
    log = case / "calls.log"
    log.touch()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("ROOFTOP_", "FAKE_", "GITHUB_"))}
    environment.update(ROOFTOP_NIGHTLY_BIN=str(work / "rooftop"), FAKE_LOG=str(log),
                       ROOFTOP_HISTORY=str(case / "history.sqlite"), ROOFTOP_HOME=str(case / "home"), **env)
    p = subprocess.run(["bash", str(source / "ci" / "nightly.sh"), "nightly", str(case / "out")],
                       capture_output=True, text=True, env=environment, timeout=60)
    return p.returncode, log.read_text(), p.stdout + p.stderr


def expect(condition, what, result):
    if not condition:
        sys.exit(f"{what}\nexit {result[0]}; calls:\n{result[1]}\noutput:\n{result[2]}")


def main():
    source, work = pathlib.Path(sys.argv[1]), pathlib.Path(fresh_dir(sys.argv[2]))
    fake = work / "rooftop"
    fake.write_text(FAKE_ROOFTOP)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)

    r = nightly(source, work, "cpu-only")
    expect(r[0] == 0, "a runner without a GPU: the CPU alone is gated, and passes", r)
    expect("run --backend cpu --tier full" in r[1] and "--backend cuda --tier" not in r[1],
           "without a GPU only the CPU runs, at the full tier", r)
    expect("cuda not gated" in r[2], "the nightly says why the GPU is not gated", r)

    r = nightly(source, work, "gpu", FAKE_CUDA="1", FAKE_GATE_cpu="3")
    expect("characterize --backend cuda" in r[1] and "run --backend cuda --tier full" in r[1],
           "a runner with a CUDA device: the GPU is characterized and run", r)
    expect("results-cuda.json" in r[1] and "results-cpu.json" in r[1], "both backends are gated", r)
    expect(r[0] == 3, "the CPU without a baseline: exit 3, though the GPU passed", r)

    r = nightly(source, work, "gpu-fail", FAKE_CUDA="1", FAKE_GATE_cpu="6", FAKE_GATE_cuda="1")
    expect(r[0] == 1, "a FAIL on the GPU outranks UNRESOLVED on the CPU: exit 1", r)

    r = nightly(source, work, "named", FAKE_CUDA="1", ROOFTOP_NIGHTLY_BACKENDS="cuda", ROOFTOP_NIGHTLY_TIER="quick")
    expect(r[0] == 0 and "run --backend cuda --tier quick" in r[1] and "--backend cpu" not in r[1],
           "ROOFTOP_NIGHTLY_BACKENDS=cuda gates the GPU alone, at ROOFTOP_NIGHTLY_TIER", r)
    expect("history add" in r[1] and "history check" in r[1], "the night goes into the history", r)
    print("nightly.sh: every backend the runner has is gated; the most serious exit wins")


if __name__ == "__main__":
    main()
