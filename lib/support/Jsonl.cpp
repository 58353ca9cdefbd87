// See Jsonl.h.
#include "support/Jsonl.h"

#include "support/Files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <string_view>

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

namespace {

// nlohmann prefixes "[json.exception.parse_error.101] parse error at line 1, ..."; the byte
// position is what helps, the bracketed name is noise.
std::string withoutExceptionName(std::string reason) {
  if (reason.starts_with("[json.exception."))
    if (const auto end = reason.find("] "); end != std::string::npos)
      reason.erase(0, end + 2);
  return reason;
}

struct NonJsonNumber {
  std::string token;
  std::size_t byte = 0; // 1-based, where the token starts
};

// The NaN or Infinity that a parse error at `byte` (1-based, the character that failed) stopped
// at: JSON has no such numbers, but Python's json module writes them by default.
std::optional<NonJsonNumber> nonJsonNumberAt(const std::string& text, std::size_t byte) {
  for (const std::string_view token : {"-Infinity", "Infinity", "NaN"})
    for (const std::size_t back : {1, 2}) // the '-' of -Infinity was read before the failure
      if (byte >= back && byte - back < text.size() &&
          std::string_view(text).substr(byte - back).starts_with(token))
        return NonJsonNumber{std::string(token), byte - back + 1};
  return std::nullopt;
}

} // namespace

nlohmann::json parseJsonText(const std::string& text, const ErrorContext& context) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    if (const auto number = nonJsonNumberAt(text, error.byte))
      throw Error("invalid JSON: " + number->token + " at byte " + std::to_string(number->byte) +
                      " is not a JSON number (Python's json module writes it for a float nan or "
                      "inf unless given allow_nan=False)",
                  context);
    throw Error("invalid JSON: " + withoutExceptionName(error.what()), context);
  } catch (const nlohmann::json::exception& error) {
    throw Error("invalid JSON: " + withoutExceptionName(error.what()), context);
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
