//===- Status.cpp - Errors as return values
//--------------------------------===//

#include "unum/Runtime/Status.h"

using namespace unum::runtime;

Status::Failure *Status::make(Code code, std::string message) {
  return new Failure{code, std::move(message)};
}

Status::Failure *Status::copy(const Failure &f) { return new Failure(f); }

void Status::release(Failure *f) { delete f; }

const std::string &Status::message() const {
  static const std::string none;
  return failure ? failure->message : none;
}

const std::string &Status::errorName() const {
  static const std::string none;
  return failure ? failure->name : none;
}

Status Status::withContext(const std::string &context) const {
  if (!failure)
    return Status();
  Status s(make(failure->code, context + ": " + failure->message));
  s.failure->name = failure->name;
  return s;
}
