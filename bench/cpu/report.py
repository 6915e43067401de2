"""Turns the CPU benchmark's measurements into bench/cpu/REPORT.md and bench/cpu/speedup.png (part of
bench/cpu; not a test). Everything here works on the raw JSON that bench_cpu.py collects, so a report
can be rewritten from a saved run (bench_cpu.py --report-only RAW)."""
import math
import os
import platform
import statistics
import subprocess
import time

PEER_LABELS = {"onnxruntime": "ONNX Runtime", "openvino": "OpenVINO", "torch-eager": "PyTorch eager",
               "torch-compile": "torch.compile", "jax-jit": "JAX jit"}
PLANS = ["eager", "xla", "tvm"]          # the other planners of GIR's own code generator
DRAM_BOUND_BYTES = 64 << 20              # min bytes at or above this: DRAM-bound
GOAL_STREAM_FRACTION = 0.85
GOAL_GEOMEAN, GOAL_MIN_SPEEDUP, GOAL_CACHE_GEOMEAN = 1.25, 1.0, 1.0
GOAL_MAPE, GOAL_SPEARMAN, GOAL_PICK = 15.0, 0.9, 0.05


# ------------------------------------------------------------------------------------------ small helpers


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(v, digits=1, suffix=""):
    return "-" if v is None else f"{v:,.{digits}f}{suffix}"


def ranks(v):
    """Ranks from 1, ties sharing their average rank."""
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    if len(x) < 2:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else None


class Notes:
    """Numbered footnotes for the '-' cells, one number per distinct reason."""

    def __init__(self):
        self.reasons = []

    def cell(self, reason):
        if reason not in self.reasons:
            self.reasons.append(reason)
        return f"- [{self.reasons.index(reason) + 1}]"

    def lines(self):
        return [f"[{i + 1}] {r}  " for i, r in enumerate(self.reasons)]


# ------------------------------------------------------------------------------------------------ machine


