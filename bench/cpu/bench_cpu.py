#!/usr/bin/env python3
"""CPU benchmark driver (issue #6): per memory-bound row-wise scenario, interleaved so the machine's
drift hits every variant alike: STREAM copy (gir run --calibrate), the GIR plan and the eager plan
through the same code generator (gir run --measure), then the peers (ONNX Runtime, PyTorch eager,
torch.compile, JAX jit, Apache TVM), all with 2 threads. Prints a table and writes REPORT.md.

A peer that is not installed or cannot run a model is skipped with the reason. Not a test."""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

SCENARIOS = ["softmax", "layernorm", "rmsnorm", "gelu", "silu", "row_reduction", "bert_bias_residual_layernorm"]
THREADS = 2


def median_us(fn, budget_s=0.3, min_repeats=20, max_repeats=2000):
    for _ in range(3):
        fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    n = int(min(max(budget_s / one, min_repeats), max_repeats))
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def load_model(path):
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    inputs = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        shape = [d.dim_value for d in i.type.tensor_type.shape.dim]
        inputs[i.name] = shape
    return m, inits, inputs


def random_inputs(shapes, seed=1):
    import numpy as np
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(v).astype(np.float32) for k, v in shapes.items()}


def scenario_fn(name, ops, inits):
    """The scenario written in a framework's own API; `ops` supplies the few primitives that differ."""
    if name == "softmax":
        return lambda x: ops["softmax"](x)
    if name == "layernorm":
        return lambda x: ops["layer_norm"](x, inits["ln_gamma"], inits["ln_beta"], 1e-5)
    if name == "rmsnorm":
        return lambda x: x / ops["sqrt"](ops["mean_last"](x * x) + 1e-6) * inits["gamma"]
    if name == "gelu":
        return lambda x: x * (ops["erf"](x / math.sqrt(2.0)) + 1.0) * 0.5
    if name == "silu":
        return lambda x: x * ops["sigmoid"](x)
    if name == "row_reduction":
        return lambda x: ops["sum_last"](x)
    if name == "bert_bias_residual_layernorm":
        return lambda h, residual: ops["layer_norm"](h + inits["bias"] + residual, inits["ln_gamma"], inits["ln_beta"], 1e-5)
    raise KeyError(name)


def peer_ort(path, feeds):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.enable_profiling = True
    so.profile_file_prefix = os.path.join(tempfile.gettempdir(), "gir_bench_ort")
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    for _ in range(20):
        sess.run(None, feeds)
    prof = sess.end_profiling()
    with open(prof) as f:
        events = json.load(f)
    os.remove(prof)
    runs = [e["dur"] for e in events if e.get("name") == "model_run"][3:]  # its own profiler, warm-up dropped
    return statistics.median(runs)


def peer_torch(name, inits, feeds, compiled):
    import torch
    torch.set_num_threads(THREADS)
    ti = {k: torch.from_numpy(v) for k, v in inits.items()}
    ops = {"softmax": lambda x: torch.softmax(x, -1),
           "layer_norm": lambda x, g, b, e: torch.nn.functional.layer_norm(x, (x.shape[-1],), g, b, e),
           "sqrt": torch.sqrt, "mean_last": lambda x: x.mean(-1, keepdim=True), "erf": torch.erf,
           "sigmoid": torch.sigmoid, "sum_last": lambda x: x.sum(-1)}
    fn = scenario_fn(name, ops, ti)
    if compiled:
        fn = torch.compile(fn)
    args = [torch.from_numpy(v) for v in feeds.values()]
    with torch.no_grad():
        return median_us(lambda: fn(*args))


def peer_jax(name, inits, feeds):
    import jax
    import jax.numpy as jnp
    ops = {"softmax": lambda x: jax.nn.softmax(x, axis=-1),
           "layer_norm": lambda x, g, b, e: (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + e) * g + b,
           "sqrt": jnp.sqrt, "mean_last": lambda x: x.mean(-1, keepdims=True), "erf": jax.scipy.special.erf,
           "sigmoid": jax.nn.sigmoid, "sum_last": lambda x: x.sum(-1)}
    ji = {k: jnp.asarray(v) for k, v in inits.items()}
    fn = jax.jit(scenario_fn(name, ops, ji))
    args = [jnp.asarray(v) for v in feeds.values()]
    return median_us(lambda: fn(*args).block_until_ready())


