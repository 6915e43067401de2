#!/usr/bin/env python3
"""CPU benchmark driver (issue #16): GIR against ONNX Runtime, OpenVINO, PyTorch eager, torch.compile and
JAX jit on memory-bound scenarios, with STREAM copy as the yardstick. Not a test: it measures and writes
bench/cpu/REPORT.md and bench/cpu/speedup.png (bench/cpu/run_bench.sh sets it up and runs it).

Per scenario (every scenarios/scale/*.onnx plus the bundled single-subgraph ones), runs are interleaved
so that the machine's drift hits everyone alike: R rounds, each measuring STREAM copy (stream_copy.c),
GIR (`gir run --planner all --measure`, hot, then with --cold), then every peer (hot, then cold), all
with T threads. Each peer runs in a worker process of its own (peers.py), built and checked against ONNX
Runtime's outputs once per scenario before the rounds; a peer that does not match is reported as a
mismatch and not timed. The report gives the median over rounds of each one's median time.

GIR's time for a scenario is the measured time of the GIR planner's fastest candidate that matched the
reference evaluator, summed over subgraphs; candidates that did not match are listed, never counted.
`--raw` keeps every measurement as JSON; `--report-only RAW` rewrites the report from such a file.
"""
import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402  (bench/cpu/report.py)
from peers import MODULES, PEERS  # noqa: E402

BUNDLED = ["softmax", "layernorm", "rmsnorm", "gelu", "silu", "row_reduction", "bert_bias_residual_layernorm"]
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "4294967296"}
SETUP_TIMEOUT_S, TIMING_TIMEOUT_S, GIR_TIMEOUT_S = 1800, 600, 3600


