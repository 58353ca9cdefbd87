// See Shard.h.
#include "dataset/Shard.h"

#include "support/Error.h"

#include <charconv>

namespace clustune::dataset {

Shard parseShard(const std::string& text) {
  const auto fail = [&]() -> Shard {
    throw Error("--shard expects i/N with 0 <= i < N, got '" + text + "'");
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos)
    return fail();
  Shard shard;
  const char* begin = text.data();
  const char* middle = begin + slash;
  const char* end = begin + text.size();
  auto [indexEnd, indexError] = std::from_chars(begin, middle, shard.index);
  auto [countEnd, countError] = std::from_chars(middle + 1, end, shard.count);
  if (indexError != std::errc() || indexEnd != middle || countError != std::errc() ||
      countEnd != end || shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    return fail();
  return shard;
}

} // namespace clustune::dataset
