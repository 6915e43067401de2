#!/usr/bin/env python3
"""Streaming stores against plain stores (issue #16; docs/cpu.md, "Streaming stores"). Not a test: for each
scenario, R interleaved rounds of `gir run MODEL --planner P --measure --json` with `--stores auto` (streaming
stores where the description's stream_store_above_bytes says they pay) and `--stores plain`, the same
kernels otherwise. Prints a table of the medians over rounds of the planner's measured time and the ratio.

  bench/cpu/stores_ab.py --gir build/cli/gir [--rounds 5] [--planner gir] [--hardware FILE] [SCENARIO ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT = ["layernorm_8192x1024", "layernorm_16384x2048", "softmax_64x12x128x128", "softmax_32x16x256x256",
           "rmsnorm_2048x4096", "gelu_4096x1024", "silu_4096x1024", "bert_bias_residual_layernorm_8x512x768"]


def measured_us(gir, model, stores, args):
    cmd = [gir, "run", model, "--target", "cpu", "--planner", args.planner, "--measure", "--json", "--threads", str(args.threads),
           "--stores", stores]
    if args.hardware:
        cmd += ["--hardware", args.hardware]
    if args.cache:
        cmd += ["--cache", args.cache]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[-400:]}")
    # The fastest measured variant of the planner (units per block 4 or 1), summed over subgraphs.
    j = json.loads(out.stdout)
    best = {}
    for c in j["candidates"]:
        if c.get("planner") != args.planner or "measured_us" not in c:
            continue
        key = c.get("subgraph", 0)
        best[key] = min(best.get(key, float("inf")), c["measured_us"])
    return sum(best.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gir", default=os.path.join(ROOT, "build", "cli", "gir"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--planner", default="gir")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hardware", help="a (calibrated) description; default the bundled cpu-host")
    ap.add_argument("--cache", help="gir's compile cache")
    ap.add_argument("scenarios", nargs="*", default=DEFAULT)
    args = ap.parse_args()
    print(f"| scenario | plain stores us | streaming stores us | plain / streaming | rounds |")
    print("|---|---|---|---|---|")
    for name in args.scenarios:
        model = os.path.join(ROOT, "scenarios", "scale", name + ".onnx")
        if not os.path.exists(model):
            model = os.path.join(ROOT, "scenarios", name + ".onnx")
        times = {"plain": [], "auto": []}
        for r in range(args.rounds):
            for stores in (("plain", "auto") if r % 2 == 0 else ("auto", "plain")):
                times[stores].append(measured_us(args.gir, model, stores, args))
        plain, auto = statistics.median(times["plain"]), statistics.median(times["auto"])
        print(f"| {name} | {plain:,.1f} | {auto:,.1f} | {plain / auto:.2f}x | {args.rounds} |", flush=True)


if __name__ == "__main__":
    main()
