#!/usr/bin/env python3
"""Compare clustune-run with ONNX Runtime on the corpus models, side by side in one run.

For each model, clustune-run generates seeded weights and inputs, runs the model with its
compiled kernels, and writes the exact weights (--save-weights), inputs and outputs
(--save-tensors). ONNX Runtime then runs the same model file on the same inputs; the script
prints the largest absolute and relative output differences and, with --latency, both
latencies (clustune: median of --repeat runs after one warm-up; ONNX Runtime: the fair
settings of REFERENCES.md -- intra_op_num_threads = --threads, ORT_SEQUENTIAL, graph
optimisation level ALL, warm-up, median of --repeat runs) and their ratio.

With --log (a clustune-tune log), clustune runs each model twice, with default schedules and
with the log's best schedules, and both latencies are printed beside ONNX Runtime's; the
outputs compared with ONNX Runtime's are the tuned run's.

  python3 scripts/ort_compare.py [--models resnet18,bert-tiny] [--latency] [--threads 2]
                                 [--repeat 10] [--log tuning.jsonl] [--json results.jsonl]
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ort_session(model_path, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])


def load_tensors(directory, prefix):
    tensors = []
    index = 0
    while os.path.exists(os.path.join(directory, f"{prefix}_{index}.pb")):
        tensors.append(numpy_helper.to_array(onnx.load_tensor(os.path.join(directory, f"{prefix}_{index}.pb"))))
        index += 1
    return tensors


def clustune_run(model_path, args, extra):
    command = [args.clustune_run, model_path, "--seed", str(args.seed), "--threads", str(args.threads),
               "--repeat", str(args.repeat if args.latency else 1), "--json", "-q"] + extra
    if args.layout != "NCHW":
        command += ["--layout", args.layout]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def compare_model(model_path, args, work):
    name = os.path.basename(model_path)[:-len(".onnx")]
    weights = os.path.join(work, f"{name}.onnx")
    tensors = os.path.join(work, name)
    os.makedirs(tensors, exist_ok=True)
    default = clustune_run(model_path, args, []) if args.log and args.latency else None
    ours = clustune_run(model_path, args, ["--save-weights", weights, "--save-tensors", tensors] +
                        (["--log", args.log] if args.log else []))
    session = ort_session(weights, args.threads)
    inputs = load_tensors(tensors, "input")
    feed = {spec.name: value for spec, value in zip(session.get_inputs(), inputs)}
    reference = session.run(None, feed)
    expected = load_tensors(tensors, "output")
    max_abs = max_rel = 0.0
    for actual, wanted in zip(expected, reference):
        difference = np.abs(actual.astype(np.float64) - wanted.astype(np.float64))
        max_abs = max(max_abs, float(difference.max(initial=0.0)))
        scale = np.maximum(np.abs(wanted.astype(np.float64)), 1e-6)
        max_rel = max(max_rel, float((difference / scale).max(initial=0.0)))
    row = {"model": name, "max_abs_error": max_abs, "max_rel_error": max_rel,
           "output_max_abs": float(max(np.abs(r).max(initial=0.0) for r in reference))}
    if args.latency:
        for _ in range(3):
            session.run(None, feed)
        samples = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            session.run(None, feed)
            samples.append(time.perf_counter() - start)
        if default:
            row["default_ms"] = default["latency_ms"]["median"]
            row["tuned_kernels"] = ours["tuned_kernels"]
        row["clustune_ms"] = ours["latency_ms"]["median"]
        row["ort_ms"] = statistics.median(samples) * 1e3
        row["ratio"] = row["clustune_ms"] / row["ort_ms"]
        row["compile_median_ms"] = ours["compile_s"]["median"] * 1e3
    os.remove(weights)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma-separated model names (default: all in models/)")
    parser.add_argument("--clustune-run", default=os.path.join(REPO, "build/bin/clustune-run"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", action="store_true", help="also time both runtimes")
    parser.add_argument("--log", help="a clustune-tune log: also run clustune with its schedules")
    parser.add_argument("--layout", default="NCHW",
                        help="clustune-run's --layout (NCHW, or blocked such as NCHW16c)")
    parser.add_argument("--json", help="append one JSON object per model to this file")
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(REPO, "models", "*.onnx")))
    if args.models:
        wanted = args.models.split(",")
        paths = [os.path.join(REPO, "models", f"{m}.onnx") for m in wanted]
    header = f"{'model':20} {'max abs err':>12} {'max rel err':>12} {'|out| max':>10}"
    if args.latency and args.log:
        header += f" {'default ms':>11} {'tuned ms':>10} {'ORT ms':>10} {'tuned/ORT':>9} {'compile ms':>10}"
    elif args.latency:
        header += f" {'clustune ms':>12} {'ORT ms':>10} {'ratio':>7} {'compile ms':>10}"
    print(header, flush=True)
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for path in paths:
            try:
                row = compare_model(path, args, work)
            except subprocess.CalledProcessError as error:
                failures += 1
                print(f"{os.path.basename(path):20} error: {error.stderr.strip()}", flush=True)
                continue
            line = f"{row['model']:20} {row['max_abs_error']:12.3g} {row['max_rel_error']:12.3g} {row['output_max_abs']:10.3g}"
            if args.latency and args.log:
                line += (f" {row['default_ms']:11.2f} {row['clustune_ms']:10.2f} {row['ort_ms']:10.2f}"
                         f" {row['ratio']:9.2f} {row['compile_median_ms']:10.1f}")
            elif args.latency:
                line += f" {row['clustune_ms']:12.2f} {row['ort_ms']:10.2f} {row['ratio']:7.1f} {row['compile_median_ms']:10.1f}"
            print(line, flush=True)
            if args.json:
                with open(args.json, "a") as out:
                    out.write(json.dumps(row) + "\n")
    print(f"machine: {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}, "
          f"{os.cpu_count()} cores; threads {args.threads}; onnxruntime {ort.__version__}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
