// The hand-picked schedules of bench-peers: one recipe per kind of case (GEMM, convolution with
// its epilogue), printed as JSON with the results.
#pragma once

#include "peers_cases.h"
#include "schedule/State.h"
#include "te/Tensor.h"

#include <vector>

namespace clustune::bench {

std::vector<schedule::Step> handGemm(const te::Workload& workload, std::int64_t m, std::int64_t n,
                                     std::int64_t k, int threads);
std::vector<schedule::Step> handConv(const te::Workload& workload, const ConvShape& s, int threads);
std::vector<schedule::Step> handSchedule(const Case& c, int threads);

} // namespace clustune::bench
