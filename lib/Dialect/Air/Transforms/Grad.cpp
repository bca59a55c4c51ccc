//===- Grad.cpp - air-grad: reverse-mode differentiation ------------------===//
//
// `air.grad @f(args) {wrt}` becomes a call of a generated function: a copy
// of f (calls inlined, inner air.grad ops expanded first, tuples folded,
// broadcasts explicit), then the reverse sweep. The sweep visits f's kernels
// from the last to the first; each kernel with an adjoint asks its own rule
// (GradientOpInterface) for its operands' adjoints, which are summed per
// value. Nothing here knows a kernel by name.
//
// Calls are inlined before differentiating rather than differentiated one
// by one: every function is pure and, as checked first, non-recursive, so
// inlining always terminates, the reverse sweep then reads the forward values
// it needs directly (a separate callee gradient would have to recompute them or
// return them as a tape), and air-fuse can fuse forward and backward code
// across what were call boundaries.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Air/IR/AirGradient.h"
#include "unum/Dialect/Air/IR/AirOps.h"
#include "unum/Dialect/Air/IR/AirTypeText.h"
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

namespace unum::air {
#define GEN_PASS_DEF_AIRGRAD
#include "unum/Dialect/Air/Transforms/Passes.h.inc"
} // namespace unum::air

using namespace mlir;
using namespace unum::air;

