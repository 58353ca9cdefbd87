// See TaskFile.h.
#include "graph/TaskFile.h"

#include "support/Jsonl.h"

#include <map>

namespace clustune::graph {

std::vector<Task> readTaskFile(const std::string& path) {
  std::vector<Task> tasks;
  std::map<std::string, long> lineOfKey;
  JsonlReader reader(path);
  nlohmann::json entry;
  while (reader.next(entry)) {
    const ErrorContext context = reader.context();
    Task task = taskFromJson(entry, context);
    auto [found, inserted] = lineOfKey.emplace(task.key, reader.lineNumber());
    if (!inserted)
      throw Error("task " + task.key + " already appeared on line " + std::to_string(found->second),
                  context);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

} // namespace clustune::graph
