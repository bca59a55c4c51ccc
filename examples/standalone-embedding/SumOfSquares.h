//===- SumOfSquares.h - C++ handlers of sum-of-squares.asl.json -----------===//
//
// The Task functions of the example app, shared by run-workflow and
// function-host: Split N -> [1..N], Square x -> x*x (one Map item), Sum of
// the Map's outputs in item order.
//
//===----------------------------------------------------------------------===//
#ifndef SUM_OF_SQUARES_H
#define SUM_OF_SQUARES_H

#include "unum/Runtime/App.h"

#include <string>
#include <utility>

namespace sum_of_squares {
using namespace unum::runtime;

/// Split: N -> [1, 2, ..., N].
inline HandlerResult split(const Value &input, Context &) {
  if (!input.isInt() || input.getInt() < 0)
    return HandlerResult::failure("Split expects a count, got " +
                                  toJson(input));
  Value items = Value::array();
  for (int64_t i = 1; i <= input.getInt(); ++i)
    items.push(i);
  return HandlerResult::success(std::move(items));
}

/// Square: one Map item x -> x * x.
inline HandlerResult square(const Value &input, Context &) {
  if (!input.isInt())
    return HandlerResult::failure("Square expects an integer");
  return HandlerResult::success(input.getInt() * input.getInt());
}

/// Sum: the Map's outputs, in item order -> their sum.
inline HandlerResult sum(const Value &input, Context &) {
  if (!input.isArray())
    return HandlerResult::failure("Sum expects a list, got " + toJson(input));
  int64_t total = 0;
  for (const Value &v : input.getArray())
    total += v.isInt() ? v.getInt() : 0;
  return HandlerResult::success(total);
}

/// Gives the app's Task functions these handlers (the compiler's own
/// helpers, the Map's fan-out and sink, have builtin handlers) and checks
/// that every function has one.
inline Status setHandlers(App &app) {
  for (auto [name, fn] :
       {std::pair{"Split", split}, {"Square", square}, {"Sum", sum}})
    if (Status s = app.setHandler(name, makeFunctionHandler(fn)); !s)
      return s;
  return app.validate();
}

} // namespace sum_of_squares

#endif // SUM_OF_SQUARES_H
