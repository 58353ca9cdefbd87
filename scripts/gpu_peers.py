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

  gpu_peers.py --tasks r50.tasks.jsonl --records r50.records.jsonl --gemm-records gemm.jsonl \
      --runs run.jsonl --json peers.jsonl --table table.md
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--records", required=True)
    parser.add_argument("--gemm-records", required=True)
    parser.add_argument("--runs", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--table", required=True)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")
    rows = []

    gemm_best = best_costs(args.gemm_records)
    a = torch.randn(4096, 4096, device=device)
    b = torch.randn(4096, 4096, device=device)
    torch_ms = time_ms(lambda: torch.matmul(a, b))
    ours = min(gemm_best.values()) * 1e3 if gemm_best else None
    rows.append({"case": "GEMM 4096^3", "flops": 2 * 4096**3, "peer": "cuBLAS", "peer_ms": torch_ms,
                 "clustune_ms": ours})

    best = best_costs(args.records)
    for task, conv in conv_tasks(args.tasks):
        inputs = task["inputs"]
        x = torch.randn(*inputs[0]["shape"], device=device)
        w = torch.randn(*inputs[1]["shape"], device=device)
        attrs = conv["attrs"]
        stride, pads, group = attrs["strides"], attrs["pads"], attrs.get("group", 1)
        fn = lambda: torch.nn.functional.conv2d(x, w, stride=stride, padding=(pads[0], pads[1]),
                                                groups=group)
        ours = best.get(task["key"])
        rows.append({"case": f"resnet50 conv3x3 {inputs[0]['shape']} x {inputs[1]['shape']} "
                             f"stride {stride[0]}", "task": task["key"], "flops": task["flops"],
                     "peer": "cuDNN", "peer_ms": time_ms(fn),
                     "clustune_ms": ours * 1e3 if ours else None})

    import torchvision
    from transformers import BertConfig, BertModel
    models = {
        "resnet50": (torchvision.models.resnet50(), lambda: (torch.randn(1, 3, 224, 224, device=device),)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(),
                         lambda: (torch.randn(1, 3, 224, 224, device=device),)),
        "bert-base": (BertModel(BertConfig()),
                      lambda: (torch.randint(0, 30522, (1, 128), device=device),)),
    }
    runs = {}
    with open(args.runs) as lines:
        for line in lines:
            line = line.strip()
            if line.startswith("{"):
                run = json.loads(line)
                runs[run["model"]] = run
    for name, (model, make_inputs) in models.items():
        model = model.to(device).eval()
        inputs = make_inputs()
        with torch.no_grad():
            peer = time_ms(lambda: model(*inputs))
        ours = runs.get(name, {}).get("latency_ms", {}).get("median")
        rows.append({"case": f"{name} batch 1", "peer": "PyTorch eager", "peer_ms": peer,
                     "clustune_ms": ours, "check": runs.get(name, {}).get("check", {}).get("passed")})

    with open(args.json, "w") as out:
        for row in rows:
            if row.get("clustune_ms"):
                row["peer_over_clustune"] = row["peer_ms"] / row["clustune_ms"]
            out.write(json.dumps(row) + "\n")
    with open(args.table, "w") as out:
        out.write(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}, fp32, TF32 off\n\n")
        out.write("| case | peer | peer ms | clustune ms | clustune speed vs peer |\n|---|---|---:|---:|---:|\n")
        for row in rows:
            ours = row.get("clustune_ms")
            ours_text = "" if ours is None else f"{ours:.3f}"
            ratio_text = "" if ours is None else f"{row['peer_over_clustune']:.2f}x"
            out.write(f"| {row['case']} | {row['peer']} | {row['peer_ms']:.3f} | {ours_text} | "
                      f"{ratio_text} |\n")
    print(open(args.table).read())


if __name__ == "__main__":
    main()
