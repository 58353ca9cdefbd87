#!/usr/bin/env python3
"""Turns the leave-one-model-out results (scripts/lomo_experiment.sh's results.jsonl: one JSON
line per held-out model, cost model and seed; several files concatenate, one per seed) into the
Markdown tables of docs/results.md: one table per metric (network top-1 score, network top-5
score, pairwise accuracy), a row per held-out model and a column per cost model, each cell the
mean over seeds. The last rows give the mean over models for each seed's run, as the mean of
those, each column's difference from the first column seed by seed (paired: the same split and
initial weights), and their range over seeds, so that a difference between columns can be told
from the noise of one seed. Where held-out tasks were routed by their embeddings (the fold variants),
a last table counts how many fell back to the global model.

  python3 scripts/lomo_table.py lomo-seed0/results.jsonl [lomo-seed1/results.jsonl ...]
"""
import collections
import json
import statistics
import sys

METRICS = [("top1", "Network top-1 score"), ("top5", "Network top-5 score"),
           ("pairwise_accuracy", "Pairwise accuracy")]


def bold_if(value, best, text):
    return f"**{text}**" if best is not None and abs(value - best) < 1e-12 else text


def metric_table(key, title, cells, models, cost_models, seeds):
    lines = [f"**{title}**", "", "| held-out model | " + " | ".join(cost_models) + " |",
             "|---|" + "---:|" * len(cost_models)]
    for model in models:
        means = {}
        for name in cost_models:
            values = [cells[model, name, seed][key] for seed in seeds
                      if (model, name, seed) in cells and cells[model, name, seed].get(key) is not None]
            if values:
                means[name] = statistics.mean(values)
        best = max(means.values(), default=None)
        row = [bold_if(means[n], best, f"{means[n]:.3f}") if n in means else "–" for n in cost_models]
        lines.append(f"| {model} | " + " | ".join(row) + " |")
    # Per seed, the mean over the held-out models; a seed that lacks one of the models that
    # another seed has for this cost model (a run still going) is left out.
    per_seed = {}
    for name in cost_models:
        covered = {m for m in models for seed in seeds
                   if (cells.get((m, name, seed)) or {}).get(key) is not None}
        runs = []
        for seed in seeds:
            values = [cells[m, name, seed][key] for m in covered
                      if (cells.get((m, name, seed)) or {}).get(key) is not None]
            if values and len(values) == len(covered):
                runs.append(statistics.mean(values))
        if runs:
            per_seed[name] = runs
    best = max((statistics.mean(r) for r in per_seed.values()), default=None)
    lines.append("| mean | " + " | ".join(
        bold_if(statistics.mean(per_seed[n]), best, f"{statistics.mean(per_seed[n]):.3f}")
        if n in per_seed else "–" for n in cost_models) + " |")
    # Paired by seed against the first column: both saw the same split and initial weights.
    baseline = cost_models[0]
    if baseline in per_seed and len(per_seed[baseline]) > 1:
        cells_delta = ["–"]
        for name in cost_models[1:]:
            runs = per_seed.get(name, [])
            if len(runs) != len(per_seed[baseline]):
                cells_delta.append("–")
                continue
            deltas = [run - base for run, base in zip(runs, per_seed[baseline])]
            cells_delta.append(", ".join(f"{delta:+.3f}" for delta in deltas))
        lines.append(f"| minus {baseline}, per seed | " + " | ".join(cells_delta) + " |")
    if len(seeds) > 1:
        lines.append("| range over seeds | " + " | ".join(
            f"{min(per_seed[n]):.3f}–{max(per_seed[n]):.3f} ({len(per_seed[n])})" if n in per_seed else "–"
            for n in cost_models) + " |")
    return lines + [""]


def routing_table(cells, models, cost_models, seeds):
    routed = [n for n in cost_models
              if any((cells.get((m, n, s)) or {}).get("routing") and
                     (cells[m, n, s]["routing"].get("nearest_centroid", 0) +
                      cells[m, n, s]["routing"].get("far_from_every_cluster", 0)) > 0
                     for m in models for s in seeds)]
    if not routed:
        return []
    lines = ["**Held-out tasks far from every cluster (global model) / held-out tasks, summed over "
             "seeds**", "", "| held-out model | " + " | ".join(routed) + " |",
             "|---|" + "---:|" * len(routed)]
    totals = collections.Counter()
    for model in models:
        row = []
        for name in routed:
            far = unseen = 0
            for seed in seeds:
                routing = (cells.get((model, name, seed)) or {}).get("routing") or {}
                far += routing.get("far_from_every_cluster", 0)
                unseen += routing.get("far_from_every_cluster", 0) + routing.get("nearest_centroid", 0)
            totals[name, "far"] += far
            totals[name, "unseen"] += unseen
            row.append(f"{far}/{unseen}" if unseen else "–")
        lines.append(f"| {model} | " + " | ".join(row) + " |")
    lines.append("| all | " + " | ".join(
        f"{totals[n, 'far']}/{totals[n, 'unseen']} ({100 * totals[n, 'far'] / max(totals[n, 'unseen'], 1):.0f}%)"
        for n in routed) + " |")
    return lines + [""]


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 1
    cells = {}
    models, cost_models, seeds = [], [], []
    for path in sys.argv[1:]:
        with open(path) as handle:
            for line in handle:
                entry = json.loads(line)
                seed = entry.get("seed", 0)
                cells[entry["model"], entry["cost_model"], seed] = entry
                for items, value in ((models, entry["model"]), (cost_models, entry["cost_model"]),
                                     (seeds, seed)):
                    if value not in items:
                        items.append(value)
    for key, title in METRICS:
        print("\n".join(metric_table(key, title, cells, models, cost_models, seeds)))
    print("\n".join(routing_table(cells, models, cost_models, seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