def parse_args():
    ap = argparse.ArgumentParser(description="CPU benchmark driver (not a test); see the module docstring.")
    ap.add_argument("--gir", help="the gir binary")
    ap.add_argument("--source", default=os.path.dirname(os.path.dirname(HERE)), help="the repository root")
    ap.add_argument("--cache", help="gir's compile cache (default BUILD/bench-cache next to --gir's build)")
    ap.add_argument("--work", help="folder for STREAM's binary, inputs, references and logs (default: a temporary one)")
    ap.add_argument("--report", default=os.path.join(HERE, "REPORT.md"))
    ap.add_argument("--plot", default=os.path.join(HERE, "speedup.png"))
    ap.add_argument("--reasons", default=os.path.join(HERE, "MISSES.md"),
                    help="the reasons for the goals' misses, written by hand; its first line 'run: STARTED' names the run it explains")
    ap.add_argument("--raw", help="also write every measurement to this JSON file")
    ap.add_argument("--report-only", metavar="RAW", help="write the report and plot from a --raw file, measure nothing")
    ap.add_argument("--threads", type=int, default=2, help="T: threads for STREAM, GIR and every peer (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="R: interleaved rounds per scenario (default 3)")
    ap.add_argument("--only", default="", help="comma-separated scenario names (file names without .onnx)")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated peers to run (default all)")
    ap.add_argument("--skip-file", help="lines 'PEER<TAB>REASON' for peers that failed to install")
    ap.add_argument("--budget", type=float, default=0.5, help="seconds of calls per peer timing (default 0.5)")
    ap.add_argument("--stream-mib", type=int, default=256, help="MiB per STREAM array (default 256)")
    return ap.parse_args()


def list_scenarios(source, only):
    """(name, path, dram_scale) for every scenario, or for those --only names."""
    scale_dir = os.path.join(source, "scenarios", "scale")
    found = [(f[:-5], os.path.join(scale_dir, f), True) for f in sorted(os.listdir(scale_dir)) if f.endswith(".onnx")]
    found += [(n, os.path.join(source, "scenarios", n + ".onnx"), False) for n in BUNDLED]
    if not only:
        return found
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = sorted(set(names) - {n for n, _, _ in found})
    if unknown:
        sys.exit(f"bench_cpu: unknown scenario(s) {', '.join(unknown)}; known: {', '.join(n for n, _, _ in found)}")
    return [s for s in found if s[0] in names]


def child_env(threads):
    """The environment of every process the benchmark starts: T threads everywhere, the raised malloc thresholds."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                "TBB_NUM_THREADS"):
        env[var] = str(threads)
    for var, value in MALLOC_ENV.items():
        env.setdefault(var, value)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


def last_level_cache_bytes():
    """The largest cache this CPU reports (sysfs), 32 MiB if it reports none."""
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    for index in os.listdir(base) if os.path.isdir(base) else []:
        try:
            size = open(os.path.join(base, index, "size")).read().strip()
        except OSError:
            continue
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
        best = max(best, int(size.rstrip("KMG")) * mult)
    return best or 32 << 20


# ------------------------------------------------------------------------------------------- STREAM copy


def compile_stream(work):
    """cc -O3 -march=native -fopenmp stream_copy.c; returns (binary, None) or (None, reason)."""
    binary = os.path.join(work, "stream_copy")
    cmd = ["cc", "-O3", "-march=native", "-fopenmp", os.path.join(HERE, "stream_copy.c"), "-o", binary]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, f"cannot compile stream_copy.c: {(out.stderr.strip().splitlines() or ['?'])[-1][:200]}"
    return binary, None


def run_stream(binary, threads, mib, env):
    if binary is None:
        return None
    out = subprocess.run([binary, str(threads), str(mib), "10"], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[:200]}
    return json.loads(out.stdout)


# --------------------------------------------------------------------------------------------------- GIR


def gir_supports_cold(gir, source, cache, env):
    """True unless `gir run --cold` on a small model fails with "unknown option"."""
    cmd = [gir, "run", os.path.join(source, "scenarios", "silu.onnx"), "--target", "cpu", "--planner", "gir", "--cold", "--cache", cache]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return "unknown option" not in (out.stderr + out.stdout)


def calibrate_gir(gir, source, threads, cache, work, env, tag="start"):
    """`gir run --calibrate`, so the modelled times use this machine's measured bandwidths and costs:
    the path of the calibrated description, or None (the report then says the model ran on the
    uncalibrated description). Run before every scenario's GIR runs: this shared virtual machine's
    memory bandwidth has moved 2x within half an hour (STREAM copy 20 and then 12 GB/s), and a model
    priced with the start's bandwidth then misses by that factor for reasons that are not its own."""
    path = os.path.join(work, f"cpu-host.calibrated.{tag}.json")
    cmd = [gir, "run", os.path.join(source, "scenarios", "silu.onnx"), "--target", "cpu", "--planner", "gir", "--threads", str(threads),
           "--cache", cache, "--calibrate", "--calibrate-out", path]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return path if out.returncode == 0 and os.path.exists(path) else None


def with_warm_curve(hardware, warm, path):
    """`hardware` with the warm-copy curve (and the streaming-store threshold read off it) of the
    calibration `warm`, written to `path`; `hardware` itself when either is missing.

    The warm curve is measured before the scenario's peers start, the rest with them alive, as the
    runs they price are timed. Right after the peers load (five processes, each with a 1 GB eviction
    buffer), this host's cache-sized copies ran at a third of their rate: the warm curve's 96 MiB
    point fell from 33-41 GB/s to 13-16, while GIR's hot kernels, timed in that state moments later,
    ran as fast as on an idle machine (ReduceSum rows 4096x4096: 57 GB/s at a 64 MiB footprint); the
    model of every 32-96 MiB scenario was priced at the fallen rate (hot MAPE 44 %). The cold copy,
    by contrast, matched the cold runs when measured with the peers alive (cold MAPE 15 %) and not
    before them (39 % over four scenarios). docs/cpu.md, "Calibration"."""
    if not hardware or not warm:
        return hardware
    with open(hardware) as f:
        merged = json.load(f)
    ours = {p["footprint_bytes"]: p for p in merged.get("warm_copy", [])}
    with open(warm) as f:
        before = json.load(f)
    for key in ("warm_copy", "stream_store_above_bytes"):
        if key in before:
            merged[key] = before[key]
    # Each point of the curve at the higher of the two calibrations' rates: a neighbour's burst only
    # slows a copy, so the faster reading is the better estimate of the machine (STREAM reports its best
    # of repeats for the same reason). On 2026-11-28 14:37 the first scenario's curve measured before
    # its peers fell to 7.8 GB/s at 96 MiB (16.0 in the round's own calibration a minute later, 16-19
    # for every other scenario), and that scenario's model missed by 108 %.
    for point in merged.get("warm_copy", []):
        other = ours.get(point["footprint_bytes"])
        if other:
            for rate in ("plain_gbs", "streaming_gbs"):
                point[rate] = max(point[rate], other.get(rate, 0))
    with open(path, "w") as f:
        json.dump(merged, f, indent=2)
    return path


def calibrated_stream_gbs(hardware):
    """The device level's bandwidth in a calibrated description (STREAM copy), or None."""
    try:
        with open(hardware) as f:
            levels = json.load(f)["levels"]
        return next(l["bandwidth_gbs"] for l in levels if l.get("scope") == "device")
    except (OSError, TypeError, ValueError, KeyError, StopIteration):
        return None


def run_gir(gir, model, threads, cache, cold, env, hardware=None):
    """One `gir run --planner all --measure --json`, summarised (see summarize_gir)."""
    cmd = [gir, "run", model, "--target", "cpu", "--planner", "all", "--measure", "--json", "--threads", str(threads), "--cache", cache]
    if hardware:
        cmd += ["--hardware", hardware]
    if cold:
        cmd.append("--cold")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=GIR_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"gir run timed out after {GIR_TIMEOUT_S} s"}
    if out.returncode != 0:
        lines = (out.stderr.strip() or out.stdout.strip() or f"exit status {out.returncode}").splitlines()
        return {"error": f"gir run failed: {lines[-1][:300]}"}
    try:
        return summarize_gir(json.loads(out.stdout[out.stdout.index("{"):]))
    except ValueError as e:
        return {"error": f"cannot read gir run's JSON: {e}"}


