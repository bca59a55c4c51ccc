//===- UnumAttrs.td - Parsed conditionals, patterns, modifiers *- tablegen -*-===//
#ifndef UNUM_DIALECT_UNUM_UNUMATTRS_TD
#define UNUM_DIALECT_UNUM_UNUMATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "unum/Dialect/Unum/IR/UnumDialect.td"

// Each attribute holds a value of the config library's AST (parsed once, when
// the attribute is built) and is uniqued by its canonical text.
class Unum_ParsedAttr<string name, string attrMnemonic, string paramType,
                      string desc> : AttrDef<Unum_Dialect, name> {
  let mnemonic = attrMnemonic;
  let parameters = (ins AttrParameter<paramType, desc, "const " # paramType # " &">:$value);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The canonical text (`$out`, `-unumIndex-`).
    llvm::StringRef getText() const { return getValue().text; }
    /// Parses a bare string literal holding the text, as the op syntax
    /// writes it; errors point inside the literal.
    static }] # name # [{Attr parseString(::mlir::AsmParser &parser);
  }];
}

def Unum_ConditionAttr : Unum_ParsedAttr<"Condition", "cond",
    "::unum::config::Expression", "a parsed boolean expression"> {
  let summary = "An edge conditional";
  let description = [{
    A boolean expression over `$out` (the function's output, with `.field`
    and `[i]` access), `$0`..`$31` (fan-out indices, innermost first), `$size`,
    numbers, strings, `true`/`false`/`null`, `+ - * / %`, comparisons,
    `and or not` (or `&& || !`) and parentheses. Example:
    `#unum.cond<"$0 < $size - 1">`.
  }];
}

def Unum_NamePatternAttr : Unum_ParsedAttr<"NamePattern", "pattern",
    "::unum::config::NamePattern", "a parsed instance-name pattern"> {
  let summary = "A fan-in value: the instance name pattern of a tail";
  let description = [{
    `<Function>` or `<Function>-unumIndex-<i>.<j>...` (innermost index first),
    where each index part is an integer, `$0`..`$31`, `*` (every index of the
    fan-out) or parenthesised arithmetic such as `($0-1)`. Example:
    `#unum.pattern<"C-unumIndex-*">`.
  }];
}

def Unum_ModifierAttr : Unum_ParsedAttr<"Modifier", "modifier",
    "::unum::config::Modifier", "a parsed payload modifier"> {
  let summary = "A payload modifier";
  let description = [{
    `Pop` (drop the innermost fan-out level), `$k = expr` or `$size = expr`.
    Example: `#unum.modifier<"$0=$0+1">`.
  }];
}

def Unum_NamePatternArrayAttr
    : TypedArrayAttrBase<Unum_NamePatternAttr, "name pattern array">;
def Unum_ModifierArrayAttr
    : TypedArrayAttrBase<Unum_ModifierAttr, "payload modifier array">;

#endif // UNUM_DIALECT_UNUM_UNUMATTRS_TD
