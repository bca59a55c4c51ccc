//===- HotPath.h - Code placement of a step's path ------------*- C++ -*-===//
//
// A chain step runs ~2,000 instructions in a few dozen functions of this
// library, libstdc++ and libc. Spread out, their cache lines collide in the
// 8-way L1 instruction cache and every step fetches them again. So the
// functions of a step are marked hot (GCC groups them in .text.hot), the
// branches a plain step does not take are marked unlikely, and the work
// behind those branches lives in separate functions (Runtime.h lists them),
// which keeps the hot functions small.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_HOTPATH_H
#define UNUM_LIB_RUNTIME_HOTPATH_H

#if defined(__GNUC__)
#define UNUM_HOT [[gnu::hot]]
#define UNUM_LIKELY(x) __builtin_expect(!!(x), 1)
#define UNUM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UNUM_HOT
#define UNUM_LIKELY(x) (x)
#define UNUM_UNLIKELY(x) (x)
#endif

#endif // UNUM_LIB_RUNTIME_HOTPATH_H
