//===- Payload.cpp - The message passed between function instances -------===//

#include "unum/Runtime/Payload.h"
#include "HotPath.h"
#include "PayloadInternal.h"
#include "unum/Config/Document.h"

#include <algorithm>
#include <chrono>
#include <random>

using namespace unum::runtime;

static Result<FanOutLevel> decodeLevel(const Value &v, unsigned depth) {
  std::string where = "payload Fan-out" + std::string(depth, '>');
  if (!v.isObject())
    return Status::error(where + ": expected an object, got " +
                         Value::kindName(v.kind()));
  FanOutLevel level;
  if (const Value *type = v.find("Type")) {
    if (!type->isString())
      return Status::error(where + ".Type: expected a string");
    level.type = type->getString();
  }
  const Value *index = v.find("Index");
  const Value *size = v.find("Size");
  if (!index || !index->isInt())
    return Status::error(where + ".Index: expected an integer");
  if (!size || !size->isInt())
    return Status::error(where + ".Size: expected an integer");
  level.index = index->getInt();
  level.size = size->getInt();
  if (level.size < 0 || level.index < 0)
    return Status::error(where + ": Index and Size must not be negative");
  if (const Value *visit = v.find("Visit")) {
    if (!visit->isInt() || visit->getInt() < 0)
      return Status::error(where + ".Visit: expected a non-negative integer");
    level.visit = visit->getInt();
  }
  if (const Value *window = v.find("Window")) {
    const Value *items = v.find("Items");
    if (!window->isInt() || window->getInt() < 1 || !items ||
        !items->isString())
      return Status::error(where + ".Window: expected a positive integer, "
                                   "with the string Items");
    level.window = window->getInt();
    level.items = items->getString();
  }
  return level;
}

Result<Payload> unum::runtime::decodePayload(const Value &json) {
  if (!json.isObject())
    return Status::error(std::string("payload: expected an object, got ") +
                         Value::kindName(json.kind()));
  Payload p;
  for (const Value::Member &m : json.getObject()) {
    const std::string &key = m.first;
    const Value &v = m.second;
    if (key == "Data") {
      const Value *source = v.find("Source");
      const Value *value = v.find("Value");
      if (!v.isObject() || !value)
        return Status::error("payload Data: expected an object with a Value");
      if (source && !source->isString())
        return Status::error("payload Data.Source: expected a string");
      // "http" (inline) is the default; any store name means "read the
      // checkpoints named in Value" (the original runtime wrote the store
      // type, e.g. "dynamodb").
      if (source && source->getString() == "unum-failure") {
        p.source = Payload::Source::Failure;
        const Value *name = value->find("Error");
        const Value *cause = value->find("Cause");
        if (!name || !name->isString() || !cause || !cause->isString())
          return Status::error("payload Data.Value: a failure needs a string "
                               "Error and Cause");
      } else if (source && source->getString() != "http") {
        p.source = Payload::Source::Checkpoint;
        if (!value->isArray())
          return Status::error("payload Data.Value: a checkpoint source needs "
                               "a list of instance names");
        for (const Value &name : value->getArray())
          if (!name.isString())
            return Status::error("payload Data.Value: instance names must be "
                                 "strings");
      }
      p.value = *value;
    } else if (key == "Session") {
      if (!v.isString() || v.getString().empty())
        return Status::error("payload Session: expected a non-empty string");
      p.session = v.getString();
    } else if (key == "Fan-out") {
      if (v.isNull())
        continue;
      const Value *level = &v;
      while (level) {
        if (p.fanout.size() >= kMaxFanOutDepth)
          return Status::error("payload Fan-out: nested deeper than " +
                               std::to_string(kMaxFanOutDepth));
        auto decoded = decodeLevel(*level, p.fanout.size());
        if (!decoded)
          return decoded.getStatus();
        p.fanout.push_back(decoded.take());
        level = level->find("OuterLoop");
        if (level && level->isNull())
          level = nullptr;
      }
    } else if (key == "Visit") {
      if (!v.isInt() || v.getInt() < 0)
        return Status::error("payload Visit: expected a non-negative integer");
      p.visit = v.getInt();
    } else if (key == "Execution") {
      const Value *start = v.find("StartTime");
      if (!v.isObject() || !v.find("Input") || !start || !start->isString())
        return Status::error("payload Execution: expected an object with the "
                             "Input and a string StartTime");
      p.execution = std::make_shared<const Value>(v);
    } else if (key == "GC") {
      // The original runtime sent {parent: [children]} here; only our two
      // members carry meaning.
      if (const Value *c = v.find("Checkpoint"); c && c->isString())
        p.retire = c->getString();
      if (const Value *set = v.find("Set"); set && set->isString())
        p.fanInSet = set->getString();
    } else if (key == "Outbox") {
      const Value *id = v.find("Id"), *issued = v.find("Issued"),
                  *fresh = v.find("Fresh");
      if (!v.isObject() || !id || !id->isInt() || id->getInt() <= 0 ||
          !issued || !issued->isInt() || issued->getInt() <= 0 ||
          (fresh && !fresh->isBool()))
        return Status::error("payload Outbox: expected an object with a "
                             "positive integer Id and Issued (and a boolean "
                             "Fresh)");
      auto &h = detail::hints(p);
      h.outboxId = uint64_t(id->getInt());
      h.issuedMs = issued->getInt();
      h.fresh = fresh && fresh->getBool();
    } else {
      return Status::error("payload: unknown field '" + key + "'");
    }
  }
  if (!json.find("Data"))
    return Status::error("payload: missing Data");
  return p;
}

