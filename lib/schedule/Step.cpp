// See Step.h: names of steps and their JSON form. The reader is strict (integers must be JSON
// integers, unknown fields are errors) because a record whose schedule silently changed on
// reading would no longer replay the program that was measured.
#include "schedule/Step.h"

#include "support/Error.h"

#include <cassert>
#include <charconv>
#include <limits>
#include <set>
#include <sstream>
#include <type_traits>

namespace clustune::schedule {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

constexpr Annotation allAnnotations[] = {
    Annotation::None,       Annotation::Parallel,   Annotation::Vectorize, Annotation::Unroll,
    Annotation::BlockIdxX,  Annotation::BlockIdxY,  Annotation::BlockIdxZ, Annotation::VThread,
    Annotation::ThreadIdxX, Annotation::ThreadIdxY, Annotation::ThreadIdxZ};

// Reads the fields of one step object, remembering which ones were used so that leftovers can
// be reported as unknown.
template <class Json>
class FieldReader {
public:
  FieldReader(const Json& json, std::string stepKind) : json_(json), kind_(std::move(stepKind)) {}

  std::int64_t integer(const char* name) {
    const Json& value = field(name);
    if (!value.is_number_integer())
      fail(std::string("field '") + name + "' must be an integer");
    return value.template get<std::int64_t>();
  }

  int smallInteger(const char* name) {
    const std::int64_t value = integer(name);
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
      fail(std::string("field '") + name + "' is out of range");
    return static_cast<int>(value);
  }

  std::vector<std::int64_t> integers(const char* name) {
    const Json& value = field(name);
    if (!value.is_array())
      fail(std::string("field '") + name + "' must be an array of integers");
    std::vector<std::int64_t> result;
    for (const Json& item : value) {
      if (!item.is_number_integer())
        fail(std::string("field '") + name + "' must be an array of integers");
      result.push_back(item.template get<std::int64_t>());
    }
    return result;
  }

  std::vector<int> smallIntegers(const char* name) {
    std::vector<int> result;
    for (std::int64_t value : integers(name)) {
      if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
        fail(std::string("field '") + name + "' is out of range");
      result.push_back(static_cast<int>(value));
    }
    return result;
  }

  std::string string(const char* name) {
    const Json& value = field(name);
    if (!value.is_string())
      fail(std::string("field '") + name + "' must be a string");
    return value.template get<std::string>();
  }

  void rejectUnknownFields() const {
    for (auto item = json_.begin(); item != json_.end(); ++item)
      if (!used_.count(item.key()))
        fail("unknown field '" + item.key() + "'");
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw Error("schedule step '" + kind_ + "': " + message);
  }

private:
  const Json& field(const char* name) {
    auto found = json_.find(name);
    if (found == json_.end())
      fail(std::string("missing field '") + name + "'");
    used_.insert(name);
    return *found;
  }

