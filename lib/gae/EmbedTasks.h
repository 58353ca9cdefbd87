// Task embeddings for clustering (clustune-embed): each task's graph (features/TaskGraph.h)
// through a trained graph autoencoder, or, as the ablation baseline of docs/results.md, the
// mean of its standardised raw node features with no GAE at all.
#pragma once

#include "cluster/EmbeddingFile.h"
#include "features/TaskGraph.h"
#include "gae/GaeModelFile.h"
#include "graph/Task.h"

#include <vector>

namespace clustune::gae {

// The graphs of `tasks`, and views of them in the form trainGae and FeatureStandardizer take.
std::vector<features::TaskGraph> taskGraphsOf(const std::vector<graph::Task>& tasks);
std::vector<const features::TaskGraph*>
graphPointers(const std::vector<features::TaskGraph>& graphs);

std::vector<cluster::TaskEmbedding> embedTasks(const LoadedGae& gae,
                                               const std::vector<graph::Task>& tasks);

// Standardised with statistics over the nodes of `tasks`, then mean-pooled per task.
std::vector<cluster::TaskEmbedding> rawFeatureEmbeddings(const std::vector<graph::Task>& tasks);

} // namespace clustune::gae
