#!/usr/bin/env python3
"""Ansor's default cost model (XGBoost) on clustune's features and splits: the reference point
for clustune's MLP in the leave-one-model-out experiment (docs/results.md).

Input is the directory `clustune-features RECORDS --tasks tasks.jsonl --seed S -o DIR` writes
(the 173 features per statement, costs, tasks and clustune-train's validation split for that
seed). For each held-out corpus model, XGBoost is trained on the programs of the tasks that do
not occur in the model, as Ansor's XGBModel trains it:

  - one row per statement; a program's score is the sum of its statements' predictions, and
    the objective is Ansor's pack-sum squared error on normalised throughput;
  - samples weighted by their normalised throughput;
  - max_depth 10, gamma 0.001, min_child_weight 0, eta 0.2 (Ansor's settings);
  - up to --rounds boosting rounds, stopping after 50 rounds without a better average peak
    score@32 (Ansor's "a-peak@32": per task, docs/metrics.md) on the validation programs.
    Ansor watches that metric on its training set; a held-out set is the fairer stop here, and
    it is the one clustune-train uses.

Then the model's tasks are scored with the metrics of docs/metrics.md (pairwise accuracy,
peak@1, peak@5, recall@10, and the network's top-1 and top-5 scores), printed as one JSON line
per held-out model.

  python3 scripts/xgb_baseline.py DIR --holdout-model resnet50 [--holdout-model ...] [--all]
          [--rounds 1000] [--seed 0] [--threads 2]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import xgboost as xgb

# base_score 0: a program's score is a sum over its statements, so a per-row offset would
# favour programs with more statements.
ANSOR_PARAMS = {"max_depth": 10, "gamma": 0.001, "min_child_weight": 0, "eta": 0.2,
                "verbosity": 0, "disable_default_eval_metric": 1, "base_score": 0.0}


def load(directory):
    def array(name):
        return np.load(os.path.join(directory, name))
    with open(os.path.join(directory, "tasks.json")) as handle:
        tasks = json.load(handle)
    return {"statements": array("statements.npy"), "offsets": array("program_offsets.npy"),
            "costs": array("costs.npy"), "task": array("program_task.npy"),
            "validation": array("validation.npy"), "keys": tasks["keys"],
            "weights": tasks["weights"]}


def labels_of(costs, task):
    """Normalised throughput within each task of the given programs."""
    best = {}
    for cost, t in zip(costs, task):
        best[t] = min(best.get(t, np.inf), cost)
    return np.array([best[t] / cost for cost, t in zip(costs, task)])


def statement_rows(data, programs):
    offsets = data["offsets"]
    rows = np.concatenate([np.arange(offsets[p], offsets[p + 1]) for p in programs])
    pack = np.repeat(np.arange(len(programs)), offsets[programs + 1] - offsets[programs])
    return rows, pack


class PackSum:
    """Ansor's pack-sum objective: program prediction = sum over its statement rows."""

    def __init__(self, pack, labels, weights):
        self.pack, self.labels, self.weights = pack, labels, weights

    def sums(self, predictions):
        return np.bincount(self.pack, weights=predictions, minlength=len(self.labels))

    def objective(self, predictions, _dmatrix):
        gradient = (self.sums(predictions) - self.labels)[self.pack]
        weight = self.weights[self.pack]
        return gradient * weight, weight


def average_peak(booster, matrix, pack, costs, tasks, k=32):
    """Ansor's a-peak@k: the per-task peak score@k of the pack sums, averaged over tasks."""
    sums = np.bincount(pack, weights=booster.predict(matrix), minlength=len(costs))
    scores = [peak(costs[tasks == task], sums[tasks == task], k) for task in np.unique(tasks)]
    return float(np.mean(scores))


def train(data, programs, validation_programs, rounds, seed, threads):
    labels = labels_of(data["costs"][programs], data["task"][programs])
    rows, pack = statement_rows(data, programs)
    matrix = xgb.DMatrix(data["statements"][rows])
    objective = PackSum(pack, labels, labels)
    params = dict(ANSOR_PARAMS, seed=seed, nthread=threads)
    booster = xgb.Booster(params, [matrix])
    has_validation = len(validation_programs) > 0
    if has_validation:
        validation_costs = data["costs"][validation_programs]
        validation_tasks = data["task"][validation_programs]
        validation_rows, validation_pack = statement_rows(data, validation_programs)
        validation_matrix = xgb.DMatrix(data["statements"][validation_rows])
    best, best_round, best_model = -np.inf, 0, None
    for round_index in range(rounds):
        booster.update(matrix, round_index, fobj=objective.objective)
        if not has_validation:
            continue
        score = average_peak(booster, validation_matrix, validation_pack, validation_costs,
                             validation_tasks)
        if score > best:
            best, best_round, best_model = score, round_index, booster.copy()
        elif round_index - best_round >= 50:
            break
    return (best_model or booster), round_index + 1


