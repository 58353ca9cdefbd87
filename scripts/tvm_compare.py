#!/usr/bin/env python3
"""TVM MetaSchedule beside clustune-tune on the same tasks, side by side in one run.

Each convolution task of a clustune tasks.jsonl (Conv with its bias, and the residual Add and
Relu fused after it) is rebuilt as a TVM tensor expression with the same shapes and layout
(NCHW activations, OIHW weights, float32) and tuned by MetaSchedule (apache-tvm from PyPI:
evolutionary search, XGBoost cost model) for --trials trials; clustune-tune then tunes the same
task alone with the same number of trials. Both measure with matched settings: one run per
repeat raised until a repeat lasts 10 ms, 3 repeats, no cache flush (MetaSchedule's default is
number 3, repeat 1, min_repeat_ms 100; REFERENCES.md). The table gives each side's best latency
from its own tuning log (the mean of the best record's repeats, like for like), TVM's best
schedule re-timed once more with its time evaluator after compiling it again, and each side's
tuning wall time.

  python3 scripts/tvm_compare.py TASKS.jsonl [--top 4 | --keys K1,K2] [--trials 64]
                                 [--threads 2] [--seed 0] [--json results.jsonl]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_tasks(path):
    with open(path) as stream:
        return [json.loads(line) for line in stream if line.strip()]


def convolution_te(task):
    """The task as a TVM PrimFunc, or None when it is not Conv [+ Add] [+ Relu]."""
    from tvm import te, topi

    nodes = task["nodes"]
    if not nodes or nodes[0]["op"] != "Conv" or nodes[0]["attrs"].get("group", 1) != 1:
        return None
    inputs = task["inputs"]
    placeholders = [te.placeholder(tuple(value["shape"]), name=f"input{index}", dtype="float32")
                    for index, value in enumerate(inputs)]
    conv = nodes[0]
    attrs = conv["attrs"]
    data, weight = (placeholders[conv["inputs"][k]["input"]] for k in (0, 1))
    pads = attrs["pads"]
    result = topi.nn.conv2d_nchw(data, weight, tuple(attrs["strides"]),
                                 (pads[0], pads[1], pads[2], pads[3]), tuple(attrs["dilations"]),
                                 out_dtype="float32")
    if len(conv["inputs"]) == 3:
        bias = placeholders[conv["inputs"][2]["input"]]
        result = te.compute(result.shape, lambda n, c, h, w: result[n, c, h, w] + bias[c],
                            name="bias_add")
    for node in nodes[1:]:
        if node["op"] == "Relu":
            result = topi.nn.relu(result)
        elif node["op"] == "Add":
            other = [ref for ref in node["inputs"] if "input" in ref]
            if len(other) != 1:
                return None
            residual = placeholders[other[0]["input"]]
            result = topi.add(result, residual)
        else:
            return None
    return te.create_prim_func(placeholders + [result])


def tune_with_tvm(function, shapes, trials, threads, cpu, work):
    import numpy as np
    import tvm
    from tvm.s_tir import meta_schedule as ms

    target = tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": threads})
    # A fresh builder or runner process needs tens of seconds to import TVM on two busy cores,
    # more than the default 30 s limit: generous limits keep the first batch from timing out.
    builder = ms.builder.LocalBuilder(timeout_sec=300)
    runner = ms.runner.LocalRunner(timeout_sec=300, evaluator_config=ms.runner.EvaluatorConfig(
        number=1, repeat=3, min_repeat_ms=10, enable_cpu_cache_flush=False))
    module = tvm.IRModule({"main": function})
    start = time.perf_counter()
    database = ms.tune_tir(mod=module, target=target, work_dir=work, max_trials_global=trials,
                           num_trials_per_iter=min(64, trials), builder=builder, runner=runner)
    seconds = time.perf_counter() - start
    # The best run time MetaSchedule measured while tuning, the like-for-like peer of
    # clustune's best record; the re-timing below runs the same schedule compiled again.
    records = database.get_top_k(database.commit_workload(module), 1)
    logged_ms = statistics.mean(float(s) for s in records[0].run_secs) * 1e3 if records else None
    schedule = ms.tir_integration.compile_tir(database, module, target)
    if schedule is None:
        raise RuntimeError("MetaSchedule found no valid schedule (see the logs under " + work + ")")
    built = tvm.compile(schedule.mod, target=target)
    device = tvm.cpu()
    arguments = [tvm.runtime.tensor(np.random.uniform(-1, 1, shape).astype("float32"), device)
                 for shape in shapes]
    evaluator = built.mod.time_evaluator("main", device, number=1, repeat=20, min_repeat_ms=10)
    costs = evaluator(*arguments).results
    return {"tvm_ms": statistics.median(costs) * 1e3, "tvm_logged_ms": logged_ms, "tvm_seconds": seconds}


def tune_with_clustune(task, trials, threads, args, work):
    one = os.path.join(work, "task.jsonl")
    with open(one, "w") as stream:
        stream.write(json.dumps(task) + "\n")
    log = os.path.join(work, "log.jsonl")
    command = [args.clustune_tune, "--tasks", one, "--trials", str(trials), "--threads",
               str(threads), "--seed", str(args.seed), "-q", "-o", log] + args.clustune_flag
    start = time.perf_counter()
    summary = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    seconds = time.perf_counter() - start
    best = None
    with open(log) as stream:
        for line in stream:
            record = json.loads(line)
            if record["error"] is None and record["costs"]:
                cost = sum(record["costs"]) / len(record["costs"])
                best = cost if best is None else min(best, cost)
    return {"clustune_ms": best * 1e3, "clustune_seconds": seconds, "clustune_mode": summary["mode"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", help="tasks.jsonl from clustune-partition")
    parser.add_argument("--keys", help="comma-separated task keys")
    parser.add_argument("--top", type=int, default=4,
                        help="without --keys: the convolution tasks with the largest weight x FLOPs")
    parser.add_argument("--trials", type=int, default=64, help="trials per task, on both sides")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", help="LLVM CPU for TVM (default: llc's host CPU)")
    parser.add_argument("--clustune-tune", default=os.path.join(REPO, "build/bin/clustune-tune"))
    parser.add_argument("--clustune-flag", action="append", default=[],
                        help="an extra clustune-tune flag (repeatable), e.g. --clustune-flag=--mode=online")
    parser.add_argument("--json", help="append one JSON object per task to this file")
    args = parser.parse_args()
    try:
        import tvm  # noqa: F401
    except ImportError:
        print("error: TVM is not installed (pip install apache-tvm)", file=sys.stderr)
        return 1
    tasks = read_tasks(args.tasks)
    if args.keys:
        wanted = args.keys.split(",")
        chosen = [task for task in tasks if task["key"] in wanted]
        missing = set(wanted) - {task["key"] for task in chosen}
        if missing:
            print(f"error: {args.tasks} has no task {', '.join(sorted(missing))}", file=sys.stderr)
            return 1
    else:
        convolutions = [task for task in tasks if task["anchor"] == "Conv"]
        chosen = sorted(convolutions, key=lambda t: -t["weight"] * t["flops"])[:args.top]
    cpu = args.cpu or subprocess.run(["bash", "-c", "llc-19 --version | sed -n 's/ *Host CPU: //p'"],
                                     capture_output=True, text=True).stdout.strip() or "generic"
    os.environ["TVM_NUM_THREADS"] = str(args.threads)
    print(f"{'task':18} {'output':16} {'MFLOP':>7} {'TVM ms':>9} {'GFLOP/s':>8} {'re-timed':>9} {'TVM s':>7}"
          f" {'clustune ms':>11} {'GFLOP/s':>8} {'clustune s':>10}", flush=True)
    for task in chosen:
        function = convolution_te(task)
        shape = "x".join(str(d) for d in task["nodes"][-1]["outputs"][0]["shape"])
        if function is None:
            print(f"{task['key']:18} {shape:16} not a Conv [+ Add] [+ Relu] task: skipped", flush=True)
            continue
        work = tempfile.mkdtemp(prefix="tvm-compare-")
        try:
            row = {"key": task["key"], "output": shape, "flops": task["flops"], "trials": args.trials,
                   "cpu": cpu, "threads": args.threads}
            shapes = [value["shape"] for value in task["inputs"]] + [task["nodes"][-1]["outputs"][0]["shape"]]
            row.update(tune_with_tvm(function, shapes, args.trials, args.threads, cpu,
                                     os.path.join(work, "tvm")))
            row.update(tune_with_clustune(task, args.trials, args.threads, args, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        gflops = lambda ms: task["flops"] / (ms * 1e-3) / 1e9
        logged = row["tvm_logged_ms"]
        print(f"{task['key']:18} {shape:16} {task['flops'] / 1e6:7.1f} {logged or float('nan'):9.3f}"
              f" {gflops(logged) if logged else float('nan'):8.1f} {row['tvm_ms']:9.3f} {row['tvm_seconds']:7.0f} {row['clustune_ms']:11.3f}"
              f" {gflops(row['clustune_ms']):8.1f} {row['clustune_seconds']:10.0f}", flush=True)
        if args.json:
            with open(args.json, "a") as out:
                out.write(json.dumps(row) + "\n")
    model_name = open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].splitlines()[0].strip()
    print(f"machine: {model_name} (LLVM CPU {cpu}), {os.cpu_count()} cores; threads {args.threads};"
          f" {args.trials} trials per task; tvm {__import__('tvm').__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
