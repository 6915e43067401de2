#!/usr/bin/env python3
"""GPU benchmark driver (issue 7): for every bundled scenario, `gir codegen --planner all` writes the
GIR plan and the per-op plan as CUDA; each is built with nvcc, checked against the reference outputs
and timed by its harness (CUDA events, warm-up, median). PyTorch eager and torch.compile run the same
computation, and a device-to-device copy gives the bandwidth ceiling. Writes a Markdown report.

--scale adds the DRAM-scale scenarios of scenarios/scale (tens of MB each; PyTorch runs them through the CPU
benchmark's hand-written versions, bench/cpu/scenario_fns.py, on the GPU). --jobs runs code generation and
the nvcc builds in parallel; the timed runs are always one at a time.

--dry-run does everything that needs no GPU (code generation, manifests, and the nvcc builds unless
--no-compile) and writes the report with the measurements marked as not run; the tests use it."""
import argparse
import concurrent.futures
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "cpu"))


def run(cmd, cwd=None, timeout=900):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def result_line(text, tag):
    m = re.search(tag + r" (\{.*\})", text)
    return json.loads(m.group(1)) if m else None


# PyTorch versions of the scenarios (same shapes as scenarios/make_scenarios.py; weights are random,
# they are timed, not compared). Each returns (function, list of input tensors).
def torch_scenarios(torch):
    dev = "cuda"
    f = torch.float32
    r = lambda *s: torch.randn(*s, device=dev, dtype=f)
    ln = torch.nn.functional.layer_norm
    g768, b768 = r(768), r(768)
    return {
        "softmax": (lambda x: torch.softmax(x, -1), [r(64, 1024)]),
        "silu": (lambda x: x * torch.sigmoid(x), [r(64, 1024)]),
        "gelu": (lambda x: 0.5 * x * (1 + torch.erf(x / math.sqrt(2.0))), [r(64, 1024)]),
        "layernorm": (lambda x: ln(x, (768,), g768, b768, 1e-5), [r(64, 768)]),
        "rmsnorm": (lambda x: x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6) * g768, [r(64, 768)]),
        "row_reduction": (lambda x: x.sum(-1, keepdim=True), [r(256, 1024)]),
        "column_reduction": (lambda x: x.sum(0, keepdim=True), [r(1024, 256)]),
        "transpose_reduce": (lambda x: x.t().amax(-1, keepdim=True), [r(256, 512)]),
        "bert_bias_residual_layernorm": (lambda h, res: ln(h + b768 + res, (768,), g768, b768, 1e-5), [r(128, 768), r(128, 768)]),
        "shufflenet": (lambda a, b: torch.cat([a, b], 1).reshape(1, 2, 116, 28, 28).transpose(1, 2).reshape(1, 232, 28, 28).split(116, 1),
                       [r(1, 116, 28, 28), r(1, 116, 28, 28)]),
    }


def time_torch(torch, fn, inputs, warmup, repeat):
    for _ in range(warmup):
        fn(*inputs)
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeat):
        start.record()
        fn(*inputs)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def torch_scale_scenario(torch, model):
    """A DRAM-scale scenario through the CPU benchmark's hand-written PyTorch version, on the GPU."""
    import scenario_fns
    spec = scenario_fns.describe(model)
    fn = scenario_fns.torch_fn(spec, device="cuda")
    inputs = [torch.randn(*spec.input_shapes[n], device="cuda", dtype=torch.float32) for n in spec.inputs]
    return fn, inputs


