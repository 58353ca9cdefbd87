#!/usr/bin/env python3
"""The GPU's peers for issue 17's table (scripts/gpu_check.sh runs it on the device machine).

Times, with PyTorch on CUDA in fp32 (TF32 off, so that cuBLAS and cuDNN compute what clustune
computes):
  - GEMM 4096^3 (cuBLAS);
  - every 3x3 convolution task of resnet50's tasks.jsonl (cuDNN; the convolution alone, without
    the bias, ReLU or Add that clustune fuses into it);
  - resnet50, mobilenet_v2 (torchvision) and bert-base (transformers, from its config) eager at
    batch 1, random weights.
Each figure is the median of 20 timed runs (CUDA events) after 5 warm-ups. Then it reads
clustune's records (the best valid mean cost per task) and clustune-run's JSON lines, and writes
one JSON line per comparison and a Markdown table.

  gpu_peers.py --tasks r50.tasks.jsonl --records r50.records.jsonl \
      [--tuned-records tune.records.jsonl] --gemm-records gemm4096.records.jsonl \
      [--tuned-gemm-records tune.gemm4096.records.jsonl] --runs run.jsonl \
      [--tuned-runs tuned-run.jsonl] --json peers.jsonl --table table.md

Missing record or run files leave their columns empty.
"""
import argparse
import json
import statistics

import torch


def time_ms(fn, warmup=5, runs=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def best_costs(path):
    best = {}
    try:
        with open(path) as lines:
            for line in lines:
                record = json.loads(line)
                if record.get("error") is None and record.get("costs"):
                    cost = sum(record["costs"]) / len(record["costs"])
                    best[record["task"]] = min(best.get(record["task"], cost), cost)
    except FileNotFoundError:
        pass
    return best


def conv_tasks(path):
    with open(path) as lines:
        for line in lines:
            task = json.loads(line)
            conv = task["nodes"][0]
            if task["anchor"] != "Conv" or conv["attrs"].get("kernel_shape") != [3, 3]:
                continue
            yield task, conv


def read_runs(path):
    runs = {}
    try:
        with open(path) as lines:
            for line in lines:
                line = line.strip()
                if line.startswith("{"):
                    run = json.loads(line)
                    runs[run["model"]] = run
    except FileNotFoundError:
        pass
    return runs


def run_ms(run):
    return run.get("latency_ms", {}).get("median") if run else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--records", required=True, help="sampled schedules of the tasks")
    parser.add_argument("--tuned-records", default="", help="the tuning log of the tasks")
    parser.add_argument("--gemm-records", required=True, help="sampled GEMM 4096^3 schedules")
    parser.add_argument("--tuned-gemm-records", default="")
    parser.add_argument("--runs", required=True, help="clustune-run --json, default schedules")
    parser.add_argument("--tuned-runs", default="", help="clustune-run --json with tuning logs")
    parser.add_argument("--json", required=True)
    parser.add_argument("--table", required=True)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")
    runs, tuned_runs = read_runs(args.runs), read_runs(args.tuned_runs)
    rows = []

    def best_ms(path, key=None):
        best = best_costs(path)
        if key is not None:
            return best[key] * 1e3 if key in best else None
        return min(best.values()) * 1e3 if best else None

    a = torch.randn(4096, 4096, device=device)
    b = torch.randn(4096, 4096, device=device)
    tuned_gemm = tuned_runs.get("gemm4096")
    rows.append({"case": "GEMM 4096^3", "flops": 2 * 4096**3, "peer": "cuBLAS",
                 "peer_ms": time_ms(lambda: torch.matmul(a, b)),
                 "sampled_ms": best_ms(args.gemm_records),
                 "tuned_ms": run_ms(tuned_gemm) or best_ms(args.tuned_gemm_records),
                 "check": (tuned_gemm or {}).get("check", {}).get("passed")})

    for task, conv in conv_tasks(args.tasks):
        inputs = task["inputs"]
        x = torch.randn(*inputs[0]["shape"], device=device)
        w = torch.randn(*inputs[1]["shape"], device=device)
        attrs = conv["attrs"]
        stride, pads, group = attrs["strides"], attrs["pads"], attrs.get("group", 1)
        fn = lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=(pads[0], pads[1]),
                                                groups=group)
        rows.append({"case": f"resnet50 conv3x3 {inputs[0]['shape']} x {inputs[1]['shape']} "
                             f"stride {stride[0]}", "task": task["key"], "flops": task["flops"],
                     "peer": "cuDNN", "peer_ms": time_ms(fn),
                     "sampled_ms": best_ms(args.records, task["key"]),
                     "tuned_ms": best_ms(args.tuned_records, task["key"])})

    import torchvision
    from transformers import BertConfig, BertModel
    models = {
        "resnet50": (torchvision.models.resnet50(), lambda: (torch.randn(1, 3, 224, 224, device=device),)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(),
                         lambda: (torch.randn(1, 3, 224, 224, device=device),)),
        "bert-base": (BertModel(BertConfig()),
                      lambda: (torch.randint(0, 30522, (1, 128), device=device),)),
    }
    for name, (model, make_inputs) in models.items():
        model = model.to(device).eval()
        inputs = make_inputs()
        with torch.no_grad():
            peer = time_ms(lambda: model(*inputs))
        default, tuned = runs.get(name), tuned_runs.get(name)
        rows.append({"case": f"{name} batch 1", "peer": "PyTorch eager", "peer_ms": peer,
                     "default_ms": run_ms(default), "tuned_ms": run_ms(tuned),
                     "check": (tuned or default or {}).get("check", {}).get("passed")})

    with open(args.json, "w") as out:
        for row in rows:
            ours = row.get("tuned_ms") or row.get("sampled_ms") or row.get("default_ms")
            if ours:
                row["peer_over_clustune"] = row["peer_ms"] / ours
            out.write(json.dumps(row) + "\n")
    with open(args.table, "w") as out:
        out.write(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}, fp32, TF32 off\n\n")
        out.write("| case | peer | peer ms | clustune default or sampled ms | clustune tuned ms "
                  "| clustune speed vs peer | checked |\n|---|---|---:|---:|---:|---:|---|\n")
        text = lambda value: "" if value is None else f"{value:.3f}"
        for row in rows:
            first = row.get("default_ms") or row.get("sampled_ms")
            ratio = row.get("peer_over_clustune")
            out.write(f"| {row['case']} | {row['peer']} | {row['peer_ms']:.3f} | {text(first)} | "
                      f"{text(row.get('tuned_ms'))} | {'' if ratio is None else f'{ratio:.2f}x'} | "
                      f"{'' if row.get('check') is None else row['check']} |\n")
    print(open(args.table).read())


if __name__ == "__main__":
    main()
