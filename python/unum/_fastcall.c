/* unum._fastcall: the call path of a jitted function, in C.
 *
 *   call(spec, fn, args, outs) -> True, or None when an argument does not
 *                                  match exactly (the caller then takes the
 *                                  general path, which copies), or the
 *                                  kernel's non-zero status (an int)
 *
 * `spec` is a bytes object made by _jit.py: a header {count, n_in, status}
 * (status: 1 when kernels return an int32_t status) and per
 * parameter {kind, itemsize, ndim, sizes[ndim]} (int64 words), then the
 * descriptor template (docs/AirABI.md: {allocated, aligned, offset,
 * sizes[r], strides[r]} per parameter, pointers zero). `fn` is the kernel's
 * address; `args` the call's positional arguments (inputs), `outs` the
 * freshly allocated outputs. An input matches when it is a C-contiguous
 * buffer of the kind, item size and shape the kernel was compiled for, or
 * the Python scalar type of a scalar parameter. Nothing is called unless
 * every argument matches, so a mismatch can never be read out of bounds.
 *
 * Kinds: 'f' float, 'i' signed integer, 'b' bool (buffers); 'F' 'I' 'B'
 * a Python float, int or bool argument.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#define MAX_PARAMS 16
#define MAX_WORDS 1024

/* numpy.ndarray and numpy.generic (configure()): a buffer argument must be
   exactly an ndarray or a numpy scalar. Subclasses (np.matrix, masked
   arrays) change what operators mean or carry what a kernel would drop, so
   they take the general path, which refuses them. */
static PyObject *ndarray_type, *generic_type;

static PyObject *configure(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *nd, *gen;
  if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &nd, &PyType_Type, &gen))
    return NULL;
  Py_XDECREF(ndarray_type);
  Py_XDECREF(generic_type);
  Py_INCREF(nd);
  Py_INCREF(gen);
  ndarray_type = nd;
  generic_type = gen;
  Py_RETURN_NONE;
}

static int kind_of(const char *format) {
  if (!format)
    return 'b'; /* "B" unsigned bytes: never a kernel dtype */
  while (*format == '@' || *format == '=' || *format == '<' || *format == '>' ||
         *format == '!')
    format++;
  switch (*format) {
  case 'f':
  case 'd':
    return 'f';
  case 'i':
  case 'l':
  case 'q':
    return 'i';
  case '?':
    return 'b';
  default:
    return 0;
  }
}