def measure_torch(names, models, args, notes):
    out = {}
    try:
        import torch
        if not torch.cuda.is_available():
            notes.append("PyTorch: installed, but torch.cuda.is_available() is false")
            return out
    except Exception as e:  # noqa: BLE001 - any import failure means no PyTorch column
        notes.append("PyTorch: not importable (%s)" % e)
        return out
    table = torch_scenarios(torch)
    for name in names:
        if name in table:
            fn, inputs = table[name]
        else:
            try:
                fn, inputs = torch_scale_scenario(torch, models[name])
            except Exception as e:  # noqa: BLE001 - scenario_fns.Unsupported or a bad model: no PyTorch column
                notes.append("PyTorch: no version of %s (%s)" % (name, str(e)[:160]))
                continue
        entry = {"eager_us": time_torch(torch, fn, inputs, args.warmup, args.repeat)}
        try:
            compiled = torch.compile(fn)
            entry["compile_us"] = time_torch(torch, compiled, inputs, max(args.warmup, 3), args.repeat)
        except Exception as e:  # noqa: BLE001 - torch.compile can fail per graph; report it
            notes.append("torch.compile failed on %s: %s" % (name, str(e).splitlines()[0][:200]))
        out[name] = entry
        print("torch %s: %s" % (name, json.dumps(entry)), flush=True)
        torch.cuda.empty_cache()
    notes.append("PyTorch %s, device %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    return out


def copy_bandwidth(args, work, notes):
    if args.dry_run:
        return None
    exe = os.path.join(work, "copy_bandwidth")
    code, text = run([args.nvcc, "-O3", "-o", exe, os.path.join(ROOT, "bench/gpu/copy_bandwidth.cu")])
    if code != 0:
        notes.append("copy bandwidth: nvcc failed: " + text[:300])
        return None
    code, text = run([exe])
    res = result_line(text, "COPY_RESULT")
    if not res:
        notes.append("copy bandwidth: no result: " + text[:300])
    return res


def scenario_models(args):
    """{name: path} of the bundled scenarios, plus scenarios/scale with --scale, filtered by --only."""
    models = {}
    dirs = [os.path.join(ROOT, "scenarios")] + ([os.path.join(ROOT, "scenarios", "scale")] if args.scale else [])
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith(".onnx"):
                models[f[:-5]] = os.path.join(d, f)
    only = [n for n in args.only.split(",") if n]
    return {k: v for k, v in models.items() if not only or k in only}


def generate_one(args, work, name, model):
    out = os.path.join(work, name)
    code, text = run([args.gir, "codegen", model, "--target", args.target, "--planner", "all", "-o", out])
    return name, out, code, text


def generate(args, work, models, notes):
    """gir codegen for every scenario; returns {scenario: [case dicts]} and {scenario: reason}."""
    cases, missing = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = list(pool.map(lambda item: generate_one(args, work, *item), sorted(models.items())))
    for name, out, code, text in done:
        if code != 0:
            missing[name] = text.strip().splitlines()[-1][:240] if text.strip() else "exit %d" % code
            continue
        for line in text.splitlines():
            if line.startswith("warning: no GPU code for"):
                notes.append(line[len("warning: "):][:300])
        with open(os.path.join(out, "manifest.json")) as m:
            manifest = json.load(m)
        for c in manifest["cases"]:
            c["path"] = os.path.join(out, c["dir"])
        cases[name] = manifest["cases"]
    return cases, missing


def build(args, case):
    """nvcc through the case's build.sh; True when a binary is there to run."""
    if args.no_compile:
        case["status"] = "not built (--no-compile)"
        return False
    env = dict(os.environ, NVCC=args.nvcc)
    p = subprocess.run(["sh", "build.sh"], cwd=case["path"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        case["status"] = "build failed: " + (p.stdout + p.stderr)[:300]
        return False
    if args.dry_run:
        case["status"] = "built (dry run, not run)"
        return False
    return True


def run_case(args, case):
    """The harness: checks against the reference outputs, then times with CUDA events."""
    code, text = run([os.path.join(case["path"], case["name"]), os.path.join(case["path"], "data"),
                      "--warmup", str(args.warmup), "--repeat", str(args.repeat)])
    res = result_line(text, "GIR_RESULT")
    if not res:
        case["status"] = "no result (exit %d): %s" % (code, text[:300])
        return
    case.update(res)
    case["status"] = "ok" if res["ok"] else "MISMATCH (max rel error %.3g)" % res["max_rel_error"]
    # One line per case as it finishes, so a run cut off before the report still says what it measured.
    print("case %s: %s, %s" % (case["name"], case["status"], json.dumps(res)), flush=True)


def total(cases, planner):
    """A planner's plan of a whole model: its subgraphs' cases summed (kernels, bytes, median times)."""
    cs = [c for c in cases if c["planner"] == planner]
    if not cs:
        return {}
    out = {"kernels": sum(c["kernels"] for c in cs), "min_bytes": sum(c["min_bytes"] for c in cs)}
    if all(isinstance(c.get("median_us"), (int, float)) for c in cs):
        out["median_us"] = sum(c["median_us"] for c in cs)
    return out


def fmt(v, spec="%.2f"):
    return spec % v if isinstance(v, (int, float)) and not isinstance(v, bool) else "n/a"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def report(args, cases, missing, torch_times, copy, notes):
    lines = ["# GPU benchmark report", ""]
    lines.append("Generated by `bench/gpu/run_gpu_bench.sh` on %s (%s), target `%s`, %s." % (
        platform.node(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), args.target,
        "DRY RUN: nothing was run on a GPU" if args.dry_run else "warm-up %d, median of %d" % (args.warmup, args.repeat)))
    lines.append("")
    bw = copy["gbs"] if copy else None
    lines.append("Device-to-device copy (bandwidth ceiling): %s GB/s." % fmt(bw))
    lines.append("")
    lines.append("| scenario | min bytes | GIR kernels | GIR us | GIR GB/s | of copy BW | eager kernels | eager us | xla us | tvm us | torch eager us | torch.compile us | GIR vs eager | GIR vs torch.compile | numerics |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    vs_compile, vs_eager, fractions = [], [], []
    for name, cs in sorted(cases.items()):
        gir, per, xla, tvm = (total(cs, p) for p in ("gir", "eager", "xla", "tvm"))
        t = torch_times.get(name, {})
        g_us, p_us = gir.get("median_us"), per.get("median_us")
        gbs = gir["min_bytes"] / (g_us * 1e-6) / 1e9 if g_us else None
        frac = gbs / bw if gbs and bw else None
        sp_p = p_us / g_us if g_us and p_us else None
        sp_c = t.get("compile_us") / g_us if g_us and t.get("compile_us") else None
        if sp_c:
            vs_compile.append(sp_c)
        if t.get("eager_us") and g_us:
            vs_eager.append(t["eager_us"] / g_us)
        if frac:
            fractions.append(frac)
        status = "; ".join(sorted({c.get("status", "?") for c in cs}))
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, gir.get("min_bytes", 0), gir.get("kernels", "n/a"), fmt(g_us), fmt(gbs), fmt(frac and 100 * frac, "%.0f%%"),
            per.get("kernels", "n/a"), fmt(p_us), fmt(xla.get("median_us")), fmt(tvm.get("median_us")), fmt(t.get("eager_us")),
            fmt(t.get("compile_us")), fmt(sp_p, "%.2fx"), fmt(sp_c, "%.2fx"), status))
    lines.append("")
    lines.append("Geometric-mean speedup of the GIR plan: %s over torch.compile, %s over PyTorch eager; "
                 "mean fraction of copy bandwidth: %s." % (fmt(geomean(vs_compile), "%.2fx"), fmt(geomean(vs_eager), "%.2fx"),
                                                          fmt(fractions and 100 * sum(fractions) / len(fractions), "%.0f%%")))
    lines.append("")
    lines.append("A model with several memory-bound subgraphs sums them (one program per subgraph and planner). "
                 "GIR GB/s is the scenario's minimal DRAM bytes (inputs read once, outputs written once) over the GIR plan's "
                 "median time; 'of copy BW' divides it by the measured device-to-device copy bandwidth.")
    if missing:
        lines += ["", "Scenarios without a GPU plan:", ""]
        lines += ["- %s: %s" % (k, v) for k, v in sorted(missing.items())]
    if notes:
        lines += ["", "Notes:", ""] + ["- " + n for n in notes]
    with open(args.report, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--report", default=os.path.join(ROOT, "bench/gpu/REPORT.md"))
    ap.add_argument("--target", default="nvidia-h100")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--scale", action="store_true", help="add the DRAM-scale scenarios of scenarios/scale")
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel codegen and nvcc builds")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    notes = []
    models = scenario_models(args)
    cases, missing = generate(args, args.work, models, notes)
    if not cases:
        print("gpu_bench: no scenario produced a GPU plan", file=sys.stderr)
        return 1
    every = [c for cs in cases.values() for c in cs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        built = list(pool.map(lambda c: build(args, c), every))
    for c, ok in zip(every, built):
        if ok:
            run_case(args, c)
    torch_times = {} if args.dry_run else measure_torch(sorted(cases), models, args, notes)
    copy = copy_bandwidth(args, args.work, notes)
    report(args, cases, missing, torch_times, copy, notes)
    bad = [c["name"] for cs in cases.values() for c in cs if c.get("status", "").startswith(("MISMATCH", "build failed", "no result"))]
    if bad:
        print("gpu_bench: failing cases: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