namespace {
bool isGenericType(Type t) { return isa<GenericType>(t); }

/// A value that can carry a gradient: a float array, or a tuple holding one.
bool isDifferentiable(Type t) {
  if (auto tuple = dyn_cast<TupleType>(t))
    return llvm::any_of(tuple.getTypes(), isDifferentiable);
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// a + b for adjoints (tuples element by element).
Value addAdjoints(OpBuilder &b, Location loc, Value x, Value y) {
  auto tuple = dyn_cast<TupleType>(x.getType());
  if (!tuple)
    return buildKernel<AddOp>(b, loc, x, y);
  SmallVector<Value> sums;
  for (unsigned i = 0; i < tuple.size(); ++i) {
    auto index = b.getI64IntegerAttr(i);
    sums.push_back(addAdjoints(b, loc, buildKernel<GetOp>(b, loc, x, index),
                               buildKernel<GetOp>(b, loc, y, index)));
  }
  return buildKernel<MakeTupleOp>(b, loc, sums);
}

/// True when `adjoint` has `primal`'s shape or broadcasts to it.
bool fits(Value adjoint, Value primal) {
  auto a = cast<RankedTensorType>(adjoint.getType());
  auto p = cast<RankedTensorType>(primal.getType());
  auto joint = broadcastShapes(a.getShape(), p.getShape());
  return joint && ArrayRef<int64_t>(*joint) == p.getShape();
}

class Differentiator {
public:
  Differentiator(ModuleOp module) : module(module), table(module) {}

  /// Replaces `grad` by a call of its generated function.
  LogicalResult expand(GradOp grad) {
    auto callee = table.lookup<func::FuncOp>(grad.getCallee());
    if (!callee || callee.isExternal())
      return grad.emitError("air-grad: '")
             << grad.getCallee() << "' is not a function with a body";
    FunctionType type = callee.getFunctionType();
    if (llvm::any_of(type.getInputs(), isGenericType))
      return grad.emitError("air-grad: '")
             << grad.getCallee() << "' is generic; run air-monomorphize first";
    auto value = dyn_cast<RankedTensorType>(type.getResult(0));
    if (type.getNumResults() != 1 || !value || value.getRank() != 0 ||
        !isa<FloatType>(value.getElementType()))
      return grad.emitError("cannot differentiate '")
             << grad.getCallee() << "': it must return one floating-point "
             << "scalar (f32[] or f64[])";
    for (int64_t i : grad.getWrt()) {
      Type t = type.getInput(i);
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !isa<FloatType>(tensor.getElementType()))
        return grad.emitError("cannot differentiate '")
               << grad.getCallee() << "' with respect to parameter " << i
               << ": it is " << formatAirType(t)
               << "; only floating-point arrays have gradients";
    }
    std::string name =
        (callee.getName() + (grad.getWithValue() ? "_value_and_grad" : "_grad"))
            .str();
    for (int64_t i : grad.getWrt())
      name += "_" + std::to_string(i);
    func::FuncOp &made = generated[name];
    if (!made) {
      made = build(grad, callee, name);
      if (!made)
        return failure();
    }
    OpBuilder b(grad);
    auto call =
        CallOp::create(b, grad.getLoc(), made.getResultTypes(), made.getName(),
                       grad.getOperands(), ArrayAttr(), ArrayAttr());
    grad.replaceAllUsesWith(call.getResults());
    grad.erase();
    return success();
  }

private:
  /// The function computing `callee`'s value (when asked) and gradients.
  func::FuncOp build(GradOp grad, func::FuncOp callee, StringRef name) {
    FunctionType type = callee.getFunctionType();
    SmallVector<Type> results;
    if (grad.getWithValue())
      results.push_back(type.getResult(0));
    for (int64_t i : grad.getWrt())
      results.push_back(type.getInput(i));
    OpBuilder b(callee);
    b.setInsertionPointAfter(callee);
    auto func = func::FuncOp::create(
        b, callee.getLoc(), name,
        FunctionType::get(b.getContext(), type.getInputs(), results));
    func.setPrivate();
    table.insert(func);
    Block *entry = func.addEntryBlock();
    IRMapping mapping;
    Block &body = callee.getBody().front();
    for (auto [from, to] :
         llvm::zip(body.getArguments(), entry->getArguments())) {
      mapping.map(from, to);
      to.setLoc(from.getLoc());
    }
    b.setInsertionPointToStart(entry);
    for (Operation &op : body)
      b.clone(op, mapping);
    if (failed(flatten(func)) || failed(sweep(func, grad))) {
      func.erase();
      return nullptr;
    }
    return func;
  }

  /// Inlines calls and expands inner air.grad ops until none is left, then
  /// makes broadcasting explicit. Tuples stay: their rules pass tuple
  /// adjoints, which air-simplify folds away afterwards.
  LogicalResult flatten(func::FuncOp func) {
    Block &body = func.getBody().front();
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation &op : llvm::make_early_inc_range(body)) {
        if (auto call = dyn_cast<CallOp>(op)) {
          auto callee = table.lookup<func::FuncOp>(call.getCallee());
          if (!callee || callee.isExternal() ||
              TypeRange(call.getOperandTypes()) != callee.getArgumentTypes())
            return call.emitError("air-grad: cannot inline the call of '")
                   << call.getCallee() << "'";
          inlineCall(call, callee);
          changed = true;
        } else if (auto inner = dyn_cast<GradOp>(op)) {
          if (failed(expand(inner)))
            return failure();
          changed = true;
        }
      }
    }
    makeBroadcastsExplicit(func);
    return success();
  }

  /// Appends the reverse sweep to `func` (a flattened copy of the function
  /// `grad` differentiates) and returns the value and gradients.
  LogicalResult sweep(func::FuncOp func, GradOp grad) {
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    Value result = ret.getOperand(0);
    OpBuilder b(ret);
    Type dtype = cast<RankedTensorType>(result.getType()).getElementType();
    llvm::DenseMap<Value, Value> adjoints;
    adjoints[result] = scalarConstant(b, ret.getLoc(), dtype, 1);
    SmallVector<Operation *> forward;
    for (Operation &op : body.without_terminator())
      forward.push_back(&op);
    for (Operation *op : llvm::reverse(forward)) {
      if (op->getNumResults() != 1 || op->getNumOperands() == 0)
        continue; // constants
      Value g = adjoints.lookup(op->getResult(0));
      if (!g)
        continue;
      auto rule = dyn_cast<GradientOp>(op);
      if (!rule) {
        InFlightDiagnostic d = op->emitError("air-grad: '")
                               << op->getName() << "' has no derivative rule";
        d.attachNote(grad.getLoc()) << "differentiated here";
        return failure();
      }
      // Adjoints stay as small as they come (a scalar seed is not stretched
      // to the array it stands for) until a rule that needs the exact shape
      // reads one: elementwise rules broadcast like the kernels they are.
      auto kernel = dyn_cast<KernelOp>(op);
      if (!(kernel && kernel.isElementwise()) && !isa<TupleType>(g.getType()) &&
          g.getType() != op->getResult(0).getType())
        g = adjointFor(b, op->getLoc(), g, op->getResult(0));
      if (!g)
        return failure();
      SmallVector<Value> operandAdjoints;
      if (failed(rule.buildGradient(b, g, operandAdjoints)))
        return grad.emitRemark("while differentiating '")
               << grad.getCallee() << "' here";
      for (auto [operand, adjoint] :
           llvm::zip(op->getOperands(), operandAdjoints)) {
        if (!adjoint || !isDifferentiable(operand.getType()))
          continue;
        if (!isa<TupleType>(operand.getType()) && !fits(adjoint, operand))
          adjoint = adjointFor(b, op->getLoc(), adjoint, operand);
        if (!adjoint)
          return failure();
        Value &sum = adjoints[operand];
        sum = sum ? addAdjoints(b, op->getLoc(), sum, adjoint) : adjoint;
      }
    }
    SmallVector<Value> outputs;
    if (grad.getWithValue())
      outputs.push_back(result);
    for (int64_t i : grad.getWrt()) {
      Value arg = body.getArgument(i);
      Value g = adjoints.lookup(arg);
      outputs.push_back(g ? adjointFor(b, arg.getLoc(), g, arg)
                          : zerosLike(b, arg.getLoc(), arg));
      if (!outputs.back())
        return failure();
    }
    func::ReturnOp::create(b, ret.getLoc(), outputs);
    ret.erase();
    return success();
  }

  ModuleOp module;
  SymbolTable table;
  llvm::StringMap<func::FuncOp> generated;
};

