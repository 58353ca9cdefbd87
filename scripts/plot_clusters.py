#!/usr/bin/env python3
"""Pictures of a clustering (issue 6): a 2-D projection of the task embeddings (PCA, and t-SNE
where scikit-learn is installed), coloured by cluster and marked by anchor op, and per-cluster
composition bars (tasks per anchor op).

  python3 scripts/plot_clusters.py embeddings.jsonl clusters.json --out docs/clusters
      writes docs/clusters-pca.png, docs/clusters-tsne.png (with scikit-learn) and
      docs/clusters-composition.png

Needs numpy and matplotlib (PyPI); the PCA is numpy's SVD of the centred embeddings.
"""
import argparse
import collections
import json
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = "os^vD<>phP*Xd8H"


def read(embeddings_path, clusters_path):
    rows = [json.loads(line) for line in open(embeddings_path) if line.strip()]
    with open(clusters_path) as handle:
        clusters = json.load(handle)
    keys = [row["key"] for row in rows]
    missing = [key for key in keys if key not in clusters["assign"]]
    if missing:
        raise ValueError(f"{len(missing)} embedded tasks are not in {clusters_path}, e.g. {missing[0]}")
    points = np.array([row["embedding"] for row in rows], dtype=float)
    anchors = [row.get("anchor", "") for row in rows]
    assignment = np.array([clusters["assign"][key] for key in keys])
    return points, anchors, assignment, clusters


def scatter(coordinates, anchors, assignment, title, path):
    figure, axes = plt.subplots(figsize=(8, 6.5))
    anchor_names = sorted(set(anchors))
    colours = plt.get_cmap("tab10")
    for anchor_index, anchor in enumerate(anchor_names):
        chosen = np.array([a == anchor for a in anchors])
        axes.scatter(coordinates[chosen, 0], coordinates[chosen, 1],
                     c=[colours(c % 10) for c in assignment[chosen]],
                     marker=MARKERS[anchor_index % len(MARKERS)], s=28, alpha=0.8,
                     edgecolors="none", label=anchor)
    cluster_handles = [plt.Line2D([], [], linestyle="", marker="o", color=colours(c % 10),
                                  label=f"cluster {c}") for c in sorted(set(assignment))]
    first = axes.legend(handles=cluster_handles, loc="upper right", fontsize=8, title="colour")
    axes.add_artist(first)
    marker_handles = [plt.Line2D([], [], linestyle="", marker=MARKERS[i % len(MARKERS)],
                                 color="grey", label=name) for i, name in enumerate(anchor_names)]
    axes.legend(handles=marker_handles, loc="lower right", fontsize=7, title="anchor op", ncol=2)
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def composition(anchors, assignment, path):
    clusters = sorted(set(assignment))
    anchor_names = sorted(set(anchors))
    counts = {c: collections.Counter(a for a, k in zip(anchors, assignment) if k == c)
              for c in clusters}
    figure, axes = plt.subplots(figsize=(8, 0.6 * len(clusters) + 2))
    colours = plt.get_cmap("tab20")
    left = np.zeros(len(clusters))
    for index, anchor in enumerate(anchor_names):
        widths = np.array([counts[c][anchor] for c in clusters])
        axes.barh([f"cluster {c} ({sum(counts[c].values())})" for c in clusters], widths,
                  left=left, color=colours(index % 20), label=anchor)
        left += widths
    axes.set_xlabel("tasks")
    axes.legend(fontsize=7, ncol=3, loc="lower right")
    axes.set_title("Cluster composition by anchor op")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("embeddings", help="embeddings.jsonl (clustune-embed)")
    parser.add_argument("clusters", help="clusters.json (clustune-cluster)")
    parser.add_argument("--out", default="clusters", help="path prefix of the PNG files")
    parser.add_argument("--seed", type=int, default=0, help="t-SNE's seed")
    args = parser.parse_args()
    try:
        points, anchors, assignment, clusters = read(args.embeddings, args.clusters)
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    centred = points - points.mean(axis=0)
    _, singular, vectors = np.linalg.svd(centred, full_matrices=False)
    explained = singular ** 2 / np.sum(singular ** 2)
    scatter(centred @ vectors[:2].T, anchors, assignment,
            f"PCA of {len(points)} task embeddings (k = {clusters['k']}, silhouette "
            f"{clusters['silhouette']:.2f}; {100 * explained[:2].sum():.0f}% of variance)",
            f"{args.out}-pca.png")
    written = [f"{args.out}-pca.png"]
    try:
        from sklearn.manifold import TSNE
        coordinates = TSNE(n_components=2, random_state=args.seed, init="pca",
                           perplexity=min(30, len(points) - 1)).fit_transform(points)
        scatter(coordinates, anchors, assignment,
                f"t-SNE of {len(points)} task embeddings (k = {clusters['k']})",
                f"{args.out}-tsne.png")
        written.append(f"{args.out}-tsne.png")
    except ImportError:
        print("scikit-learn is not installed: no t-SNE picture", file=sys.stderr)
    composition(anchors, assignment, f"{args.out}-composition.png")
    written.append(f"{args.out}-composition.png")
    print(" ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
