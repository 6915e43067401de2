#!/usr/bin/env python3
"""One peer framework in a process of its own, driven by bench_cpu.py over a pipe (part of the CPU
benchmark; not a test).

Each peer runs in its own process so that the frameworks' thread pools, allocators and OpenMP runtimes
never meet, and a peer that crashes takes only itself down. The worker loads one scenario, builds the
peer's version of it (ONNX Runtime and OpenVINO on the .onnx file directly; PyTorch and JAX on the
hand-written versions in scenario_fns.py), runs it once and checks the outputs against the reference
(ONNX Runtime's outputs, which the onnxruntime worker itself writes) with rtol 1e-3 / atol 1e-4. It then
answers one command per line on stdin:
  hot   time repeated calls on the same inputs, answer the median in microseconds
  cold  the same, but before each call (untimed) read and write a buffer of --flush-bytes to evict the caches
  quit  exit
Every answer is one JSON line on the original stdout; whatever the frameworks print goes to stderr.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import scenario_fns

PEERS = ["onnxruntime", "openvino", "torch-eager", "torch-compile", "jax-jit"]
MODULES = {"onnxruntime": "onnxruntime", "openvino": "openvino", "torch-eager": "torch", "torch-compile": "torch", "jax-jit": "jax"}
RTOL, ATOL = 1e-3, 1e-4


def build_onnxruntime(path, spec, feeds, threads):
    """ONNX Runtime on the .onnx file: T intra-op threads, sequential execution, outputs bound once."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    bufs = [np.empty_like(o) for o in sess.run(None, feeds)]
    io = sess.io_binding()
    for name, arr in feeds.items():
        io.bind_cpu_input(name, arr)
    for o, buf in zip(sess.get_outputs(), bufs):
        io.bind_output(o.name, "cpu", 0, buf.dtype.type, list(buf.shape), buf.ctypes.data)
    return ort.__version__, lambda: sess.run_with_iobinding(io), lambda: bufs


def build_openvino(path, spec, feeds, threads):
    """OpenVINO on the .onnx file: CPU device, f32 precision, T inference threads, latency hint."""
    import openvino as ov
    core = ov.Core()
    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": str(threads), "PERFORMANCE_HINT": "LATENCY"}
    compiled = core.compile_model(core.read_model(path), "CPU", config)
    req = compiled.create_infer_request()
    for port in compiled.inputs:
        req.set_tensor(port, ov.Tensor(feeds[port.get_any_name()], shared_memory=True))
    by_name = {n: port for port in compiled.outputs for n in port.get_names()}
    outs = [by_name[name] for name in spec.outputs]
    version = (getattr(ov, "__version__", None) or ov.get_version()).split("-")[0]
    return version, req.infer, lambda: [req.get_tensor(port).data.copy() for port in outs]


def build_torch(spec, feeds, threads, compiled):
    """PyTorch eager, or torch.compile with Inductor's C++/OpenMP CPU backend (whole graph, no breaks)."""
    import torch
    torch.set_num_threads(threads)
    torch.set_grad_enabled(False)
    fn = scenario_fns.torch_fn(spec)
    if compiled:
        import torch._inductor.config as inductor_config
        if hasattr(inductor_config, "cpu_backend"):
            inductor_config.cpu_backend = "cpp"
        fn = torch.compile(fn, backend="inductor", fullgraph=True, dynamic=False)
    args = [torch.from_numpy(feeds[n]) for n in spec.inputs]
    state = {}

    def call():
        state["out"] = fn(*args)

    return torch.__version__, call, lambda: [o.numpy() for o in state["out"]]


def build_jax(spec, feeds, threads):
    """JAX: jax.jit of the hand-written function on the CPU device; each call waits for its results."""
    import jax
    fn = jax.jit(scenario_fns.jax_fn(spec))
    args = [jax.device_put(feeds[n], jax.devices("cpu")[0]) for n in spec.inputs]
    state = {}

    def call():
        state["out"] = jax.block_until_ready(fn(*args))

    return jax.__version__, call, lambda: [np.asarray(o) for o in state["out"]]


