#!/usr/bin/env python3
"""The tables and plots of the search-efficiency experiment (scripts/search_experiment.sh).

For each held-out model and seed, from the runs' search curves (clustune-tune --curve):
  - search speedup of cluster over global, the paper's headline: the tuning time global needs
    to reach its final estimated latency, divided by the time cluster needs to reach that
    latency (and the same in trials); "not reached" when cluster never gets there;
  - the same ratio taken both ways, which every run has: at the worse of the two final
    latencies, which both runs reach, global's time over cluster's (below 1 when global wins),
    so that a geometric mean over all runs does not count only the runs cluster won;
  - latency at equal budget, measured end to end by clustune-run with each run's log
    (median of its repeats), and its ratio global / cluster (the paper: 1.18x on CPU), with
    online, random and the default schedules beside them;
  - the search share of each run's wall time (evolution, features and prediction);
  - the quality of each mode's picks, from the runs' logs: per task, the median and the best of
    the candidates the searched rounds measured, over the best latency any run of that model
    found for the task (geometric means over tasks). A cost model that ranks well has a low
    median; the best is what the tuned model keeps.
Plots: estimated latency against trials and against tuning time, one line per mode and seed,
one PNG per model (--plots DIR).

  python3 scripts/search_table.py experiments/search [--plots docs] [--json table.json]
"""
import argparse
import glob
import json
import os
import statistics
import sys

MODES = ["cluster", "global", "online", "random"]


def read_jsonl(path):
    with open(path) as stream:
        return [json.loads(line) for line in stream if line.strip()]


def first_reach(curve, latency, key):
    """The first `key` (seconds or trials) at which the curve's estimate is <= latency."""
    for point in curve:
        if point["estimated_ms"] is not None and point["estimated_ms"] <= latency * (1 + 1e-9):
            return point[key]
    return None


def load_runs(root):
    runs = {}
    for tune_path in sorted(glob.glob(os.path.join(root, "*", "*-seed*.tune.json"))):
        model = os.path.basename(os.path.dirname(tune_path))
        stem = tune_path[: -len(".tune.json")]
        mode, seed = os.path.basename(stem).rsplit("-seed", 1)
        run = {"tune": json.load(open(tune_path)), "curve": read_jsonl(stem + ".curve.jsonl")}
        if os.path.exists(stem + ".run.json"):
            run["run"] = json.load(open(stem + ".run.json"))
        runs.setdefault(model, {}).setdefault(int(seed), {})[mode] = run
    return runs


def record_cost(record):
    return sum(record["costs"]) / len(record["costs"]) if record["error"] is None and record["costs"] else None


def pick_quality(root, model, seeds):
    """Per (mode, seed): geometric means over tasks of median / best-known and best / best-known."""
    measured = {}
    for seed, modes in seeds.items():
        for mode in modes:
            by_task = {}
            log = os.path.join(root, model, f"{mode}-seed{seed}.log.jsonl")
            for record in read_jsonl(log) if os.path.exists(log) else []:
                cost = record_cost(record)
                if cost is not None and record.get("tune_round", 0) > 0:
                    by_task.setdefault(record["task"], []).append(cost)
            measured[(mode, seed)] = by_task
    best_known = {}
    for by_task in measured.values():
        for task, costs in by_task.items():
            best_known[task] = min(best_known.get(task, costs[0]), min(costs))
    quality = {}
    for key, by_task in measured.items():
        tasks = [task for task, costs in by_task.items() if len(costs) >= 4]
        if tasks:
            quality[key] = (
                statistics.geometric_mean([statistics.median(by_task[t]) / best_known[t] for t in tasks]),
                statistics.geometric_mean([min(by_task[t]) / best_known[t] for t in tasks]))
    return quality


def speedup(cluster, global_):
    final = global_["curve"][-1]["estimated_ms"]
    result = {}
    for key in ("seconds", "trials"):
        global_reach = first_reach(global_["curve"], final, key)
        cluster_reach = first_reach(cluster["curve"], final, key)
        result[key] = None if cluster_reach in (None, 0) else global_reach / cluster_reach
    cluster_final = cluster["curve"][-1]["estimated_ms"]
    both_ways = max(final, cluster_final)
    global_reach = first_reach(global_["curve"], both_ways, "seconds")
    cluster_reach = first_reach(cluster["curve"], both_ways, "seconds")
    result["both_ways"] = global_reach / cluster_reach if global_reach and cluster_reach else None
    result["cluster_final_ms"] = cluster_final
    result["global_final_ms"] = final
    return result


