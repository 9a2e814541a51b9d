/* Build-system files bound to one sysroot: a Meson cross file and a CMake
 * toolchain file that names the sysroot, plus where the generic files that
 * ship with cuda-xcc are installed. The texts are built from sysroot.json
 * and the target profile, so they can never disagree with the sysroot. */
#ifndef XCC_TOOLCHAIN_H
#define XCC_TOOLCHAIN_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"
#include "sysroot/sysroot_meta.h"

struct toolchain_request {
	const char *cuda_xcc;  /* absolute path of the cuda-xcc binary the files call */
	/* cuda-xcc-nvcc beside it (the driver alone, which starts in a tenth of
	 * the time), or NULL: the CUDA compiler of a Meson cross file. */
	const char *cuda_xcc_nvcc;
	struct strvec arch;    /* -arch lists; empty: the sysroot's capabilities */
	const char *target_fs; /* the device's root filesystem, or NULL for the sysroot's */
};

/* Where cuda-xcc's shipped build-system files live: the installed
 * $(pkgdatadir) when it holds them, else the source tree this binary was
 * built from. NULL when neither exists. */
const char *toolchain_data_dir(void);

/* The oldest Meson that reads the cross file's [built-in options] (its
 * c_args and link arguments); older ones silently ignore them. */
#define TOOLCHAIN_MESON_MINIMUM "0.56"

/* The oldest CMake the shipped toolchain file accepts, as its version
 * check says (generic_file is that file); NULL when it cannot be read or
 * says none. Caller frees. */
char *toolchain_cmake_minimum(const char *generic_file);

/* The text of a Meson cross file for the sysroot described by m, whose
 * target is t (sysroot_open() resolved both); caller frees. */
char *toolchain_meson(const struct target_profile *t, const struct sysroot_meta *m,
		      const struct toolchain_request *r, struct xcc_error *err);

/* The one quoting of words for a Meson machine file: [a, b, c] as an array
 * of string literals that Meson reads back as they are; NULL with *bad the
 * first item it cannot carry (a line break, three quotes in a row, a quote
 * at the end or before a backslash, bytes that are not UTF-8). Caller frees. */
char *toolchain_meson_array(const struct strvec *items, const char **bad);

/* How the cross toolchain's compiler driver builds against a device root
 * filesystem, as the cuda-xcc driver does: */
enum toolchain_flags_form {
	FLAGS_GCC,  /* gcc/g++ options: --sysroot=, -B, -Wl,-rpath-link, */
	FLAGS_NVCC, /* the same through nvcc: -Xcompiler=..., -Xlinker=... */
};

/* Append to out the options that compile and link against rootfs (absolute)
 * for triple: --sysroot, -B with the overlay of its absolute links (devroot.h)
 * and its multiarch lib dirs first, -rpath-link for all its lib dirs. */
int toolchain_target_fs_flags(const char *rootfs, const char *triple, enum toolchain_flags_form form,
			      struct strvec *out, struct xcc_error *err);

/* "aarch64-linux-gnu-g++-11" -> "aarch64-linux-gnu-gcc-11", a directory
 * kept: Debian names the C and C++ cross compilers of one GCC release
 * alike. NULL when cxx names no g++. Caller frees. */
char *toolchain_c_compiler_for(const char *cxx);

/* The one quoting of a value for CMake: s as a bracket argument
 * ([=[...]=]), which CMake reads as it is, every byte. Caller frees. */
char *toolchain_cmake_quote(const char *s);
/* Why s cannot reach a build as one value through the shipped toolchain
 * file (CMake's lists, its cache, the build's command lines), or NULL. */
const char *toolchain_cmake_unsafe(const char *s);
/* 0 when s (may be NULL) is safe there, else -1 and an XCC_EUSAGE error
 * naming it as what, why, and the way out. */
int toolchain_cmake_check(const char *what, const char *s, struct xcc_error *err);
/* The same for a device root, whose compiler options reach CMake's builds
 * as one command-line string that nothing quotes: no space, quote or shell
 * character either. */
int toolchain_cmake_check_root(const char *what, const char *s, struct xcc_error *err);

/* The text of a CMake toolchain file that binds the shipped generic one
 * (generic_file) to this sysroot; caller frees. */
char *toolchain_cmake(const struct sysroot_meta *m, const struct toolchain_request *r,
		      const char *generic_file, struct xcc_error *err);

#endif
