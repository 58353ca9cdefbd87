// See Einsum.h.
#include "graph/Einsum.h"

#include "support/Error.h"

#include <algorithm>
#include <cctype>

namespace clustune::graph {
namespace {

std::string withoutSpaces(const std::string& text) {
  std::string result;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      result += c;
  return result;
}

std::vector<std::string> splitOn(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

// The letters of one subscript and where its ellipsis sits (npos: none).
struct Subscript {
  std::string letters;
  std::size_t ellipsis = std::string::npos;
};

Subscript parseSubscript(const std::string& text, const std::string& equation) {
  Subscript subscript;
  for (std::size_t k = 0; k < text.size();) {
    if (text.compare(k, 3, "...") == 0 && subscript.ellipsis == std::string::npos) {
      subscript.ellipsis = subscript.letters.size();
      k += 3;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(text[k])))
      throw Error("Einsum equation '" + equation + "' has an unexpected '" + text[k] + "'");
    subscript.letters += text[k++];
  }
  return subscript;
}

} // namespace

EinsumEquation parseEinsum(const std::string& equation, const std::vector<Shape>& operandShapes) {
  const std::string text = withoutSpaces(equation);
  const std::size_t arrow = text.find("->");
  const std::vector<std::string> inputs = splitOn(text.substr(0, arrow), ',');
  if (inputs.size() != operandShapes.size())
    throw Error("Einsum equation '" + equation + "' has " + std::to_string(inputs.size()) +
                " operand subscripts for " + std::to_string(operandShapes.size()) + " operands");
  EinsumEquation result;
  std::vector<Subscript> subscripts;
  std::size_t ellipsisRank = 0;
  for (std::size_t operand = 0; operand < inputs.size(); ++operand) {
    subscripts.push_back(parseSubscript(inputs[operand], equation));
    const Subscript& subscript = subscripts.back();
    const std::size_t rank = operandShapes[operand].size();
    const bool hasEllipsis = subscript.ellipsis != std::string::npos;
    if (rank < subscript.letters.size() || (!hasEllipsis && rank != subscript.letters.size()))
      throw Error("Einsum subscript '" + inputs[operand] + "' does not fit operand " +
                  std::to_string(operand) + " of rank " + std::to_string(rank));
    if (hasEllipsis)
      ellipsisRank = std::max(ellipsisRank, rank - subscript.letters.size());
  }
  std::map<int, int> uses; // how many operand dimensions carry each letter
  for (std::size_t operand = 0; operand < inputs.size(); ++operand) {
    const Subscript& subscript = subscripts[operand];
    const Shape& shape = operandShapes[operand];
    const std::size_t covered = shape.size() - subscript.letters.size();
    std::vector<int>& labels = result.operandLabels.emplace_back();
    for (std::size_t k = 0; k < subscript.letters.size(); ++k) {
      if (k == subscript.ellipsis)
        for (std::size_t e = 0; e < covered; ++e)
          labels.push_back(-static_cast<int>(ellipsisRank - covered + e + 1));
      labels.push_back(subscript.letters[k]);
      ++uses[subscript.letters[k]];
    }
    if (subscript.ellipsis == subscript.letters.size())
      for (std::size_t e = 0; e < covered; ++e)
        labels.push_back(-static_cast<int>(ellipsisRank - covered + e + 1));
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      const int label = labels[axis];
      const std::int64_t extent = shape[axis];
      auto [found, inserted] = result.extents.try_emplace(label, extent);
      if (inserted || found->second == extent)
        continue;
      // Ellipsis dimensions broadcast; a letter must have one extent everywhere.
      if (label < 0 && (extent == 1 || found->second == 1))
        found->second = std::max(found->second, extent);
      else
        throw Error("Einsum equation '" + equation + "' gives label '" +
                    (label < 0 ? std::string("...") : std::string(1, static_cast<char>(label))) +
                    "' the extents " + std::to_string(found->second) + " and " +
                    std::to_string(extent));
    }
  }
  std::vector<int> ellipsisLabels;
  for (std::size_t e = 0; e < ellipsisRank; ++e)
    ellipsisLabels.push_back(-static_cast<int>(e + 1));
  if (arrow == std::string::npos) {
    // Implicit output: the ellipsis, then the letters used once, in alphabetical order.
    result.outputLabels = ellipsisLabels;
    for (const auto& [letter, count] : uses)
      if (count == 1)
        result.outputLabels.push_back(letter);
  } else {
    const Subscript output = parseSubscript(text.substr(arrow + 2), equation);
    for (std::size_t k = 0; k <= output.letters.size(); ++k) {
      if (k == output.ellipsis)
        result.outputLabels.insert(result.outputLabels.end(), ellipsisLabels.begin(),
                                   ellipsisLabels.end());
      if (k == output.letters.size())
        break;
      const int letter = output.letters[k];
      if (!uses.count(letter) ||
          std::count(result.outputLabels.begin(), result.outputLabels.end(), letter))
        throw Error("Einsum equation '" + equation + "' has output label '" +
                    std::string(1, output.letters[k]) + "' twice or in no operand");
      result.outputLabels.push_back(letter);
    }
  }
  for (const auto& labels : result.operandLabels)
    for (int label : labels)
      if (std::find(result.outputLabels.begin(), result.outputLabels.end(), label) ==
              result.outputLabels.end() &&
          std::find(result.reducedLabels.begin(), result.reducedLabels.end(), label) ==
              result.reducedLabels.end())
        result.reducedLabels.push_back(label);
  return result;
}

std::int64_t einsumFlops(const EinsumEquation& equation) {
  std::int64_t terms = 1;
  for (const auto& [label, extent] : equation.extents)
    terms *= extent;
  const auto operands = static_cast<std::int64_t>(equation.operandLabels.size());
  return terms * (operands - 1) + (equation.reducedLabels.empty() ? 0 : terms);
}

} // namespace clustune::graph
