//===- Passes.td - Unum conversion passes ------------------*- tablegen -*-===//
#ifndef UNUM_CONVERSION_PASSES_TD
#define UNUM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSfnToUnum : Pass<"convert-sfn-to-unum", "mlir::ModuleOp"> {
  let summary = "Lower Step Functions state machines to decentralised Unum apps";
  let description = [{
    Replaces every `sfn.state_machine` by an `unum.app` of the same name.

    What the original Unum compiler did, reproduced exactly: a Task becomes
    the function named by its `Resource`; a Map becomes `UnumMap<k>` (a Map
    edge to the iterator) and `UnumSinkMap<k>`, the iterator's last function
    fanning in with `["<last>-unumIndex-*"]` and `Pop`; a Parallel becomes
    `UnumParallel<k>` (one Scalar edge per branch) and `UnumSinkParallel<k>`
    with positional fan-in values. Helpers are then trimmed: a sink followed
    by a plain Scalar edge is bypassed, an `UnumMap<k>` reached by a Scalar
    edge is folded into its predecessor, an `UnumParallel<k>` that is its
    predecessor's only edge is replaced by its branches. `checkpoint` goes to
    every function (fan-in tails always checkpoint), `debug` to every function
    when set.

    What it could not do: Choice states become conditional edges (a rule's
    edge is taken when it matches and no earlier rule did; `Default` when
    none did); identity Pass and Succeed states fold into their neighbours;
    Pass states that produce data, Wait and Fail states become built-in
    functions; `Retry` becomes `retriers [...]` (the retrier list, applied
    by the runtime), `TimeoutSeconds` `timeout(n)`, and `Catch` becomes
    `unum.error` edges conditioned on the error name, with the catcher's
    `ResultPath` (a catcher whose `Next` would fold away gets a built-in
    pass-through function); a function used by several states
    becomes one unum function per state sharing the handler; Map and Parallel
    nest to any depth with indexed fan-in names; the data-flow paths are kept
    in `dataflow` for the runtime. A Map or Parallel whose `ResultPath` is
    not `$` (a path, or null) places its result in the state's input, which
    only its entry sees: the entry is then never folded away and gets
    `save_input`, and the sink `state_input(@<entry>)`.

    Loops: a state on a loop of its scope's transitions (a Choice, a `Next`
    or a Catch that leads back), and every function inside a Map or
    Parallel state that is, gets `loop(n)`, so that each visit is an
    instance of its own (see the `unum.function` description); loop-free
    functions get nothing. A Map iterator or Parallel branch that does not
    end in one function unconditionally and outside any loop (several end
    states, a Choice that ends it, a last state that loops) ends in a new
    built-in Pass, `UnumEnd<Map|Parallel><k>[_<branch>]`, whose instance
    reports to the fan-in. A Parallel of more than 16 branches ends every
    branch in one shared built-in Pass, `UnumEndParallel<k>`, whose
    instances (one per branch index) fan in like a Map iteration's
    (`UnumEndParallel<k>-unumIndex-*`): the original compiler's form, where
    each branch's tail lists every branch's tail, is quadratic in the
    branches.

    The application options come from the state machine's `checkpoint` and
    `debug` attributes, or from the pass options, which take precedence.
  }];
  let options = [
    Option<"checkpoint", "checkpoint", "std::string", /*default=*/"\"\"",
           "Checkpoint every function: true or false (default: the state "
           "machine's `checkpoint` attribute, else true)">,
    Option<"debug", "debug", "std::string", /*default=*/"\"\"",
           "Set the runtime debug switch of every function: true or false "
           "(default: the state machine's `debug` attribute, else unset)">,
  ];
  let dependentDialects = ["::unum::UnumDialect"];
}

def ConvertAirToLinalg : Pass<"convert-air-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower air kernels to linalg on tensors";
  let description = [{
    Every `air.fused` group, and every kernel outside a group, becomes one
    `linalg.generic` whose body computes a scalar with `arith` and `math`
    ops; broadcasting becomes indexing maps (a stretched dimension reads
    index 0), so nothing is materialised. A reduction accumulates in its
    output (initialised with `linalg.fill`) with reassociation allowed (in
    f64 for an f32 sum or mean, rounded once at the end; a 1-D one first sums
    blocks of 4096 elements in f32), and its prologue is computed inside its
    loop; an epilogue runs as a second
    generic over the (smaller) result. matmul and conv1d are generics whose
    innermost loop runs along the contiguous output dimension. reshape
    becomes `tensor.reshape`, transpose `linalg.transpose`, calls
    `func.call`.

    Generic functions (templates) are dropped: their specialised copies are
    what runs. With `destination-passing` (the default), every public
    function NAME becomes the ABI entry of docs/AirABI.md: one `memref`
    per input and one out-parameter per result, each of any size, strides
    and offset, returning an `i32` status. The entry checks every size
    (static ones against the signature, dynamic ones against each other
    where the program needs them equal, the outputs against the result
    shapes) and returns 1 on a mismatch; otherwise it calls the private
    kernel body `__unum_air_NAME` with contiguous views of its arguments
    (a non-contiguous one is copied through a temporary) and returns 0.
    The body reads its inputs with `bufferization.to_tensor` and writes the
    last loop nest straight into its `noalias` out-parameters
    (`bufferization.materialize_in_destination` + empty-tensor
    elimination).
  }];
  let options = [
    Option<"destinationPassing", "destination-passing", "bool",
           /*default=*/"true",
           "Public functions write their results into memref out-parameters">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"];
}