/// The callee a call or an air.grad refers to (null for other ops).
StringAttr calleeOf(Operation *op) {
  if (auto call = dyn_cast<CallOp>(op))
    return call.getCalleeAttr().getAttr();
  if (auto grad = dyn_cast<GradOp>(op))
    return grad.getCalleeAttr().getAttr();
  return nullptr;
}

/// Refuses a cycle of calls and air.grad references reachable from a
/// function that is differentiated: inlining would never stop. Iterative,
/// so a long call chain cannot overflow the stack.
LogicalResult checkNoRecursion(ModuleOp module, ArrayRef<GradOp> grads) {
  SymbolTable table(module);
  enum class Mark { Open, Done };
  llvm::DenseMap<Operation *, Mark> marks;
  for (GradOp grad : grads) {
    auto root = table.lookup<func::FuncOp>(grad.getCallee());
    if (!root || marks.count(root))
      continue;
    // Each frame: a function, its referring ops, the next one to visit.
    struct Frame {
      func::FuncOp func;
      SmallVector<Operation *> refs;
      size_t next = 0;
    };
    auto frameOf = [](func::FuncOp f) {
      Frame frame{f, {}, 0};
      f.walk([&](Operation *op) {
        if (calleeOf(op))
          frame.refs.push_back(op);
      });
      return frame;
    };
    SmallVector<Frame> stack{frameOf(root)};
    marks[root] = Mark::Open;
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next == top.refs.size()) {
        marks[top.func] = Mark::Done;
        stack.pop_back();
        continue;
      }
      Operation *ref = top.refs[top.next++];
      auto callee = table.lookup<func::FuncOp>(calleeOf(ref));
      if (!callee)
        continue; // reported where it is expanded
      auto it = marks.find(callee);
      if (it == marks.end()) {
        marks[callee] = Mark::Open;
        stack.push_back(frameOf(callee));
      } else if (it->second == Mark::Open) {
        std::string cycle;
        bool in = false;
        for (Frame &f : stack) {
          in = in || f.func == callee;
          if (in)
            cycle += (f.func.getName() + " -> ").str();
        }
        cycle += callee.getName().str();
        InFlightDiagnostic d = ref->emitError("air-grad: '")
                               << callee.getName() << "' is recursive ("
                               << cycle
                               << "); a recursive function cannot be "
                                  "differentiated";
        d.attachNote(grad.getLoc()) << "differentiated here";
        return failure();
      }
    }
  }
  return success();
}

struct AirGradPass : public unum::air::impl::AirGradBase<AirGradPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<GradOp> grads;
    // Templates (generic functions) keep theirs: their specialisations are
    // what gets differentiated.
    for (auto func : module.getOps<func::FuncOp>())
      if (!llvm::any_of(func.getArgumentTypes(), isGenericType))
        func.walk([&](GradOp grad) { grads.push_back(grad); });
    if (failed(checkNoRecursion(module, grads)))
      return signalPassFailure();
    Differentiator differentiator(module);
    for (GradOp grad : grads)
      if (failed(differentiator.expand(grad)))
        return signalPassFailure();
  }
};
} // namespace