static PyObject *call(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
  (void)self;
  if (argc != 4 || !PyBytes_Check(argv[0]) || !PyTuple_Check(argv[2]) ||
      !PyList_Check(argv[3])) {
    PyErr_SetString(PyExc_TypeError, "call(spec, fn, args, outs)");
    return NULL;
  }
  const int64_t *spec = (const int64_t *)PyBytes_AS_STRING(argv[0]);
  Py_ssize_t spec_words = PyBytes_GET_SIZE(argv[0]) / 8;
  void *fn = PyLong_AsVoidPtr(argv[1]);
  if (!fn && PyErr_Occurred())
    return NULL;
  PyObject *args = argv[2], *outs = argv[3];
  int64_t count = spec[0], n_in = spec[1], has_status = spec[2];
  if (count > MAX_PARAMS || count < 1 || PyTuple_GET_SIZE(args) != n_in ||
      PyList_GET_SIZE(outs) != count - n_in)
    Py_RETURN_NONE;

  Py_buffer views[MAX_PARAMS];
  int held[MAX_PARAMS] = {0};
  union {
    double f;
    int64_t i;
    char b;
  } scalars[MAX_PARAMS];
  void *data[MAX_PARAMS];
  int32_t status = 0;
  const int64_t *p = spec + 3;
  int ok = 1;
  for (int64_t k = 0; k < count && ok; ++k) {
    int64_t kind = p[0], itemsize = p[1], ndim = p[2];
    const int64_t *sizes = p + 3;
    p += 3 + ndim;
    PyObject *obj = k < n_in ? PyTuple_GET_ITEM(args, k)
                             : PyList_GET_ITEM(outs, k - n_in);
    if (kind == 'F' || kind == 'I' || kind == 'B') {
      if (kind == 'F' && PyFloat_CheckExact(obj))
        scalars[k].f = PyFloat_AS_DOUBLE(obj);
      else if (kind == 'B' && PyBool_Check(obj))
        scalars[k].b = obj == Py_True;
      else if (kind == 'I' && PyLong_CheckExact(obj)) {
        int overflow = 0;
        scalars[k].i = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (overflow || (scalars[k].i == -1 && PyErr_Occurred())) {
          PyErr_Clear();
          ok = 0;
        }
      } else
        ok = 0;
      data[k] = &scalars[k];
      continue;
    }
    if (!ndarray_type ||
        (Py_TYPE(obj) != (PyTypeObject *)ndarray_type &&
         !PyObject_TypeCheck(obj, (PyTypeObject *)generic_type)) ||
        !PyObject_CheckBuffer(obj) ||
        PyObject_GetBuffer(obj, &views[k],
                           k < n_in ? PyBUF_RECORDS_RO : PyBUF_RECORDS) != 0) {
      PyErr_Clear();
      ok = 0;
      break;
    }
    held[k] = 1;
    Py_buffer *v = &views[k];
    if (v->ndim != ndim || v->itemsize != itemsize ||
        kind_of(v->format) != kind || !PyBuffer_IsContiguous(v, 'C') ||
        ((uintptr_t)v->buf % (uintptr_t)itemsize) != 0) {
      ok = 0;
      break;
    }
    /* Byte order: only native ('@', '=' or none, or the host's own). */
    if (v->format && (v->format[0] == '>' || v->format[0] == '!')) {
      ok = 0;
      break;
    }
    for (int64_t d = 0; d < ndim; ++d)
      if (v->shape[d] != sizes[d])
        ok = 0;
    data[k] = v->buf;
  }
  if (ok) {
    /* The descriptors: the template with the data pointers filled in. */
    int64_t words[MAX_WORDS];
    Py_ssize_t n_words = spec + spec_words - p;
    if (n_words > MAX_WORDS)
      ok = 0;
    else {
      memcpy(words, p, (size_t)n_words * 8);
      void *d[MAX_PARAMS];
      int64_t at = 0;
      const int64_t *q = spec + 3;
      for (int64_t k = 0; k < count; ++k) {
        int64_t ndim = q[2];
        q += 3 + ndim;
        memcpy(&words[at], &data[k], sizeof(void *));
        memcpy(&words[at + 1], &data[k], sizeof(void *));
        d[k] = &words[at];
        at += 3 + 2 * ndim;
      }
      Py_BEGIN_ALLOW_THREADS
      /* Up to 16 pointers: a kernel taking fewer ignores the rest (the
         System V x86-64 and AAPCS64 conventions: the caller owns the
         argument area). */
      void *e[MAX_PARAMS] = {0};
      for (int64_t k = 0; k < count; ++k)
        e[k] = d[k];
      if (has_status)
        status = ((int32_t (*)(void *, void *, void *, void *, void *, void *, void *,
                               void *, void *, void *, void *, void *, void *, void *,
                               void *, void *))fn)(
            e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8], e[9], e[10], e[11],
            e[12], e[13], e[14], e[15]);
      else
        ((void (*)(void *, void *, void *, void *, void *, void *, void *, void *,
                   void *, void *, void *, void *, void *, void *, void *, void *))fn)(
            e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8], e[9], e[10], e[11],
            e[12], e[13], e[14], e[15]);
      Py_END_ALLOW_THREADS
    }
  }
  for (int64_t k = 0; k < count; ++k)
    if (held[k])
      PyBuffer_Release(&views[k]);
  if (!ok)
    Py_RETURN_NONE;
  if (status != 0)
    return PyLong_FromLong(status);
  Py_RETURN_TRUE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(numpy.ndarray, numpy.generic): the array and scalar types"},
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL,
     "call(spec, fn, args, outs): run a kernel if every argument matches"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastcall",
                                    "unum's kernel call path", -1, methods};

PyMODINIT_FUNC PyInit__fastcall(void) { return PyModule_Create(&module); }