Value unum::runtime::encodePayload(const Payload &p) {
  Value data = Value::object();
  data.set("Source", p.source == Payload::Source::Http ? "http"
                     : p.source == Payload::Source::Checkpoint
                         ? "checkpoint"
                         : "unum-failure");
  data.set("Value", p.value);
  Value out = Value::object();
  out.set("Data", std::move(data));
  if (!p.session.empty())
    out.set("Session", p.session);
  if (!p.fanout.empty()) {
    Value level; // built outermost first
    for (size_t i = p.fanout.size(); i-- > 0;) {
      Value l = Value::object();
      l.set("Type", p.fanout[i].type);
      l.set("Index", p.fanout[i].index);
      l.set("Size", p.fanout[i].size);
      if (p.fanout[i].visit)
        l.set("Visit", p.fanout[i].visit);
      if (p.fanout[i].window) {
        l.set("Window", p.fanout[i].window);
        l.set("Items", p.fanout[i].items);
      }
      if (!level.isNull())
        l.set("OuterLoop", std::move(level));
      level = std::move(l);
    }
    out.set("Fan-out", std::move(level));
  }
  if (p.visit)
    out.set("Visit", p.visit);
  if (p.execution)
    out.set("Execution", *p.execution);
  if (!p.retire.empty() || !p.fanInSet.empty()) {
    Value gc = Value::object();
    if (!p.retire.empty())
      gc.set("Checkpoint", p.retire);
    if (!p.fanInSet.empty())
      gc.set("Set", p.fanInSet);
    out.set("GC", std::move(gc));
  }
  if (const auto &h = detail::hints(p); h.issuedMs) {
    Value ob = Value::object();
    ob.set("Id", int64_t(h.outboxId));
    ob.set("Issued", h.issuedMs);
    ob.set("Fresh", h.fresh);
    out.set("Outbox", std::move(ob));
  }
  return out;
}

namespace config = unum::config;

/// One fan-out level and the levels outside it, as encodePayload nests them.
static void appendLevels(std::string &out, const std::vector<FanOutLevel> &fo,
                         size_t i) {
  const FanOutLevel &l = fo[i];
  out += "{\"Type\":";
  config::appendJsonString(out, l.type);
  out += ",\"Index\":";
  out += std::to_string(l.index);
  out += ",\"Size\":";
  out += std::to_string(l.size);
  if (l.visit) {
    out += ",\"Visit\":";
    out += std::to_string(l.visit);
  }
  if (l.window) {
    out += ",\"Window\":";
    out += std::to_string(l.window);
    out += ",\"Items\":";
    config::appendJsonString(out, l.items);
  }
  if (i + 1 < fo.size()) {
    out += ",\"OuterLoop\":";
    appendLevels(out, fo, i + 1);
  }
  out += '}';
}

