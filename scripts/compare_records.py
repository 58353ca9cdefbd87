#!/usr/bin/env python3
"""Compares two measurements of the same candidates: records.jsonl files (or .gz) that
clustune-measure wrote for the same tasks, --per-task and --seed with two builds (a code
generator change, say). Schedules pair up by (task, sample_index), so both files must come
from the same sampler. Measure the two side by side, one right after the other, on a quiet
machine: kernels of a few microseconds drift by several percent between runs minutes apart.

Prints, for the pairs valid in both files (ratios are NEW / OLD; below 1 is faster):
  - per schedule: the median, smallest and largest ratio of the median cost;
  - per task: the ratio of the best (smallest median) cost, the figure a search cares about;
  - compile time per candidate: median, total and largest, in each file;
  - errors by kind in each file.

  scripts/compare_records.py old.jsonl new.jsonl          # Markdown-ish text
  scripts/compare_records.py --json old.jsonl new.jsonl   # one JSON object
"""
import argparse
import collections
import json
import statistics
import sys

from dataset_summary import read_jsonl


def read_records(path):
    try:
        records = {}
        for number, record in enumerate(read_jsonl(path), 1):
            if not isinstance(record, dict) or "task" not in record or "sample_index" not in record:
                sys.exit(f"error: {path}:{number}: not a record (no task or sample_index)")
            records[(record["task"], record["sample_index"])] = record
        return records
    except OSError as error:
        sys.exit(f"error: {path}: {error.strerror}")


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def compare(old, new):
    median_cost = lambda record: statistics.median(record["costs"])
    pairs = [key for key in old if key in new and not old[key].get("error")
             and not new[key].get("error")]
    if not pairs:
        sys.exit("error: no schedule is valid in both files (same tasks, --per-task and --seed?)")
    best = collections.defaultdict(lambda: [float("inf"), float("inf")])
    for key in pairs:
        task_best = best[key[0]]
        task_best[0] = min(task_best[0], median_cost(old[key]))
        task_best[1] = min(task_best[1], median_cost(new[key]))
    compile_seconds = lambda records: [records[key]["compile_seconds"] for key in pairs]
    errors = lambda records: dict(collections.Counter(
        record["error"] for record in records.values() if record.get("error")))
    return {
        "pairs": len(pairs),
        "tasks": len(best),
        "schedule_ratio": spread([median_cost(new[key]) / median_cost(old[key]) for key in pairs]),
        "best_per_task_ratio": spread([new_best / old_best for old_best, new_best in best.values()]),
        "compile_seconds": {
            name: {"median": statistics.median(compile_seconds(records)),
                   "total": sum(compile_seconds(records)), "max": max(compile_seconds(records))}
            for name, records in (("old", old), ("new", new))},
        "errors": {"old": errors(old), "new": errors(new)},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="records of the baseline build")
    parser.add_argument("new", help="records of the changed build")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    arguments = parser.parse_args()
    result = compare(read_records(arguments.old), read_records(arguments.new))
    if arguments.json:
        print(json.dumps(result))
        return
    schedule, task = result["schedule_ratio"], result["best_per_task_ratio"]
    print(f"{result['pairs']} schedules of {result['tasks']} tasks valid in both")
    print(f"per schedule, new/old median cost: median {schedule['median']:.2f}, "
          f"min {schedule['min']:.2f}, max {schedule['max']:.2f}")
    print(f"per task, new/old best cost: median {task['median']:.2f}, "
          f"min {task['min']:.2f}, max {task['max']:.2f}")
    for name in ("old", "new"):
        seconds = result["compile_seconds"][name]
        print(f"compile s/candidate, {name}: median {seconds['median']:.3f}, "
              f"total {seconds['total']:.1f}, max {seconds['max']:.1f}; "
              f"errors {result['errors'][name] or 'none'}")


if __name__ == "__main__":
    main()
