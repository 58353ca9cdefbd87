// Training the graph autoencoder (DESIGN §6, REFERENCES.md "Graph autoencoder"): Kipf &
// Welling's recipe (Adam at lr 0.01, 200 full-batch epochs, 10% / 5% of the edges held out for
// test and validation with as many non-edges) over a set of task graphs, with optional
// mini-batches of whole graphs for data sets too large for one batch.
#pragma once

#include "gae/EdgeSplit.h"
#include "gae/FeatureStandardizer.h"
#include "gae/GraphAutoencoder.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace clustune::gae {

struct GaeTrainingOptions {
  int epochs = 200;
  float learningRate = 0.01f;
  // Graphs per batch; 0 puts all graphs in one batch (Kipf's full-batch training).
  int graphsPerBatch = 0;
  float featureWeight = 1;
  std::uint64_t seed = 0; // initialisation, edge split and batch order
  int hidden = 32;
  int latent = 16;
};

struct GaeEpochReport {
  int epoch = 0;            // from 1
  double loss = 0;          // mean over the epoch's batches, before each step
  double validationAuc = 0; // NaN when there are no validation edges
  double validationAveragePrecision = 0;
  double seconds = 0; // since training started
};

struct GaeTrainingReport {
  int epochs = 0;
  double firstEpochLoss = 0;
  double lastEpochLoss = 0;
  double testAuc = 0;              // NaN when there are no test edges
  double testAveragePrecision = 0; // NaN when there are no test edges
  // The training edges against the test non-edges, scored from the same embeddings: how well
  // the model reconstructs the structure it was shown (Kipf & Welling report only held-out
  // edges, which in tree-shaped task graphs always cross components).
  double reconstructionAuc = 0;
  // Mean squared error of the reconstructed standardised features over all nodes, encoded with
  // the training edges.
  double featureReconstructionMse = 0;
  double seconds = 0;
};

struct TrainedGae {
  GraphAutoencoder model;
  FeatureStandardizer standardizer;
  EdgeSplit split;
  GaeTrainingReport report;
};

// Fits the feature statistics on all nodes of `graphs` (only edges are held out), splits the
// edges (EdgeSplit, seeded), and trains a fresh model with nn::Adam (no weight decay, no
// clipping). With graphsPerBatch > 0 the graphs are shuffled once into fixed batches and the
// batch order is reshuffled every epoch. Validation and test pairs are scored as σ(z_i·z_j) with
// Z encoded from the training edges of all graphs. Deterministic for a seed and thread count.
// With too few edges to hold any out, the test and validation metrics are NaN. Throws
// clustune::Error for no graphs or no nodes, too few non-edges to draw (EdgeSplit), or a loss
// that stops being finite. Validation metrics are only computed when `onEpoch` is given.
TrainedGae trainGae(const std::vector<const features::TaskGraph*>& graphs,
                    const GaeTrainingOptions& options,
                    const std::function<void(const GaeEpochReport&)>& onEpoch = {});

// σ(z_i·z_j) for every pair.
std::vector<double> pairScores(const nn::Matrix& nodeEmbeddings,
                               const std::vector<std::pair<int, int>>& pairs);

} // namespace clustune::gae
