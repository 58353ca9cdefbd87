// libFuzzer harness: records.jsonl (measure::readRecords), every record visited.
#include "FuzzInput.h"
#include "measure/RecordLog.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return clustune::fuzz::readAsFile(data, size, [](const std::string& path) {
    clustune::measure::readRecords(
        path, [](clustune::measure::Record&&, const clustune::ErrorContext&) {});
  });
}
