//===- HotPath.h - Code placement of a step's path ------------*- C++ -*-===//
//
// A chain step runs ~2,500 instructions spread over a few dozen functions in
// this library, libstdc++ and libc. Scattered, their cache lines collide in
// the 8-way L1 instruction cache and each step refetches them; grouped in
// .text.hot they sit side by side. Cold paths (errors, tracing, fan-in and
// map bookkeeping) are moved out of the hot functions.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_HOTPATH_H
#define UNUM_LIB_RUNTIME_HOTPATH_H

#if defined(__GNUC__)
#define UNUM_HOT [[gnu::hot]]
#define UNUM_COLD [[gnu::cold, gnu::noinline]]
#define UNUM_LIKELY(x) __builtin_expect(!!(x), 1)
#define UNUM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UNUM_HOT
#define UNUM_COLD
#define UNUM_LIKELY(x) (x)
#define UNUM_UNLIKELY(x) (x)
#endif

#endif // UNUM_LIB_RUNTIME_HOTPATH_H
