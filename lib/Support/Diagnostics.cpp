//===- Diagnostics.cpp - Bounded diagnostics for Unum's tools -------------===//
#include "unum/Support/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <mutex>

using namespace mlir;

static llvm::cl::opt<unsigned> errorLimit(
    "error-limit",
    llvm::cl::desc("Stop printing errors after this many (0: no limit)"),
    llvm::cl::init(20));

unsigned unum::getErrorLimit() { return errorLimit; }

std::string unum::cutSourceLine(llvm::StringRef line, unsigned &col,
                                unsigned width) {
  if (line.size() <= width)
    return line.str();
  auto isContinuation = [&](size_t i) {
    return i < line.size() &&
           (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80;
  };
  size_t start = col > width / 2 ? col - width / 2 : 0;
  size_t end = std::min(line.size(), start + width);
  if (end == line.size())
    start = end > width ? end - width : 0;
  while (start > 0 && isContinuation(start))
    --start;
  while (end < line.size() && isContinuation(end))
    ++end;
  std::string out = start ? "..." : "";
  out += line.substr(start, end - start).str();
  if (end < line.size())
    out += "...";
  col = col - start + (start ? 3 : 0);
  return out;
}

namespace {
struct Bounds {
  llvm::SourceMgr *sourceMgr;
  llvm::SourceMgr own; // the files read here, when there is no sourceMgr
  llvm::raw_ostream &os;
  unsigned limit;
  unsigned errors = 0;
  bool stopped = false;

  Bounds(llvm::SourceMgr *sourceMgr, llvm::raw_ostream &os)
      : sourceMgr(sourceMgr ? sourceMgr : &own), os(os),
        limit(unum::getErrorLimit()) {}

  /// The line `loc` is on, if its file can be read.
  std::optional<llvm::StringRef> lineOf(FileLineColLoc loc) {
    llvm::StringRef name = loc.getFilename().getValue();
    unsigned id = 0;
    for (unsigned i = 1; i <= sourceMgr->getNumBuffers() && !id; ++i)
      if (sourceMgr->getMemoryBuffer(i)->getBufferIdentifier() == name)
        id = i;
    if (!id) {
      auto file = llvm::MemoryBuffer::getFile(name, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
      if (!file)
        return std::nullopt;
      id = sourceMgr->AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
    }
    llvm::SMLoc at = sourceMgr->FindLocForLineAndColumn(id, loc.getLine(), 1);
    if (!at.isValid())
      return std::nullopt;
    llvm::StringRef rest(at.getPointer(),
                         sourceMgr->getMemoryBuffer(id)->getBufferEnd() -
                             at.getPointer());
    return rest.take_until([](char c) { return c == '\n' || c == '\r'; });
  }

  /// The file location a diagnostic is shown at (as MLIR's handler finds
  /// it: the first one inside names, call sites and fused locations).
  static std::optional<FileLineColLoc> fileLoc(Location loc) {
    std::optional<FileLineColLoc> found;
    loc->walk([&](Location inner) {
      if (auto f = dyn_cast<FileLineColLoc>(inner)) {
        found = f;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  }

  bool hasLongLine(Location loc) {
    std::optional<FileLineColLoc> f = fileLoc(loc);
    if (!f)
      return false;
    std::optional<llvm::StringRef> line = lineOf(*f);
    return line && line->size() > unum::kQuotedLineWidth;
  }

  void print(Location loc, llvm::StringRef kind, const std::string &message) {
    std::optional<FileLineColLoc> f = fileLoc(loc);
    if (!f) {
      os << loc << ": " << kind << ": " << message << "\n";
      return;
    }
    os << f->getFilename().getValue() << ":" << f->getLine() << ":"
       << f->getColumn() << ": " << kind << ": " << message << "\n";
    std::optional<llvm::StringRef> line = lineOf(*f);
    if (!line)
      return;
    unsigned col = f->getColumn() ? f->getColumn() - 1 : 0;
    std::string shown = unum::cutSourceLine(*line, col);
    for (char &c : shown)
      if (c == '\t')
        c = ' ';
    os << shown << "\n" << std::string(col, ' ') << "^\n";
  }

  static llvm::StringRef kindName(DiagnosticSeverity severity) {
    switch (severity) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Note:
      return "note";
    case DiagnosticSeverity::Remark:
      return "remark";
    }
    return "error";
  }

  LogicalResult handle(Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && !stopped && limit &&
        ++errors > limit) {
      stopped = true;
      os << "error: too many errors emitted, stopping now (--error-limit="
         << limit << "; 0 shows them all)\n";
    }
    if (stopped)
      return success(); // dropped
    bool cut = hasLongLine(diag.getLocation());
    for (Diagnostic &note : diag.getNotes())
      cut = cut || hasLongLine(note.getLocation());
    if (!cut)
      return failure(); // the handlers behind print it as usual
    print(diag.getLocation(), kindName(diag.getSeverity()), diag.str());
    for (Diagnostic &note : diag.getNotes())
      print(note.getLocation(), "note", note.str());
    return success();
  }
};
} // namespace

static DiagnosticEngine::HandlerID install(MLIRContext *context,
                                           std::shared_ptr<Bounds> bounds) {
  return context->getDiagEngine().registerHandler(
      [bounds](Diagnostic &diag) { return bounds->handle(diag); });
}

DiagnosticEngine::HandlerID unum::boundDiagnostics(MLIRContext *context,
                                                   llvm::SourceMgr *sourceMgr,
                                                   llvm::raw_ostream &os) {
  return install(context, std::make_shared<Bounds>(sourceMgr, os));
}

namespace {
/// boundDiagnosticsOnLoad's extension: invoked for every dialect a context
/// loads (it names none); the first one past the builtin dialect (which a
/// context loads when it is made) installs the bounds. A context's entry
/// expires with its handlers, so a later context at the same address is
/// bounded too.
class BoundOnLoad : public DialectExtensionBase {
public:
  BoundOnLoad() : DialectExtensionBase({}) {}
  void apply(MLIRContext *context,
             MutableArrayRef<Dialect *> dialects) const override {
    if (llvm::all_of(dialects,
                     [](Dialect *d) { return isa<BuiltinDialect>(d); }))
      return;
    static std::mutex mutex;
    static llvm::DenseMap<MLIRContext *, std::weak_ptr<Bounds>> bounded;
    std::lock_guard<std::mutex> lock(mutex);
    std::weak_ptr<Bounds> &entry = bounded[context];
    if (!entry.expired())
      return;
    auto bounds = std::make_shared<Bounds>(nullptr, llvm::errs());
    entry = bounds;
    install(context, std::move(bounds));
  }
  std::unique_ptr<DialectExtensionBase> clone() const override {
    return std::make_unique<BoundOnLoad>(*this);
  }
};
} // namespace

void unum::boundDiagnosticsOnLoad(DialectRegistry &registry) {
  static const char id = 0; // the extension's TypeID
  registry.addExtension(TypeID::getFromOpaquePointer(&id),
                        std::make_unique<BoundOnLoad>());
}