def program_scores(booster, data, programs):
    rows, pack = statement_rows(data, programs)
    predictions = booster.predict(xgb.DMatrix(data["statements"][rows]))
    return np.bincount(pack, weights=predictions, minlength=len(programs))


# The metrics of docs/metrics.md; orderings are stable (ties keep index order).
def by_score(scores):
    return np.argsort(-scores, kind="stable")


def pairwise(costs, scores):
    right, pairs = 0.0, 0
    for i in range(len(costs)):
        for j in range(i + 1, len(costs)):
            if costs[i] == costs[j]:
                continue
            pairs += 1
            if scores[i] == scores[j]:
                right += 0.5
            elif (scores[i] > scores[j]) == (costs[i] < costs[j]):
                right += 1
    return right / pairs if pairs else None


def peak(costs, scores, k):
    labels = costs.min() / costs
    picks = labels[by_score(scores)[:min(k, len(costs))]]
    running = np.maximum.accumulate(picks)
    running = np.concatenate([running, np.repeat(running[-1], k - len(running))])
    return float(running.mean() / labels.max())


def recall(costs, scores, k):
    m = min(k, len(costs))
    true_top = set(np.argsort(costs, kind="stable")[:m])
    return len(true_top & set(by_score(scores)[:m])) / m


def network_score(tasks, k):
    numerator = sum(weight * costs.min() for costs, scores, weight in tasks)
    denominator = sum(weight * costs[by_score(scores)[:min(k, len(costs))]].min()
                      for costs, scores, weight in tasks)
    return numerator / denominator


def evaluate(data, model_name, scores_by_program, programs):
    per_task = {}
    for program, score in zip(programs, scores_by_program):
        per_task.setdefault(int(data["task"][program]), []).append((data["costs"][program], score))
    pairwise_values, peak1, peak5, recall10, weighted = [], [], [], [], []
    for task, entries in per_task.items():
        costs = np.array([cost for cost, _ in entries])
        scores = np.array([score for _, score in entries])
        weighted.append((costs, scores, data["weights"][data["keys"][task]][model_name]))
        if len(costs) < 2:
            continue
        value = pairwise(costs, scores)
        if value is not None:
            pairwise_values.append(value)
        peak1.append(peak(costs, scores, 1))
        peak5.append(peak(costs, scores, 5))
        recall10.append(recall(costs, scores, 10))
    return {"tasks": len(per_task), "programs": len(programs),
            "pairwise_accuracy": float(np.mean(pairwise_values)),
            "peak_score_1": float(np.mean(peak1)), "peak_score_5": float(np.mean(peak5)),
            "top_k_recall": float(np.mean(recall10)), "top_k_recall_k": 10,
            "top1": network_score(weighted, 1), "top5": network_score(weighted, 5)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", metavar="DIR", help="clustune-features output")
    parser.add_argument("--holdout-model", action="append", default=[],
                        help="corpus model to hold out (repeatable)")
    parser.add_argument("--all", action="store_true", help="hold out every corpus model in turn")
    parser.add_argument("--rounds", type=int, default=1000, help="maximum boosting rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    try:
        data = load(args.directory)
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {args.directory}: {error}", file=sys.stderr)
        return 1
    corpus = sorted({model for weights in data["weights"].values() for model in weights})
    held_out = corpus if args.all else args.holdout_model
    if not held_out:
        parser.error("give --holdout-model NAME or --all")
    for model_name in held_out:
        if model_name not in corpus:
            print(f"error: no task occurs in model '{model_name}'", file=sys.stderr)
            return 1
        in_model = np.array([model_name in data["weights"][key] for key in data["keys"]])
        program_in_model = in_model[data["task"]]
        training = np.flatnonzero(~program_in_model & ~data["validation"])
        validation = np.flatnonzero(~program_in_model & data["validation"])
        evaluation = np.flatnonzero(program_in_model)
        start = time.time()
        booster, rounds = train(data, training, validation, args.rounds, args.seed, args.threads)
        seconds = time.time() - start
        result = evaluate(data, model_name, program_scores(booster, data, evaluation), evaluation)
        print(json.dumps(dict({"model": model_name, "cost_model": "xgboost",
                               "seed": args.seed, "training_programs": int(len(training)),
                               "rounds": rounds,
                               "seconds": round(seconds, 1)}, **result)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
