#!/usr/bin/env python3
"""Replicates tasks with varied shapes, for benchmarks that need many tasks (issue 6: embed and
cluster 10,000 tasks). Each task of TASKS.jsonl is repeated at batch sizes 1..B: the leading
dimension of every activation input and every node output is multiplied by the batch size
(weights keep their shapes), FLOPs and bytes scale with it, and the key is rehashed. The
result is what the partitioner would give for the same models at those batch sizes, close
enough for timing the graph tools; it is not used to measure or tune.

  python3 test/bench/replicate_tasks.py tasks.jsonl --count 10000 > tasks-10k.jsonl
"""
import argparse
import hashlib
import json
import sys


def scaled(shape, batch):
    return [shape[0] * batch] + shape[1:] if shape else shape


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks")
    parser.add_argument("--count", type=int, default=10000)
    args = parser.parse_args()
    tasks = [json.loads(line) for line in open(args.tasks) if line.strip()]
    written = 0
    batch = 1
    while written < args.count:
        for task in tasks:
            if written == args.count:
                break
            copy = json.loads(json.dumps(task))
            for tensor in copy["inputs"]:
                if tensor["kind"] == "activation":
                    tensor["shape"] = scaled(tensor["shape"], batch)
            for node in copy["nodes"]:
                for output in node["outputs"]:
                    output["shape"] = scaled(output["shape"], batch)
            for field in ("flops", "bytes_read", "bytes_written"):
                if field in copy:
                    copy[field] *= batch
            copy["key"] = hashlib.sha256(f"{task['key']}/{batch}".encode()).hexdigest()[:16]
            sys.stdout.write(json.dumps(copy) + "\n")
            written += 1
        batch += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
