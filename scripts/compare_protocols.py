#!/usr/bin/env python3
"""Fidelity of a measurement protocol against another (issue 14): the same schedules measured
twice (clustune-measure --schedules), by an old build or protocol (A) and a new one (B).
Prints the number of schedules valid in both, the Spearman rank correlation of their mean
costs (over all schedules, and the median over tasks), the median and the 10th/90th
percentiles of the cost ratio B/A, and for each side the coefficient of variation of each
schedule's repeats (median, p90, and the share at most 3%). Schedules with one cost (the early
exit of hopeless candidates) have no CV and are counted apart.
usage: scripts/compare_protocols.py A.jsonl B.jsonl [--json]"""
import json
import statistics
import sys
from collections import defaultdict


def load(path):
    records = {}
    for line in open(path):
        record = json.loads(line)
        if record.get("error") is None and record.get("costs"):
            records[(record["task"], json.dumps(record["schedule"]))] = record["costs"]
    return records


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2.0
        i = j + 1
    return result


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var > 0 else float("nan")


def quantile(values, q):
    values = sorted(values)
    return values[int(q * (len(values) - 1) + 0.5)] if values else float("nan")


def cvs(costs_list):
    return [statistics.pstdev(c) / statistics.fmean(c) for c in costs_list if len(c) >= 2]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__.split("usage: ")[1])
    a, b = load(args[0]), load(args[1])
    keys = sorted(k for k in a if k in b)
    if not keys:
        sys.exit("error: no schedule is valid in both files")
    mean_a = [statistics.fmean(a[k]) for k in keys]
    mean_b = [statistics.fmean(b[k]) for k in keys]
    ratios = [y / x for x, y in zip(mean_a, mean_b)]
    by_task = defaultdict(list)
    for k, x, y in zip(keys, mean_a, mean_b):
        by_task[k[0]].append((x, y))
    per_task = [spearman([p[0] for p in v], [p[1] for p in v]) for v in by_task.values() if len(v) >= 3]
    result = {
        "schedules": len(keys), "tasks": len(by_task),
        "spearman_all": spearman(mean_a, mean_b),
        "spearman_per_task_median": statistics.median(per_task) if per_task else None,
        "ratio_median": statistics.median(ratios), "ratio_p10": quantile(ratios, 0.1),
        "ratio_p90": quantile(ratios, 0.9),
    }
    for side, records in (("a", a), ("b", b)):
        values = cvs([records[k] for k in keys])
        result[f"cv_{side}_median"] = statistics.median(values) if values else None
        result[f"cv_{side}_p90"] = quantile(values, 0.9) if values else None
        result[f"cv_{side}_share_at_most_3pct"] = sum(v <= 0.03 for v in values) / len(values) if values else None
        result[f"single_cost_{side}"] = sum(len(records[k]) < 2 for k in keys)
    if "--json" in sys.argv:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:<28} {value:.4g}" if isinstance(value, float) else f"{key:<28} {value}")


if __name__ == "__main__":
    main()
