#!/usr/bin/env python3
"""Plots of clustune-bench results (docs/bench.md) as PNG files.

  python3 scripts/plot_bench.py bench.jsonl --metrics friction.json --out docs/bench [--title T]

writes, for the rows with status ok:
  <out>-latency.png     latency against batch size, one panel per model, one line per compiler
  <out>-throughput.png  throughput (samples/s) against batch size, likewise
  <out>-friction.png    the friction coefficient of each compiler (bars), from --metrics
  <out>-depth.png       with --metrics of a --depth-sweep: throughput and latency per block
                        against depth, one panel per family, one line per compiler
Axes are logarithmic in the batch size (base 2). Needs matplotlib.
"""
import argparse
import collections
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"default": "tab:gray", "tuned": "tab:blue", "ort": "tab:orange", "torch": "tab:red",
         "tvm": "tab:green"}


def color(compiler):
    """One colour per kind of compiler, whatever its layout (tuned@NCHW16c is tuned's blue)."""
    return STYLE.get(compiler.split("@")[0].split(":")[0], "tab:purple")


def read_rows(path):
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as error:
                    sys.exit(f"error: {path}:{number}: not JSON: {error}")
    return [r for r in rows if r.get("status") == "ok"]


def panels(count):
    columns = min(count, 3)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), squeeze=False)
    flat = [a for row in axes for a in row]
    for extra in flat[count:]:
        extra.axis("off")
    return figure, flat


def plot_against_batch(rows, value, label, path, title):
    by_model = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        by_model[r["model"]][r["compiler"]].append((r["batch"], value(r)))
    figure, axes = panels(len(by_model))
    for axis, (model, curves) in zip(axes, sorted(by_model.items())):
        for compiler, points in sorted(curves.items()):
            points.sort()
            axis.plot([b for b, _ in points], [v for _, v in points], marker="o",
                      label=compiler, color=color(compiler))
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_title(model)
        axis.set_xlabel("batch size")
        axis.set_ylabel(label)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(path)


def plot_friction(metrics, path, title):
    compilers = metrics.get("compilers", [])
    if not compilers:
        return
    figure, axis = plt.subplots(figsize=(1.2 * len(compilers) + 2.5, 3.4))
    names = [c["compiler"] for c in compilers]
    values = [c["friction"] for c in compilers]
    axis.bar(names, values, color=[color(n) for n in names])
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_ylabel("friction F (mean log2 r)")
    axis.set_title(f"{title}: per-sample latency vs batch {metrics['reference_batch']}")
    for x, v in enumerate(values):
        axis.annotate(f"{v:+.2f}", (x, v), ha="center", va="bottom" if v >= 0 else "top")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(path)


def plot_depth(points, path, title):
    by_family = collections.defaultdict(lambda: collections.defaultdict(list))
    for p in points:
        by_family[(p["family"], p["batch"])][p["compiler"]].append(p)
    figure, axes = plt.subplots(2, len(by_family), figsize=(4.2 * len(by_family), 6.4),
                                squeeze=False)
    for column, ((family, batch), curves) in enumerate(sorted(by_family.items())):
        top, bottom = axes[0][column], axes[1][column]
        for compiler, curve in sorted(curves.items()):
            curve.sort(key=lambda p: p["depth"])
            depths = [p["depth"] for p in curve]
            top.plot(depths, [p["throughput_per_s"] for p in curve], marker="o", label=compiler,
                     color=color(compiler))
            bottom.plot(depths, [p["relative_per_block"] for p in curve], marker="o",
                        label=compiler, color=color(compiler))
        top.set_title(f"{family} (batch {batch})")
        top.set_ylabel("samples/s")
        top.set_yscale("log")
        bottom.set_ylabel("latency per block, relative")
        bottom.set_xlabel("depth (blocks)")
        for axis in (top, bottom):
            axis.set_xscale("log", base=2)
            axis.grid(True, which="both", alpha=0.3)
            axis.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    print(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", help="clustune-bench rows (bench.jsonl)")
    parser.add_argument("--metrics", help="clustune-bench --metrics output")
    parser.add_argument("--out", required=True, help="path prefix of the PNG files")
    parser.add_argument("--title", default="clustune-bench")
    args = parser.parse_args()
    rows = read_rows(args.rows)
    if not rows:
        sys.exit(f"error: {args.rows}: no row with status ok")
    metrics = None
    if args.metrics:
        with open(args.metrics) as f:
            metrics = json.load(f)
    if metrics and metrics.get("depth"):
        plot_depth(metrics["depth"], f"{args.out}-depth.png", args.title)
        return 0
    plot_against_batch(rows, lambda r: r["latency_ms"]["median"], "latency (ms)",
                       f"{args.out}-latency.png", args.title)
    plot_against_batch(rows, lambda r: r["throughput_per_s"], "samples/s",
                       f"{args.out}-throughput.png", args.title)
    if metrics:
        plot_friction(metrics, f"{args.out}-friction.png", args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