  const Json& json_;
  std::string kind_;
  std::set<std::string> used_ = {"step"};
};

template <class Json>
Step readStep(const Json& json) {
  if (!json.is_object())
    throw Error("schedule step: expected a JSON object, got " + std::string(json.type_name()));
  auto kindField = json.find("step");
  if (kindField == json.end() || !kindField->is_string())
    throw Error("schedule step: missing string field 'step'");
  const std::string kind = kindField->template get<std::string>();
  FieldReader<Json> fields(json, kind);
  Step step;
  if (kind == "split") {
    step = SplitStep{.stage = fields.smallInteger("stage"),
                     .iterator = fields.smallInteger("iterator"),
                     .factors = fields.integers("factors")};
  } else if (kind == "fuse") {
    step = FuseStep{.stage = fields.smallInteger("stage"),
                    .iterators = fields.smallIntegers("iterators")};
  } else if (kind == "reorder") {
    step =
        ReorderStep{.stage = fields.smallInteger("stage"), .order = fields.smallIntegers("order")};
  } else if (kind == "annotate") {
    AnnotationStep annotate{.stage = fields.smallInteger("stage"),
                            .iterator = fields.smallInteger("iterator")};
    const std::string name = fields.string("annotation");
    bool known = false;
    for (Annotation annotation : allAnnotations)
      if (name == annotationName(annotation)) {
        annotate.annotation = annotation;
        known = true;
      }
    if (!known)
      fields.fail("unknown annotation '" + name + "'");
    step = annotate;
  } else if (kind == "compute_at") {
    step = ComputeAtStep{.stage = fields.smallInteger("stage"),
                         .targetStage = fields.smallInteger("target_stage"),
                         .targetIterator = fields.smallInteger("target_iterator")};
  } else if (kind == "compute_inline") {
    step = ComputeInlineStep{.stage = fields.smallInteger("stage")};
  } else if (kind == "compute_root") {
    step = ComputeRootStep{.stage = fields.smallInteger("stage")};
  } else if (kind == "pragma") {
    step = PragmaStep{.stage = fields.smallInteger("stage"),
                      .iterator = fields.smallInteger("iterator"),
                      .autoUnrollMaxStep = fields.smallInteger("auto_unroll_max_step")};
  } else if (kind == "cache_write") {
    CacheWriteStep cacheWrite{.stage = fields.smallInteger("stage")};
    cacheWrite.scope = fields.string("scope");
    if (cacheWrite.scope != "local")
      fields.fail("unknown scope '" + cacheWrite.scope + "' (the CPU has only \"local\")");
    step = cacheWrite;
  } else if (kind == "cache_read") {
    CacheReadStep cacheRead{.stage = fields.smallInteger("stage"),
                            .input = fields.smallInteger("input")};
    cacheRead.scope = fields.string("scope");
    if (!isCacheReadScope(cacheRead.scope))
      fields.fail("unknown scope '" + cacheRead.scope +
                  "' (known: \"local\", \"global\", \"shared\")");
    cacheRead.readers = fields.smallIntegers("readers");
    step = cacheRead;
  } else if (kind == "rfactor") {
    step = RfactorStep{.stage = fields.smallInteger("stage"),
                       .iterator = fields.smallInteger("iterator"),
                       .factorIteratorPosition = fields.smallInteger("factor_iterator_position")};
  } else {
    throw Error("schedule step: unknown step '" + kind + "'");
  }
  fields.rejectUnknownFields();
  return step;
}

template <class Json>
std::vector<Step> readSteps(const Json& json) {
  if (!json.is_array())
    throw Error("schedule: expected a JSON array of steps, got " + std::string(json.type_name()));
  std::vector<Step> steps;
  for (const Json& item : json)
    steps.push_back(readStep(item));
  return steps;
}

std::string listToString(const auto& values) {
  std::ostringstream text;
  text << '[';
  for (std::size_t i = 0; i < values.size(); ++i)
    text << (i ? ", " : "") << values[i];
  text << ']';
  return text.str();
}

} // namespace

bool isCacheReadScope(const std::string& scope) {
  return scope == "local" || scope == "global" || scope == "shared";
}

const char* annotationName(Annotation annotation) {
  switch (annotation) {
  case Annotation::None:
    return "none";
  case Annotation::Parallel:
    return "parallel";
  case Annotation::Vectorize:
    return "vectorize";
  case Annotation::Unroll:
    return "unroll";
  case Annotation::BlockIdxX:
    return "blockIdx.x";
  case Annotation::BlockIdxY:
    return "blockIdx.y";
  case Annotation::BlockIdxZ:
    return "blockIdx.z";
  case Annotation::VThread:
    return "vthread";
  case Annotation::ThreadIdxX:
    return "threadIdx.x";
  case Annotation::ThreadIdxY:
    return "threadIdx.y";
  case Annotation::ThreadIdxZ:
    return "threadIdx.z";
  }
  return "none";
}

bool isThreadBinding(Annotation annotation) {
  switch (annotation) {
  case Annotation::None:
  case Annotation::Parallel:
  case Annotation::Vectorize:
  case Annotation::Unroll:
    return false;
  case Annotation::BlockIdxX:
  case Annotation::BlockIdxY:
  case Annotation::BlockIdxZ:
  case Annotation::VThread:
  case Annotation::ThreadIdxX:
  case Annotation::ThreadIdxY:
  case Annotation::ThreadIdxZ:
    return true;
  }
  return false;
}

