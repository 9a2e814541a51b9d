/* After a link: will the file start on the device? Its version needs, and
 * those of the libraries it takes from the sysroot, against the device
 * root's C and C++ runtime (--target-fs) and the JetPack release's floor.
 * The answer is a typed report; the cli layer words it and picks the exit
 * status (driver mode after nvcc links, and `cuda-xcc check-link`). */
#ifndef XCC_LINK_CHECK_H
#define XCC_LINK_CHECK_H

#include <stddef.h>

#include "base/error.h"
#include "base/strvec.h"
#include "db/jetpack.h"

/* A file just linked for the target, and where its runtime floor comes
 * from. */
struct linked_program {
	const char *file;
	/* The libraries it takes from the sysroot go to the device with it:
	 * their needs count too. NULL without a sysroot. */
	const char *sysroot, *target_dir;
	/* The --target-fs root's libc.so.6, libstdc++.so.6 and libgcc_s.so.1;
	 * NULL without a root (or without that library in it). */
	const char *target_libc, *target_libstdcxx, *target_libgcc_s;
	/* The target's triple: the cross toolchain whose static C++ runtime
	 * the advice weighs. NULL when unknown. */
	const char *triple;
};

/* How the check of one file ended. */
enum link_check_status {
	LINK_CHECK_PASS,      /* every need is within every floor known */
	LINK_CHECK_EXEMPT,    /* a static archive: its objects are checked in the
			       * link that takes them */
	LINK_CHECK_NO_FLOOR,  /* no floor is known (no root, no JetPack): nothing
			       * was checked */
	LINK_CHECK_UNCHECKED, /* the file, or a library it takes, could not be
			       * read: see file_error and the findings */
	LINK_CHECK_ABOVE,     /* a need above a floor: it will not start there */
};

/* Which floor a finding is about. */
enum link_floor {
	LINK_FLOOR_ROOT_LIBC, /* the --target-fs root's libc.so.6 */
	LINK_FLOOR_ROOT_CXX,  /* the root's libstdc++ and libgcc_s */
	LINK_FLOOR_JETPACK,   /* the JetPack release's glibc, libstdc++, libgcc_s */
};

struct link_finding {
	enum link_floor floor;
	int above;            /* 1: needs above the floor; 0: could not check */
	char *file;           /* the program, or a library it takes */
	char *why;            /* could not check: what stopped it */
	/* Above: the needs above, lowest first ("GLIBC_2.34" for the root's
	 * libc; "GLIBCXX_3.4.30 (libstdc++.so.6)" for the others). */
	struct strvec needs;
	char *needed_max, *provided_max; /* ROOT_LIBC: the file's highest
					  * GLIBC_ need, the libc's highest */
	char *fix;            /* ROOT_CXX, JETPACK: the way out */
};

struct link_check_report {
	enum link_check_status status;
	/* UNCHECKED because of the file itself: XCC_EUSAGE when it does not
	 * exist or is no file, XCC_EFAIL when it cannot be read or is no ELF
	 * file. Status 0 otherwise. */
	struct xcc_error file_error;
	struct link_finding *v;
	size_t n, cap;
	/* The root's C++ runtime floor ("3.4.28", "1.3.12", "7.0.0"); NULL
	 * when unknown. */
	char *root_glibcxx, *root_cxxabi, *root_gcc_s;
};

/* Check prog->file against the root (prog's target_* libraries) and jp
 * (NULL: no JetPack floor). Fills r, which the caller frees; never fails:
 * what could not be checked is in the report. */
void link_check(const struct linked_program *prog, const struct jetpack_release *jp,
		struct link_check_report *r);
void link_check_report_free(struct link_check_report *r);

#endif