def plot(model, seeds, directory):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    colours = {"cluster": "tab:red", "global": "tab:blue", "online": "tab:green", "random": "tab:gray"}
    for seed, runs in sorted(seeds.items()):
        for mode in MODES:
            if mode not in runs:
                continue
            curve = [p for p in runs[mode]["curve"] if p["estimated_ms"] is not None]
            style = "-" if seed == min(seeds) else "--"
            label = f"{mode} (seed {seed})"
            axes[0].plot([p["trials"] for p in curve], [p["estimated_ms"] for p in curve], style,
                         color=colours[mode], label=label)
            axes[1].plot([p["seconds"] for p in curve], [p["estimated_ms"] for p in curve], style,
                         color=colours[mode], label=label)
    for axis, xlabel in zip(axes, ["measured candidates (trials)", "tuning time (s)"]):
        axis.set_xlabel(xlabel)
        axis.set_ylabel("estimated latency (ms, Σ weight × best task latency)")
        axis.set_yscale("log")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_title(f"{model}: latency against trials")
    axes[1].set_title(f"{model}: latency against tuning time")
    axes[1].legend(fontsize=7)
    figure.tight_layout()
    path = os.path.join(directory, f"search-{model}.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def fmt(value, digits=2, suffix=""):
    return "–" if value is None else f"{value:.{digits}f}{suffix}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="the --out directory of search_experiment.sh")
    parser.add_argument("--plots", help="write search-<model>.png into this directory")
    parser.add_argument("--json", help="write the table as JSON here")
    args = parser.parse_args()
    runs = load_runs(args.root)
    if not runs:
        print(f"error: no runs under {args.root}", file=sys.stderr)
        return 1
    cpu = open(os.path.join(args.root, "cpu.txt")).read().strip() if os.path.exists(
        os.path.join(args.root, "cpu.txt")) else "unknown CPU"
    rows = []
    print(f"machine: {cpu}\n")
    print("| model | seed | trials | speedup (time) | speedup (trials) | both ways (time) | global final ms |"
          " cluster final ms | run ms: cluster | global | online | random | default | global / cluster |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for model, seeds in sorted(runs.items()):
        default_path = os.path.join(args.root, model, "default.run.json")
        default_ms = json.load(open(default_path))["latency_ms"]["median"] if os.path.exists(default_path) else None
        quality = pick_quality(args.root, model, seeds)
        for seed, modes in sorted(seeds.items()):
            row = {"model": model, "seed": seed, "default_ms": default_ms,
                   "pick_quality": {m: quality[(m, seed)] for m in MODES if (m, seed) in quality}}
            if "cluster" in modes and "global" in modes:
                row["speedup"] = speedup(modes["cluster"], modes["global"])
            for mode, run in modes.items():
                row[mode] = {"run_ms": run.get("run", {}).get("latency_ms", {}).get("median"),
                             "estimated_ms": run["curve"][-1]["estimated_ms"],
                             "trials": run["tune"]["trials"],
                             "seconds": run["tune"]["tuning_seconds"],
                             "search_share": run["tune"]["search_share"],
                             "update_share": run["tune"]["update_share"]}
            rows.append(row)
            ms = {mode: row.get(mode, {}).get("run_ms") for mode in MODES}
            ratio = ms["global"] / ms["cluster"] if ms["global"] and ms["cluster"] else None
            s = row.get("speedup", {})
            trials = next(iter(modes.values()))["tune"]["trials"]
            print(f"| {model} | {seed} | {trials} | {fmt(s.get('seconds'), 2, 'x')} | {fmt(s.get('trials'), 2, 'x')} |"
                  f" {fmt(s.get('both_ways'), 2, 'x')} | {fmt(s.get('global_final_ms'), 3)} | {fmt(s.get('cluster_final_ms'), 3)} |"
                  f" {fmt(ms['cluster'])} | {fmt(ms['global'])} | {fmt(ms['online'])} | {fmt(ms['random'])} |"
                  f" {fmt(default_ms)} | {fmt(ratio, 3, 'x')} |")
    print("\nSearch share of each run's wall time (search, update):")
    for row in rows:
        shares = ", ".join(f"{mode} {row[mode]['search_share'] * 100:.0f}% + {row[mode]['update_share'] * 100:.0f}%"
                           for mode in MODES if mode in row)
        print(f"- {row['model']} seed {row['seed']}: {shares}")
    speedups = [row["speedup"]["seconds"] for row in rows if row.get("speedup", {}).get("seconds")]
    if speedups:
        print(f"\ngeometric mean search speedup (time), runs where cluster reached global's final latency: "
              f"{statistics.geometric_mean(speedups):.2f}x over {len(speedups)} of "
              f"{sum(1 for row in rows if 'speedup' in row)} runs")
    print("\nQuality of the picks (searched rounds; per task over the best any run found; geometric means):")
    print("| model | seed | " + " | ".join(f"{mode}: median | best" for mode in MODES) + " |")
    print("|---|---:|" + "---:|---:|" * len(MODES))
    for row in rows:
        quality = row["pick_quality"]
        cells = " | ".join(f"{fmt(quality.get(m, (None, None))[0])} | {fmt(quality.get(m, (None, None))[1])}"
                           for m in MODES)
        print(f"| {row['model']} | {row['seed']} | {cells} |")
    both_ways = [row["speedup"]["both_ways"] for row in rows if row.get("speedup", {}).get("both_ways")]
    if both_ways:
        print(f"geometric mean search speedup both ways (time), all runs: "
              f"{statistics.geometric_mean(both_ways):.2f}x over {len(both_ways)} runs")
    for mode in ("global", "online", "random"):
        ratios = [row[mode]["run_ms"] / row["cluster"]["run_ms"] for row in rows
                  if row.get(mode, {}).get("run_ms") and row.get("cluster", {}).get("run_ms")]
        if ratios:
            print(f"geometric mean end-to-end latency {mode} / cluster: "
                  f"{statistics.geometric_mean(ratios):.3f}x over {len(ratios)} runs"
                  f" (range {min(ratios):.2f}x to {max(ratios):.2f}x)")
    if args.plots:
        os.makedirs(args.plots, exist_ok=True)
        for model, seeds in sorted(runs.items()):
            print(f"plot: {plot(model, seeds, args.plots)}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"cpu": cpu, "rows": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