def summarize_gir(j):
    """Per planner, the fastest matching candidate's measured time summed over subgraphs (None when a
    subgraph has no matching, measured candidate), the candidates that did not match, the planners'
    skip reasons, and every matching candidate's modelled and measured time."""
    cands = j.get("candidates", [])
    subgraphs = sorted({c["subgraph"] for c in cands})
    times, skipped, mismatches, points = {}, {}, [], {}
    for c in cands:
        key = f"{c['subgraph']}/{c['planner']}/{c['variant']}"
        if c.get("skipped"):
            skipped[c["planner"]] = c["skipped"]
        elif not c.get("matches"):
            mismatches.append({"subgraph": c["subgraph"], "planner": c["planner"], "variant": c["variant"],
                               "max_rel_error": c.get("max_rel_error")})
        elif c.get("measured_us") is not None:
            points[key] = [c["modelled_us"], c["measured_us"], c.get("source_hash")]
    for planner in {c["planner"] for c in cands}:
        total = 0.0
        for s in subgraphs:
            mine = [p[1] for k, p in points.items() if k.startswith(f"{s}/{planner}/")]
            if not mine:
                total = None
                break
            total += min(mine)
        times[planner] = total
    return {"min_bytes": j.get("min_bytes"), "times": times, "skipped": skipped, "mismatches": mismatches, "points": points}


# ------------------------------------------------------------------------------------------------- peers


class PeerWorker:
    """A peers.py process for one peer and one scenario, spoken to one JSON line at a time."""

    def __init__(self, peer, model, inputs, reference, write_reference, args, flush_bytes, env, log):
        cmd = [sys.executable, os.path.join(HERE, "peers.py"), "--peer", peer, "--model", model, "--inputs", inputs,
               "--reference", reference, "--threads", str(args.threads), "--flush-bytes", str(flush_bytes), "--budget", str(args.budget)]
        if write_reference:
            cmd.append("--write-reference")
        self.peer = peer
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env, bufsize=0)
        self.pending = b""

    def read(self, timeout):
        """The next JSON line, or {"error": ...} when the worker dies or stays silent past the timeout."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                self.close(kill=True)
                return {"error": f"no answer within {timeout} s"}
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                code = self.proc.wait()
                return {"error": f"the worker exited (status {code}); see its log"}
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def ask(self, command, timeout=TIMING_TIMEOUT_S):
        try:
            self.proc.stdin.write((command + "\n").encode())
        except (BrokenPipeError, OSError):
            return {"error": "the worker is gone"}
        return self.read(timeout)

    def close(self, kill=False):
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                try:
                    self.proc.stdin.write(b"quit\n")
                    self.proc.stdin.close()
                except OSError:
                    pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def probe_peers(peers, skips, env):
    """Per peer, its version (imports fine) or the reason it is skipped (failed to install or to import)."""
    versions, reasons = {}, {}
    for peer in peers:
        if peer in skips:
            reasons[peer] = skips[peer]
            continue
        module = MODULES[peer]
        code = f"import {module} as m; print(getattr(m, '__version__', '?'))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["?"])[-1]
            reasons[peer] = f"cannot import {module}: {last[:200]}"
        else:
            versions[peer] = out.stdout.strip().split("-")[0]
    return versions, reasons


def reference_without_ort(model, feeds, path):
    """The onnx package's numpy reference evaluator, for when ONNX Runtime cannot give the reference."""
    from onnx.reference import ReferenceEvaluator
    np.savez(path, *ReferenceEvaluator(model).run(None, feeds))


