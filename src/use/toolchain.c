#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "elf/devroot.h"
#include "elf/glibc.h"
#include "pkg/fetch.h"
#include "use/toolchain.h"

const char *toolchain_data_dir(void)
{
	/* An installed cuda-xcc must work without its source checkout; a
	 * binary run from its build tree finds the files in the sources. */
	static const char *const candidates[] = { XCC_PKGDATADIR, XCC_SRCDIR "/wrappers" };

	for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
		char *probe = xasprintf("%s/cmake/cuda-xcc-toolchain.cmake", candidates[i]);
		int found = access(probe, R_OK) == 0;

		free(probe);
		if (found)
			return candidates[i];
	}
	return NULL;
}

int toolchain_target_fs_flags(const char *rootfs, const char *triple, enum toolchain_flags_form form,
			      struct strvec *out, struct xcc_error *err)
{
	struct devroot_args dr;
	char *cache, *libc;
	int rc;

	if (!file_is_dir(rootfs))
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s is not a directory: pass the "
				"device's root filesystem (a copy or a mount of it)", rootfs);
	libc = glibc_find_libc(rootfs, triple);
	if (!libc)
		return xcc_fail(err, XCC_EUSAGE, "--target-fs %s has no libc.so.6 in lib/%s, "
				"usr/lib/%s, lib or usr/lib: is it the device's root filesystem?",
				rootfs, triple, triple);
	free(libc);
	cache = fetch_default_cache_dir();
	rc = devroot_args_make(rootfs, triple, cache, &dr, err);
	free(cache);
	if (rc)
		return -1;
	devroot_args_format(&dr, form == FLAGS_NVCC, out);
	devroot_args_free(&dr);
	return 0;
}

/* s as a Meson string literal: single quotes, with \ and ' escaped. */
static char *meson_str(const char *s)
{
	size_t n = 3;
	char *out, *p;

	for (const char *c = s; *c; c++)
		n += (*c == '\\' || *c == '\'') ? 2 : 1;
	p = out = xmalloc(n);
	*p++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\\' || *c == '\'')
			*p++ = '\\';
		*p++ = *c;
	}
	*p++ = '\'';
	*p = '\0';
	return out;
}

/* [a, b, c] as a Meson array of string literals. */
static char *meson_array(const struct strvec *items)
{
	struct strvec quoted = STRVEC_INIT;
	char *joined, *out;

	for (size_t i = 0; i < items->n; i++) {
		char *q = meson_str(items->v[i]);

		strvec_push(&quoted, q);
		free(q);
	}
	joined = quoted.n ? strvec_join(&quoted, ", ") : xstrdup("");
	out = xasprintf("[%s]", joined);
	free(joined);
	strvec_free(&quoted);
	return out;
}

/* "aarch64-linux-gnu-g++-11" -> "aarch64-linux-gnu-gcc-11": Debian names
 * the C and C++ cross compilers of one GCC release alike. */
static char *c_compiler_for(const char *cxx)
{
	const char *gxx = strstr(cxx, "-g++");

	if (!gxx)
		return NULL;
	return xasprintf("%.*s-gcc%s", (int)(gxx - cxx), cxx, gxx + 4);
}

static void push_arch_args(struct strvec *argv, const struct sysroot_meta *m,
			   const struct toolchain_request *r)
{
	const struct strvec *caps = r->arch.n ? &r->arch : &m->capabilities;

	for (size_t i = 0; i < caps->n; i++)
		strvec_pushl(argv, "-arch", caps->v[i], NULL);
}

