#!/usr/bin/env python3
"""Turns the leave-one-model-out results (scripts/lomo_experiment.sh's results.jsonl: one JSON
line per held-out model and cost model; several files concatenate) into the Markdown tables of
docs/results.md: one table per metric (network top-1 score, network top-5 score, pairwise
accuracy), a row per held-out model and a column per cost model, with the mean over models.

  python3 scripts/lomo_table.py lomo/results.jsonl [more.jsonl ...]
"""
import collections
import json
import sys

METRICS = [("top1", "Network top-1 score"), ("top5", "Network top-5 score"),
           ("pairwise_accuracy", "Pairwise accuracy")]


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 1
    rows = collections.OrderedDict()
    cost_models = []
    for path in sys.argv[1:]:
        with open(path) as handle:
            for line in handle:
                entry = json.loads(line)
                rows.setdefault(entry["model"], {})[entry["cost_model"]] = entry
                if entry["cost_model"] not in cost_models:
                    cost_models.append(entry["cost_model"])
    for key, title in METRICS:
        print(f"**{title}**\n")
        print("| held-out model | " + " | ".join(cost_models) + " |")
        print("|---|" + "---:|" * len(cost_models))
        sums = collections.defaultdict(list)
        for model, entries in rows.items():
            cells = []
            values = {name: entries.get(name, {}).get(key) for name in cost_models}
            best = max((v for v in values.values() if v is not None), default=None)
            for name in cost_models:
                value = values[name]
                if value is None:
                    cells.append("–")
                    continue
                sums[name].append(value)
                cells.append(f"**{value:.3f}**" if value == best else f"{value:.3f}")
            print(f"| {model} | " + " | ".join(cells) + " |")
        means = {name: sum(v) / len(v) for name, v in sums.items() if v}
        best = max(means.values(), default=None)
        cells = [(f"**{means[n]:.3f}**" if means[n] == best else f"{means[n]:.3f}") if n in means
                 else "–" for n in cost_models]
        print("| mean | " + " | ".join(cells) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
