//===- SyncProblem.cpp - Building and checking a SyncProblem --------------===//
#include "nki/Analysis/Sync.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <limits>

namespace nki::sched {

namespace {
constexpr uint32_t kUnplaced = std::numeric_limits<uint32_t>::max();
} // namespace

SyncProblem::SyncProblem(unsigned numStreams)
    : streams(numStreams), streamNames(numStreams) {}

SyncProblem::SyncProblem(std::vector<std::vector<InstrId>> streamOrders)
    : streams(std::move(streamOrders)), streamNames(streams.size()) {
  size_t n = 0;
  for (const std::vector<InstrId> &order : streams)
    n += order.size();
  stream.assign(n, kUnplaced);
  position.assign(n, kUnplaced);
  preds.resize(n);
  for (StreamIndex s = 0; s < streams.size(); ++s)
    for (uint32_t k = 0; k < streams[s].size(); ++k) {
      InstrId i = streams[s][k];
      if (i >= n || stream[i] != kUnplaced) {
        if (malformed.empty())
          malformed = absl::StrCat(
              "stream ", s, " lists instruction #", i, " at position ", k,
              i >= n ? absl::StrCat(" but there are only ", n)
                     : std::string(" which is already placed"));
        continue;
      }
      stream[i] = s;
      position[i] = k;
    }
}

InstrId SyncProblem::addInstruction(StreamIndex s) {
  InstrId i = InstrId(stream.size());
  if (s >= streams.size()) {
    if (malformed.empty())
      malformed = absl::StrCat("instruction #", i, " is added to stream ", s,
                               " but there are only ", streams.size());
    stream.push_back(kUnplaced);
    position.push_back(kUnplaced);
  } else {
    stream.push_back(s);
    position.push_back(uint32_t(streams[s].size()));
    streams[s].push_back(i);
  }
  preds.emplace_back();
  return i;
}

void SyncProblem::addDependence(InstrId pred, InstrId succ) {
  if (pred >= preds.size() || succ >= preds.size())
    danglingEdges.push_back({pred, succ});
  else
    preds[succ].push_back(pred);
}

void SyncProblem::setStreamName(StreamIndex s, std::string name) {
  if (s < streamNames.size())
    streamNames[s] = std::move(name);
}

std::string SyncProblem::describe(InstrId i) const {
  if (i >= stream.size() || stream[i] == kUnplaced)
    return absl::StrCat("instruction #", i);
  StreamIndex s = stream[i];
  std::string name = streamNames[s].empty() ? absl::StrCat(s) : streamNames[s];
  return absl::StrCat("instruction #", i, " (stream ", name, ", position ",
                      position[i], ")");
}

std::vector<InstrId> SyncProblem::topologicalOrder() const {
  size_t n = numInstructions();
  // Successor lists in CSR form; program order adds one edge per position.
  std::vector<uint32_t> begin(n + 1), indegree(n);
  for (InstrId i = 0; i < n; ++i)
    for (InstrId p : preds[i]) {
      ++begin[p + 1];
      ++indegree[i];
    }
  for (size_t i = 0; i < n; ++i)
    begin[i + 1] += begin[i];
  std::vector<InstrId> succs(begin[n]);
  std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
  for (InstrId i = 0; i < n; ++i)
    for (InstrId p : preds[i])
      succs[fill[p]++] = i;

  // Program order counts as one more predecessor for all but the first.
  for (InstrId i = 0; i < n; ++i)
    indegree[i] += position[i] != 0;
  std::vector<InstrId> order;
  order.reserve(n);
  for (InstrId i = 0; i < n; ++i)
    if (!indegree[i])
      order.push_back(i);
  for (size_t k = 0; k < order.size(); ++k) {
    InstrId i = order[k];
    for (uint32_t e = begin[i]; e < begin[i + 1]; ++e)
      if (!--indegree[succs[e]])
        order.push_back(succs[e]);
    const std::vector<InstrId> &own = streams[stream[i]];
    if (position[i] + 1 < own.size() && !--indegree[own[position[i] + 1]])
      order.push_back(own[position[i] + 1]);
  }
  return order;
}

absl::Status SyncProblem::check() const {
  if (!malformed.empty())
    return absl::InvalidArgumentError(malformed);
  for (const auto &[pred, succ] : danglingEdges)
    return absl::InvalidArgumentError(
        absl::StrCat("dependence ", pred, " -> ", succ,
                     " names an instruction out of range (", numInstructions(),
                     " instructions)"));
  for (InstrId i = 0; i < numInstructions(); ++i)
    for (InstrId p : preds[i])
      if (stream[p] == stream[i] && position[p] >= position[i])
        return absl::InvalidArgumentError(
            absl::StrCat("dependence ", describe(p), " -> ", describe(i),
                         " runs against the program order of its stream"));

  std::vector<InstrId> order = topologicalOrder();
  if (order.size() == numInstructions())
    return absl::OkStatus();
  // Name the instructions stuck behind the cycle: the first few unordered.
  std::vector<uint8_t> ordered(numInstructions());
  for (InstrId i : order)
    ordered[i] = 1;
  std::vector<std::string> stuck;
  for (InstrId i = 0; i < numInstructions() && stuck.size() < 4; ++i)
    if (!ordered[i])
      stuck.push_back(describe(i));
  return absl::InvalidArgumentError(absl::StrCat(
      "program order and dependences form a cycle; no semaphores can order ",
      numInstructions() - order.size(), " instructions, among them ",
      absl::StrJoin(stuck, ", ")));
}

} // namespace nki::sched