const char* stepName(const Step& step) {
  return std::visit(Overloaded{[](const SplitStep&) { return "split"; },
                               [](const FuseStep&) { return "fuse"; },
                               [](const ReorderStep&) { return "reorder"; },
                               [](const AnnotationStep&) { return "annotate"; },
                               [](const ComputeAtStep&) { return "compute_at"; },
                               [](const ComputeInlineStep&) { return "compute_inline"; },
                               [](const ComputeRootStep&) { return "compute_root"; },
                               [](const PragmaStep&) { return "pragma"; },
                               [](const CacheWriteStep&) { return "cache_write"; },
                               [](const CacheReadStep&) { return "cache_read"; },
                               [](const RfactorStep&) { return "rfactor"; }},
                    step);
}

int stepStage(const Step& step) {
  return std::visit([](const auto& concrete) { return concrete.stage; }, step);
}

nlohmann::ordered_json toJson(const Step& step) {
  nlohmann::ordered_json json;
  json["step"] = stepName(step);
  json["stage"] = stepStage(step);
  std::visit(Overloaded{[&](const SplitStep& split) {
                          json["iterator"] = split.iterator;
                          json["factors"] = split.factors;
                        },
                        [&](const FuseStep& fuse) { json["iterators"] = fuse.iterators; },
                        [&](const ReorderStep& reorder) { json["order"] = reorder.order; },
                        [&](const AnnotationStep& annotate) {
                          json["iterator"] = annotate.iterator;
                          json["annotation"] = annotationName(annotate.annotation);
                        },
                        [&](const ComputeAtStep& computeAt) {
                          json["target_stage"] = computeAt.targetStage;
                          json["target_iterator"] = computeAt.targetIterator;
                        },
                        [](const ComputeInlineStep&) {}, [](const ComputeRootStep&) {},
                        [&](const PragmaStep& pragma) {
                          json["iterator"] = pragma.iterator;
                          json["auto_unroll_max_step"] = pragma.autoUnrollMaxStep;
                        },
                        [&](const CacheWriteStep& cacheWrite) { json["scope"] = cacheWrite.scope; },
                        [&](const CacheReadStep& cacheRead) {
                          json["input"] = cacheRead.input;
                          json["scope"] = cacheRead.scope;
                          json["readers"] = cacheRead.readers;
                        },
                        [&](const RfactorStep& rfactor) {
                          json["iterator"] = rfactor.iterator;
                          json["factor_iterator_position"] = rfactor.factorIteratorPosition;
                        }},
             step);
  return json;
}

nlohmann::ordered_json toJson(const std::vector<Step>& steps) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const Step& step : steps)
    json.push_back(toJson(step));
  return json;
}

Step stepFromJson(const nlohmann::json& json) {
  return readStep(json);
}

Step stepFromJson(const nlohmann::ordered_json& json) {
  return readStep(json);
}

std::vector<Step> stepsFromJson(const nlohmann::json& json) {
  return readSteps(json);
}

std::vector<Step> stepsFromJson(const nlohmann::ordered_json& json) {
  return readSteps(json);
}

namespace {

// Writes exactly what toJson(steps).dump() writes, without building the JSON document: the
// search names every candidate it makes by this text, thousands a round, and the document's
// nodes cost more than the text.
class ScheduleTextWriter {
public:
  std::string take() { return std::move(text_); }

