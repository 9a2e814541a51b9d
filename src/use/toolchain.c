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
#include "use/prefix_map.h"
#include "use/linkdirs.h"
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

	if (glibc_check_rootfs(rootfs, triple, &libc, err))
		return -1;
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

/* Whether s is valid UTF-8: Meson decodes its machine files as UTF-8 and
 * stops at the first byte that is not. */
static int utf8_valid(const unsigned char *s)
{
	while (*s) {
		int more = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2
			 : (*s & 0xf8) == 0xf0 ? 3 : -1;

		/* Overlong two-byte forms (0xc0, 0xc1) and beyond U+10FFFF (0xf5..) */
		if (more < 0 || *s == 0xc0 || *s == 0xc1 || *s > 0xf4)
			return 0;
		s++;
		for (; more; more--, s++)
			if ((*s & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* s as a Meson machine-file value, or NULL where Meson cannot read it back.
 * Meson (mesonbuild/coredata.py, MachineFileParser) doubles every backslash
 * of a value before parsing it, so no escape sequence can be written: a
 * backslash is written as itself and arrives as itself in a '...' string,
 * but doubled in a '''...''' one, and a quote fits only in the latter. So
 * the value is a sum of pieces: quote-free runs as '...', and each run of
 * one or two quotes with the character after it as '''...'''. What that
 * cannot carry: a line break (configparser's line end), three quotes in a
 * row, a quote at the end or before a backslash, and bytes that are not
 * UTF-8. */
static char *meson_str(const char *s)
{
	struct strvec parts = STRVEC_INIT;
	const char *p = s;
	char *out = NULL;

	if (strpbrk(s, "\n\r") || !utf8_valid((const unsigned char *)s))
		return NULL;
	while (*p) {
		size_t n = strcspn(p, "'"), c = 1;

		if (n) {
			strvec_pushf(&parts, "'%.*s'", (int)n, p);
			p += n;
			continue;
		}
		n = strspn(p, "'");
		if (n > 2 || !p[n] || p[n] == '\\')
			goto out;
		/* The whole character after the quotes, not a piece of it. */
		while (((unsigned char)p[n + c] & 0xc0) == 0x80)
			c++;
		strvec_pushf(&parts, "'''%.*s'''", (int)(n + c), p);
		p += n + c;
	}
	out = parts.n ? strvec_join(&parts, " + ") : xstrdup("''");
out:
	strvec_free(&parts);
	return out;
}

char *toolchain_meson_array(const struct strvec *items, const char **bad)
{
	struct strvec quoted = STRVEC_INIT;
	char *joined, *out = NULL;

	for (size_t i = 0; i < items->n; i++) {
		char *q = meson_str(items->v[i]);

		if (!q) {
			*bad = items->v[i];
			goto out;
		}
		strvec_push(&quoted, q);
		free(q);
	}
	joined = quoted.n ? strvec_join(&quoted, ", ") : xstrdup("");
	out = xasprintf("[%s]", joined);
	free(joined);
out:
	strvec_free(&quoted);
	return out;
}

/* s for a comment line: control characters (a line break ends the comment
 * and the rest would be read as the file's own text) as '?'. */
static char *comment_safe(const char *s)
{
	char *out = xstrdup(s);

	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return out;
}

char *toolchain_c_compiler_for(const char *cxx)
{
	const char *base = strrchr(cxx, '/'), *gxx = NULL;

	/* The last "-g++" of the name, not of a directory above it. */
	for (const char *p = strstr(base ? base : cxx, "-g++"); p; p = strstr(p + 1, "-g++"))
		gxx = p;
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

/* The commands and arguments of a Meson cross file, before quoting. */
struct meson_values {
	struct strvec c, cxx, cuda, wrapper, inc, link, cuda_link, ar, strip;
};

static void meson_values_free(struct meson_values *v)
{
	struct strvec *all[] = { &v->c, &v->cxx, &v->cuda, &v->wrapper, &v->inc,
				 &v->link, &v->cuda_link, &v->ar, &v->strip };

	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		strvec_free(all[i]);
}

static int meson_values_make(const struct target_profile *t, const struct sysroot_meta *m,
			     const struct toolchain_request *r, const char *cc,
			     struct meson_values *v, struct xcc_error *err)
{
	const char *target_fs = r->target_fs ? r->target_fs : m->target_fs;
	struct strvec rpath_link = STRVEC_INIT;

	/* C and C++ go through 'cuda-xcc check-link', which checks each link's
	 * output against the device's runtime floor as the driver does after its
	 * own links (Meson has no linker launcher, as CMake has). Compiles pass
	 * straight through. */
	strvec_pushl(&v->c, r->cuda_xcc, "check-link", "--sysroot", m->dir, NULL);
	if (target_fs)
		strvec_pushl(&v->c, "--target-fs", target_fs, NULL);
	/* ccache knows these compilers by the cuda-xcc binaries alone, whatever
	 * sysroot they drive, and hashes their arguments: with the fingerprint
	 * among them a sysroot made again under the same path misses (the
	 * driver and check-link refuse a stale cross file). */
	if (m->fingerprint)
		strvec_pushf(&v->c, "--sysroot-fingerprint=%s", m->fingerprint);
	/* The compiler in one word, not after a "--": ccache in front of the
	 * entry (c = ['ccache', ...], as Meson users write it) drops the "--"
	 * from the commands it runs itself, and every compile failed. */
	strvec_extend(&v->cxx, &v->c);
	strvec_pushf(&v->c, "--compiler=%s", cc);
	strvec_pushf(&v->cxx, "--compiler=%s", m->host_compiler);

	strvec_pushl(&v->cuda, r->cuda_xcc_nvcc ? r->cuda_xcc_nvcc : r->cuda_xcc, "--sysroot",
		     m->dir, NULL);
	push_arch_args(&v->cuda, m, r);
	if (target_fs)
		strvec_pushl(&v->cuda, "--target-fs", target_fs, NULL);
	if (m->fingerprint)
		strvec_pushf(&v->cuda, "--sysroot-fingerprint=%s", m->fingerprint);

	/* Meson runs test programs through exe_wrapper: 'cuda-xcc run' finds
	 * the right qemu, the loader prefix and the sysroot's libraries. */
	strvec_pushl(&v->wrapper, r->cuda_xcc, "run", "--sysroot", m->dir, NULL);
	if (target_fs)
		strvec_pushl(&v->wrapper, "--target-fs", target_fs, NULL);

	/* C and C++ sources that include the CUDA runtime's headers and link
	 * its libraries find them in the one target directory. */
	strvec_pushf(&v->inc, "-I%s/targets/%s/include", m->dir, m->target_dir);
	/* Their __FILE__ and debug information name the sysroot by one name on
	 * every machine, as the driver's CUDA compiles do. */
	prefix_map_gcc_args(m->dir, &v->inc);
	strvec_pushf(&v->link, "-L%s/targets/%s/lib", m->dir, m->target_dir);
	strvec_pushf(&v->ar, "%s-ar", t->triple);
	strvec_pushf(&v->strip, "%s-strip", t->triple);
	/* C and C++ build against the device's root as the driver's CUDA
	 * does: --sysroot alone would link the cross toolchain's own libc
	 * beside the root's libpthread (__libc_pthread_init@GLIBC_PRIVATE). */
	if (target_fs) {
		struct strvec fs = STRVEC_INIT;
		int rc = toolchain_target_fs_flags(target_fs, t->triple, FLAGS_GCC, &fs, err);

		strvec_extend(&v->inc, &fs);
		strvec_extend(&v->link, &fs);
		strvec_free(&fs);
		if (rc)
			return -1;
	}
	/* A cross ld follows the NEEDED of the libraries linked (a project's
	 * CUDA shared library: libcudart.so.12, libcuda.so.1) through
	 * -rpath-link alone, here after the root's: the sysroot's libraries
	 * and the stub libcuda as libcuda.so.1 in the user's cache, for the
	 * links only. The driver adds the same to its own links; the file
	 * says them for CUDA as for C and C++. */
	if (link_rpath_dirs(m->dir, m->target_dir, &rpath_link, err)) {
		strvec_free(&rpath_link);
		return -1;
	}
	for (size_t i = 0; i < rpath_link.n; i++) {
		strvec_pushf(&v->link, "-Wl,-rpath-link,%s", rpath_link.v[i]);
		strvec_pushf(&v->cuda_link, "-Xlinker=-rpath-link=%s", rpath_link.v[i]);
	}
	strvec_free(&rpath_link);
	return 0;
}

static char *meson_text(const struct target_profile *t, const struct sysroot_meta *m,
			const struct meson_values *v, struct xcc_error *err)
{
	const struct strvec *arrays[] = { &v->c, &v->cxx, &v->cuda, &v->wrapper,
					  &v->inc, &v->link, &v->cuda_link };
	char *q[9] = { NULL }, *c_target = comment_safe(m->target), *c_cuda = comment_safe(m->cuda),
	     *c_dir = comment_safe(m->target_dir), *sh_dir = shell_quote(m->dir), *text = NULL;
	const char *bad = NULL;

	for (size_t i = 0; i < 7 && !bad; i++)
		q[i] = toolchain_meson_array(arrays[i], &bad);
	if (!bad && !(q[7] = meson_str(v->ar.v[0])))
		bad = v->ar.v[0];
	if (!bad && !(q[8] = meson_str(v->strip.v[0])))
		bad = v->strip.v[0];
	if (bad) {
		xcc_fail(err, XCC_EUSAGE, "a Meson cross file cannot hold '%s': Meson reads no "
			 "line break, no three quotes in a row, no quote at the end or before a "
			 "backslash and nothing but UTF-8 there; move the sysroot (or the file "
			 "named) to a path without these, or link one to it", bad);
		goto out;
	}
	/* The comments name the sysroot only shell-quoted, which a line
	 * break (refused above) alone could end. */
	text = xasprintf(
		"# Meson cross file for a cuda-xcc sysroot (target %s, CUDA %s, %s),\n"
		"# written by 'cuda-xcc toolchain meson'; the sysroot is named below.\n"
		"# Meson " TOOLCHAIN_MESON_MINIMUM " or later: older ones ignore [built-in options].\n"
		"#\n"
		"#   CUDA_PATH=%s meson setup --cross-file THIS-FILE build\n"
		"#\n"
		"# CUDA sources go through the cuda-xcc driver, which adds the cross g++,\n"
		"# the target directory and the validated -gencode flags. CUDA_PATH lets\n"
		"# dependency('cuda') find this toolkit; Meson reads it only from the\n"
		"# environment, before CUDA_HOME and CUDA_ROOT, so another CUDA named there\n"
		"# stays out. The C, C++ and CUDA commands below leave another CUDA's\n"
		"# entries of LIBRARY_PATH and CPATH out of what the compilers see.\n"
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
		"cuda_link_args = %s\n"
		"\n"
		"[host_machine]\n"
		"system = 'linux'\n"
		"cpu_family = '%s'\n"
		"cpu = '%s'\n"
		"endian = 'little'\n",
		c_target, c_cuda, c_dir, sh_dir, q[0], q[1], q[2], q[7], q[8], q[3], q[4], q[4],
		q[5], q[5], q[6], t->machine, t->machine);
out:
	for (size_t i = 0; i < 9; i++)
		free(q[i]);
	free(c_target);
	free(c_cuda);
	free(c_dir);
	free(sh_dir);
	return text;
}

char *toolchain_meson(const struct target_profile *t, const struct sysroot_meta *m,
		      const struct toolchain_request *r, struct xcc_error *err)
{
	struct meson_values v = { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT,
				  STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT };
	char *cc, *text = NULL;

	if (!m->host_compiler || !(cc = toolchain_c_compiler_for(m->host_compiler)))
		return xcc_fail(err, XCC_EUSAGE,
				"%s/sysroot.json names no cross g++ (host_compiler); recreate it with "
				"'cuda-xcc sysroot create' on a machine that has one",
				m->dir), NULL;
	if (meson_values_make(t, m, r, cc, &v, err) == 0)
		text = meson_text(t, m, &v, err);
	free(cc);
	meson_values_free(&v);
	return text;
}

char *toolchain_cmake_minimum(const char *generic_file)
{
	static const char key[] = "if(CMAKE_VERSION VERSION_LESS ";
	char *text = file_read_text(generic_file, NULL), *at, *v = NULL;

	if (text && (at = strstr(text, key))) {
		at += strlen(key);
		v = xstrndup(at, strspn(at, "0123456789."));
		if (!*v) {
			free(v);
			v = NULL;
		}
	}
	free(text);
	return v;
}

/* The closing bracket's level of = signs is one no "]=...]" of s has,
 * counting a "]=" run at its end (the closing "]" would complete it). */
char *toolchain_cmake_quote(const char *s)
{
	size_t level = 0;
	char *eq, *out;

	for (const char *p = strchr(s, ']'); p; p = strchr(p + 1, ']')) {
		size_t n = strspn(p + 1, "=");

		if ((p[1 + n] == ']' || !p[1 + n]) && n + 1 > level)
			level = n + 1;
	}
	eq = xmalloc(level + 1);
	memset(eq, '=', level);
	eq[level] = '\0';
	out = xasprintf("[%s[%s]%s]", eq, s, eq);
	free(eq);
	return out;
}

/* CMake's bracket arguments carry any byte, but the shipped file hands
 * these values on in lists (the emulator, the linker launcher,
 * CMAKE_FIND_ROOT_PATH): ';' splits them, a '[' or ']' stops the splitting
 * at later ones, a '\' before the next element's ';' escapes it; the
 * cache, through which try_compile projects get the values, trims the
 * spaces at their ends; and a line break cannot be part of a command line
 * in a Makefile or build.ninja. */
const char *toolchain_cmake_unsafe(const char *s)
{
	size_t n = strlen(s);

	if (strpbrk(s, "\n\r"))
		return "a line break, which no Makefile or build.ninja command can carry";
	if (strpbrk(s, ";[]"))
		return "a ';', '[' or ']', which CMake's lists (the emulator, the linker launcher) "
		       "cannot carry";
	if (n && s[n - 1] == '\\')
		return "a '\\' at its end, which would escape the ';' after it in CMake's lists";
	if (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || *s == ' ' || *s == '\t'))
		return "a space or tab at its start or end, which CMake's cache drops (try_compile "
		       "projects read the values from it)";
	return NULL;
}

/* The characters of a --target-fs path that its compiler options, which the
 * shipped file hands to CMake as one command-line string
 * (CMAKE_<LANG>_FLAGS_INIT, which CMake puts into each command as it is),
 * would give to the shell, make or ninja. */
#define CMAKE_FLAGS_UNSAFE " \t'\"\\$#&|;<>()`*?[]~!{}"

int toolchain_cmake_check(const char *what, const char *s, struct xcc_error *err)
{
	const char *why = s ? toolchain_cmake_unsafe(s) : NULL;

	if (!why)
		return 0;
	return xcc_fail(err, XCC_EUSAGE, "%s '%s' holds %s: move it to a path without one, or "
			"link one to it, and name that", what, s, why);
}

int toolchain_cmake_check_root(const char *what, const char *s, struct xcc_error *err)
{
	const char *bad;

	if (toolchain_cmake_check(what, s, err))
		return -1;
	if (!s || !(bad = strpbrk(s, CMAKE_FLAGS_UNSAFE)))
		return 0;
	return xcc_fail(err, XCC_EUSAGE, "%s '%s' holds '%c': its compiler options reach "
			"CMake's builds as one command-line string (CMAKE_<LANG>_FLAGS), which "
			"nothing quotes; name a path without spaces, quotes or shell characters "
			"(a link to it will do)", what, s, *bad);
}

char *toolchain_cmake(const struct sysroot_meta *m, const struct toolchain_request *r,
		      const char *generic_file, struct xcc_error *err)
{
	char *arch = r->arch.n ? strvec_join(&r->arch, ",") : NULL, *text = NULL;
	char *s_sysroot, *s_xcc, *s_generic, *s_arch, *s_fs, *c_target, *c_cuda;

	if (toolchain_cmake_check("the sysroot", m->dir, err) ||
	    toolchain_cmake_check("the cuda-xcc binary", r->cuda_xcc, err) ||
	    toolchain_cmake_check("the shipped toolchain file", generic_file, err) ||
	    toolchain_cmake_check("-arch", arch, err) ||
	    toolchain_cmake_check_root("--target-fs", r->target_fs, err)) {
		free(arch);
		return NULL;
	}
	s_sysroot = toolchain_cmake_quote(m->dir);
	s_xcc = toolchain_cmake_quote(r->cuda_xcc);
	s_generic = toolchain_cmake_quote(generic_file);
	s_arch = arch ? toolchain_cmake_quote(arch) : NULL;
	s_fs = r->target_fs ? toolchain_cmake_quote(r->target_fs) : NULL;
	c_target = comment_safe(m->target);
	c_cuda = comment_safe(m->cuda);
	/* No path in a comment: a line break in it would end the comment.
	 * STRING, not PATH: CMake turns a PATH or FILEPATH entry's '\' into
	 * '/'. */
	text = xasprintf(
		"# CMake toolchain file bound to a cuda-xcc sysroot (the CUDA_XCC_SYSROOT\n"
		"# below; target %s, CUDA %s), written by 'cuda-xcc toolchain cmake'.\n"
		"#   cmake -DCMAKE_TOOLCHAIN_FILE=THIS-FILE -S . -B build\n"
		"set(CUDA_XCC_SYSROOT %s CACHE STRING \"cuda-xcc sysroot\")\n"
		"set(CUDA_XCC_EXECUTABLE %s CACHE STRING \"cuda-xcc\")\n"
		"%s%s%s"
		"%s%s%s"
		"include(%s)\n",
		c_target, c_cuda, s_sysroot, s_xcc,
		s_arch ? "set(CUDA_XCC_ARCH " : "", s_arch ? s_arch : "",
		s_arch ? " CACHE STRING \"GPU capabilities\")\n" : "",
		s_fs ? "set(CUDA_XCC_TARGET_FS " : "", s_fs ? s_fs : "",
		s_fs ? " CACHE STRING \"the device's root filesystem\")\n" : "", s_generic);
	free(s_sysroot);
	free(s_xcc);
	free(s_generic);
	free(s_arch);
	free(s_fs);
	free(c_target);
	free(c_cuda);
	free(arch);
	return text;
}
