#!/usr/bin/python3
"""ONNX conformance runner: compile each test case's model.onnx with
nki-compile, run it on the simulator with its test_data_set_0 inputs and
compare with the expected outputs (rtol 1e-3, atol 1e-5), then compare every
result with the status list (test/onnx/status.txt).

Exit status 1 on any regression (a `pass` case that fails), any unexpected
pass (a listed failure that now passes: update the list) or any case missing
from the list. `--write-docs FILE` regenerates docs/onnx-support.md from the
status list; `--update` rewrites the status list from this run.

--folders limits the run to some of node, pytorch-operator,
pytorch-converted and simple (default: all four, about a minute on 2 cores).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
FOLDERS = ["node", "pytorch-operator", "pytorch-converted", "simple"]


def first_error(text):
    """The first diagnostic line of a tool's stderr, shortened."""
    for line in text.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            return m.group(1).strip()[:160]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[0].strip() if lines else "no output")[:160]


def run_case(tools, case_dir, timeout):
    """(status, reason) of one case: pass, unsupported or fails."""
    model = os.path.join(case_dir, "model.onnx")
    data = os.path.join(case_dir, "test_data_set_0")
    if not os.path.isdir(data):
        return "unsupported", "no test_data_set_0"
    with tempfile.TemporaryDirectory(prefix="nki-onnx-") as tmp:
        nkb = os.path.join(tmp, "model.nkb")
        try:
            p = subprocess.run([os.path.join(tools, "nki-compile"), model,
                                "-o", nkb], capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return "fails", "compile: timed out after %ds" % timeout
        if p.returncode != 0:
            ops = re.findall(r"unsupported ONNX op '([^']*)' \(domain '([^']*)'",
                             p.stderr)
            if ops:
                return "unsupported", "op " + ", ".join(
                    sorted({o if d == "ai.onnx" else d + "." + o
                            for o, d in ops}))
            if p.returncode < 0 or "Stack dump" in p.stderr:
                return "fails", "compile: CRASH " + first_error(p.stderr)
            return "fails", "compile: " + first_error(p.stderr)
        cmd = [os.path.join(tools, "nki-run"), nkb, "--rtol", "1e-3",
               "--atol", "1e-5"]
        files = os.listdir(data)
        inputs = sorted((f for f in files if re.fullmatch(r"input_\d+\.pb", f)),
                        key=lambda f: int(f[6:-3]))
        outputs = sorted((f for f in files if re.fullmatch(r"output_\d+\.pb", f)),
                         key=lambda f: int(f[7:-3]))
        for f in inputs:
            cmd += ["--input", os.path.join(data, f)]
        # Outputs carry their ONNX names; output_N.pb is the N-th in order.
        for f in outputs:
            cmd += ["--expected", os.path.join(data, f)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return "fails", "run: timed out after %ds" % timeout
        if p.returncode != 0:
            if p.returncode < 0:
                return "fails", "run: CRASH " + first_error(p.stderr)
            return "fails", "run: " + first_error(p.stderr + p.stdout)
        return "pass", ""


def read_status(path):
    status = {}
    if not os.path.exists(path):
        return status
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(" ")
        kind, _, reason = rest.partition(":")
        status[name] = (kind.strip(), reason.strip())
    return status


def write_status(path, results):
    with open(path, "w") as f:
        f.write("# ONNX conformance status: one case per line, `FOLDER/CASE "
                "pass`\n# or `FOLDER/CASE unsupported|fails: reason`. "
                "test/onnx/run_conformance.py\n# fails on any difference "
                "in pass / not pass; --update rewrites this file.\n")
        for name in sorted(results):
            kind, reason = results[name]
            f.write("%s %s\n" % (name, kind) if kind == "pass" else
                    "%s %s: %s\n" % (name, kind, reason))


def write_docs(path, status, data_dir):
    """Per op type: cases that use it, how many pass, why the others do not."""
    import onnx
    per_op = {}
    for name, (kind, reason) in sorted(status.items()):
        model = os.path.join(data_dir, name, "model.onnx")
        try:
            m = onnx.load(model)
            ops = sorted({(n.domain or "ai.onnx") + ":" + n.op_type
                          for n in m.graph.node})
        except Exception:
            ops = ["(unreadable model)"]
        for op in ops:
            e = per_op.setdefault(op, {"cases": 0, "pass": 0, "unsupported": 0,
                                       "fails": 0})
            e["cases"] += 1
            e[kind if kind in e else "fails"] += 1
    total = len(status)
    passed = sum(1 for k, _ in status.values() if k == "pass")
    with open(path, "w") as f:
        f.write("# ONNX support\n\n<!-- Generated by test/onnx/run_conformance.py"
                " --write-docs from test/onnx/status.txt; do not edit. -->\n\n")
        f.write("Conformance cases from `%s` (folders in the status list): "
                "%d of %d pass.\nA case counts for every op type in its model, "
                "so a multi-op case appears\nin several rows. See "
                "[onnx.md](onnx.md) for the importer itself.\n\n"
                % (data_dir, passed, total))
        f.write("| folder | cases | pass |\n|---|---:|---:|\n")
        for folder in FOLDERS:
            names = [n for n in status if n.startswith(folder + "/")]
            f.write("| %s | %d | %d |\n" % (
                folder, len(names),
                sum(1 for n in names if status[n][0] == "pass")))
        f.write("\n")
        f.write("| op | cases | pass | unsupported | fails |\n"
                "|---|---:|---:|---:|---:|\n")
        for op in sorted(per_op, key=lambda o: (-per_op[o]["pass"], o)):
            e = per_op[op]
            f.write("| %s | %d | %d | %d | %d |\n" % (
                op, e["cases"], e["pass"], e["unsupported"], e["fails"]))
        f.write("\n## Cases that fail\n\nSupported ops whose case does not "
                "pass, with the first error.\n\n")
        for name, (kind, reason) in sorted(status.items()):
            if kind == "fails":
                f.write("- `%s`: %s\n" % (name, reason.replace("|", "\\|")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tools", help="directory with nki-compile and nki-run "
                    "(default: where PATH finds nki-compile)")
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--folders", default=",".join(FOLDERS),
                    help="comma-separated subset of " + ",".join(FOLDERS))
    ap.add_argument("--status", default=os.path.join(HERE, "status.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--filter", default="", help="regex on FOLDER/CASE")
    ap.add_argument("--update", action="store_true",
                    help="rewrite the status list from this run")
    ap.add_argument("--write-docs", metavar="FILE",
                    help="only regenerate FILE from the status list")
    args = ap.parse_args()

    status = read_status(args.status)
    if args.write_docs:
        write_docs(args.write_docs, status, args.data)
        return 0
    if not args.tools:
        found = shutil.which("nki-compile")
        if not found:
            ap.error("nki-compile is not on PATH; give --tools DIR")
        args.tools = os.path.dirname(found)

    cases = []
    for folder in args.folders.split(","):
        if folder not in FOLDERS:
            ap.error("unknown folder '%s'" % folder)
        root = os.path.join(args.data, folder)
        for case in sorted(os.listdir(root)):
            name = folder + "/" + case
            if re.search(args.filter, name):
                cases.append((name, os.path.join(root, case)))

    start = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, args.tools, d, args.timeout): n
                   for n, d in cases}
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]] = fut.result()

    regressions, unexpected, missing = [], [], []
    for name in sorted(results):
        kind, reason = results[name]
        if name not in status:
            missing.append(name)
        elif status[name][0] == "pass" and kind != "pass":
            regressions.append("%s: %s: %s" % (name, kind, reason))
        elif status[name][0] != "pass" and kind == "pass":
            unexpected.append(name)

    if args.update:
        merged = dict(status)
        merged.update(results)
        write_status(args.status, merged)

    counts = {}
    for kind, _ in results.values():
        counts[kind] = counts.get(kind, 0) + 1
    for r in regressions:
        print("REGRESSION " + r)
    for u in unexpected:
        print("UNEXPECTED PASS %s (mark it pass in %s)" % (u, args.status))
    if not args.update:
        for m in missing:
            print("NOT IN STATUS LIST %s: %s %s" % ((m,) + results[m]))
    print("%d cases in %.0f s: %d passed, %d unsupported, %d failed; "
          "%d regressions, %d unexpected passes, %d not in the list" % (
              len(results), time.time() - start, counts.get("pass", 0),
              counts.get("unsupported", 0), counts.get("fails", 0),
              len(regressions), len(unexpected),
              0 if args.update else len(missing)))
    bad = regressions or unexpected or (missing and not args.update)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
