// Linked into every executable of a sanitizer build (-DSS_SANITIZE=ON, ss_sanitizer_support in the
// top-level CMakeLists.txt), never into a normal one.
//
// LeakSanitizer looks for leaks at exit, after libraries that were dlopen'ed and dlclose'd are gone:
// Mesa's GL driver (closed by eglTerminate) and Open MPI's components (opened and closed by
// MPI_Init's component selection and MPI_Finalize). Their heap blocks, still pointed to from their
// globals, then look leaked, with frames no symbolizer can name. This dlclose, exported from the
// executable (-Wl,--export-dynamic-symbol=dlclose) so that the libraries' calls bind to it, keeps
// every library mapped: LeakSanitizer sees those pointers, and what it still reports names its library.
extern "C" int dlclose(void*) { return 0; }
