//===- Specialize.cpp - air-infer and air-monomorphize --------------------===//
//
// Types flow forward from the parameters: each kernel's inferResultType says
// its result type, weak literals take the dtype of the kernel they feed, and
// a call to a typed function takes that function's result types. A generic
// function (untyped parameters) is a template: air-monomorphize clones it
// once per argument type list and infers the clone.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/IR/AirTypeText.h"
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

namespace unum::air {
#define GEN_PASS_DEF_AIRINFER
#define GEN_PASS_DEF_AIRMONOMORPHIZE
#include "unum/Dialect/Air/Transforms/Passes.h.inc"
} // namespace unum::air

using namespace mlir;
using namespace unum::air;

namespace {
bool isGeneric(func::FuncOp func) {
  return llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<GenericType>);
}

/// Replaces weak literal operands of `op` by constants in the dtype of its
/// first typed tensor operand (f32 when there is none); select's condition
/// does not count (its branches have their own dtype). A literal that is
/// not an integer of the integer dtype it meets is an error (a C cast would
/// truncate 1.5 and is undefined for 1e30).
LogicalResult typeLiterals(Operation *op) {
  Type dtype;
  for (Value v : op->getOperands().drop_front(isa<SelectOp>(op) ? 1 : 0))
    if (auto t = dyn_cast<RankedTensorType>(v.getType())) {
      dtype = t.getElementType();
      break;
    }
  // Wait for a generic operand (a call's result before its callee is
  // specialised) to be typed.
  if (!dtype && llvm::any_of(op->getOperands(), [](Value v) {
        return isa<GenericType>(v.getType()) && !v.getDefiningOp<LiteralOp>();
      }))
    return success();
  OpBuilder b(op);
  if (!dtype)
    dtype = b.getF32Type();
  for (OpOperand &use : op->getOpOperands()) {
    auto literal = use.get().getDefiningOp<LiteralOp>();
    if (!literal)
      continue;
    auto type = RankedTensorType::get({}, dtype);
    double value = literal.getValue().convertToDouble();
    Attribute element;
    if (isa<FloatType>(dtype)) {
      element = b.getFloatAttr(dtype, value);
    } else {
      unsigned width = dtype.getIntOrFloatBitWidth();
      // 2^63 is the first double past int64; the check is exact in double.
      bool integral =
          std::trunc(value) == value && value >= -0x1p63 && value < 0x1p63;
      int64_t exact = integral ? int64_t(value) : 0;
      if (!integral ||
          (width == 1 ? (exact != 0 && exact != 1)
                      : width < 64 && !llvm::isIntN(width, exact))) {
        SmallString<16> text;
        literal.getValue().toString(text);
        return literal.emitError()
               << "number " << text << " meets an "
               << formatAirType(RankedTensorType::get({}, dtype))
               << " operand but is not an integer of that dtype";
      }
      element = b.getIntegerAttr(dtype, exact);
    }
    use.set(ConstantOp::create(b, literal.getLoc(), type,
                               DenseElementsAttr::get(type, element)));
    if (literal->use_empty())
      literal->erase();
  }
  return success();
}
} // namespace

LogicalResult unum::air::inferFunction(func::FuncOp func, bool &changed) {
  SymbolTableCollection symbols;
  WalkResult result = func.walk([&](Operation *op) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      if (failed(typeLiterals(op)))
        return WalkResult::interrupt();
      Type type = kernel.inferResultType(op->getOperandTypes(), op->getLoc());
      if (!type)
        return WalkResult::interrupt();
      if (type != op->getResult(0).getType()) {
        op->getResult(0).setType(type);
        changed = true;
      }
    } else if (auto call = dyn_cast<CallOp>(op)) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || isGeneric(callee) ||
          TypeRange(call.getOperandTypes()) != callee.getArgumentTypes())
        return WalkResult::advance();
      for (auto [r, t] : llvm::zip(call.getResults(), callee.getResultTypes()))
        if (r.getType() != t) {
          r.setType(t);
          changed = true;
        }
    } else if (auto grad = dyn_cast<GradOp>(op)) {
      // The value has the callee's result type, a gradient its argument's.
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          grad, grad.getCalleeAttr());
      if (!callee || isGeneric(callee) || callee.getNumResults() != 1 ||
          TypeRange(grad.getOperandTypes()) != callee.getArgumentTypes())
        return WalkResult::advance();
      SmallVector<Type> types;
      if (grad.getWithValue())
        types.push_back(callee.getResultTypes()[0]);
      for (int64_t i : grad.getWrt())
        types.push_back(grad.getOperand(i).getType());
      for (auto [r, t] : llvm::zip(grad.getResults(), types))
        if (r.getType() != t) {
          r.setType(t);
          changed = true;
        }
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<Type> results(ret.getOperandTypes());
      if (TypeRange(results) != func.getResultTypes()) {
        func.setFunctionType(FunctionType::get(
            func.getContext(), func.getArgumentTypes(), results));
        changed = true;
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Infers every typed function until nothing changes (a caller is typed
/// after its callee's result types are).
static LogicalResult inferModule(ModuleOp module) {
  for (int round = 0;; ++round) {
    bool changed = false;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !isGeneric(func) &&
          failed(inferFunction(func, changed)))
        return failure();
    // Without recursion a change propagates one call level per round.
    if (!changed || round > 1000)
      return success();
  }
}

namespace {
struct AirInferPass : public unum::air::impl::AirInferBase<AirInferPass> {
  void runOnOperation() override {
    if (failed(inferModule(getOperation())))
      signalPassFailure();
  }
};

/// `f32[?, 4]` -> `_f32_dx4`, `f32[]` -> `_f32`: symbol-friendly clone names.
std::string mangle(TypeRange types) {
  std::string out;
  for (Type t : types) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor) {
      out += "_t"; // a tuple
      continue;
    }
    std::string text = formatAirType(t);
    out += "_" + text.substr(0, text.find('['));
    for (auto [i, d] : llvm::enumerate(tensor.getShape()))
      out += (i ? "x" : "_") +
             (ShapedType::isDynamic(d) ? std::string("d") : std::to_string(d));
  }
  return out;
}

