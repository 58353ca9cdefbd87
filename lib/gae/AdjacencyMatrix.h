// The sparse matrix type that carries a batch's normalised adjacency Â from GraphBatch to the
// GCN layers. It has its own header so that GcnLayer does not depend on how batches are built.
// Row-major because the products Â·H walk Â row by row (one output row per node).
#pragma once

#include <Eigen/SparseCore>

namespace clustune::gae {

using AdjacencyMatrix = Eigen::SparseMatrix<float, Eigen::RowMajor>;

} // namespace clustune::gae
