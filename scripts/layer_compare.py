#!/usr/bin/env python3
"""Where a model's time goes in clustune and in ONNX Runtime, convolution by convolution.

clustune-run times every task inside the model (--per-task); ONNX Runtime's profiler times every
node of its optimised graph. Neither graph is the other's (ORT fuses and reorders its own way),
so the two are joined by what a convolution computes: its kernel, strides, channels, groups and
image size, whatever the layout. Matrix products are joined by (batch, M, K, N). Everything else
is summed per side as "other". Both runtimes run the same model file (clustune's seeded weights,
--save-weights), with the threads of --threads, one after the other; each row is the median over
--repeat runs of the sum of its nodes' times in a run. Nothing passes or fails.

  python3 scripts/layer_compare.py --model resnet50 [--log tune.jsonl] [--layout NCHW16c]
      [--batch B] [--threads 2] [--repeat 20] [--bin build/bin] [--json rows.jsonl]

--batch B sets axis 0 of every graph input to B on both sides (tune the log at that batch).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def conv_signature(data, weight, output, group, blocked):
    """(C, K, group, kernel, strides, image) of a convolution from its operand shapes."""
    if blocked:  # data [N, C/x, S..., x], weight [K/y, C/(x g), k..., x, y], output [N, K/y, O..., y]
        channels, image = data[1] * data[-1], data[2:-1]
        out_channels, kernel, out_image = weight[0] * weight[-1], weight[2:-2], output[2:-1]
    else:
        channels, image = data[1], data[2:]
        out_channels, kernel, out_image = weight[0], weight[2:], output[2:]
    # ORT pads the channels of its blocked convolutions; a stride is recovered from the extents.
    strides = tuple(max(1, round(i / o)) for i, o in zip(image, out_image))
    return ("conv", channels, out_channels, group, tuple(kernel), strides, tuple(image))


def matmul_signature(a, b):
    batch = 1
    for extent in a[:-2]:
        batch *= extent
    return ("matmul", batch, a[-2] if len(a) > 1 else 1, a[-1], b[-1])


def describe(signature):
    if signature[0] == "conv":
        _, c, k, group, kernel, strides, image = signature
        text = f"conv {'x'.join(map(str, kernel))}/{'x'.join(map(str, strides))} {c}->{k}"
        if group > 1:
            text += f" g{group}"
        return text + f" @{'x'.join(map(str, image))}"
    if signature[0] == "matmul":
        _, batch, m, k, n = signature
        return f"matmul {batch}x{m}x{k}x{n}"
    return signature[1]


def task_signature(task):
    anchor = next((node for node in task["nodes"] if node["op"] == task["anchor"]), None)
    if anchor is None:
        return ("other", task["anchor"])

    def shape(operand):
        if "input" in operand:
            return task["inputs"][operand["input"]]["shape"]
        return task["nodes"][operand["node"]]["outputs"][operand["output"]]["shape"]

    op, inputs, output = anchor["op"], anchor["inputs"], anchor["outputs"][0]["shape"]
    if op in ("Conv", "ConvNCHWc", "DepthwiseConvNCHWc"):
        data, weight = shape(inputs[0]), shape(inputs[1])
        group = anchor["attrs"].get("group", 1)
        if op == "DepthwiseConvNCHWc":
            group = data[1] * data[-1]
        return conv_signature(data, weight, output, group, op != "Conv")
    if op in ("MatMul", "Gemm") and len(inputs) >= 2:
        a, b = shape(inputs[0]), shape(inputs[1])
        if anchor["attrs"].get("transA", 0):
            a = a[:-2] + [a[-1], a[-2]]
        if anchor["attrs"].get("transB", 0):
            b = b[:-2] + [b[-1], b[-2]]
        return matmul_signature(a, b)
    return ("other", op)


def ort_signature(event):
    args = event.get("args", {})
    op = args.get("op_name", "?")
    shapes = [next(iter(entry.values())) for entry in args.get("input_type_shape", [])]
    outputs = [next(iter(entry.values())) for entry in args.get("output_type_shape", [])]
    if op in ("Conv", "FusedConv") and len(shapes) >= 2 and outputs:
        data, weight, output = shapes[0], shapes[1], outputs[0]
        group = int(args.get("group", 0)) or max(1, data[1] // max(1, weight[1]))
        return conv_signature(data, weight, output, group, blocked=False)
    if op in ("MatMul", "FusedMatMul", "Gemm", "FusedGemm") and len(shapes) >= 2:
        return matmul_signature(shapes[0], shapes[1])
    return ("other", op)


def model_path(args):
    return os.path.join(REPO, "models", args.model + ".onnx")


def input_shapes(args):
    """clustune's --input-shape flags that set axis 0 of every graph input to --batch."""
    if args.batch is None:
        return []
    model = onnx.load(model_path(args), load_external_data=False)
    weights = {tensor.name for tensor in model.graph.initializer}
    flags = []
    for value in model.graph.input:
        if value.name in weights:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else 0 for d in value.type.tensor_type.shape.dim]
        flags.append(f"{value.name}=" + "x".join(str(d) for d in [args.batch] + dims[1:]))
    return ["--input-shape", *flags] if flags else []


