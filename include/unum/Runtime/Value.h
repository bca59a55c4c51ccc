//===- Value.h - JSON values for payloads and outputs -----------*- C++ -*-===//
//
// Payloads, user inputs and outputs are JSON. Reading goes through the config
// library's JSON parser (so limits and error messages are shared); Value is
// the runtime's own small, copyable value type with an order-preserving
// object, integers kept exact, and a compact writer.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_VALUE_H
#define UNUM_RUNTIME_VALUE_H

#include "unum/Config/Document.h"
#include "unum/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace unum::runtime {

/// A JSON value. A value type: copies are deep and independent; not
/// synchronised (concurrent reads of one Value are fine, a write needs the
/// readers to be done).
class Value {
public:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };
  using Array = std::vector<Value>;
  using Member = std::pair<std::string, Value>;
  using Object = std::vector<Member>; // source order, keys unique

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : v(b) {}
  Value(int i) : v(int64_t(i)) {}
  Value(int64_t i) : v(i) {}
  Value(uint64_t i) : v(int64_t(i)) {}
  Value(double d) : v(d) {}
  Value(const char *s) : v(std::string(s)) {}
  Value(std::string s) : v(std::move(s)) {}
  Value(std::string_view s) : v(std::string(s)) {}
  Value(Array a) : v(std::move(a)) {}
  Value(Object o) : v(std::move(o)) {}

  static Value array() { return Value(Array()); }
  static Value object() { return Value(Object()); }

  Kind kind() const { return Kind(v.index()); }
  bool isNull() const { return kind() == Kind::Null; }
  bool isBool() const { return kind() == Kind::Bool; }
  bool isInt() const { return kind() == Kind::Int; }
  bool isDouble() const { return kind() == Kind::Double; }
  bool isNumber() const { return isInt() || isDouble(); }
  bool isString() const { return kind() == Kind::String; }
  bool isArray() const { return kind() == Kind::Array; }
  bool isObject() const { return kind() == Kind::Object; }

  bool getBool() const { return std::get<bool>(v); }
  int64_t getInt() const { return std::get<int64_t>(v); }
  double getDouble() const { return std::get<double>(v); }
  /// Int or Double as a double.
  double getNumber() const { return isInt() ? double(getInt()) : getDouble(); }
  const std::string &getString() const { return std::get<std::string>(v); }
  const Array &getArray() const { return std::get<Array>(v); }
  Array &getArray() { return std::get<Array>(v); }
  const Object &getObject() const { return std::get<Object>(v); }
  Object &getObject() { return std::get<Object>(v); }

  /// Object member lookup; nullptr if absent or not an object.
  const Value *find(std::string_view key) const;
  /// Sets (or replaces) an object member; the value must be an object.
  void set(std::string key, Value value);
  /// Appends to an array; the value must be an array.
  void push(Value value) { getArray().push_back(std::move(value)); }

  /// Structural equality; 1 == 1.0, object key order ignored.
  friend bool operator==(const Value &a, const Value &b);
  friend bool operator!=(const Value &a, const Value &b) { return !(a == b); }

  static const char *kindName(Kind kind);

private:
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array,
               Object>
      v;
};

bool operator==(const Value &a, const Value &b);

/// True if `value` nests arrays and objects more than `limit` levels deep
/// (the JSON readers' limit, limits::kMaxNesting: such a value could be
/// written but not read back). Iterative; stops at the first level past it.
bool nestsDeeperThan(const Value &value, unsigned limit);

/// The value of a parsed JSON node (a config's DataFlow fields, say).
Value valueOf(config::Node node);

/// Parses exactly one JSON value. Errors name `what` ("payload", a file name)
/// and the line and column.
Result<Value> parseJsonValue(std::string_view text,
                             const std::string &what = "JSON");

/// Compact JSON (no spaces), or 2-space indented with `pretty`. Doubles are
/// written in shortest round-trip form; NaN and infinities as null.
std::string toJson(const Value &value, bool pretty = false);
/// Appends the compact JSON of `value` to `out` (a checkpoint record after
/// its flag byte, without a second buffer).
void appendJson(std::string &out, const Value &value);

} // namespace unum::runtime

#endif // UNUM_RUNTIME_VALUE_H
