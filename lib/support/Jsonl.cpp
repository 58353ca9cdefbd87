// See Jsonl.h.
#include "support/Jsonl.h"

#include "support/Files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

namespace clustune {

JsonlReader::JsonlReader(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    stream_ = &std::cin;
    return;
  }
  auto file = std::make_unique<std::ifstream>(path_);
  if (!*file)
    throw Error(std::string("cannot open: ") + std::strerror(errno), {.file = path_});
  stream_ = file.get();
  ownedStream_ = std::move(file);
}

JsonlReader::~JsonlReader() = default;

ErrorContext JsonlReader::context() const {
  return {.file = displayPath(path_), .line = lineNumber_};
}

bool JsonlReader::nextLine(std::string& line) {
  while (std::getline(*stream_, line)) {
    ++lineNumber_;
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      return true;
  }
  if (stream_->bad())
    throw Error("read failed", {.file = displayPath(path_)});
  return false;
}

bool JsonlReader::next(nlohmann::json& entry) {
  std::string line;
  if (!nextLine(line))
    return false;
  entry = parseJsonlLine(line, context());
  return true;
}

nlohmann::json parseJsonText(const std::string& text, const ErrorContext& context) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    std::string reason = error.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, ..."; the
    // byte position is what helps, the bracketed name is noise.
    if (reason.starts_with("[json.exception."))
      if (const auto end = reason.find("] "); end != std::string::npos)
        reason = reason.substr(end + 2);
    throw Error("invalid JSON: " + reason, context);
  }
}

nlohmann::json parseJsonlLine(const std::string& line, const ErrorContext& context) {
  nlohmann::json entry = parseJsonText(line, context);
  if (!entry.is_object())
    throw Error(std::string("expected a JSON object, got ") + entry.type_name(), context);
  return entry;
}

void JsonlWriter::write(const nlohmann::json& entry) {
  stream_ << entry.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void JsonlWriter::write(const nlohmann::ordered_json& entry) {
  stream_ << entry.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

} // namespace clustune