def with_batch(path, batch):
    """The model file at `path` with axis 0 of its graph inputs and outputs set to `batch`."""
    model = onnx.load(path)
    for value in list(model.graph.input) + list(model.graph.output):
        dims = value.type.tensor_type.shape.dim
        if dims:
            dims[0].Clear()
            dims[0].dim_value = batch
    del model.graph.value_info[:]
    onnx.save(model, path)


def run_clustune(args, work):
    weights = os.path.join(work, "model.onnx")
    shapes = input_shapes(args)
    command = [os.path.join(args.bin, "clustune-run"), model_path(args),
               "--layout", args.layout, "--threads", str(args.threads), "--repeat", str(args.repeat),
               "--per-task", "--json", "-q", "--save-weights", weights, *shapes]
    if args.log:
        command += ["--log", args.log]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"error: clustune-run failed: {run.stderr.strip()}")
    result = json.loads(run.stdout)
    tasks = subprocess.run([os.path.join(args.bin, "clustune-partition"), model_path(args),
                            "--layout", args.layout, "-q", *shapes],
                           check=True, capture_output=True, text=True).stdout
    by_key = {task["key"]: task for task in map(json.loads, tasks.splitlines())}
    rows = collections.defaultdict(float)
    for task in result["per_task"]:
        rows[task_signature(by_key[task["key"]])] += task["ms"]
    return rows, result["latency_ms"]["median"], weights


def run_ort(args, weights, work):
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(work, "ort")
    if args.batch is not None:
        with_batch(weights, args.batch)
    session = ort.InferenceSession(weights, options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    feed = {}
    for spec in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in spec.shape]
        if "int64" in spec.type:
            feed[spec.name] = rng.integers(0, 2, size=shape).astype(np.int64)
        else:
            feed[spec.name] = rng.standard_normal(shape).astype(np.float32)
    for _ in range(3):
        session.run(None, feed)
    for _ in range(args.repeat):
        session.run(None, feed)
    profile = session.end_profiling()
    with open(profile) as f:
        events = json.load(f)
    runs = [e for e in events if e.get("name") == "model_run"]
    kernels = [e for e in events if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time")]
    # One sum per signature per run; the runs are told apart by their model_run windows.
    timed = runs[-args.repeat:]
    per_run = [collections.defaultdict(float) for _ in timed]
    for event in kernels:
        for index, run in enumerate(timed):
            if run["ts"] <= event["ts"] <= run["ts"] + run["dur"]:
                per_run[index][ort_signature(event)] += event["dur"] / 1e3
                break
    signatures = set().union(*per_run) if per_run else set()
    rows = {s: statistics.median(run.get(s, 0.0) for run in per_run) for s in signatures}
    wall = statistics.median(run["dur"] / 1e3 for run in timed) if timed else float("nan")
    return rows, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a model of models/, without .onnx")
    parser.add_argument("--log", help="a clustune-tune log: run with its best schedules")
    parser.add_argument("--layout", default="NCHW")
    parser.add_argument("--batch", type=int, help="batch size of every graph input (axis 0)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--bin", default=os.path.join(REPO, "build", "bin"))
    parser.add_argument("--json", help="append one JSON object per row to this file")
    args = parser.parse_args()
    if args.batch is not None and args.batch < 1:
        print(f"error: --batch must be at least 1, not {args.batch}", file=sys.stderr)
        return 1
    if not os.path.exists(model_path(args)):
        print(f"error: no model models/{args.model}.onnx", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work:
        ours, our_wall, weights = run_clustune(args, work)
        theirs, their_wall = run_ort(args, weights, work)
    signatures = sorted(set(ours) | set(theirs), key=lambda s: -max(ours.get(s, 0), theirs.get(s, 0)))
    print(f"{'layer':<44} {'clustune ms':>12} {'ORT ms':>9} {'ratio':>6}")
    for signature in signatures:
        mine, other = ours.get(signature, 0.0), theirs.get(signature, 0.0)
        ratio = f"{mine / other:6.2f}" if mine > 0 and other > 0 else "     -"
        print(f"{describe(signature):<44} {mine:12.3f} {other:9.3f} {ratio}")
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps({"model": args.model, "batch": args.batch or 1, "layer": describe(signature),
                                    "clustune_ms": mine, "ort_ms": other}) + "\n")
    print(f"{'sum of rows':<44} {sum(ours.values()):12.3f} {sum(theirs.values()):9.3f}")
    print(f"{'whole model (median run)':<44} {our_wall:12.3f} {their_wall:9.3f} {our_wall / their_wall:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