  void steps(const std::vector<Step>& steps) {
    text_ += '[';
    for (const Step& step : steps) {
      if (&step != steps.data())
        text_ += ',';
      this->step(step);
    }
    text_ += ']';
  }

private:
  void step(const Step& step) {
    text_ += "{\"step\":\"";
    text_ += stepName(step);
    text_ += '"';
    field("stage", stepStage(step));
    std::visit(
        Overloaded{[&](const SplitStep& split) {
                     field("iterator", split.iterator);
                     field("factors", split.factors);
                   },
                   [&](const FuseStep& fuse) { field("iterators", fuse.iterators); },
                   [&](const ReorderStep& reorder) { field("order", reorder.order); },
                   [&](const AnnotationStep& annotate) {
                     field("iterator", annotate.iterator);
                     name("annotation", annotationName(annotate.annotation));
                   },
                   [&](const ComputeAtStep& computeAt) {
                     field("target_stage", computeAt.targetStage);
                     field("target_iterator", computeAt.targetIterator);
                   },
                   [](const ComputeInlineStep&) {}, [](const ComputeRootStep&) {},
                   [&](const PragmaStep& pragma) {
                     field("iterator", pragma.iterator);
                     field("auto_unroll_max_step", pragma.autoUnrollMaxStep);
                   },
                   [&](const CacheWriteStep& cacheWrite) { field("scope", cacheWrite.scope); },
                   [&](const CacheReadStep& cacheRead) {
                     field("input", cacheRead.input);
                     field("scope", cacheRead.scope);
                     field("readers", cacheRead.readers);
                   },
                   [&](const RfactorStep& rfactor) {
                     field("iterator", rfactor.iterator);
                     field("factor_iterator_position", rfactor.factorIteratorPosition);
                   }},
        step);
    text_ += '}';
  }

  void key(const char* name) {
    text_ += ",\"";
    text_ += name;
    text_ += "\":";
  }

  template <class Integer>
  void integer(Integer value) {
    char digits[24];
    const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
    assert(error == std::errc());
    text_.append(digits, end);
  }

  template <class Integer>
  requires std::is_integral_v<Integer>
  void field(const char* name, Integer value) {
    key(name);
    integer(value);
  }

  template <class Integer>
  void field(const char* name, const std::vector<Integer>& values) {
    key(name);
    text_ += '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0)
        text_ += ',';
      integer(values[i]);
    }
    text_ += ']';
  }

  // Names of our own (annotations) are identifiers: nothing to escape.
  void name(const char* field, const char* identifier) {
    key(field);
    text_ += '"';
    text_ += identifier;
    text_ += '"';
  }

  // Scopes come from record files, so they take nlohmann's escaping.
  void field(const char* name, const std::string& value) {
    key(name);
    text_ += nlohmann::ordered_json(value).dump();
  }

  std::string text_;
};

} // namespace

std::string scheduleText(const std::vector<Step>& steps) {
  ScheduleTextWriter writer;
  writer.steps(steps);
  return writer.take();
}

std::string toString(const Step& step) {
  std::ostringstream text;
  text << stepName(step) << "(stage " << stepStage(step);
  std::visit(
      Overloaded{
          [&](const SplitStep& split) {
            text << ", iterator " << split.iterator << ", factors " << listToString(split.factors);
          },
          [&](const FuseStep& fuse) { text << ", iterators " << listToString(fuse.iterators); },
          [&](const ReorderStep& reorder) { text << ", order " << listToString(reorder.order); },
          [&](const AnnotationStep& annotate) {
            text << ", iterator " << annotate.iterator << ", "
                 << annotationName(annotate.annotation);
          },
          [&](const ComputeAtStep& computeAt) {
            text << ", target stage " << computeAt.targetStage << ", iterator "
                 << computeAt.targetIterator;
          },
          [](const ComputeInlineStep&) {}, [](const ComputeRootStep&) {},
          [&](const PragmaStep& pragma) {
            text << ", iterator " << pragma.iterator
                 << ", auto_unroll_max_step=" << pragma.autoUnrollMaxStep;
          },
          [&](const CacheWriteStep& cacheWrite) { text << ", " << cacheWrite.scope; },
          [&](const CacheReadStep& cacheRead) {
            if (cacheRead.stage < 0)
              text << ", input " << cacheRead.input;
            text << ", " << cacheRead.scope << ", readers " << listToString(cacheRead.readers);
          },
          [&](const RfactorStep& rfactor) {
            text << ", iterator " << rfactor.iterator << ", factor position "
                 << rfactor.factorIteratorPosition;
          }},
      step);
  text << ')';
  return text.str();
}

} // namespace clustune::schedule