def peer_tvm(path, feeds):
    import onnx
    import tvm
    model = onnx.load(path)
    shapes = {k: list(v.shape) for k, v in feeds.items()}
    try:
        from tvm import relay  # TVM <= 0.19: Relay, graph executor
    except ImportError:
        relay = None
    if relay is None:  # TVM >= 0.20: Relax, the default pipeline, the VM
        from tvm import relax
        from tvm.relax.frontend.onnx import from_onnx
        mod = from_onnx(model, shape_dict=shapes, keep_params_in_input=False)
        ex = tvm.compile(mod, target="llvm")
        vm = relax.VirtualMachine(ex, tvm.cpu())
        args = [tvm.runtime.tensor(v) for v in feeds.values()]
        return median_us(lambda: vm["main"](*args))
    from tvm.contrib import graph_executor
    mod, params = relay.frontend.from_onnx(model, shapes)
    with tvm.transform.PassContext(opt_level=3):
        lib = relay.build(mod, target="llvm", params=params)
    m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
    for k, v in feeds.items():
        m.set_input(k, v)
    return median_us(m.run)


def run_peer(label, fn):
    try:
        return fn(), None
    except Exception as e:  # a peer that cannot run a model is skipped with the reason
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


def gir_run(gir, model, cache, cal_out):
    cmd = [gir, "run", model, "--target", "cpu", "--planner", "all", "--measure", "--json", "--threads", str(THREADS),
           "--calibrate", "--calibrate-out", cal_out, "--cache", cache]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or out.stdout.strip())
    return json.loads(out.stdout)


