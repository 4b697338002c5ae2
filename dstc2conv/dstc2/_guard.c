/* The typed decoder's guard, the part that Python cannot do at the speed of memchr:
 * whether a JSON text holds a number whose exponent has 3 digits or more, which may be
 * past a double's range (see calls._unvouched, whose pure-Python _exponent says the
 * same of every text, slower).
 *
 * exponent(data): True if some 'e' or 'E', then an optional '+', then 3 digits, ends a
 * number: digits and points before it (at least one), an optional '-' before them, and
 * before that the start of the text or what precedes a JSON value (space, tab, LF, CR,
 * ':', ',', '['). The 'e's are found by memchr: in DSTC2's JSON, one byte in a hundred. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int ends_a_number(const unsigned char *data, Py_ssize_t at)
{
    Py_ssize_t start = at;
    while (start > 0 && (is_digit(data[start - 1]) || data[start - 1] == '.'))
        start--;
    if (start == at)
        return 0;               /* JSON has a digit before an exponent */
    if (start > 0 && data[start - 1] == '-')
        start--;
    if (start == 0)
        return 1;
    switch (data[start - 1]) {
    case ' ': case '\t': case '\n': case '\r': case ':': case ',': case '[':
        return 1;
    default:
        return 0;
    }
}

static int found(const unsigned char *data, Py_ssize_t size, unsigned char letter)
{
    const unsigned char *at = data, *end = data + size;
    while ((at = memchr(at, letter, (size_t)(end - at))) != NULL) {
        const unsigned char *digits = at + 1;
        if (digits < end && *digits == '+')
            digits++;
        if (end - digits >= 3 && is_digit(digits[0]) && is_digit(digits[1]) && is_digit(digits[2])
                && ends_a_number(data, at - data))
            return 1;
        at++;
    }
    return 0;
}

static PyObject *exponent(PyObject *module, PyObject *arg)
{
    Py_buffer view;
    int yes;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    yes = found(view.buf, view.len, 'e') || found(view.buf, view.len, 'E');
    PyBuffer_Release(&view);
    return PyBool_FromLong(yes);
}

static PyMethodDef methods[] = {
    {"exponent", exponent, METH_O,
     "exponent(data) -> bool: whether a number of the JSON text data has an exponent of 3 digits or more"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef guard = {PyModuleDef_HEAD_INIT, "_guard", NULL, 0, methods};

PyMODINIT_FUNC PyInit__guard(void) { return PyModule_Create(&guard); }
