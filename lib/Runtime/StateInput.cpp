//===- StateInput.cpp - A Map or Parallel state's input, for its sink -----===//
//
// See StateInput.h for the protocol. Only functions with "SaveInput" or
// "StateInput" reach this code.
//
//===----------------------------------------------------------------------===//
#include "StateInput.h"

#include "unum/Runtime/Runtime.h"

using namespace unum::runtime;

std::string unum::runtime::savedInputName(const std::string &instance) {
  return instance + "#input";
}

Status detail::saveStateInput(DataStore &store, const std::string &session,
                              const std::string &instance, const Value &input) {
  std::string rec(1, record::Output);
  appendJson(rec, input);
  // Losing is fine: a duplicate saved the same input, or the sink has
  // retired it already (then this instance finished, and its checkpoint put
  // loses too).
  auto put = store.putIfAbsent(session, savedInputName(instance), rec, {}, {});
  if (!put)
    return Status::crash("saving the state input: " +
                         put.getStatus().message());
  return Status::ok();
}

Status
detail::loadStateInput(DataStore &store, const config::FunctionConfig &config,
                       const std::string &session, const std::string &instance,
                       const std::vector<FanOutLevel> &fanout, int64_t visit,
                       Value &input, std::vector<std::string> &retire,
                       std::optional<std::string> &own,
                       std::vector<int64_t> *retries) {
  // The entry is in the same scopes as the sink, so it has the same "Loop";
  // its counters are those the sink received (before its own entry).
  std::string name =
      savedInputName(instanceName(*config.stateInput, fanout) +
                     visitSuffix(config.loop.value_or(0), visit, fanout));
  auto what = [&] {
    return "the state input saved by '" + *config.stateInput + "' (" + name +
           ")";
  };
  auto rec = store.get(session, name);
  if (!rec)
    return Status::crash("reading " + what() + ": " +
                         rec.getStatus().message());
  if (!*rec)
    return Status::error(what() + " is missing");
  const std::string &r = **rec;
  if (!r.empty() && r[0] == record::Done) {
    // Only this sink's checkpoint put retires it: a duplicate won.
    if (config.checkpoint) {
      auto mine = store.get(session, instance);
      if (!mine)
        return Status::crash("reading checkpoint: " +
                             mine.getStatus().message());
      if (*mine && !(*mine)->empty()) {
        own = std::move(**mine);
        return Status::ok();
      }
    }
    return Status::error(what() + " was already garbage-collected");
  }
  if (r.empty() || (r[0] != record::Output && r[0] != record::Keep))
    return Status::error(what() + " is not a saved input");
  auto v = parseJsonValue(std::string_view(r).substr(1), what());
  if (!v)
    return v.getStatus();
  if (r[0] == record::Keep) {
    // Written by the previous attempt's sink: the input and the counts.
    const Value *in = v->find("Input");
    const Value *counts = v->find("Retries");
    if (!in || !counts || !counts->isArray())
      return Status::error(what() + " is not a retried state's input");
    if (retries) {
      retries->clear();
      for (const Value &c : counts->getArray()) {
        if (!c.isInt() || c.getInt() < 0)
          return Status::error(what() + " has a bad retry count");
        retries->push_back(c.getInt());
      }
    }
    input = *in;
  } else {
    input = v.take();
  }
  retire.push_back(std::move(name));
  return Status::ok();
}

Status detail::saveRetryInput(DataStore &store, const std::string &session,
                              const std::string &entryInstance,
                              const Value &input,
                              const std::vector<int64_t> &retries) {
  Value rec = Value::object();
  rec.set("Input", input);
  Value counts = Value::array();
  for (int64_t c : retries)
    counts.push(Value(c));
  rec.set("Retries", std::move(counts));
  std::string text(1, record::Keep);
  appendJson(text, rec);
  // Losing is fine: a duplicate of this sink wrote the same record.
  auto put =
      store.putIfAbsent(session, savedInputName(entryInstance), text, {}, {});
  if (!put)
    return Status::crash("saving the state input for its retry: " +
                         put.getStatus().message());
  return Status::ok();
}
