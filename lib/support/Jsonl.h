// JSON Lines reading and writing. Every interchange file of clustune is JSONL (DESIGN §8); the
// reader reports a bad entry with the file and line it came from, so a user can open the file
// at the right place.
#pragma once

#include "support/Error.h"

#include <cstdint>
#include <istream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace clustune {

class JsonlReader {
public:
  // path "-" reads stdin.
  explicit JsonlReader(std::string path);
  ~JsonlReader();

  // Reads the next non-blank line into `entry`; false at end of input. A line that is not a
  // JSON object raises Error with the file and line.
  bool next(nlohmann::json& entry);
  // Reads the next non-blank line as text, for callers that parse lines in parallel; false at
  // end of input. lineNumber() and context() then refer to this line.
  bool nextLine(std::string& line);

  long lineNumber() const { return lineNumber_; }
  const std::string& path() const { return path_; }
  // Context for errors about the entry just read (file and line).
  ErrorContext context() const;

private:
  std::string path_;
  std::unique_ptr<std::istream> ownedStream_;
  std::istream* stream_;
  long lineNumber_ = 0;
};

// Parses one JSONL line into an object, raising Error with `context` when it is not one.
nlohmann::json parseJsonlLine(const std::string& line, const ErrorContext& context);

// Parses a whole JSON document, raising Error with `context` when it is not JSON. Catches every
// nlohmann exception, not only parse_error: a number too large for a double ("1e999") is an
// out_of_range error raised while parsing.
nlohmann::json parseJsonText(const std::string& text, const ErrorContext& context);

class JsonlWriter {
public:
  explicit JsonlWriter(std::ostream& stream) : stream_(stream) {}
  void write(const nlohmann::json& entry);
  // For formats whose field order is part of their documentation (tasks.jsonl).
  void write(const nlohmann::ordered_json& entry);

private:
  std::ostream& stream_;
};

namespace detail {

// nlohmann converts a float to an integer with a plain cast, undefined behaviour when it is out
// of range ("v": 1.9e118, found by fuzz-embedding_file; a cluster id of 2e97 in clusters.json's
// "assign" map, found by fuzz-cluster_file): an integer field takes only integers in its type's
// range.
template <class T>
void checkInteger(const nlohmann::json& value, const char* name, const ErrorContext& context) {
  if (!value.is_number_integer())
    throw Error(std::string("field '") + name + "' has the wrong type (" + value.type_name() +
                    (value.is_number() ? ", not an integer)" : ")"),
                context);
  const bool inRange =
      value.is_number_unsigned()
          ? value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
          : std::in_range<T>(value.get<std::int64_t>());
  if (!inRange)
    throw Error(std::string("field '") + name + "' is out of range (" + value.dump() + ")",
                context);
}

// Checks every integer that reading `value` as T would convert: T itself, or the elements of
// vectors and the values of maps, nested.
template <class T>
struct IntegerCheck {
  static void run(const nlohmann::json& value, const char* name, const ErrorContext& context) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      checkInteger<T>(value, name, context);
  }
};
template <class U>
struct IntegerCheck<std::vector<U>> {
  static void run(const nlohmann::json& value, const char* name, const ErrorContext& context) {
    if (value.is_array())
      for (const auto& element : value)
        IntegerCheck<U>::run(element, name, context);
  }
};
template <class U>
struct IntegerCheck<std::map<std::string, U>> {
  static void run(const nlohmann::json& value, const char* name, const ErrorContext& context) {
    if (value.is_object())
      for (const auto& element : value)
        IntegerCheck<U>::run(element, name, context);
  }
};

} // namespace detail

// Reads a field, raising Error with the reader's context when it is missing or has the wrong
// type. Keeps validation of every format in one place.
template <class T>
T requireField(const nlohmann::json& entry, const char* name, const ErrorContext& context) {
  auto found = entry.find(name);
  if (found == entry.end())
    throw Error(std::string("missing field '") + name + "'", context);
  detail::IntegerCheck<T>::run(*found, name, context);
  try {
    return found->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(std::string("field '") + name + "' has the wrong type (" + found->type_name() + ")",
                context);
  }
}

// An optional field: `fallback` when it is missing, else as requireField.
template <class T>
T optionalField(const nlohmann::json& entry, const char* name, T fallback,
                const ErrorContext& context) {
  return entry.contains(name) ? requireField<T>(entry, name, context) : std::move(fallback);
}

} // namespace clustune
