#!/usr/bin/env python3
"""Turns the leave-one-model-out results (scripts/lomo_experiment.sh's results.jsonl: one JSON
line per held-out model and cost model) into the Markdown table of docs/results.md: per held-out
model, the network top-1 and top-5 scores and the pairwise accuracy of every cost model, and
their means over models.

  python3 scripts/lomo_table.py lomo/results.jsonl
"""
import collections
import json
import sys


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 1
    rows = collections.OrderedDict()
    cost_models = []
    with open(sys.argv[1]) as handle:
        for line in handle:
            entry = json.loads(line)
            rows.setdefault(entry["model"], {})[entry["cost_model"]] = entry
            if entry["cost_model"] not in cost_models:
                cost_models.append(entry["cost_model"])
    metrics = [("top1", "top-1"), ("top5", "top-5"), ("pairwise_accuracy", "pairwise")]
    header = ["held-out model"] + [f"{name} {label}" for name in cost_models for _, label in metrics]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    sums = collections.defaultdict(list)
    for model, entries in rows.items():
        cells = [model]
        for name in cost_models:
            for key, _ in metrics:
                value = entries.get(name, {}).get(key)
                cells.append("–" if value is None else f"{value:.3f}")
                if value is not None:
                    sums[(name, key)].append(value)
        print("| " + " | ".join(cells) + " |")
    cells = ["**mean**"]
    for name in cost_models:
        for key, _ in metrics:
            values = sums[(name, key)]
            cells.append(f"**{sum(values) / len(values):.3f}**" if values else "–")
    print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