def AirCopiesToLinalg : Pass<"air-copies-to-linalg"> {
  let summary = "Rewrite memref.copy as linalg.copy (loops, no runtime call)";
  let description = [{
    Bufferization copies with `memref.copy`, which the LLVM lowering turns
    into a call of `memrefCopy` (MLIR's C runner library) unless both
    memrefs have the identity layout. Kernel objects must not depend on that
    library, and the kernel bodies work on strided memrefs (a dynamic
    offset), so every `memref.copy` becomes a `linalg.copy`, lowered to
    loops with the rest (LLVM recognises a contiguous one as a memcpy).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AirFuseRows : Pass<"air-fuse-rows", "mlir::func::FuncOp"> {
  let summary = "Fuse row statistics and their row-wise users into one loop "
                "over row blocks";
  let description = [{
    Row-wise patterns (softmax, layernorm, logsumexp over the last axis)
    lower to several loop nests over the whole array: a reduction per row
    statistic, and elementwise nests that read it, one of whose values is
    used twice and so materialised in full. This pass (linalg on tensors,
    before bufferization) tiles the last all-parallel `linalg.generic` of
    such a chain along its first dimension into an `scf.for` over blocks of
    rows (about 8 KB of each input per block) and fuses into that loop
    every producer whose row slice it reads: the row reductions and the
    multi-use elementwise values, computed once per block (CSE merges the
    copies fusion makes) into block-sized temporaries that stay in cache.
    The array is then read from memory once to reduce and once to write.
    A producer the block reads in full (a reduction over axis 0) or that has
    users outside the chain stays outside, computed once.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AirVectorizeConv1d : Pass<"air-vectorize-conv1d"> {
  let summary = "conv1d as register-blocked vector code (broadcast FMAs, "
                "masked channel remainder)";
  let description = [{
    Runs on the bufferized kernel bodies (memrefs) and replaces each conv1d
    generic of convert-air-to-linalg, `y[l, o] += x[l * s + k, c] *
    w[k, c, o]` with the filter and output contiguous along their last
    dimension, by explicit vector code: register blocks of R output
    positions x N vectors of output channels whose accumulators stay in
    registers for the whole (k, c) reduction; each step loads N weight
    vectors and broadcasts one input element per row into N FMAs
    (`vector.fma`; integer types multiply and add). R and N follow from the
    register count (f32: 6 x 2 vectors on AVX2, 14 x 2 on AVX-512). Output
    channels that do not fill a block use masked loads and stores; output
    positions that do not fill one use a shorter block (static length) or
    one position at a time (dynamic length). No gathers or scatters. With
    `threads` > 1 the loop over blocks of output positions is an
    `scf.parallel` when the call has at least 2^20 multiply-adds (decided
    at run time for dynamic sizes: an `scf.if` picks the parallel or the
    serial loop).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "256",
           "Width of a vector register in bits (128 SSE, 256 AVX2, 512 AVX-512)">,
    Option<"registers", "registers", "int64_t", "16",
           "Number of vector registers (16 AVX2, 32 AVX-512)">,
    Option<"threads", "threads", "int64_t", "1",
           "Threads the output positions are shared by (> 1: scf.parallel "
           "above a work threshold)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def AirVectorize : Pass<"air-vectorize"> {
  let summary = "Tile and vectorise kernel bodies for the target's vector "
                "registers (matmul register/cache blocks, elementwise)";
  let description = [{
    Runs on the bufferized kernel bodies (memrefs). A matmul generic becomes
    a Goto/BLIS loop nest (lib/Conversion/AirToLinalg/MatmulNest.cpp): B
    packed per KC x NC block and A per MC x KC block into zero-padded panels
    (allocated once per call), register tiles of MR rows x NR columns (NR =
    two vector registers, MR = (registers - 4) / 2: 6 x 16 f32 on AVX2,
    14 x 32 on AVX-512) accumulated in vector registers over the whole KC
    with one broadcast FMA per row, edge tiles computed in full and stored
    with masks (any static or dynamic shape stays vectorised). An
    elementwise tail reading only the matmul's result (bias over rows or
    columns, relu, scaling) is applied to the register tile before its last
    store. With `threads` > 1 and at least 2^20 multiply-adds per call the
    matmul is shared: with fewer than 512 rows and one B panel of columns,
    as one `omp.parallel` region whose threads pack each KC block of B
    together (1/T each, into a shared double-buffered panel), meet at one
    barrier, then run equal shares of the register tiles; otherwise as one
    `scf.parallel` loop of `threads` ranges of rows (or of columns when M
    is small), each a whole nest with its own packing
    (convert-scf-to-openmp makes it OpenMP). The outermost loop of an
    elementwise kernel is shared when it has at least 2^17 elements (decided
    at run time for dynamic sizes: an `scf.if` picks the parallel or the
    serial loop, lib/Conversion/AirToLinalg/Parallel.h). An
    elementwise generic whose operands are contiguous along the innermost
    loop (or do not read it) is tiled to `unroll` registers along it and
    vectorised. A reduction over leading or middle axes streams its rows
    into vector accumulators (f32 sums add chunks of rows in f32, then into
    an f64 sum; lib/Conversion/AirToLinalg/Reductions.cpp), its columns or
    leading slices shared between threads when each share is large enough;
    air-fuse-rows' loops over row blocks are shared too. Remainder tiles, the
    other reductions and other layouts are left for convert-linalg-to-loops. Sizes come from the target (AirCompiler asks the
    LLVM TargetMachine; unum-airc --mcpu picks another CPU).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "256",
           "Width of a vector register in bits (128 SSE, 256 AVX2, 512 AVX-512)">,
    Option<"registers", "registers", "int64_t", "16",
           "Number of vector registers (16 AVX2, 32 AVX-512)">,
    Option<"unroll", "unroll", "int64_t", "2",
           "Vector registers per elementwise tile">,
    Option<"threads", "threads", "int64_t", "1",
           "Threads the matmul's M blocks, elementwise loops, row blocks and "
           "reductions' columns are shared by (> 1: scf.parallel above a "
           "work threshold)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::omp::OpenMPDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect",
                           "::mlir::vector::VectorDialect"];
}

def ConvertNNToRTL : Pass<"convert-nn-to-rtl", "mlir::ModuleOp"> {
  let summary = "Lower quantised nn models to rtl streaming datapaths";
  let description = [{
    Replaces every quantised `nn.model` by an `rtl.design` of the same name.
    A conv1d or linear becomes an `rtl.mac_unit` with at most `parallelism`
    multipliers, each doing one multiply per cycle, so `parallelism=1` is one
    multiply-accumulate per cycle. They are split into `out_lanes` output
    lanes (one output channel each) times `reduce_lanes` reduction lanes
    (products of the same output, summed by an adder tree), choosing the
    split with the fewest cycles, `L_out * ceil(C_out / out_lanes) *
    ceil(K * C_in/groups / reduce_lanes)`; ties keep more output lanes. A
    linear is a conv1d with a kernel of 1; flatten changes no hardware (the
    stream order is already position-major). relu and hardtanh become
    `clamp` stages, hardsigmoid a `hardsigmoid` stage.
  }];
  let options = [
    Option<"parallelism", "parallelism", "unsigned", /*default=*/"1",
           "Multipliers per multiply-accumulate layer (P >= 1)">,
  ];
  let dependentDialects = ["::unum::rtl::RTLDialect"];
}

def ConvertNNToAir : Pass<"convert-nn-to-air", "mlir::ModuleOp"> {
  let summary = "Lower float nn models to air functions (the CPU path)";
  let description = [{
    Replaces every float `nn.model` NAME by a public function NAME of the
    same inputs (`tensor<LxCxf32>`, `air.name` the input's name, in the order
    of the `nn.input` ops) returning the output, so that the air pipeline
    (`air-optimize`, `air-to-llvm`; `unum-airc`, the JIT) compiles the model
    into fused CPU kernels. Weights become `air.constant`s:
    conv1d is `air.conv1d` with the filter `[K, C_in, C_out]` (groups
    expanded to a block-diagonal filter) after a `tensor.pad` with the
    padding value, linear `air.matmul` with the transposed weight, each plus
    its bias (fused into the kernel); relu, hardtanh and hardsigmoid are
    `air.max`/`air.min` chains (hardsigmoid `x * (1/6) + 0.5` clamped to
    [0, 1]); batchnorm is `x * s + t` with `s = gamma / sqrt(var + eps)`
    and `t = beta - mean * s` folded in float64; flatten is `air.reshape`
    (the `[L, C]` rows are already position-major); add is `air.add`,
    concat a `tensor.concat` (channels: dimension 1, length: dimension 0).
    maxpool1d and avgpool1d pad the input (`tensor.pad` with -inf for max,
    so padded positions never win, and 0 for the average), take tap `k` of
    every window as one strided `tensor.extract_slice` and combine the taps
    with `air.max` / `air.add`, the sum divided (`air.div`) by the kernel
    size (`count_include_pad`) or by each window's positions inside the
    input; air-fuse makes the taps one loop nest.

    A quantised model (`!nn.fixed` values) and a layer without a lowering
    are errors located at the layer; nothing is changed then.
  }];
  let dependentDialects = [
    "::unum::air::AirDialect", "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect", "::mlir::tensor::TensorDialect"];
}

#endif // UNUM_CONVERSION_PASSES_TD
