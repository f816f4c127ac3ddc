#!/usr/bin/env python3
"""Runs one job of a GitHub Actions workflow on this machine, as a self-hosted runner would.

No local runner of the same format works here: `act` is not packaged by Debian or npm, needs
Docker for its images, and fetches every `uses:` action from GitHub. This script reads the
workflow (YAML) and runs the job's steps in order, in a workspace of their own:

  run:      `bash -e FILE`, as GitHub runs a step without `shell:`, in the workspace, with
            CI, GITHUB_ACTIONS, GITHUB_WORKSPACE, GITHUB_EVENT_NAME, GITHUB_STEP_SUMMARY (a
            file a step appends Markdown to), RUNNER_OS, RUNNER_TEMP; `${{ github.X }}`
            from the event given
  actions/checkout           the source folder's files (git's tracked and untracked, not
                             ignored) copied into the workspace
  actions/upload-artifact    the files `path:` matches copied to OUT/artifacts/NAME
  mikepenz/action-junit-report  the JUnit files of `report_paths:` read: a table of their
                             counts and each failed test in the job summary, as the action
                             writes it (it fails no step by default, nor here)
  if:       success() (the default), always(), failure(); a job's `github.event_name` test

Anything else (another action, another expression) is refused with exit 2, never skipped.

usage: run-workflow.py WORKFLOW --job NAME --source DIR --out DIR [--event schedule]
                       [--env NAME=VALUE ...]
OUT gets workspace/, artifacts/, summary.md (the job summary a CI host shows) and
steps.txt (each step's outcome). Exit 0 when the job succeeds, 1 when it fails.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import yaml


class Unsupported(Exception):
    pass


def github_context(event, source):
    return {"event_name": event, "workspace": "", "base_ref": "main" if event == "pull_request" else "",
            "ref": "refs/heads/main", "repository": os.path.basename(os.path.abspath(source))}


def expand(text, ctx):
    def one(m):
        expr = m.group(1).strip()
        key = re.fullmatch(r"github\.(\w+)", expr)
        if not key or key.group(1) not in ctx:
            raise Unsupported(f"the expression ${{{{ {expr} }}}}")
        return ctx[key.group(1)]
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def condition_holds(cond, ctx, failed):
    if cond is None:
        return not failed
    c = str(cond).strip()
    if c.startswith("${{") and c.endswith("}}"):
        c = c[3:-2].strip()
    if c in ("always()",):
        return True
    if c == "success()":
        return not failed
    if c == "failure()":
        return failed
    m = re.fullmatch(r"github\.(\w+)\s*(==|!=)\s*'([^']*)'", c)
    if m and m.group(1) in ctx:
        return (ctx[m.group(1)] == m.group(3)) == (m.group(2) == "==")
    raise Unsupported(f"the condition `if: {cond}`")


def checkout(source, workspace):
    """The source's files as a fresh clone would hold them (tracked and untracked, not ignored)."""
    top = subprocess.run(["git", "-C", source, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(source):
        # Not a repository of its own (a folder inside another's work tree counts as none).
        shutil.copytree(source, workspace, dirs_exist_ok=True, symlinks=True)
        return
    listed = subprocess.run(["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True)
    if listed.returncode != 0:
        shutil.copytree(source, workspace, dirs_exist_ok=True)
        return
    for rel in filter(None, listed.stdout.decode().split("\0")):
        src = os.path.join(source, rel)
        if not os.path.lexists(src):
            continue  # deleted in the work tree, not yet in git
        dst = os.path.join(workspace, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)


def upload_artifact(with_, workspace, out):
    name = with_.get("name", "artifact")
    patterns = [p.strip() for p in str(with_.get("path", "")).splitlines() if p.strip()]
    dest = os.path.join(out, "artifacts", name)
    files = sorted({f for pattern in patterns for f in glob.glob(os.path.join(workspace, pattern), recursive=True)
                    if os.path.isfile(f)})
    # The artifact holds the files below their least common folder, as upload-artifact stores them.
    top = os.path.commonpath([os.path.dirname(f) for f in files]) if files else workspace
    for f in files:
        rel = os.path.relpath(f, top)
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(f, os.path.join(dest, rel))
    found = len(files)
    policy = with_.get("if-no-files-found", "warn")
    if found == 0:
        message = f"No files were found with the provided path: {' '.join(patterns)}. No artifacts will be uploaded."
        if policy == "error":
            print(f"::error::{message}")
            return False
        print(f"::warning::{message}")
    else:
        print(f"artifact {name}: {found} files")
    return True


def junit_report(with_, workspace, summary):
    files = sorted(glob.glob(os.path.join(workspace, str(with_.get("report_paths", ""))), recursive=True))
    tests = passed = skipped = failed = 0
    failures = []
    for f in files:
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError as e:
            print(f"::error::{os.path.relpath(f, workspace)}: not JUnit XML: {e}")
            return False
        for case in root.iter("testcase"):
            tests += 1
            bad = case.find("failure")
            if bad is None:
                bad = case.find("error")
            if bad is not None:
                failed += 1
                text = (bad.get("message") or bad.text or "").strip().splitlines()
                failures.append((case.get("classname", ""), case.get("name", ""), text[0] if text else ""))
                print(f"::error title={case.get('name')}::{text[0] if text else 'failed'}")
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    if not files:
        print(f"::warning::No test report files were found for {with_.get('report_paths')}")
    with open(summary, "a") as s:
        s.write("## JUnit Test Report\n\n| 📊 Tests | ✅ Passed | ⏭️ Skipped | ❌ Failed |\n|---|---|---|---|\n")
        s.write(f"| {tests} ran | {passed} passed | {skipped} skipped | {failed} failed |\n\n")
        if failures:
            s.write("| 🧪 Test | ❌ Failure |\n|---|---|\n")
            for cls, name, text in failures:
                s.write(f"| {cls + '.' if cls else ''}{name} | {text.replace('|', '/')} |\n")
            s.write("\n")
    print(f"junit: {len(files)} files, {tests} tests, {failed} failed")
    if str(with_.get("fail_on_failure", "false")).lower() == "true" and failed:
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workflow")
    ap.add_argument("--job", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--event", default="schedule")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE, as a runner's environment gives it")
    a = ap.parse_args()
    wf = yaml.safe_load(open(a.workflow))
    job = (wf.get("jobs") or {}).get(a.job)
    if job is None:
        print(f"run-workflow: {a.workflow} has no job {a.job!r} (it has {', '.join(wf.get('jobs', {}))})", file=sys.stderr)
        return 2
    if os.path.exists(a.out) and os.listdir(a.out):
        print(f"run-workflow: {a.out} is not empty: give a new folder", file=sys.stderr)
        return 2
    out = os.path.abspath(a.out)
    workspace = os.path.join(out, "workspace")
    temp = os.path.join(out, "runner-temp")
    for d in (workspace, temp):
        os.makedirs(d)
    summary = os.path.join(out, "summary.md")
    open(summary, "w").close()
    ctx = github_context(a.event, a.source)
    ctx["workspace"] = workspace
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(CI="true", GITHUB_ACTIONS="true", GITHUB_WORKSPACE=workspace, GITHUB_EVENT_NAME=a.event,
               RUNNER_OS="Linux", RUNNER_TEMP=temp)
    for kv in a.env:
        name, sep, value = kv.partition("=")
        if not sep:
            print(f"run-workflow: --env {kv}: give NAME=VALUE", file=sys.stderr)
            return 2
        env[name] = value
    env.update({k: str(v) for k, v in (wf.get("env") or {}).items()})
    env.update({k: str(v) for k, v in (job.get("env") or {}).items()})
    try:
        if not condition_holds(job.get("if"), ctx, False):
            print(f"run-workflow: job {a.job} is skipped on a {a.event} event (if: {job.get('if')})")
            return 0
        deadline = time.monotonic() + 60 * float(job.get("timeout-minutes", 360))
        failed = False
        lines = []
        print(f"run-workflow: job {a.job} on {job.get('runs-on')} ({a.event}), workspace {workspace}")
        for i, step in enumerate(job.get("steps", []), 1):
            name = step.get("name") or step.get("uses") or step.get("run", "").strip().splitlines()[0]
            if not condition_holds(step.get("if"), ctx, failed):
                lines.append(f"{i}. skipped  {name}")
                continue
            t0 = time.monotonic()
            print(f"::group::{i}. {name}", flush=True)
            step_summary = os.path.join(temp, f"step-summary-{i}.md")
            open(step_summary, "w").close()
            step_env = dict(env, GITHUB_STEP_SUMMARY=step_summary)
            step_env.update({k: str(v) for k, v in (step.get("env") or {}).items()})
            with_ = step.get("with") or {}
            ok = True
            if "run" in step:
                script = os.path.join(temp, f"step-{i}.sh")
                with open(script, "w") as f:
                    f.write(expand(step["run"], ctx))
                try:
                    ok = subprocess.run(["bash", "-e", script], cwd=workspace, env=step_env,
                                        timeout=max(1, deadline - time.monotonic())).returncode == 0
                except subprocess.TimeoutExpired:
                    print(f"::error::the job ran past its timeout-minutes ({job.get('timeout-minutes')})")
                    ok = False
            else:
                uses = step.get("uses", "")
                action = uses.split("@")[0]
                if action == "actions/checkout":
                    checkout(a.source, workspace)
                elif action == "actions/upload-artifact":
                    ok = upload_artifact(with_, workspace, out)
                elif action == "mikepenz/action-junit-report":
                    ok = junit_report(with_, workspace, step_summary)
                else:
                    raise Unsupported(f"the action {uses}")
            with open(step_summary) as s, open(summary, "a") as j:
                j.write(s.read())
            print("::endgroup::")
            lines.append(f"{i}. {'success' if ok else 'failure'}  {name}  ({time.monotonic() - t0:.1f} s)")
            failed = failed or not ok
    except Unsupported as e:
        print(f"run-workflow: {a.workflow}, job {a.job}: {e} has no local implementation here; "
              f"run the job on a real runner, or add it to ci/run-workflow.py", file=sys.stderr)
        return 2
    lines.append(f"job {a.job}: {'failure' if failed else 'success'}")
    with open(os.path.join(out, "steps.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