def machine_description():
    lines = []
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for key in ("Model name", "CPU(s)", "Thread(s) per core", "L1d cache", "L2 cache", "L3 cache"):
            for l in lscpu.splitlines():
                if l.startswith(key + ":"):
                    lines.append(f"- {key}: {l.split(':', 1)[1].strip()}")
    except OSError:
        pass
    try:
        mem = open("/proc/meminfo").readline().split()
        lines.append(f"- memory: {int(mem[1]) // 1024} MiB")
    except OSError:
        pass
    lines.append(f"- load average at start: {os.getloadavg()}")
    cxx = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()
    lines.append(f"- compiler: {cxx[0] if cxx else 'unknown'}")
    lines.append(f"- OS: {platform.platform()}; Python {platform.python_version()}")
    return "\n".join(lines)


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gir", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--skip", default="", help="comma-separated peers to skip, with the reason given by the script")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--append", action="store_true", help="append a section to the report instead of writing it anew")
    a = ap.parse_args()
    global THREADS
    THREADS = a.threads
    skip = {s.split("=")[0]: (s.split("=", 1)[1] if "=" in s else "skipped by the caller") for s in a.skip.split(",") if s}
    peers = ["onnxruntime", "torch-eager", "torch-compile", "jax-jit", "tvm"]
    rows, reasons, model_points = [], {}, []
    for name in SCENARIOS:
        path = os.path.join(a.source, "scenarios", name + ".onnx")
        _, inits, shapes = load_model(path)
        feeds = random_inputs(shapes)
        cal_out = os.path.join(a.cache, "cpu-host.bench.json")
        g = gir_run(a.gir, path, a.cache, cal_out)  # STREAM copy, GIR and eager plans: interleaved per scenario
        row = {"scenario": name, "min_bytes": g["min_bytes"], "stream_gbs": g["stream_copy_gbs"],
               "gir": g["planners"]["gir"]["measured_us"], "eager": g["planners"]["eager"]["measured_us"],
               "xla": g["planners"]["xla"]["measured_us"], "tvm-plan": g["planners"]["tvm"]["measured_us"],
               "gir_model": g["planners"]["gir"]["modelled_us"]}
        for c in g["candidates"]:
            if c.get("measured_us"):
                model_points.append((name, c["planner"], c["variant"], c["modelled_us"], c["measured_us"]))
        for p in ("xla", "tvm"):
            if g["planners"][p].get("skipped"):
                reasons[f"{p}-like plan (same codegen)"] = g["planners"][p]["skipped"]
        calls = {"onnxruntime": lambda: peer_ort(path, feeds),
                 "torch-eager": lambda: peer_torch(name, inits, feeds, False),
                 "torch-compile": lambda: peer_torch(name, inits, feeds, True),
                 "jax-jit": lambda: peer_jax(name, inits, feeds),
                 "tvm": lambda: peer_tvm(path, feeds)}
        for p in peers:
            if p in skip:
                row[p], reasons[p] = None, skip[p]
                continue
            row[p], why = run_peer(p, calls[p])
            if why:
                reasons.setdefault(p, why)
        best = min([row[p] for p in peers if row[p]], default=None)
        row["best_peer"] = best
        row["speedup"] = best / row["gir"] if best and row["gir"] else None
        row["eff_frac"] = (row["min_bytes"] / (row["gir"] * 1e-6) / 1e9) / row["stream_gbs"] if row["gir"] else None
        rows.append(row)
        print(f"{name}: gir {fmt(row['gir'])} us, eager {fmt(row['eager'])} us, " +
              ", ".join(f"{p} {fmt(row[p])}" for p in peers), flush=True)

    head = "| scenario | min bytes | STREAM copy GB/s | GIR us | eager plan us | xla-like plan us | tvm-like plan us | " + \
           " | ".join(f"{p} us" for p in peers) + " | GIR eff. BW / STREAM | speedup vs best peer |"
    sep = "|" + "---|" * (9 + len(peers))
    lines = [head, sep]
    for r in rows:
        lines.append(f"| {r['scenario']} | {r['min_bytes']} | {fmt(r['stream_gbs'])} | {fmt(r['gir'])} | {fmt(r['eager'])} | "
                     f"{fmt(r['xla'])} | {fmt(r['tvm-plan'])} | " +
                     " | ".join(fmt(r[p]) for p in peers) + f" | {fmt(100 * r['eff_frac'] if r['eff_frac'] else None)} % | {fmt(r['speedup'], 2)}x |")
    gm = geomean([r["speedup"] for r in rows])
    lines.append(f"\nGeometric-mean speedup of the GIR plan over the best peer per scenario: {fmt(gm, 2)}x")
    for plan in ("eager", "xla", "tvm-plan"):
        lines.append(f"Geometric-mean speedup of the GIR plan over the {plan} plan (same codegen): " +
                     f"{fmt(geomean([r[plan] / r['gir'] for r in rows if r['gir'] and r[plan]]), 2)}x")
    table = "\n".join(lines)
    print(table)

    sys.path.insert(0, os.path.dirname(__file__))
    mape = statistics.mean(abs(m - t) / t * 100 for _, _, _, m, t in model_points) if model_points else None
    spearman = None
    if len(model_points) >= 2:
        def ranks(v):
            order = sorted(range(len(v)), key=lambda i: v[i])
            r = [0.0] * len(v)
            for pos, i in enumerate(order):
                r[i] = pos
            return r
        rm, rt = ranks([p[3] for p in model_points]), ranks([p[4] for p in model_points])
        mm, mt = statistics.mean(rm), statistics.mean(rt)
        num = sum((x - mm) * (y - mt) for x, y in zip(rm, rt))
        den = math.sqrt(sum((x - mm) ** 2 for x in rm) * sum((y - mt) ** 2 for y in rt))
        spearman = num / den if den else None
    with open(a.report, "a" if a.append else "w") as f:
        if not a.append:
            f.write("# CPU benchmark report (bench/cpu/run_bench.sh)\n\n")
            f.write(f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/cpu/run_bench.sh`.\n\n")
            f.write("## Machine\n\n" + machine_description() + "\n\n")
        f.write(f"## {THREADS} thread(s): latency (median, us), effective bandwidth, speedups\n\n" + table + "\n\n")
        f.write("Effective bandwidth = the subgraph's minimal bytes (inputs read once + outputs written once) / the GIR plan's "
                "median time, as a fraction of the STREAM copy bandwidth measured just before that scenario.\n\n")
        f.write(f"### Skipped peers and plans ({THREADS} thread(s))\n\n")
        for k, v in reasons.items():
            f.write(f"- {k}: {v}\n")
        f.write(f"\n### Modelled vs measured over every candidate measured ({THREADS} thread(s))\n\n")
        f.write(f"{len(model_points)} candidates; MAPE {fmt(mape)} %; Spearman {fmt(spearman, 3)}\n\n")
        f.write("| scenario | planner | variant | modelled us | measured us |\n|---|---|---|---|---|\n")
        for s, p, v, m, t in model_points:
            f.write(f"| {s} | {p} | {v} | {m:.1f} | {t:.1f} |\n")
    print(f"wrote {a.report}")


if __name__ == "__main__":
    main()