struct AirMonomorphizePass
    : public unum::air::impl::AirMonomorphizeBase<AirMonomorphizePass> {
  using Base::Base;

  LogicalResult specialiseEntry(ModuleOp module) {
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func)
      return module.emitError("air-monomorphize: no function named '")
             << entry << "'";
    SmallVector<Type> types;
    StringRef rest = signature;
    while (!rest.trim().empty()) {
      size_t consumed = 0;
      std::string message;
      Type t = parseAirType(rest, &getContext(), consumed, message);
      if (!t)
        return func.emitError("air-monomorphize: bad signature '")
               << signature << "': " << message;
      types.push_back(t);
      rest = rest.drop_front(consumed).ltrim();
      if (!rest.empty() && !rest.consume_front(","))
        return func.emitError("air-monomorphize: bad signature '")
               << signature << "': expected ',' between types";
    }
    if (types.size() != func.getNumArguments())
      return func.emitError("air-monomorphize: '")
             << entry << "' takes " << func.getNumArguments()
             << " parameters, the signature gives " << types.size();
    for (auto [i, param, t] : llvm::enumerate(func.getArgumentTypes(), types)) {
      if (!isa<GenericType>(param) && param != t)
        return func.emitError("air-monomorphize: parameter ")
               << i + 1 << " of '" << entry << "' is " << formatAirType(param)
               << ", the signature gives " << formatAirType(t);
      func.getArgument(i).setType(t);
    }
    func.setFunctionType(
        FunctionType::get(&getContext(), types, func.getResultTypes()));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!entry.empty() && failed(specialiseEntry(module)))
      return signalPassFailure();
    SymbolTable table(module);
    llvm::StringMap<func::FuncOp> clones;
    while (true) {
      if (failed(inferModule(module)))
        return signalPassFailure();
      bool changed = false;
      for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
        if (isGeneric(func))
          continue;
        // Calls, and gradients of generic functions alike.
        auto specialise = [&](auto call) {
          auto callee = table.lookup<func::FuncOp>(call.getCallee());
          if (!callee || !isGeneric(callee) ||
              llvm::any_of(call.getOperandTypes(), llvm::IsaPred<GenericType>))
            return;
          std::string name =
              (callee.getName() + mangle(call.getOperandTypes())).str();
          func::FuncOp &clone = clones[name];
          if (!clone) {
            clone = callee.clone();
            clone.setName(name);
            clone.setPrivate();
            for (auto [arg, t] :
                 llvm::zip(clone.getArguments(), call.getOperandTypes()))
              arg.setType(t);
            clone.setFunctionType(FunctionType::get(
                &getContext(), call.getOperandTypes(), clone.getResultTypes()));
            table.insert(clone, std::next(Block::iterator(callee)));
          }
          call.setCallee(clone.getName());
          changed = true;
        };
        func.walk([&](Operation *op) {
          if (auto call = dyn_cast<CallOp>(op))
            specialise(call);
          else if (auto grad = dyn_cast<GradOp>(op))
            specialise(grad);
        });
      }
      if (!changed)
        break;
    }
    // Templates nobody calls any more.
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (isGeneric(func) && func.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
  }
};
} // namespace
