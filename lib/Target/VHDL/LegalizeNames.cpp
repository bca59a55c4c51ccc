//===- LegalizeNames.cpp - VHDL identifiers for design names --------------===//
#include "LegalizeNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace unum::vhdl;

// VHDL-2008 reserved words (IEEE 1076-2008, 15.10), plus the library names a
// design unit must not shadow.
static const char *const reserved[] = {"abs",
                                       "access",
                                       "after",
                                       "alias",
                                       "all",
                                       "and",
                                       "architecture",
                                       "array",
                                       "assert",
                                       "assume",
                                       "assume_guarantee",
                                       "attribute",
                                       "begin",
                                       "block",
                                       "body",
                                       "buffer",
                                       "bus",
                                       "case",
                                       "component",
                                       "configuration",
                                       "constant",
                                       "context",
                                       "cover",
                                       "default",
                                       "disconnect",
                                       "downto",
                                       "else",
                                       "elsif",
                                       "end",
                                       "entity",
                                       "exit",
                                       "fairness",
                                       "file",
                                       "for",
                                       "force",
                                       "function",
                                       "generate",
                                       "generic",
                                       "group",
                                       "guarded",
                                       "if",
                                       "impure",
                                       "in",
                                       "inertial",
                                       "inout",
                                       "is",
                                       "label",
                                       "library",
                                       "linkage",
                                       "literal",
                                       "loop",
                                       "map",
                                       "mod",
                                       "nand",
                                       "new",
                                       "next",
                                       "nor",
                                       "not",
                                       "null",
                                       "of",
                                       "on",
                                       "open",
                                       "or",
                                       "others",
                                       "out",
                                       "package",
                                       "parameter",
                                       "port",
                                       "postponed",
                                       "procedure",
                                       "process",
                                       "property",
                                       "protected",
                                       "pure",
                                       "range",
                                       "record",
                                       "register",
                                       "reject",
                                       "release",
                                       "rem",
                                       "report",
                                       "restrict",
                                       "restrict_guarantee",
                                       "return",
                                       "rol",
                                       "ror",
                                       "select",
                                       "sequence",
                                       "severity",
                                       "shared",
                                       "signal",
                                       "sla",
                                       "sll",
                                       "sra",
                                       "srl",
                                       "strong",
                                       "subtype",
                                       "then",
                                       "to",
                                       "transport",
                                       "type",
                                       "unaffected",
                                       "units",
                                       "until",
                                       "use",
                                       "variable",
                                       "vmode",
                                       "vprop",
                                       "vunit",
                                       "wait",
                                       "when",
                                       "while",
                                       "with",
                                       "xnor",
                                       "xor",
                                       "std",
                                       "ieee",
                                       "work"};

std::string Namer::get(llvm::StringRef wanted) {
  std::string name;
  for (char c : wanted) {
    bool alnum = llvm::isAlnum(static_cast<unsigned char>(c));
    if (alnum)
      name += c;
    else if (!name.empty() && name.back() != '_')
      name += '_';
  }
  while (!name.empty() && name.back() == '_')
    name.pop_back();
  if (name.empty() || !llvm::isAlpha(static_cast<unsigned char>(name[0])))
    name = "n_" + name;
  if (name.back() == '_')
    name.pop_back();
  if (llvm::is_contained(reserved, llvm::StringRef(name).lower()))
    name += "_n";
  std::string unique = name;
  for (unsigned i = 2; !used.insert(llvm::StringRef(unique).lower()).second;
       ++i)
    unique = name + "_" + std::to_string(i);
  return unique;
}