UNUM_HOT std::string unum::runtime::detail::payloadJson(const Payload &p) {
  std::string out;
  out.reserve(96 + p.session.size() + p.retire.size());
  out += p.source == Payload::Source::Http ? "{\"Data\":{\"Source\":\"http\""
         : p.source == Payload::Source::Checkpoint
             ? "{\"Data\":{\"Source\":\"checkpoint\""
             : "{\"Data\":{\"Source\":\"unum-failure\"";
  out += ",\"Value\":";
  appendJson(out, p.value);
  out += '}';
  if (!p.session.empty()) {
    out += ",\"Session\":";
    config::appendJsonString(out, p.session);
  }
  if (UNUM_UNLIKELY(!p.fanout.empty())) {
    out += ",\"Fan-out\":";
    appendLevels(out, p.fanout, 0);
  }
  if (p.visit) {
    out += ",\"Visit\":";
    out += std::to_string(p.visit);
  }
  if (p.execution) {
    out += ",\"Execution\":";
    appendJson(out, *p.execution);
  }
  if (!p.retire.empty() || !p.fanInSet.empty()) {
    out += ",\"GC\":{";
    if (!p.retire.empty()) {
      out += "\"Checkpoint\":";
      config::appendJsonString(out, p.retire);
    }
    if (!p.fanInSet.empty()) {
      if (!p.retire.empty())
        out += ',';
      out += "\"Set\":";
      config::appendJsonString(out, p.fanInSet);
    }
    out += '}';
  }
  if (const auto &h = detail::hints(p); UNUM_UNLIKELY(h.issuedMs)) {
    out += ",\"Outbox\":{\"Id\":";
    out += std::to_string(h.outboxId);
    out += ",\"Issued\":";
    out += std::to_string(h.issuedMs);
    out += h.fresh ? ",\"Fresh\":true}" : ",\"Fresh\":false}";
  }
  out += '}';
  return out;
}

UNUM_HOT std::string
unum::runtime::instanceName(const std::string &function,
                            const std::vector<FanOutLevel> &fanout) {
  if (fanout.empty())
    return function;
  std::string name = function + "-unumIndex-";
  for (size_t i = 0; i < fanout.size(); ++i) {
    if (i)
      name += '.';
    name += std::to_string(fanout[i].index);
  }
  return name;
}

std::string unum::runtime::visitSuffix(int64_t loop, int64_t visit,
                                       const std::vector<FanOutLevel> &fanout) {
  if (loop <= 0)
    return "";
  // Scope 0 is the top one; scope j >= 1 is opened by the level
  // fanout[depth - j] (levels are innermost first).
  const size_t depth = fanout.size();
  const size_t scopes = std::min<size_t>(size_t(loop), depth + 1);
  std::string out = kVisitInfix;
  for (size_t j = scopes; j-- > 0;) {
    out += std::to_string(j == 0 ? visit : fanout[depth - j].visit);
    if (j)
      out += '.';
  }
  return out;
}

void unum::runtime::enterLoop(int64_t loop, int64_t &visit,
                              std::vector<FanOutLevel> &fanout) {
  if (loop <= int64_t(fanout.size()))
    return;
  if (fanout.empty())
    ++visit;
  else
    ++fanout.front().visit;
}

std::string unum::runtime::newSessionId() {
  static thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    uint64_t seed =
        (uint64_t(rd()) << 32) ^ rd() ^
        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    return seed;
  }());
  static const char alphabet[] =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::uniform_int_distribution<int> pick(0, 61);
  std::string id(15, '0');
  for (char &c : id)
    c = alphabet[pick(rng)];
  return id;
}