char *toolchain_meson(const struct gpudb *db, const struct sysroot_meta *m,
		      const struct toolchain_request *r, struct xcc_error *err)
{
	const struct target_profile *t = gpudb_target(db, m->target);
	const char *target_fs = r->target_fs ? r->target_fs : m->target_fs;
	struct strvec c_cmd = STRVEC_INIT, cxx_cmd = STRVEC_INIT, cuda = STRVEC_INIT,
		      wrapper = STRVEC_INIT, inc = STRVEC_INIT, link = STRVEC_INIT;
	char *cc, *s_cc, *s_cxx, *s_cuda, *s_wrapper, *s_inc, *s_link, *s_ar, *s_strip, *text;

	if (!t)
		return xcc_fail(err, XCC_EUSAGE, "%s/sysroot.json names an unknown target '%s'",
				m->dir, m->target), NULL;
	if (!m->host_compiler || !(cc = c_compiler_for(m->host_compiler)))
		return xcc_fail(err, XCC_EUSAGE,
				"%s/sysroot.json names no cross g++ (host_compiler); recreate it with "
				"'cuda-xcc sysroot create' on a machine that has one",
				m->dir), NULL;

	/* C and C++ go through 'cuda-xcc check-link', which checks each link's
	 * output against the device's runtime floor as the driver does after its
	 * own links (Meson has no linker launcher, as CMake has). Compiles pass
	 * straight through. */
	strvec_pushl(&c_cmd, r->cuda_xcc, "check-link", "--sysroot", m->dir, NULL);
	if (target_fs)
		strvec_pushl(&c_cmd, "--target-fs", target_fs, NULL);
	strvec_push(&c_cmd, "--");
	strvec_extend(&cxx_cmd, &c_cmd);
	strvec_push(&c_cmd, cc);
	strvec_push(&cxx_cmd, m->host_compiler);

	strvec_pushl(&cuda, r->cuda_xcc, "--sysroot", m->dir, NULL);
	push_arch_args(&cuda, m, r);
	if (target_fs)
		strvec_pushl(&cuda, "--target-fs", target_fs, NULL);

	/* Meson runs test programs through exe_wrapper: 'cuda-xcc run' finds
	 * the right qemu, the loader prefix and the sysroot's libraries. */
	strvec_pushl(&wrapper, r->cuda_xcc, "run", "--sysroot", m->dir, NULL);
	if (target_fs)
		strvec_pushl(&wrapper, "--target-fs", target_fs, NULL);

	/* C and C++ sources that include the CUDA runtime's headers and link
	 * its libraries find them in the one target directory. */
	strvec_pushf(&inc, "-I%s/targets/%s/include", m->dir, m->target_dir);
	strvec_pushf(&link, "-L%s/targets/%s/lib", m->dir, m->target_dir);
	strvec_pushf(&link, "-Wl,-rpath-link,%s/targets/%s/lib", m->dir, m->target_dir);
	/* C and C++ build against the device's root as the driver's CUDA
	 * does: --sysroot alone would link the cross toolchain's own libc
	 * beside the root's libpthread (__libc_pthread_init@GLIBC_PRIVATE). */
	if (target_fs) {
		struct strvec fs = STRVEC_INIT;

		if (toolchain_target_fs_flags(target_fs, t->triple, FLAGS_GCC, &fs, err)) {
			strvec_free(&fs);
			free(cc);
			strvec_free(&c_cmd);
			strvec_free(&cxx_cmd);
			strvec_free(&cuda);
			strvec_free(&wrapper);
			strvec_free(&inc);
			strvec_free(&link);
			return NULL;
		}
		strvec_extend(&inc, &fs);
		strvec_extend(&link, &fs);
		strvec_free(&fs);
	}

	s_cc = meson_array(&c_cmd);
	s_cxx = meson_array(&cxx_cmd);
	s_cuda = meson_array(&cuda);
	s_wrapper = meson_array(&wrapper);
	s_inc = meson_array(&inc);
	s_link = meson_array(&link);
	{
		char *ar = xasprintf("%s-ar", t->triple), *strip = xasprintf("%s-strip", t->triple);

		s_ar = meson_str(ar);
		s_strip = meson_str(strip);
		free(ar);
		free(strip);
	}
	text = xasprintf(
		"# Meson cross file for the cuda-xcc sysroot %s\n"
		"# (target %s, CUDA %s, %s), written by 'cuda-xcc toolchain meson'.\n"
		"# Meson " TOOLCHAIN_MESON_MINIMUM " or later: older ones ignore [built-in options].\n"
		"#\n"
		"#   CUDA_PATH=%s meson setup --cross-file THIS-FILE build\n"
		"#\n"
		"# CUDA sources go through the cuda-xcc driver, which adds the cross g++,\n"
		"# the target directory and the validated -gencode flags. CUDA_PATH lets\n"
		"# dependency('cuda') find this toolkit; Meson reads it only from the\n"
		"# environment.\n"
		"\n"
		"[binaries]\n"
		"c = %s\n"
		"cpp = %s\n"
		"cuda = %s\n"
		"ar = %s\n"
		"strip = %s\n"
		"exe_wrapper = %s\n"
		"\n"
		"[built-in options]\n"
		"c_args = %s\n"
		"cpp_args = %s\n"
		"c_link_args = %s\n"
		"cpp_link_args = %s\n"
		"\n"
		"[host_machine]\n"
		"system = 'linux'\n"
		"cpu_family = '%s'\n"
		"cpu = '%s'\n"
		"endian = 'little'\n",
		m->dir, m->target, m->cuda, m->target_dir, m->dir, s_cc, s_cxx, s_cuda, s_ar, s_strip,
		s_wrapper, s_inc, s_inc, s_link, s_link, t->machine, t->machine);
	free(cc);
	free(s_cc);
	free(s_cxx);
	free(s_cuda);
	free(s_wrapper);
	free(s_inc);
	free(s_link);
	free(s_ar);
	free(s_strip);
	strvec_free(&c_cmd);
	strvec_free(&cxx_cmd);
	strvec_free(&cuda);
	strvec_free(&wrapper);
	strvec_free(&inc);
	strvec_free(&link);
	return text;
}

