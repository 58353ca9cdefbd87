#!/usr/bin/env python3
"""Summarises a measured dataset: records.jsonl (or .gz) against the tasks.jsonl it measured.

Prints, as Markdown (for data/README.md) or JSON (--json):
  - records, valid records, tasks covered, error rates by kind;
  - per model: tasks, records and valid records (a task shared by models counts for each);
  - per task: anchor, FLOPs, valid records and the best GFLOP/s (FLOPs / fastest mean cost).

  scripts/dataset_summary.py data/cpu-znver5/tasks.jsonl.gz data/cpu-znver5/records.jsonl.gz
"""
import argparse
import collections
import gzip
import json
import sys


def open_text(path):
    if path == "-":
        return sys.stdin
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def read_jsonl(path):
    with open_text(path) as stream:
        for number, line in enumerate(stream, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as error:
                    sys.exit(f"error: {path}:{number}: {error}")


def summarise(tasks_path, records_path):
    tasks = {task["key"]: task for task in read_jsonl(tasks_path)}
    per_task = collections.defaultdict(lambda: {"records": 0, "valid": 0, "best": None})
    errors = collections.Counter()
    records = valid = 0
    unknown = set()
    for record in read_jsonl(records_path):
        records += 1
        entry = per_task[record["task"]]
        entry["records"] += 1
        if record["task"] not in tasks:
            unknown.add(record["task"])
        if record.get("error"):
            errors[record["error"]] += 1
            continue
        valid += 1
        entry["valid"] += 1
        cost = sum(record["costs"]) / len(record["costs"])
        if entry["best"] is None or cost < entry["best"]:
            entry["best"] = cost
    models = collections.defaultdict(lambda: {"tasks": 0, "measured_tasks": 0, "records": 0, "valid": 0})
    for key, task in tasks.items():
        for model in task["weights"]:
            summary = models[model]
            summary["tasks"] += 1
            if key in per_task:
                summary["measured_tasks"] += 1
                summary["records"] += per_task[key]["records"]
                summary["valid"] += per_task[key]["valid"]
    task_rows = []
    for key, task in tasks.items():
        entry = per_task.get(key, {"records": 0, "valid": 0, "best": None})
        best = entry["best"]
        task_rows.append({
            "key": key, "anchor": task["anchor"], "models": sorted(task["weights"]),
            "flops": task["flops"], "records": entry["records"], "valid": entry["valid"],
            "best_seconds": best,
            "best_gflops": task["flops"] / best / 1e9 if best and task["flops"] else None})
    return {
        "records": records, "valid": valid, "tasks": len(tasks),
        "tasks_measured": sum(1 for key in tasks if key in per_task),
        "records_of_unknown_tasks": sum(per_task[key]["records"] for key in unknown),
        "errors": dict(sorted(errors.items())),
        "error_rates": {kind: count / records for kind, count in sorted(errors.items())} if records else {},
        "models": dict(sorted(models.items())), "per_task": task_rows}


def markdown(summary):
    lines = [f"- records: {summary['records']}, valid: {summary['valid']}"
             f" ({100 * summary['valid'] / max(1, summary['records']):.1f}%)",
             f"- tasks measured: {summary['tasks_measured']} of {summary['tasks']}"]
    if summary["errors"]:
        rates = ", ".join(f"{kind} {count} ({100 * summary['error_rates'][kind]:.2f}%)"
                          for kind, count in summary["errors"].items())
        lines.append(f"- errors by kind: {rates}")
    else:
        lines.append("- errors by kind: none")
    lines += ["", "| model | tasks | measured tasks | records | valid |", "|---|---:|---:|---:|---:|"]
    for model, entry in summary["models"].items():
        lines.append(f"| {model} | {entry['tasks']} | {entry['measured_tasks']} | {entry['records']} | {entry['valid']} |")
    lines += ["", "| task | anchor | models | MFLOP | valid | best µs | best GFLOP/s |",
              "|---|---|---|---:|---:|---:|---:|"]
    for row in summary["per_task"]:
        best_us = f"{row['best_seconds'] * 1e6:.1f}" if row["best_seconds"] else "-"
        gflops = f"{row['best_gflops']:.1f}" if row["best_gflops"] else "-"
        models = ", ".join(row["models"][:3]) + (", ..." if len(row["models"]) > 3 else "")
        lines.append(f"| {row['key']} | {row['anchor']} | {models} | {row['flops'] / 1e6:.2f} | "
                     f"{row['valid']} | {best_us} | {gflops} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks", help="tasks.jsonl (or .gz) that was measured")
    parser.add_argument("records", help="records.jsonl (or .gz)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    arguments = parser.parse_args()
    summary = summarise(arguments.tasks, arguments.records)
    print(json.dumps(summary) if arguments.json else markdown(summary))


if __name__ == "__main__":
    main()