def build(peer, path, feeds, threads):
    spec = scenario_fns.describe(path) if peer not in ("onnxruntime", "openvino") else None
    if peer == "onnxruntime":
        return build_onnxruntime(path, spec, feeds, threads)
    if peer == "openvino":
        import onnx
        spec = scenario_fns.Spec("", [], {}, [o.name for o in onnx.load(path).graph.output])
        return build_openvino(path, spec, feeds, threads)
    if peer in ("torch-eager", "torch-compile"):
        return build_torch(spec, feeds, threads, peer == "torch-compile")
    if peer == "jax-jit":
        return build_jax(spec, feeds, threads)
    raise ValueError(f"unknown peer {peer}")


def compare(outs, refs):
    """None when every output matches the reference within rtol/atol, else the reason."""
    if len(outs) != len(refs):
        return f"{len(outs)} outputs, the reference has {len(refs)}"
    for i, (o, r) in enumerate(zip(outs, refs)):
        o = np.asarray(o)
        if o.shape != r.shape:
            return f"output {i} has shape {list(o.shape)}, the reference {list(r.shape)}"
        bad = ~np.isclose(o, r, rtol=RTOL, atol=ATOL)
        if bad.any():
            err = np.abs(o.astype(np.float64) - r)
            return (f"output {i}: {int(bad.sum())} of {r.size} elements off (max abs error {err.max():.3g}, "
                    f"rtol {RTOL:g} / atol {ATOL:g})")
    return None


def time_us(call, budget_s, min_n, max_n, flush=None):
    """Median wall time of one call in microseconds; with `flush`, every byte of the buffer is read and written (untimed) before each call."""
    for _ in range(3):
        call()
    t0 = time.perf_counter()
    call()
    one = max(time.perf_counter() - t0, 1e-7)
    n = int(min(max(budget_s / one, min_n), max_n))
    samples = []
    for i in range(n):
        if flush is not None:
            flush += 1  # read and written, as gir's eviction: a fill is a memset, whose stores skip the caches here
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples), n


def pin_to_threads(threads):
    """JAX's CPU client sizes its pool by the CPUs it may run on: give it T of them when T is fewer."""
    cpus = sorted(os.sched_getaffinity(0))
    if threads < len(cpus):
        os.sched_setaffinity(0, set(cpus[:threads]))


def serve(a, send):
    feeds = dict(np.load(a.inputs))
    if a.peer == "jax-jit":
        pin_to_threads(a.threads)
    try:
        version, call, fetch = build(a.peer, a.model, feeds, a.threads)
        call()
        outs = fetch()
        if a.write_reference:
            np.savez(a.reference, *[np.asarray(o) for o in outs])
            why = None
        else:
            with np.load(a.reference) as z:
                why = compare(outs, [z[f"arr_{i}"] for i in range(len(z.files))])
    except scenario_fns.Unsupported as e:
        send({"ok": False, "status": "unsupported", "reason": str(e)})
        return
    except Exception as e:  # a peer that cannot build or run the model is skipped with the reason
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        send({"ok": False, "status": "error", "reason": f"{type(e).__name__}: {first}"})
        return
    if why:
        send({"ok": False, "status": "mismatch", "reason": f"output does not match the reference: {why}", "version": version})
        return
    send({"ok": True, "version": str(version)})
    flush = np.ones(a.flush_bytes, np.uint8)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "quit":
            break
        if cmd == "hot":
            us, n = time_us(call, a.budget, 10, 2000)
        elif cmd == "cold":
            us, n = time_us(call, a.budget, 10, 200, flush)
        else:
            send({"error": f"unknown command {cmd!r}"})
            continue
        send({"us": us, "repeats": n})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", required=True, choices=PEERS)
    ap.add_argument("--model", required=True)
    ap.add_argument("--inputs", required=True, help=".npz of the graph inputs, by name")
    ap.add_argument("--reference", required=True, help=".npz of the reference outputs, in graph order")
    ap.add_argument("--write-reference", action="store_true", help="write the reference instead of checking against it")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--flush-bytes", type=int, default=64 << 20)
    ap.add_argument("--budget", type=float, default=0.5, help="seconds of calls per timing (at least 10 calls)")
    a = ap.parse_args()
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the frameworks' own prints go to stderr, the protocol keeps the real stdout

    def send(msg):
        proto.write(json.dumps(msg) + "\n")
        proto.flush()

    serve(a, send)


if __name__ == "__main__":
    main()