char *toolchain_cmake_minimum(const char *generic_file)
{
	static const char key[] = "if(CMAKE_VERSION VERSION_LESS ";
	char *text = file_read_text(generic_file, NULL), *at, *v = NULL;

	if (text && (at = strstr(text, key))) {
		at += strlen(key);
		v = strndup(at, strspn(at, "0123456789."));
		if (!*v) {
			free(v);
			v = NULL;
		}
	}
	free(text);
	return v;
}

/* s as a CMake bracket argument, which needs no escaping: the level of =
 * signs is chosen so that the closing bracket cannot occur inside. */
static char *cmake_str(const char *s)
{
	char eq[8] = "";

	while (strlen(eq) < sizeof eq - 1) {
		char close[12];

		snprintf(close, sizeof close, "]%s]", eq);
		if (!strstr(s, close))
			break;
		strcat(eq, "=");
	}
	return xasprintf("[%s[%s]%s]", eq, s, eq);
}

char *toolchain_cmake(const struct sysroot_meta *m, const struct toolchain_request *r,
		      const char *generic_file, struct xcc_error *err)
{
	struct strvec arch = STRVEC_INIT;
	char *s_sysroot = cmake_str(m->dir), *s_xcc = cmake_str(r->cuda_xcc),
	     *s_generic = cmake_str(generic_file), *s_arch = NULL, *s_fs = NULL, *text;

	(void)err;
	for (size_t i = 0; i < r->arch.n; i++)
		strvec_push(&arch, r->arch.v[i]);
	if (arch.n) {
		char *joined = strvec_join(&arch, ",");

		s_arch = cmake_str(joined);
		free(joined);
	}
	if (r->target_fs)
		s_fs = cmake_str(r->target_fs);
	text = xasprintf(
		"# CMake toolchain file bound to the cuda-xcc sysroot %s\n"
		"# (target %s, CUDA %s), written by 'cuda-xcc toolchain cmake'.\n"
		"#   cmake -DCMAKE_TOOLCHAIN_FILE=THIS-FILE -S . -B build\n"
		"set(CUDA_XCC_SYSROOT %s CACHE PATH \"cuda-xcc sysroot\")\n"
		"set(CUDA_XCC_EXECUTABLE %s CACHE FILEPATH \"cuda-xcc\")\n"
		"%s%s%s"
		"%s%s%s"
		"include(%s)\n",
		m->dir, m->target, m->cuda, s_sysroot, s_xcc,
		s_arch ? "set(CUDA_XCC_ARCH " : "", s_arch ? s_arch : "",
		s_arch ? " CACHE STRING \"GPU capabilities\")\n" : "",
		s_fs ? "set(CUDA_XCC_TARGET_FS " : "", s_fs ? s_fs : "",
		s_fs ? " CACHE PATH \"the device's root filesystem\")\n" : "", s_generic);
	free(s_sysroot);
	free(s_xcc);
	free(s_generic);
	free(s_arch);
	free(s_fs);
	strvec_free(&arch);
	return text;
}
