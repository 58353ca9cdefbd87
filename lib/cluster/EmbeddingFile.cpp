#include "cluster/EmbeddingFile.h"

#include "support/Error.h"
#include "support/Jsonl.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace clustune::cluster {

std::vector<TaskEmbedding> readEmbeddingFile(const std::string& path) {
  std::vector<TaskEmbedding> embeddings;
  std::set<std::string> keys;
  JsonlReader reader(path);
  nlohmann::json entry;
  while (reader.next(entry)) {
    const ErrorContext context = reader.context();
    if (!entry.is_object())
      throw Error("an embedding line is a JSON object", context);
    const int version = requireField<int>(entry, "v", context);
    if (version != kEmbeddingFileVersion)
      throw Error("embedding version " + std::to_string(version) + " is not supported (expected " +
                      std::to_string(kEmbeddingFileVersion) + ")",
                  context);
    TaskEmbedding embedding;
    embedding.key = requireField<std::string>(entry, "key", context);
    embedding.anchor = optionalField<std::string>(entry, "anchor", "", context);
    embedding.embedding = requireField<std::vector<double>>(entry, "embedding", context);
    if (embedding.embedding.empty())
      throw Error("empty embedding", context);
    for (double value : embedding.embedding)
      if (!std::isfinite(value))
        throw Error("embedding of task " + embedding.key + " has a non-finite value", context);
    if (!embeddings.empty() && embedding.embedding.size() != embeddings[0].embedding.size())
      throw Error("embedding of width " + std::to_string(embedding.embedding.size()) +
                      ", but the first line has width " +
                      std::to_string(embeddings[0].embedding.size()),
                  context);
    if (!keys.insert(embedding.key).second)
      throw Error("task " + embedding.key + " appears twice", context);
    embeddings.push_back(std::move(embedding));
  }
  if (embeddings.empty())
    throw Error("no embeddings", {reader.path() == "-" ? "<stdin>" : reader.path()});
  return embeddings;
}

std::string embeddingLine(const TaskEmbedding& embedding) {
  nlohmann::ordered_json entry;
  entry["v"] = kEmbeddingFileVersion;
  entry["key"] = embedding.key;
  entry["anchor"] = embedding.anchor;
  entry["embedding"] = embedding.embedding;
  return entry.dump();
}

} // namespace clustune::cluster
