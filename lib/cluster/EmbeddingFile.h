// embeddings.jsonl (DESIGN §8, docs/formats.md): one task embedding per line, written by
// clustune-embed and read by clustune-cluster. Each line also names the task's anchor op, so
// that cluster reports can say what their tasks are without the task file.
#pragma once

#include <string>
#include <vector>

namespace clustune::cluster {

inline constexpr int kEmbeddingFileVersion = 1;

struct TaskEmbedding {
  std::string key;
  std::string anchor;
  std::vector<double> embedding;
};

// Validates every line (version, key, finite values, one width for all, no repeated key) and
// throws clustune::Error naming the file and line. "-" reads stdin.
std::vector<TaskEmbedding> readEmbeddingFile(const std::string& path);
// One line, fields in the documented order.
std::string embeddingLine(const TaskEmbedding& embedding);

} // namespace clustune::cluster