def machine_description():
    """Lines describing the machine, the compiler and the moment (taken when the run starts)."""
    lines = []
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout if _has("lscpu") else ""
    for key in ("Model name", "CPU family", "Model", "CPU(s)", "Thread(s) per core", "Core(s) per socket", "L1d cache", "L2 cache", "L3 cache"):
        for line in lscpu.splitlines():
            if line.startswith(key + ":"):
                lines.append(f"{key}: {line.split(':', 1)[1].strip()}")
    # The generated kernels are built -march=native: the vector width they get is part of the machine.
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
        vector = [x for x in ("avx2", "fma", "avx512f", "avx512bw", "avx512vl") if x in flags]
        lines.append("vector extensions: " + (", ".join(vector) if vector else "none of avx2, fma, avx512f"))
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            lines.append(f"memory: {int(f.readline().split()[1]) // 1024} MiB")
    except OSError:
        pass
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            lines.append(f"transparent huge pages: {f.read().strip()}")
    except OSError:
        pass
    cc = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout.splitlines() if _has("cc") else []
    lines.append(f"compiler: {cc[0] if cc else 'unknown'}")
    lines.append(f"OS: {platform.platform()}; Python {platform.python_version()}")
    lines.append("load average at start: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    lines.append("date: " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    return lines


def _has(tool):
    return any(os.access(os.path.join(d, tool), os.X_OK) for d in os.environ.get("PATH", "").split(os.pathsep))


# ------------------------------------------------------------------------------------------------ figures


def stream_gbs(row, key="copy_best_gbs"):
    return median([s.get(key) for s in row["stream"] if s and s.get(key)])


def gir_time(row, mode, planner):
    """(median over rounds of the planner's time, reason when there is none)."""
    rounds = row["gir"].get(mode, [])
    if not rounds:
        return None, "gir run --cold is not supported by this gir binary" if mode == "cold" else "GIR was not run"
    ok = [g for g in rounds if "error" not in g]
    if not ok:
        return None, rounds[0]["error"]
    t = median([g["times"].get(planner) for g in ok])
    if t is not None:
        return t, None
    if planner in ok[0]["skipped"]:
        return None, f"{planner} plan skipped by gir: {ok[0]['skipped'][planner]}"
    return None, f"no {planner} candidate of gir matched the reference evaluator"


def peer_time(row, mode, peer, meta):
    st = row["peers"].get(peer)
    if st is None:
        return None, f"{PEER_LABELS[peer]} skipped: {meta['skipped'].get(peer, 'not run')}"
    if st["status"] != "ok":
        return None, f"{PEER_LABELS[peer]} on {row['name']}: {st['status']}: {st['reason']}"
    return median(st[mode]), None


def figures(row, mode, meta):
    """One table row's numbers (and the reasons behind its missing cells)."""
    f = {"name": row["name"], "dram_scale": row["dram_scale"], "why": {}, "peers": {}}
    f["min_bytes"] = next((g.get("min_bytes") for m in ("hot", "cold") for g in row["gir"][m] if g.get("min_bytes")), None)
    f["stream"] = stream_gbs(row)
    f["gir"], f["why"]["gir"] = gir_time(row, mode, "gir")
    for plan in PLANS:
        f[plan], f["why"][plan] = gir_time(row, mode, plan)
    for peer in meta["peers"]:
        f["peers"][peer], f["why"][peer] = peer_time(row, mode, peer, meta)
    timed = [(t, p) for p, t in f["peers"].items() if t is not None]
    f["best_peer_us"], f["best_peer"] = min(timed) if timed else (None, None)
    f["speedup"] = f["best_peer_us"] / f["gir"] if f["best_peer_us"] and f["gir"] else None
    f["bw_fraction"] = (f["min_bytes"] / (f["gir"] * 1e-6)) / (f["stream"] * 1e9) if f["gir"] and f["min_bytes"] and f["stream"] else None
    return f


# Cache-resident: minimal traffic under 4 MiB (the bundled scenarios, 0.4-1.2 MB). Not the reported last-level
# cache: on this virtual machine lscpu has said 32 MiB one day and 300 MiB another, and `gir run --calibrate`
# finds data above ~96 MiB no longer cached between calls (docs/cpu.md, "Streaming stores"); a scenario under
# 4 MiB stays cached under every one of those readings.
CACHE_RESIDENT_BYTES = 4 << 20


def groups(figs, llc):
    """Geomean speedups over all scenarios, the DRAM-bound ones and the cache-resident ones."""
    def g(sel):
        sp = [f["speedup"] for f in sel if f["speedup"]]
        return geomean(sp), len(sp), len(sel)
    return {"all": g(figs),
            "dram": g([f for f in figs if f["min_bytes"] and f["min_bytes"] >= DRAM_BOUND_BYTES]),
            "cache": g([f for f in figs if f["min_bytes"] and f["min_bytes"] < min(llc, CACHE_RESIDENT_BYTES)])}


def round_line(row, r):
    """A progress line for round r of one scenario."""
    s = row["stream"][r] if r < len(row["stream"]) else None
    parts = [f"STREAM {fmt(s.get('copy_best_gbs') if s else None)} GB/s"]
    for mode in ("hot", "cold"):
        g = row["gir"][mode][r] if r < len(row["gir"][mode]) else None
        if g is not None:
            parts.append(f"GIR {mode} " + (g["error"][:80] if "error" in g else f"{fmt(g['times'].get('gir'))} us"))
    for peer, st in row["peers"].items():
        if st["status"] == "ok" and len(st["hot"]) > r:
            cold = st["cold"][r] if len(st["cold"]) > r else None
            parts.append(f"{peer} {fmt(st['hot'][r])}/{fmt(cold)} us")
    return "; ".join(parts)


# ------------------------------------------------------------------------------------------- cost model


def cost_model(rows, mode):
    """Modelled vs measured over every matching candidate of the DRAM-scale scenarios."""
    points, per = [], []
    for row in rows:
        ok = [g for g in row["gir"].get(mode, []) if "error" not in g]
        if not row["dram_scale"] or not ok:
            continue
        keys = list(dict.fromkeys(k for g in ok for k in g["points"]))
        cands = []
        for k in keys:
            vals = [g["points"][k] for g in ok if k in g["points"]]
            source = vals[0][2] if len(vals[0]) > 2 and vals[0][2] else k  # older raw files: every candidate its own kernel
            # each round's model uses that round's calibration: the median of the rounds' models against the
            # median of their measurements (the first round's model alone had been taken until 2026-11-29)
            cands.append((k, median([v[0] for v in vals]), median([v[1] for v in vals]), source))
        points += [(row["name"], k, m, t) for k, m, t, _ in cands]
        per.append(pick_check(row["name"], cands))
    mods, meas = [p[2] for p in points], [p[3] for p in points]
    mape = statistics.mean(abs(m - t) / t * 100 for m, t in zip(mods, meas)) if points else None
    return {"n": len(points), "mape": mape, "spearman": spearman(mods, meas), "per": per}


def pick_check(name, cands):
    """Per subgraph: the model's pick (lowest modelled, first of ties) against the fastest measured kernel.
    Candidates whose generated C++ is the same (equal source hashes: GELU's GIR, XLA and TVM plans are one
    kernel) are one kernel, measured at the median of their times: which of them one run finds fastest
    is the machine's noise, not the model's choice."""
    res = {"name": name, "n": len(cands), "ok": True, "picks": [],
           "mape": statistics.mean(abs(m - t) / t * 100 for _, m, t, _ in cands) if cands else None,
           "spearman": spearman([m for _, m, _, _ in cands], [t for _, _, t, _ in cands])}
    for sg in dict.fromkeys(k.split("/")[0] for k, _, _, _ in cands):
        mine = [c for c in cands if c[0].split("/")[0] == sg]
        times = {}
        for c in mine:
            times.setdefault(c[3], []).append(c[2])
        kernel = {source: median(ts) for source, ts in times.items()}
        pick = min(mine, key=lambda c: c[1])
        fastest = min(mine, key=lambda c: kernel[c[3]])
        within = kernel[pick[3]] <= kernel[fastest[3]] * (1 + GOAL_PICK)
        res["ok"] = res["ok"] and within
        res["picks"].append({"pick": pick, "fastest": fastest, "within": within, "pick_us": kernel[pick[3]],
                             "fastest_us": kernel[fastest[3]], "kernels": len(kernel)})
    return res


# -------------------------------------------------------------------------------------------- the report


def table(figs, meta, notes):
    peers = meta["peers"]
    head = (["scenario", "min bytes (MB)", "GIR us"] + [f"{p} plan us" for p in PLANS] + [f"{PEER_LABELS[p]} us" for p in peers] +
            ["best peer", "GIR speedup vs best peer", "GIR eff. BW / STREAM copy"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for f in figs:
        def cell(v, key, digits=1):
            return fmt(v, digits) if v is not None else notes.cell(f["why"][key])
        cells = [f["name"] + (" (DRAM-scale)" if f["dram_scale"] else ""), fmt(f["min_bytes"] / 1e6 if f["min_bytes"] else None, 2),
                 cell(f["gir"], "gir")]
        cells += [cell(f[p], p) for p in PLANS] + [cell(f["peers"][p], p) for p in peers]
        cells += [PEER_LABELS.get(f["best_peer"], "-"), fmt(f["speedup"], 2, "x"), fmt(f["bw_fraction"] and 100 * f["bw_fraction"], 1, " %")]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def results_section(mode, figs, meta, llc):
    notes = Notes()
    title = {"hot": "Hot runs (repeated calls on the same inputs)",
             "cold": f"Cold-cache runs (a {meta['flush_bytes'] >> 20} MiB buffer read and written before each timed call)"}[mode]
    out = [f"## {title}", ""] + table(figs, meta, notes) + [""] + notes.lines() + [""]
    gs = groups(figs, llc)
    for key, label in (("all", "all scenarios"), ("dram", f"DRAM-bound scenarios (min bytes >= {DRAM_BOUND_BYTES >> 20} MiB)"),
                       ("cache", f"cache-resident scenarios (min bytes < {min(llc, CACHE_RESIDENT_BYTES) >> 20} MiB)")):
        g, n, total = gs[key]
        out.append(f"- Geomean GIR speedup over the best peer, {label}: **{fmt(g, 2, 'x')}** ({n} of {total} scenarios with both times)")
    for plan in PLANS:
        g = geomean([f[plan] / f["gir"] for f in figs if f["gir"] and f[plan]])
        out.append(f"- Geomean GIR speedup over the {plan} plan of the same code generator: {fmt(g, 2, 'x')}")
    return out + [""]


def cost_section(cm_hot, cm_cold, hardware):
    described = ("modelled on a description calibrated (`gir run --calibrate`) right before each scenario's GIR runs, "
                 "in the same round (the start's calibration is the fallback); a candidate's modelled and measured times "
                 "are each the median over the rounds" if hardware
                 else "modelled on the uncalibrated cpu-host description (DRAM 20 GB/s): the run did not calibrate")
    out = ["## Cost model (DRAM-scale scenarios, every matching candidate of every planner)", "", described + ".", "",
           "| runs | candidates | MAPE (modelled vs measured) | Spearman rank correlation |", "|---|---|---|---|"]
    for label, cm in (("hot", cm_hot), ("cold", cm_cold)):
        if cm and cm["n"]:
            out.append(f"| {label} | {cm['n']} | {fmt(cm['mape'])} % | {fmt(cm['spearman'], 3)} |")
    out += ["", "Per scenario (hot runs): the model's pick is the candidate with the lowest modelled time (the first listed "
            "of ties); it is within 5 % when its kernel's measured time is at most 1.05x the fastest measured kernel's. "
            "Candidates whose generated C++ is identical are one kernel, timed at the median of their measurements "
            "(the kernels column counts the distinct ones).", "",
            "| scenario | candidates | kernels | MAPE | Spearman | model's pick: modelled / measured us | fastest measured us | within 5 % |",
            "|---|---|---|---|---|---|---|---|"]
    for s in cm_hot["per"]:
        for p in s["picks"]:
            pk, fa = p["pick"], p["fastest"]
            name = s["name"] + (f" (subgraph {pk[0].split('/')[0]})" if len(s["picks"]) > 1 else "")
            out.append(f"| {name} | {s['n']} | {p['kernels']} | {fmt(s['mape'])} % | {fmt(s['spearman'], 3)} | {candidate(pk[0])}: "
                       f"{fmt(pk[1])} / {fmt(p['pick_us'])} | {candidate(fa[0])}: {fmt(p['fastest_us'])} | {'yes' if p['within'] else 'no'} |")
    return out + [""]


def candidate(key):
    """'0/gir/units/block=4' as 'gir (units/block=4)'."""
    _, planner, variant = key.split("/", 2)
    return f"{planner} ({variant})" if variant else planner


def goal(ok, text):
    return f"- {'met' if ok else 'not met' if ok is not None else 'not measured'}: {text}"


def goals_section(figs_by_mode, cm, llc):
    out = ["## Goals", ""]
    for mode, figs in figs_by_mode.items():
        dram = [f for f in figs if f["min_bytes"] and f["min_bytes"] >= DRAM_BOUND_BYTES]
        fr = [(f["name"], f["bw_fraction"]) for f in dram]
        ok_a = all(x is not None and x >= GOAL_STREAM_FRACTION for _, x in fr) if fr else None
        out.append(goal(ok_a, f"(a, {mode}) every DRAM-bound scenario at >= {GOAL_STREAM_FRACTION:.0%} of STREAM copy: " +
                        ", ".join(f"{n} {fmt(x and 100 * x, 1, ' %')}" for n, x in fr)))
        gs = groups(figs, llc)
        sp = [(f["name"], f["speedup"]) for f in figs]
        below = [f"{n} {fmt(s, 2, 'x')}" for n, s in sp if s is None or s < GOAL_MIN_SPEEDUP]
        ok_b = None if gs["all"][0] is None else (gs["all"][0] >= GOAL_GEOMEAN and not below and
                                                   (gs["cache"][0] is None or gs["cache"][0] >= GOAL_CACHE_GEOMEAN))
        out.append(goal(ok_b, f"(b, {mode}) geomean speedup over the best peer {fmt(gs['all'][0], 2, 'x')} (goal >= {GOAL_GEOMEAN}x); "
                        f"scenarios below {GOAL_MIN_SPEEDUP}x or without a speedup: {', '.join(below) or 'none'}; cache-resident "
                        f"geomean {fmt(gs['cache'][0], 2, 'x')} (goal >= {GOAL_CACHE_GEOMEAN}x)"))
    if cm and cm["n"]:
        misses = [s["name"] for s in cm["per"] if not s["ok"]]
        ok_c = cm["mape"] <= GOAL_MAPE and (cm["spearman"] or 0) >= GOAL_SPEARMAN and not misses
        out.append(goal(ok_c, f"(c, hot) cost model: MAPE {fmt(cm['mape'])} % (goal <= {GOAL_MAPE:.0f} %), Spearman "
                        f"{fmt(cm['spearman'], 3)} (goal >= {GOAL_SPEARMAN}), pick within 5 % on {len(cm['per']) - len(misses)} of "
                        f"{len(cm['per'])} scenarios (misses: {', '.join(misses) or 'none'})"))
    else:
        out.append(goal(None, "(c) cost model: no DRAM-scale scenario was measured"))
    return out + [""]


def remeasured(meta):
    """Scenarios whose rows were measured again later, in a run of their own (meta["remeasured"]: name ->
    {started, why}), merged into this report's raw file by hand."""
    rows = meta.get("remeasured", {})
    return [f"Re-measured in a run of its own: {name}, {r.get('started', '?')} ({r.get('why', '')})." for name, r in rows.items()] + \
        ([""] if rows else [])


def header(meta):
    t, r = meta["threads"], meta["rounds"]
    return ["# CPU benchmark report (bench/cpu/run_bench.sh)", "",
            f"Generated {meta['started']} to {meta.get('finished', '?')} by `bench/cpu/run_bench.sh` (`{meta['command']}`). "
            "A measurement, not a test.", ""] + remeasured(meta) + [
            "## Machine", ""] + [f"- {line}" for line in meta["machine"]] + [
            "- load average at the end: " + ", ".join(f"{x:.2f}" for x in meta.get("load_average_end", [])), "",
            "## Method", "",
            f"- T = {t} thread(s) for everything: STREAM, `gir run --threads {t}`, ONNX Runtime's intra-op threads (sequential "
            f"execution), OpenVINO's INFERENCE_NUM_THREADS (f32 precision hint, latency hint), torch.set_num_threads, and JAX's CPU "
            f"client (pinned to {t} CPU(s) when the machine has more); OMP_NUM_THREADS and friends are set to {t}.",
            f"- Per scenario, {r} interleaved round(s), each: STREAM copy, GIR hot, GIR cold, then every peer hot and cold. "
            "Every figure is the median over rounds of that round's median time.",
            "- GIR: `gir run MODEL --target cpu --planner all --measure --json` (and `--cold`); GIR's time is the fastest "
            "candidate of the GIR planner that matched the reference evaluator, summed over subgraphs; the eager, xla and tvm "
            "plans of the same code generator are given the same way. Candidates that did not match are listed below and never timed.",
            "- Peers: ONNX Runtime and OpenVINO on the .onnx file; PyTorch eager, torch.compile (Inductor, C++/OpenMP CPU backend, "
            "fullgraph, warmed up) and JAX jit on hand-written versions (bench/cpu/scenario_fns.py) whose shapes, axes, epsilons and "
            "constants are read from the .onnx file. Each peer's outputs are checked against ONNX Runtime's (the onnx package's "
            "reference evaluator's where ONNX Runtime is missing) with rtol 1e-3, atol 1e-4 "
            "before it is timed; a mismatch is reported, not timed. Peers are timed around their Python call (time.perf_counter; "
            "ONNX Runtime with inputs and outputs bound once, OpenVINO with an infer request whose tensors are set once), GIR inside "
            "its own C++ harness. Each peer runs in its own process, with "
            "MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ raised so that a large output is not page-faulted afresh on every call.",
            f"- Hot: repeated calls on the same inputs. Cold: before each timed call a {meta['flush_bytes'] >> 20} MiB buffer "
            f"(2x the last-level cache) is read and written, untimed, to evict the caches (GIR: `gir run --cold`; peers: in Python; a memset would not: its stores skip the caches on this host, docs/cpu.md \"Cold runs\").",
            "- GIR effective bandwidth = the scenario's minimal DRAM bytes (inputs read once + outputs written once) / GIR's time, as a "
            "fraction of the STREAM copy bandwidth (best of 10, median over that scenario's rounds). DRAM-bound: min bytes >= 64 MiB.",
            ""]


def stream_section(rows, meta):
    out = ["## STREAM copy (stream_copy.c, cc -O3 -march=native -fopenmp)", ""]
    if meta.get("stream_error"):
        return out + [f"Not measured: {meta['stream_error']}", ""]
    samples = [s for row in rows for s in row["stream"] if s and "error" not in s]
    if not samples:
        return out + ["Not measured.", ""]
    out += [f"Two arrays of {samples[0]['mib_per_array']} MiB, {samples[0]['threads']} thread(s), {samples[0]['repeats']} repeats per "
            f"measurement, measured {len(samples)} times (once per round of every scenario); GB/s count 2 x bytes (read + write). "
            "The arrays are advised onto transparent huge pages, as gir's kernel buffers are and NumPy's arrays (the peers' "
            "inputs) are (docs/cpu.md, \"Huge pages\").", "",
            "| variant | best of repeats, GB/s (median over measurements) | median of repeats, GB/s | best, range over measurements |",
            "|---|---|---|---|"]
    for label, key in (("copy (a[i] = b[i])", "copy"), ("non-temporal copy (_mm256_stream_ps)", "nt_copy")):
        best = [s.get(f"{key}_best_gbs") for s in samples if s.get(f"{key}_best_gbs")]
        if not best:
            out.append(f"| {label} | - | - | {samples[0].get('nt_skipped', 'not measured')} |")
            continue
        med = median([s.get(f"{key}_median_gbs") for s in samples])
        out.append(f"| {label} | {fmt(median(best))} | {fmt(med)} | {fmt(min(best))} - {fmt(max(best))} |")
    calibrated = [g for row in rows for g in row.get("calibrated_stream_gbs", []) if g]
    if calibrated:
        out += ["", f"`gir run --calibrate` before each scenario's GIR runs measured a STREAM copy (median of 15 over 256 MiB arrays) "
                    f"of {fmt(min(calibrated))} - {fmt(max(calibrated))} GB/s over the run (median {fmt(median(calibrated))})."]
    return out + [""]


def mismatch_section(rows):
    out = ["## GIR candidates that did not match the reference evaluator", ""]
    seen = []
    for row in rows:
        for mode, rounds in row["gir"].items():
            for g in rounds:
                for m in g.get("mismatches", []):
                    item = (row["name"], m["subgraph"], m["planner"], m["variant"])
                    if item not in [s[0] for s in seen]:
                        seen.append((item, m.get("max_rel_error")))
    if not seen:
        return out + ["None: every candidate of every scenario matched.", ""]
    out += ["| scenario | subgraph | planner | variant | max relative error |", "|---|---|---|---|---|"]
    out += [f"| {n} | {s} | {p} | {v} | {e} |" for (n, s, p, v), e in seen]
    return out + ["", "These candidates were not timed and never count as any planner's time.", ""]


def peers_section(meta, rows):
    out = ["## Peers", ""]
    for peer in meta["peers"]:
        if peer in meta["versions"]:
            bad = [f"{r['name']} ({r['peers'][peer]['status']})" for r in rows if r["peers"].get(peer, {}).get("status", "ok") != "ok"]
            out.append(f"- {PEER_LABELS[peer]} {meta['versions'][peer]}: ran" + (f"; not timed on {', '.join(bad)} (see the footnotes)" if bad else ""))
        else:
            out.append(f"- {PEER_LABELS[peer]}: skipped: {meta['skipped'].get(peer, 'not run')}")
    return out + [""]


def misses_section(meta, reasons_path):
    """The reasons for the goals' misses, written by hand after the run (the issue asks for a reason per
    miss, and no script can tell one). The file's first line names the run it explains ("run: STARTED");
    the reasons of another run are not copied in, only pointed to."""
    out = ["## Why the misses", ""]
    try:
        with open(reasons_path) as f:
            first, rest = f.readline().strip(), f.read().strip()
    except OSError:
        return out + [f"No reasons written for this run ({os.path.relpath(reasons_path)} is missing).", ""]
    if first != f"run: {meta['started']}":
        return out + [f"{os.path.relpath(reasons_path)} explains another run ({first}), not this one.", ""]
    return out + [rest, ""]


def write(raw, report_path, plot_path, reasons_path=None):
    meta, rows = raw["meta"], raw["scenarios"]
    llc = meta["llc_bytes"]
    modes = ["hot", "cold"] if meta.get("gir_cold") or any(r["gir"]["cold"] for r in rows) else ["hot"]
    figs = {mode: [figures(r, mode, meta) for r in rows] for mode in modes}
    cm_hot = cost_model(rows, "hot")
    cm_cold = cost_model(rows, "cold") if "cold" in modes else None
    lines = header(meta) + stream_section(rows, meta)
    for mode in modes:
        lines += results_section(mode, figs[mode], meta, llc)
    if "cold" not in modes:
        lines += ["## Cold-cache runs", "", "Not measured: this gir binary does not support `gir run --cold`.", ""]
    lines += mismatch_section(rows) + cost_section(cm_hot, cm_cold, meta.get("gir_hardware")) + goals_section(figs, cm_hot, llc)
    if reasons_path:
        lines += misses_section(meta, reasons_path)
    lines += peers_section(meta, rows)
    with open(report_path, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    plot(figs["hot"], meta, plot_path)


def plot(figs, meta, path):
    """Per scenario (hot runs), GIR's speedup over the best peer as a bar, 1.0 marked; each bar labelled with both times."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.45 * max(len(figs), 1)))
    names = [f["name"] for f in figs]
    values = [f["speedup"] or 0 for f in figs]
    colors = ["#2e7d32" if v >= 1 else "#c62828" for v in values]
    ax.barh(range(len(figs)), values, color=colors)
    ax.axvline(1.0, color="dimgray", linestyle="--", linewidth=1, zorder=0)
    ax.set_yticks(range(len(figs)), names)
    ax.invert_yaxis()
    top = max(values + [1.0])
    ax.set_xlim(0, top * 1.6)
    for i, f in enumerate(figs):
        text = (f"{f['speedup']:.2f}x: GIR {fmt(f['gir'])} us vs {PEER_LABELS[f['best_peer']]} {fmt(f['best_peer_us'])} us" if f["speedup"]
                else "no speedup: GIR or every peer missing")
        ax.text((f["speedup"] or 0) + top * 0.02, i, text, va="center", fontsize=8)
    ax.set_xlabel("GIR speedup over the best peer (best peer time / GIR time; > 1: GIR faster)")
    ax.set_title(f"CPU benchmark, hot runs, {meta['threads']} thread(s)\nGIR vs the best of "
                 f"{', '.join(PEER_LABELS[p] for p in meta['versions']) or 'no peer'}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
