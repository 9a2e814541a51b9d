/* Will a program start on a device's root filesystem? Compares the symbol
 * versions it needs (GLIBC_2.34, ...) with those the device's libc defines. */
#ifndef XCC_GLIBC_H
#define XCC_GLIBC_H

#include "base/error.h"
#include "base/strvec.h"

/* One entry of an ELF file's version needs: "GLIBC_2.34" from "libc.so.6". */
struct glibc_version_need {
	char *file;
	char *version;
};

struct glibc_version_needs {
	struct glibc_version_need *v;
	size_t n, cap;
};

/* Every version path needs (SHT_GNU_verneed); none is not an error. */
int glibc_version_needs_read(const char *path, struct glibc_version_needs *out, struct xcc_error *err);
/* The same for an ELF file in memory (a package's member); name is used in
 * messages. libelf may convert buf in place. */
int glibc_version_needs_read_memory(void *buf, size_t len, const char *name,
				    struct glibc_version_needs *out, struct xcc_error *err);
void glibc_version_needs_free(struct glibc_version_needs *needs);

/* The version names a shared library defines (SHT_GNU_verdef), without the
 * base entry (its soname). */
int glibc_version_defs_read(const char *path, struct strvec *out, struct xcc_error *err);

/* Order "GLIBC_2.17" < "GLIBC_2.34" < "GLIBC_2.34.1" by their numbers. Names
 * without a number after the '_' (GLIBC_PRIVATE) sort after all others. */
int glibc_version_cmp(const char *a, const char *b);

/* rootfs's libc.so.6, looked up in the multiarch and plain lib dirs, with
 * symlinks followed inside rootfs (an absolute link target is read relative
 * to rootfs, as on the device). NULL when there is none; caller frees. */
char *glibc_find_libc(const char *rootfs, const char *triple);
/* The same for any library name (libstdc++.so.6 ...). */
char *glibc_find_in_rootfs(const char *rootfs, const char *triple, const char *name);
/* As glibc_find_in_rootfs, but a link on the way that names nothing in the
 * root or loops is an error (-1, err names the link); *found is NULL when
 * the root has no such file. */
int glibc_find_in_root(const char *rootfs, const char *triple, const char *name, char **found,
		       struct xcc_error *err);

/* The highest version a library defines among those named prefix<numbers>
 * ("GLIBC_" for libc, "GLIBCXX_" for libstdc++). NULL with err set when it
 * defines none. Caller frees. */
char *glibc_version_defs_max(const char *path, const char *prefix, struct xcc_error *err);

/* The same as numbers only ("3.4.28" of GLIBCXX_3.4.28); NULL when lib is
 * NULL or defines none. Caller frees. */
char *glibc_version_defs_newest(const char *lib, const char *prefix);

/* The newest GLIBC_ version of the cross toolchain's own C library (Debian
 * keeps it in /usr/TRIPLE/lib), or NULL when it is not there. Caller frees. */
char *glibc_toolchain_max(const char *triple);

/* The fix for a program needing a newer C++ runtime (GLIBCXX_, CXXABI_,
 * GCC_) than a device whose libc defines up to floor_glibc ("GLIBC_2.30";
 * NULL: unknown). The toolchain's static libstdc++.a and libgcc_eh.a were
 * built against its own glibc and need what it defines
 * (__libc_single_threaded, GLIBC_2.32; _dl_find_object, GLIBC_2.35), so
 * -static-libstdc++ is advised only when that glibc is no newer than the
 * device's. Caller frees. */
char *glibc_cxx_runtime_fix(const char *triple, const char *floor_glibc);

struct glibc_report {
	char *needed_max;     /* the program's highest GLIBC_ need, or NULL */
	char *provided_max;   /* libc's highest GLIBC_ definition, or NULL */
	struct strvec missing; /* needed GLIBC_ versions above provided_max, lowest first */
};

/* Check program against libc (a libc.so.6). The needs from every glibc
 * library count (libm's GLIBC_2.29, ...), compared with libc's highest
 * version: a release's libraries share its version numbers, but libc need
 * not define a node for every release. */
int glibc_check(const char *program, const char *libc, struct glibc_report *r,
		struct xcc_error *err);
void glibc_report_free(struct glibc_report *r);

/* The newest versions a device's C and C++ runtime define (numbers only:
 * "2.31", "3.4.28", "1.3.12", "7.0.0"); NULL skips that library. */
struct runtime_floor {
	const char *glibc, *glibcxx, *cxxabi, *gcc_s;
};

/* The version needs of file above the floor, sorted and unique, each as
 * "GLIBCXX_3.4.30 (libstdc++.so.6)", appended to above. */
/* The same for needs already read. */
void runtime_floor_check_needs(const struct glibc_version_needs *needs,
				const struct runtime_floor *floor, struct strvec *above);
int runtime_floor_check(const char *file, const struct runtime_floor *floor, struct strvec *above,
			struct xcc_error *err);

/* Whether rootfs is a device's root filesystem for triple: a directory
 * with the C library (libc.so.6) in lib/<triple>, usr/lib/<triple>, lib or
 * usr/lib. The one check, with one wording, of every verb that takes
 * --target-fs. On success *libc is its path (caller frees); otherwise an
 * XCC_EUSAGE error naming the option. */
int glibc_check_rootfs(const char *rootfs, const char *triple, char **libc,
		       struct xcc_error *err);

#endif
