#include "costmodel/NumpyExport.h"

#include "support/Error.h"
#include "support/Files.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

namespace clustune::costmodel {
namespace {

// The .npy v1.0 header: magic, version, header length, then a Python dict literal padded with
// spaces to a multiple of 64 bytes and ended by a newline.
std::string npyHeader(const std::string& descriptor, const std::vector<std::size_t>& shape) {
  // Python's tuple syntax: "(3,)" for one dimension, "(3, 4)" for two.
  std::string shapeText = "(";
  for (std::size_t index = 0; index < shape.size(); ++index)
    shapeText += (index > 0 ? ", " : "") + std::to_string(shape[index]);
  shapeText += shape.size() == 1 ? ",)" : ")";
  std::string dictionary =
      "{'descr': '" + descriptor + "', 'fortran_order': False, 'shape': " + shapeText + ", }";
  const std::size_t prefix = 10;
  const std::size_t total = (prefix + dictionary.size() + 1 + 63) / 64 * 64;
  dictionary.append(total - prefix - dictionary.size() - 1, ' ');
  dictionary += '\n';
  std::string header = "\x93NUMPY";
  header += static_cast<char>(1);
  header += static_cast<char>(0);
  header += static_cast<char>(dictionary.size() & 0xff);
  header += static_cast<char>(dictionary.size() >> 8);
  return header + dictionary;
}

template <class T>
void writeNpy(const std::filesystem::path& path, const std::string& descriptor,
              const std::vector<std::size_t>& shape, const T* data, std::size_t count) {
  OutputFile output(path.string());
  output.stream() << npyHeader(descriptor, shape);
  output.stream().write(reinterpret_cast<const char*>(data),
                        static_cast<std::streamsize>(count * sizeof(T)));
  output.commit();
}

} // namespace

void exportProgramDataset(const std::string& directory, const ProgramDataset& dataset,
                          const std::vector<graph::Task>& tasks,
                          const std::vector<bool>& validation) {
  const std::filesystem::path root(directory);
  std::error_code error;
  std::filesystem::create_directories(root, error);
  if (error)
    throw Error("cannot create the directory: " + error.message(), {directory});
  writeNpy(root / "statements.npy", "<f4",
           {static_cast<std::size_t>(dataset.statements.rows()),
            static_cast<std::size_t>(dataset.statements.cols())},
           dataset.statements.data(), static_cast<std::size_t>(dataset.statements.size()));
  const std::vector<std::int64_t> offsets(dataset.programOffsets.begin(),
                                          dataset.programOffsets.end());
  writeNpy(root / "program_offsets.npy", "<i8", {offsets.size()}, offsets.data(), offsets.size());
  writeNpy(root / "costs.npy", "<f8", {dataset.costs.size()}, dataset.costs.data(),
           dataset.costs.size());
  const std::vector<std::int32_t> programTask(dataset.programTask.begin(),
                                              dataset.programTask.end());
  writeNpy(root / "program_task.npy", "<i4", {programTask.size()}, programTask.data(),
           programTask.size());
  const std::vector<std::uint8_t> mask(validation.begin(), validation.end());
  writeNpy(root / "validation.npy", "|b1", {mask.size()}, mask.data(), mask.size());

  std::map<std::string, const graph::Task*> byKey;
  for (const graph::Task& task : tasks)
    byKey[task.key] = &task;
  nlohmann::ordered_json weights = nlohmann::ordered_json::object();
  for (const std::string& key : dataset.taskKeys)
    weights[key] = byKey.at(key)->weights;
  OutputFile taskFile((root / "tasks.json").string());
  taskFile.stream()
      << nlohmann::ordered_json{{"keys", dataset.taskKeys}, {"weights", weights}}.dump() << '\n';
  taskFile.commit();
}

} // namespace clustune::costmodel