def start_peers(peers, name, model, feeds, args, flush_bytes, env, work):
    """Starts, builds and checks every peer in turn; returns {peer: worker} and {peer: (status, reason)}."""
    inputs, reference = os.path.join(work, f"{name}.inputs.npz"), os.path.join(work, f"{name}.reference.npz")
    np.savez(inputs, **feeds)
    if os.path.exists(reference):
        os.remove(reference)  # left by an interrupted run: the reference is made anew
    workers, failed = {}, {}
    for peer in peers:
        if peer != "onnxruntime" and not os.path.exists(reference):
            reference_without_ort(model, feeds, reference)
        with open(os.path.join(work, f"{name}.{peer}.log"), "w") as log:
            w = PeerWorker(peer, model, inputs, reference, peer == "onnxruntime", args, flush_bytes, env, log)
        ready = w.read(SETUP_TIMEOUT_S)
        if ready.get("ok"):
            workers[peer] = w
            continue
        w.close(kill=True)
        status = ready.get("status", "error")
        failed[peer] = (status, ready.get("reason") or ready.get("error"))
        print(f"  {peer}: {status}: {failed[peer][1]}", flush=True)
    return workers, failed, [inputs, reference]


# ---------------------------------------------------------------------------------------------- the run


def random_feeds(model_path, seed=1):
    import onnx
    m = onnx.load(model_path)
    consts = {t.name for t in m.graph.initializer}
    rng = np.random.default_rng(seed)
    return {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
            for i in m.graph.input if i.name not in consts}


class Stopwatch:
    """Adds the seconds each step takes to a dict (summed over rounds), for the progress lines and the raw file."""

    def __init__(self, seconds):
        self.seconds, self.start = seconds, time.monotonic()
        self.last = self.start

    def lap(self, step):
        now = time.monotonic()
        self.seconds[step] = round(self.seconds.get(step, 0) + now - self.last, 2)
        self.last = now

    def total(self):
        return self.last - self.start


def bench_scenario(name, model, dram_scale, ctx):
    """R interleaved rounds of STREAM, GIR (hot, cold), every live peer (hot, cold) on one scenario."""
    args, env = ctx["args"], ctx["env"]
    print(f"== {name}", flush=True)
    t_start = time.monotonic()
    row = {"name": name, "path": os.path.relpath(model, args.source), "dram_scale": dram_scale, "stream": [],
           "gir": {"hot": [], "cold": []}, "peers": {}}
    warm = calibrate_gir(ctx["gir"], args.source, args.threads, ctx["cache"], ctx["work"], env, f"{name}.before-peers")
    workers, failed, files = start_peers(ctx["peers"], name, model, random_feeds(model), args, ctx["flush_bytes"], env, ctx["work"])
    for peer, (status, reason) in failed.items():
        row["peers"][peer] = {"status": status, "reason": reason, "hot": [], "cold": []}
    for peer in workers:
        row["peers"][peer] = {"status": "ok", "reason": None, "hot": [], "cold": []}
    modes = ["hot", "cold"] if ctx["gir_cold"] else ["hot"]
    row["seconds"] = {"setup": round(time.monotonic() - t_start, 1)}
    for r in range(args.rounds):
        clock = Stopwatch(row["seconds"])
        row["stream"].append(run_stream(ctx["stream"], args.threads, args.stream_mib, env))
        clock.lap("stream")
        hardware = calibrate_gir(ctx["gir"], args.source, args.threads, ctx["cache"], ctx["work"], env, f"{name}.{r}")
        hardware = with_warm_curve(hardware, warm, os.path.join(ctx["work"], f"cpu-host.calibrated.{name}.{r}.merged.json")) or ctx["hardware"]
        row.setdefault("calibrated_stream_gbs", []).append(calibrated_stream_gbs(hardware))
        clock.lap("calibrate")
        for mode in modes:
            row["gir"][mode].append(run_gir(ctx["gir"], model, args.threads, ctx["cache"], mode == "cold", env, hardware))
            clock.lap(f"gir-{mode}")
        for peer, w in list(workers.items()):
            time.sleep(0.1)  # lets the previous runtime's spinning threads go to sleep
            for mode in ("hot", "cold"):
                ans = w.ask(mode)
                clock.lap(f"{peer}-{mode}")
                if "us" not in ans:
                    row["peers"][peer].update(status="error", reason=f"failed while timing: {ans.get('error')}")
                    w.close(kill=True)
                    del workers[peer]
                    break
                row["peers"][peer][mode].append(ans["us"])
        print(f"  round {r + 1} ({clock.total():.0f} s): " + report.round_line(row, r), flush=True)
    for w in workers.values():
        w.close()
    for f in files:
        if os.path.exists(f):
            os.remove(f)
    return row


