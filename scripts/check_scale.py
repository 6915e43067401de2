#!/usr/bin/python3
"""The DRAM-scale acceptance run (docs/scale.md): every file of scenarios/scale/

  1. plans with every planner (gir, eager, xla, tvm) on cpu-host, nvidia-a100, nvidia-h100 and
     amd-mi100, every plan valid (`gir plan --planner all --json`);
  2. runs on the CPU at full size and matches the reference evaluator (`gir run --planner all`);
  3. compiles as CUDA for sm_90 (nvcc) and as HIP for gfx908 (hipcc) (`gir codegen --planner all`,
     then the compiler on every kernel source, `-c`: no GPU is needed);
  4. reports whether the GIR plan's DRAM bytes are the minimal bytes.

Too slow for the test suite (minutes per DRAM-sized file on 2 cores); its table goes into the
notes. Usage: scripts/check_scale.py [--gir build/cli/gir] [--only NAME] [--skip-compile]
Exit status 1 when any check fails.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TARGETS = ["cpu-host", "nvidia-a100", "nvidia-h100", "amd-mi100"]
PLANNERS = ["gir", "eager", "xla", "tvm"]


def run(cmd, timeout=1800):
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - start


def check_plans(gir, model, target):
    """(ok, seconds, gir/minimal ratio, message)"""
    p, secs = run([gir, "plan", model, "--target", target, "--planner", "all", "--json"])
    if p.returncode != 0:
        return False, secs, None, (p.stderr or p.stdout).strip().splitlines()[-1:]
    doc = json.loads(p.stdout)
    bad = [name for name in PLANNERS if not doc["planners"].get(name, {}).get("valid")]
    ratio = doc["planners"]["gir"]["dram_bytes"] / doc["minimal_bytes"]
    return not bad, secs, ratio, [f"invalid: {', '.join(bad)}"] if bad else []


def check_run(gir, model):
    p, secs = run([gir, "run", model, "--target", "cpu", "--planner", "all", "--json"])
    if p.returncode != 0:
        return False, secs, (p.stderr or p.stdout).strip().splitlines()[-1:]
    doc = json.loads(p.stdout)
    wrong = [f"{c['planner']} {c.get('variant', '')}: skipped: {c['skipped']}" for c in doc["candidates"] if c.get("skipped")]
    wrong += [f"{c['planner']} {c.get('variant', '')}: rel error {c['max_rel_error']}" for c in doc["candidates"]
              if not c.get("skipped") and not c["matches"]]
    planners = {c["planner"] for c in doc["candidates"]}
    missing = [name for name in PLANNERS if name not in planners]
    return not wrong and not missing, secs, wrong + [f"not run: {m}" for m in missing]


def compile_sources(gir, model, target, compiler_cmd, ext, workdir):
    out = os.path.join(workdir, target)
    p, secs = run([gir, "codegen", model, "--target", target, "-o", out, "--planner", "all"])
    if p.returncode != 0:
        return False, secs, (p.stderr or p.stdout).strip().splitlines()[-1:]
    sources = [s for s in glob.glob(os.path.join(out, "*", "*" + ext)) if not s.endswith("harness" + ext)]
    errors = []
    for src in sources:
        c, csecs = run(compiler_cmd + ["-c", src, "-o", src + ".o"])
        secs += csecs
        if c.returncode != 0:
            errors.append(f"{os.path.basename(src)}: {(c.stderr or c.stdout).strip().splitlines()[:1]}")
    if not sources:
        errors.append("no kernel sources written")
    return not errors, secs, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gir", default="build/cli/gir")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip-compile", action="store_true")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    models = sorted(glob.glob("scenarios/scale/*.onnx"))
    if args.only:
        models = [m for m in models if args.only in m]
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    hipcc = shutil.which("hipcc")
    compilers = []
    if not args.skip_compile:
        if nvcc:
            compilers.append(("nvidia-h100", [nvcc, "-O3", "-std=c++17", "-gencode", "arch=compute_90,code=sm_90"], ".cu", "nvcc sm_90"))
        else:
            print("no nvcc: the CUDA compile is not checked")
        if hipcc:
            compilers.append(("amd-mi100", [hipcc, "-O3", "-std=c++17", "--offload-arch=gfx908"], ".hip", "hipcc gfx908"))
        else:
            print("no hipcc: the HIP compile is not checked")
    failures = []
    header = ["scenario"] + [f"plan {t} s" for t in TARGETS] + ["gir/minimal (cpu-host)", "run cpu s"] + [c[3] + " s" for c in compilers]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        row, ratio = [name], None
        for target in TARGETS:
            ok, secs, r, msg = check_plans(args.gir, model, target)
            ratio = r if target == "cpu-host" else ratio
            row.append(f"{secs:.1f}" + ("" if ok else " FAIL"))
            if not ok:
                failures.append(f"{name} plan {target}: {msg}")
        row.append("-" if ratio is None else f"{ratio:.2f}")
        ok, secs, msg = check_run(args.gir, model)
        row.append(f"{secs:.1f}" + ("" if ok else " FAIL"))
        if not ok:
            failures.append(f"{name} run cpu: {msg}")
        with tempfile.TemporaryDirectory(prefix="gir-scale-") as work:
            for target, cmd, ext, label in compilers:
                ok, secs, msg = compile_sources(args.gir, model, target, cmd, ext, work)
                row.append(f"{secs:.1f}" + ("" if ok else " FAIL"))
                if not ok:
                    failures.append(f"{name} {label}: {msg}")
        print("| " + " | ".join(row) + " |", flush=True)
    for f in failures:
        print("FAIL " + f)
    print(f"{len(models)} scenarios, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
