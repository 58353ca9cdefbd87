// Parsing of clustune-bench's --batch and --compilers lists.
#include "bench/SweepSpec.h"

#include "graph/BlockedLayout.h"
#include "support/Error.h"

#include <charconv>
#include <set>
#include <sstream>

namespace clustune::bench {
namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    items.push_back(item);
  if (!text.empty() && text.back() == ',')
    items.emplace_back();
  return items;
}

} // namespace

std::string compilerName(CompilerKind kind) {
  switch (kind) {
  case CompilerKind::Default:
    return "default";
  case CompilerKind::Tuned:
    return "tuned";
  case CompilerKind::Ort:
    return "ort";
  case CompilerKind::Torch:
    return "torch";
  case CompilerKind::Tvm:
    return "tvm";
  }
  return "?";
}

std::vector<std::int64_t> parseBatchList(const std::string& text) {
  std::vector<std::int64_t> batches;
  for (const std::string& item : splitList(text)) {
    std::int64_t value = 0;
    const auto [end, status] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || status != std::errc() || end != item.data() + item.size() || value < 1)
      throw Error("--batch: '" + item + "' in '" + text + "' is not a positive integer");
    if (!batches.empty() && value <= batches.back())
      throw Error("--batch: the sizes of '" + text + "' must increase, each listed once");
    batches.push_back(value);
  }
  if (batches.empty())
    throw Error("--batch: the list is empty");
  return batches;
}

std::string CompilerSpec::name() const {
  return compilerName(kind) + (channelBlock ? "@" + graph::channelLayoutName(channelBlock) : "");
}

std::vector<CompilerSpec> parseCompilers(const std::string& text) {
  std::vector<CompilerSpec> compilers;
  std::set<std::string> seen;
  for (const std::string& entry : splitList(text)) {
    CompilerSpec spec;
    // "NAME@LAYOUT" or "NAME@LAYOUT:LOG": the layout ends at the log's colon.
    std::string item = entry;
    if (const auto at = entry.find('@'); at != std::string::npos && at < entry.find(':')) {
      const auto colon = entry.find(':', at);
      const std::string layout =
          entry.substr(at + 1, colon == std::string::npos ? std::string::npos : colon - at - 1);
      const auto block = graph::parseChannelLayout(layout);
      if (!block)
        throw Error("--compilers: '" + entry + "' names layout '" + layout +
                    "'; write NCHW or NCHW<x>c, such as default@NCHW16c");
      spec.channelBlock = *block;
      item = entry.substr(0, at) + (colon == std::string::npos ? "" : entry.substr(colon));
    }
    if (item == "default") {
      spec.kind = CompilerKind::Default;
    } else if (item.rfind("tuned", 0) == 0) {
      if (item.size() <= 6 || item[5] != ':')
        throw Error("--compilers: '" + entry + "' names no tuning log; write tuned:LOG.jsonl");
      spec.kind = CompilerKind::Tuned;
      spec.logPath = item.substr(6);
    } else if (item == "ort") {
      spec.kind = CompilerKind::Ort;
    } else if (item == "torch") {
      spec.kind = CompilerKind::Torch;
    } else if (item == "tvm") {
      spec.kind = CompilerKind::Tvm;
    } else {
      throw Error("--compilers: unknown compiler '" + item +
                  "' (known: default, tuned:LOG, ort, torch, tvm)");
    }
    if (spec.channelBlock && spec.isPeer())
      throw Error("--compilers: '" + entry + "': a layout is for default and tuned only");
    // Rows are keyed by the compiler's name, so one tuning log per layout and sweep.
    if (!seen.insert(spec.name()).second)
      throw Error("--compilers: '" + spec.name() + "' is listed twice");
    compilers.push_back(spec);
  }
  if (compilers.empty())
    throw Error("--compilers: the list is empty");
  return compilers;
}

std::vector<CompilerSpec> defaultCompilers() {
  std::vector<CompilerSpec> compilers = {{.kind = CompilerKind::Default}};
  for (CompilerKind peer : {CompilerKind::Ort, CompilerKind::Torch, CompilerKind::Tvm})
    compilers.push_back({.kind = peer, .required = false});
  return compilers;
}

} // namespace clustune::bench