def read_skips(path):
    skips = {}
    if path and os.path.exists(path):
        for line in open(path):
            if "\t" in line:
                peer, reason = line.rstrip("\n").split("\t", 1)
                skips[peer] = reason
    return skips


def measure(args):
    if not args.gir or not os.access(args.gir, os.X_OK):
        sys.exit(f"bench_cpu: no gir binary at {args.gir!r} (give --gir)")
    env = child_env(args.threads)
    cache = args.cache or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.gir))), "bench-cache")
    os.makedirs(cache, exist_ok=True)
    work = args.work or tempfile.mkdtemp(prefix="gir-bench-")
    os.makedirs(work, exist_ok=True)
    peers = [p for p in args.peers.split(",") if p]
    llc = last_level_cache_bytes()
    stream, stream_why = compile_stream(work)
    versions, skipped = probe_peers(peers, read_skips(args.skip_file), env)
    meta = {"threads": args.threads, "rounds": args.rounds, "gir": args.gir, "llc_bytes": llc, "flush_bytes": 2 * llc,
            "peers": peers, "versions": versions, "skipped": skipped, "stream_error": stream_why,
            "machine": report.machine_description(), "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "gir_cold": gir_supports_cold(args.gir, args.source, cache, env), "command": " ".join(sys.argv)}
    print(f"bench_cpu: T={args.threads}, R={args.rounds}, peers {', '.join(versions) or 'none'}; skipped: {skipped or 'none'}; "
          f"gir --cold {'supported' if meta['gir_cold'] else 'NOT supported'}; work folder {work}", flush=True)
    if stream_why:
        print(f"bench_cpu: {stream_why}", flush=True)
    meta["gir_hardware"] = calibrate_gir(args.gir, args.source, args.threads, cache, work, env)
    print(f"bench_cpu: gir's cost model uses {meta['gir_hardware'] or 'the uncalibrated cpu-host description'}", flush=True)
    ctx = {"args": args, "env": env, "cache": cache, "work": work, "flush_bytes": 2 * llc, "stream": stream,
           "gir": args.gir, "gir_cold": meta["gir_cold"], "hardware": meta["gir_hardware"], "peers": [p for p in peers if p in versions]}
    rows = [bench_scenario(name, path, scale, ctx) for name, path, scale in list_scenarios(args.source, args.only)]
    meta["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    meta["load_average_end"] = os.getloadavg()
    return {"meta": meta, "scenarios": rows}


def main():
    args = parse_args()
    if args.report_only:
        with open(args.report_only) as f:
            raw = json.load(f)
    else:
        raw = measure(args)
        if args.raw:
            with open(args.raw, "w") as f:
                json.dump(raw, f, indent=1)
    report.write(raw, args.report, args.plot, args.reasons)
    print(f"bench_cpu: wrote {args.report} and {args.plot}")


if __name__ == "__main__":
    main()
