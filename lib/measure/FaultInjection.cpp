// See FaultInjection.h.
#include "measure/FaultInjection.h"

#include "support/Error.h"

#include <cstdlib>
#include <sstream>

namespace clustune::measure {
namespace {

te::Expr zeroOf(te::DataType dtype) {
  return graph::isFloatingPoint(dtype) ? te::floatImm(0.0, dtype) : te::intImm(0, dtype);
}

} // namespace

te::LoweredFunction injectFault(te::LoweredFunction function, InjectedFault fault) {
  const te::Buffer& output = function.arguments.back();
  const te::Expr first = te::intImm(0);
  switch (fault) {
  case InjectedFault::None:
    break;
  case InjectedFault::Crash:
    function.body = te::makeSequence(
        {te::makeStore(output, te::intImm(std::int64_t{1} << 40), zeroOf(output->dtype)),
         function.body});
    break;
  case InjectedFault::Hang: {
    // Each update depends on the last and float arithmetic is not reassociated, so no
    // optimisation can shorten the loop.
    const te::Expr element = te::bufferLoad(output, first);
    const te::Expr step =
        graph::isFloatingPoint(output->dtype)
            ? element * te::floatImm(1.0000001, output->dtype) + te::floatImm(1.0, output->dtype)
            : element * te::intImm(3, output->dtype) + te::intImm(1, output->dtype);
    function.body = te::makeSequence(
        {function.body, te::makeFor(te::makeVar("hang"), std::int64_t{1} << 62, te::ForKind::Serial,
                                    te::makeStore(output, first, step))});
    break;
  }
  case InjectedFault::WrongResult: {
    const te::Expr one = graph::isFloatingPoint(output->dtype) ? te::floatImm(1.0, output->dtype)
                                                               : te::intImm(1, output->dtype);
    function.body = te::makeSequence(
        {function.body, te::makeStore(output, first, te::bufferLoad(output, first) + one)});
    break;
  }
  }
  return function;
}

std::map<long, InjectedFault> measureFaultsFromEnvironment() {
  std::map<long, InjectedFault> faults;
  const char* value = std::getenv(kMeasureFaultsVariable);
  if (!value)
    return faults;
  std::stringstream entries(value);
  std::string entry;
  while (std::getline(entries, entry, ',')) {
    const std::size_t at = entry.find('@');
    const std::string kind = entry.substr(0, at);
    char* end = nullptr;
    const long number = at == std::string::npos ? 0 : std::strtol(entry.c_str() + at + 1, &end, 10);
    const InjectedFault fault = kind == "crash"   ? InjectedFault::Crash
                                : kind == "hang"  ? InjectedFault::Hang
                                : kind == "wrong" ? InjectedFault::WrongResult
                                                  : InjectedFault::None;
    if (fault == InjectedFault::None || number < 1 || !end || *end != '\0')
      throw Error(std::string(kMeasureFaultsVariable) + ": '" + entry +
                  "' is not crash@N, hang@N or wrong@N with N >= 1");
    faults[number] = fault;
  }
  return faults;
}

} // namespace clustune::measure
