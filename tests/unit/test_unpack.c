/* The unpack path policy against hostile archives, built here with
 * libarchive's writer (which writes whatever it is given), and package
 * identification of .deb, wheel and redist archives. After every refusal,
 * a canary directory next to the destination must be untouched. */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/package.h"
#include "pkg/unpack.h"
#include "tap.h"

struct member {
	char type; /* f file, d dir, l symlink, h hardlink, c char device, p FIFO */
	const char *name;
	const char *target; /* symlink target, hardlink target, or file contents */
	unsigned mode;
	const void *data; /* binary contents (len bytes) instead of target */
	size_t len;
};

#define END { 0, NULL, NULL, 0, NULL, 0 }

static char root[64];

static void add_member(struct archive *a, const struct member *m)
{
	struct archive_entry *e = archive_entry_new();
	const void *data = m->data ? m->data : m->target;
	size_t len = m->data ? m->len : m->target ? strlen(m->target) : 0;

	archive_entry_set_pathname(e, m->name);
	archive_entry_set_mtime(e, 1700000000, 0);
	switch (m->type) {
	case 'f':
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, (la_int64_t)len);
		break;
	case 'd':
		archive_entry_set_filetype(e, AE_IFDIR);
		break;
	case 'l':
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_symlink(e, m->target);
		break;
	case 'h':
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_hardlink(e, m->target);
		break;
	case 'c':
		archive_entry_set_filetype(e, AE_IFCHR);
		archive_entry_set_rdev(e, makedev(1, 3));
		break;
	case 'p':
		archive_entry_set_filetype(e, AE_IFIFO);
		break;
	}
	archive_entry_set_perm(e, m->mode ? m->mode : m->type == 'd' ? 0755 : 0644);
	archive_write_header(a, e);
	if (m->type == 'f' && len)
		archive_write_data(a, data, len);
	archive_entry_free(e);
}

static struct archive *writer(const char *format, const char *filter)
{
	struct archive *a = archive_write_new();

	archive_write_set_format_by_name(a, format);
	if (filter)
		archive_write_add_filter_by_name(a, filter);
	return a;
}

static char *path_in_root(const char *name)
{
	return xasprintf("%s/%s", root, name);
}

static char *write_archive(const char *name, const char *format, const char *filter,
			   const struct member *m)
{
	char *path = path_in_root(name);
	struct archive *a = writer(format, filter);

	archive_write_open_filename(a, path);
	for (; m->type; m++)
		add_member(a, m);
	archive_write_free(a);
	return path;
}

/* An archive in memory, for the members of a .deb. */
static size_t write_memory(const char *format, const char *filter, const struct member *m,
			   void *buf, size_t cap)
{
	struct archive *a = writer(format, filter);
	size_t used = 0;

	archive_write_set_bytes_in_last_block(a, 1);
	archive_write_open_memory(a, buf, cap, &used);
	for (; m->type; m++)
		add_member(a, m);
	archive_write_close(a);
	archive_write_free(a);
	return used;
}

static char *write_deb(const char *name, const char *control, const struct member *data)
{
	static char cbuf[1 << 16], dbuf[1 << 20];
	const struct member cm[] = { { 'f', "./control", control, 0644, NULL, 0 }, END };
	size_t clen = write_memory("pax", "gzip", cm, cbuf, sizeof cbuf);
	size_t dlen = write_memory("pax", "xz", data, dbuf, sizeof dbuf);
	const struct member ar[] = {
		{ 'f', "debian-binary", "2.0\n", 0644, NULL, 0 },
		{ 'f', "control.tar.gz", NULL, 0644, cbuf, clen },
		{ 'f', "data.tar.xz", NULL, 0644, dbuf, dlen },
		END,
	};

	return write_archive(name, "arbsd", NULL, ar);
}

/* The bytes of a minimal ELF object for `machine`, made by libelf. */
static void *elf_bytes(int machine, size_t *len)
{
	char *path = path_in_root("elf.tmp");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	Elf *e;
	GElf_Ehdr h;
	struct stat st;
	void *buf;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	gelf_newehdr(e, ELFCLASS64);
	gelf_getehdr(e, &h);
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_type = ET_DYN;
	h.e_machine = (GElf_Half)machine;
	h.e_version = EV_CURRENT;
	gelf_update_ehdr(e, &h);
	elf_update(e, ELF_C_WRITE);
	elf_end(e);
	fstat(fd, &st);
	*len = (size_t)st.st_size;
	buf = xmalloc(*len);
	pread(fd, buf, *len, 0);
	close(fd);
	unlink(path);
	free(path);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

/* Nothing may appear in root but the destinations, the archives and the
 * canary, and the canary holds exactly its one file. */
static int outside_untouched(void)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int clean = 1, n = 0;
	char *canary = path_in_root("canary"), *keep = path_in_root("canary/keep"), *text;

	while ((de = readdir(d))) {
		const char *s = de->d_name;

		if (!strcmp(s, ".") || !strcmp(s, "..") || !strcmp(s, "canary") ||
		    !strncmp(s, "dest", 4) || strstr(s, ".tar") || strstr(s, ".deb") ||
		    strstr(s, ".whl"))
			continue;
		printf("#   unexpected %s/%s\n", root, s);
		clean = 0;
	}
	closedir(d);
	d = opendir(canary);
	while ((de = readdir(d)))
		n++;
	closedir(d);
	text = slurp(keep);
	if (n != 3 || !text || strcmp(text, "keep\n") != 0) {
		printf("#   the canary changed\n");
		clean = 0;
	}
	free(text);
	free(canary);
	free(keep);
	return clean;
}

static char *fresh_dest(void)
{
	static int n;
	char *dest = xasprintf("%s/dest%d", root, ++n);

	mkdir(dest, 0755);
	return dest;
}

static int unpack(const char *archive, const char *dest, const struct unpack_opts *o,
		  struct unpack_stats *st, struct xcc_error *err)
{
	struct unpack_stats local;

	xcc_error_clear(err);
	return unpack_archive(archive, dest, o, st ? st : &local, err);
}

/* The archive is refused with `needle` in the message, and nothing outside
 * the destination changed. */
static void refused(const char *name, const struct member *m, const char *needle,
		    const char *why)
{
	struct xcc_error err;
	char *archive = write_archive(name, "pax", NULL, m);
	char *dest = fresh_dest();
	int rc = unpack(archive, dest, NULL, NULL, &err);

	ok(rc == -1 && strstr(err.msg, needle), "%s: refused with '%s'", why, needle);
	if (rc != -1 || !strstr(err.msg, needle))
		printf("#   rc %d, message: %s\n", rc, err.msg);
	ok(outside_untouched(), "%s: nothing written outside the destination", why);
	free(archive);
	free(dest);
}

static void test_hostile(void)
{
	char *abs = xasprintf("%s/canary/evil", root);
	char *abs_link = xasprintf("%s/canary/keep", root);
	const struct member absolute[] = { { 'f', abs, "x\n", 0, NULL, 0 }, END };
	const struct member dotdot[] = { { 'f', "../canary/evil", "x\n", 0, NULL, 0 }, END };
	const struct member inner_dotdot[] = {
		{ 'd', "a", NULL, 0, NULL, 0 },
		{ 'f', "a/../../canary/evil", "x\n", 0, NULL, 0 },
		END,
	};
	const struct member link_out[] = {
		{ 'l', "esc", "../canary", 0777, NULL, 0 },
		{ 'f', "esc/evil", "x\n", 0, NULL, 0 },
		END,
	};
	const struct member link_abs[] = {
		{ 'l', "esc", abs_link, 0777, NULL, 0 },
		END,
	};
	/* Lexically d/../canary is inside; through d -> . it is not. */
	const struct member via_link_dir[] = {
		{ 'l', "d", ".", 0777, NULL, 0 },
		{ 'l', "d/e", "../canary", 0777, NULL, 0 },
		{ 'f', "d/e/evil", "x\n", 0, NULL, 0 },
		END,
	};
	const struct member deep_via_link[] = {
		{ 'd', "sub/deeper", NULL, 0, NULL, 0 },
		{ 'l', "sub/deeper/up", "../..", 0777, NULL, 0 },
		{ 'l', "sub/deeper/up/x", "../canary", 0777, NULL, 0 },
		END,
	};
	/* Harmless when made, outside once x became a symlink to "." */
	const struct member retargeted[] = {
		{ 'l', "b", "x/..", 0777, NULL, 0 },
		{ 'l', "x", ".", 0777, NULL, 0 },
		END,
	};
	const struct member hard_dotdot[] = { { 'h', "h", "../canary/keep", 0, NULL, 0 }, END };
	const struct member hard_abs[] = { { 'h', "h", abs_link, 0, NULL, 0 }, END };
	const struct member hard_via_link[] = {
		{ 'l', "d", ".", 0777, NULL, 0 },
		{ 'h', "h", "d/../canary/keep", 0, NULL, 0 },
		END,
	};
	const struct member hard_to_link[] = {
		{ 'l', "s", "nowhere", 0777, NULL, 0 },
		{ 'h', "h", "s", 0, NULL, 0 },
		END,
	};
	const struct member device[] = { { 'c', "null", NULL, 0666, NULL, 0 }, END };
	const struct member fifo[] = { { 'p', "fifo", NULL, 0644, NULL, 0 }, END };
	const struct member setuid[] = { { 'f', "su", "x\n", 04755, NULL, 0 }, END };
	const struct member setgid[] = { { 'f', "sg", "x\n", 02755, NULL, 0 }, END };
	const struct member over_dir[] = {
		{ 'd', "lib", NULL, 0, NULL, 0 },
		{ 'l', "lib", "..", 0777, NULL, 0 },
		END,
	};
	const struct member dir_to_link[] = {
		{ 'f', "lib/a", "a\n", 0, NULL, 0 },
		{ 'l', "lib", "other", 0777, NULL, 0 },
		END,
	};

	refused("abs.tar", absolute, "an absolute path", "absolute member path");
	refused("dotdot.tar", dotdot, "a path with ..", "leading ..");
	refused("inner-dotdot.tar", inner_dotdot, "a path with ..", "inner ..");
	refused("link-out.tar", link_out, "leads outside", "symlink to ../canary");
	refused("link-abs.tar", link_abs, "a symlink to the absolute path", "absolute symlink");
	refused("via-link-dir.tar", via_link_dir, "leads outside",
		"symlink escaping through an extracted symlink dir");
	refused("deep-via-link.tar", deep_via_link, "leads outside",
		"symlink escaping through a deeper extracted symlink");
	refused("retargeted.tar", retargeted, "leads outside",
		"symlink that a later member makes escape");
	refused("hard-dotdot.tar", hard_dotdot, "a hard link to ../canary", "hardlink with ..");
	refused("hard-abs.tar", hard_abs, "a hard link to /", "hardlink to an absolute path");
	refused("hard-via-link.tar", hard_via_link, "a hard link to d/../canary",
		"hardlink through a symlink dir");
	refused("hard-to-link.tar", hard_to_link, "not a file", "hardlink to a symlink");
	refused("device.tar", device, "a device node", "character device");
	refused("fifo.tar", fifo, "a FIFO", "FIFO");
	refused("setuid.tar", setuid, "setuid", "setuid file");
	refused("setgid.tar", setgid, "setgid", "setgid file");
	refused("over-dir.tar", over_dir, "leads outside", "symlink over a directory");
	refused("dir-to-link.tar", dir_to_link, "replace a directory",
		"a directory replaced by a symlink");

	/* Already in the destination: a symlink out, made by someone else.
	 * Writing through it, or linking to a file through it, is refused. */
	{
		const struct member through[] = { { 'f', "out/evil", "x\n", 0, NULL, 0 }, END };
		const struct member link_through[] = { { 'h', "h", "out/keep", 0, NULL, 0 }, END };
		struct xcc_error err;
		char *archive = write_archive("through.tar", "pax", NULL, through);
		char *archive2 = write_archive("link-through.tar", "pax", NULL, link_through);
		char *dest = fresh_dest();
		char *out = xasprintf("%s/out", dest);

		symlink("../canary", out);
		ok(unpack(archive, dest, NULL, NULL, &err) == -1 && strstr(err.msg, "outside"),
		   "a file through an existing symlink out is refused (%s)", err.msg);
		ok(unpack(archive2, dest, NULL, NULL, &err) == -1 && strstr(err.msg, "outside"),
		   "a hard link through an existing symlink out is refused (%s)", err.msg);
		ok(outside_untouched(), "nothing written through the existing symlink");
		free(out);
		free(dest);
		free(archive);
		free(archive2);
	}
	free(abs);
	free(abs_link);
}

static char *rename_lib64(void *arg, const char *member)
{
	const char *top = arg;
	size_t n = strlen(top);
	const char *rest;

	if (strncmp(member, top, n) != 0 || member[n] != '/')
		return NULL;
	rest = member + n + 1;
	if (strcmp(rest, "bin/nvcc.profile") == 0)
		return NULL;
	if (strncmp(rest, "lib64/", 6) == 0)
		return xasprintf("lib/%s", rest + 6);
	return xstrdup(rest);
}

static mode_t mode_of(const char *dest, const char *rel)
{
	char *p = xasprintf("%s/%s", dest, rel);
	struct stat st;
	mode_t m = lstat(p, &st) ? 0 : st.st_mode;

	free(p);
	return m;
}

static char *read_in(const char *dest, const char *rel)
{
	char *p = xasprintf("%s/%s", dest, rel);
	char *s = slurp(p);

	free(p);
	return s;
}

static char *link_in(const char *dest, const char *rel)
{
	char *p = xasprintf("%s/%s", dest, rel), buf[256];
	ssize_t n = readlink(p, buf, sizeof buf - 1);

	free(p);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static void progress_count(void *arg, uint64_t bytes)
{
	uint64_t *last = arg;

	*last = bytes;
}

static void test_good(void)
{
	const struct member good[] = {
		{ 'd', "./pkg-archive/", NULL, 0755, NULL, 0 },
		{ 'd', "./pkg-archive/bin", NULL, 0750, NULL, 0 },
		{ 'f', "./pkg-archive/bin/tool", "#!/bin/sh\n", 0755, NULL, 0 },
		{ 'l', "./pkg-archive/bin/nvcc.profile", "/etc/nvcc.profile", 0777, NULL, 0 },
		{ 'f', "pkg-archive/include/a.h", "int a;\n", 0644, NULL, 0 },
		{ 'f', "pkg-archive/lib64/libx.so.1", "lib\n", 0600, NULL, 0 },
		{ 'l', "pkg-archive/lib64/libx.so", "libx.so.1", 0777, NULL, 0 },
		{ 'h', "pkg-archive/lib64/libx-copy.so.1", "pkg-archive/lib64/libx.so.1", 0, NULL, 0 },
		{ 'l', "pkg-archive/up", "lib/../include/a.h", 0777, NULL, 0 },
		{ 'l', "pkg-archive/dangling", "include/missing.h", 0777, NULL, 0 },
		{ 'l', "pkg-archive/inc", "include", 0777, NULL, 0 },
		{ 'f', "pkg-archive/inc/b.h", "int b;\n", 0644, NULL, 0 },
		{ 'f', "pkg-archive/include/a.h", "int a2;\n", 0644, NULL, 0 },
		{ 'd', "pkg-archive/sgid", NULL, 02755, NULL, 0 },
		END,
	};
	char *archive = write_archive("good.tar.xz", "pax", "xz", good);
	char *dest = fresh_dest();
	struct unpack_stats st;
	uint64_t last = 0;
	struct unpack_opts o = { .map = rename_lib64, .map_arg = "pkg-archive",
				 .progress = progress_count, .progress_arg = &last };
	struct xcc_error err;
	struct stat sa, sb;
	char *s, *pa, *pb;
	int rc = unpack(archive, dest, &o, &st, &err);
	struct stat ast;

	ok(rc == 0, "a good archive unpacks (%s)", rc ? err.msg : "ok");
	ok(outside_untouched(), "the good archive wrote only inside");
	ok((mode_of(dest, "bin/tool") & 07777) == 0755, "executable mode kept");
	ok((mode_of(dest, "lib/libx.so.1") & 07777) == 0600, "0600 mode kept");
	ok((mode_of(dest, "bin") & 07777) == 0750, "directory mode kept");
	ok((mode_of(dest, "sgid") & 07777) == 0755, "setgid dropped from a directory");
	ok(mode_of(dest, "bin/nvcc.profile") == 0, "the map skipped the absolute symlink");
	/* Skipped: the top directory itself and nvcc.profile. */
	ok(mode_of(dest, "lib64") == 0, "lib64 mapped to lib");
	s = link_in(dest, "lib/libx.so");
	is_str(s, "libx.so.1", "relative symlink kept");
	free(s);
	s = read_in(dest, "inc/b.h");
	is_str(s, "int b;\n", "a file written through an inside symlink");
	free(s);
	s = read_in(dest, "include/b.h");
	is_str(s, "int b;\n", "... lands in the symlink's target");
	free(s);
	s = read_in(dest, "include/a.h");
	is_str(s, "int a2;\n", "a later member replaces an earlier one");
	free(s);
	ok(S_ISLNK(mode_of(dest, "dangling")), "a dangling symlink inside is fine");
	pa = xasprintf("%s/lib/libx.so.1", dest);
	pb = xasprintf("%s/lib/libx-copy.so.1", dest);
	ok(stat(pa, &sa) == 0 && stat(pb, &sb) == 0 && sa.st_ino == sb.st_ino,
	   "hard link made through the map");
	ok(sa.st_mtime == 1700000000, "mtime kept");
	free(pa);
	free(pb);
	ok(st.files == 6 && st.skipped == 2, "stats: %llu files, %llu skipped",
	   (unsigned long long)st.files, (unsigned long long)st.skipped);
	ok(st.bytes == strlen("#!/bin/sh\n") + strlen("int a;\n") + strlen("lib\n") +
	   strlen("int b;\n") + strlen("int a2;\n"), "stats: %llu bytes",
	   (unsigned long long)st.bytes);
	stat(archive, &ast);
	ok(last == (uint64_t)ast.st_size, "progress ends at the archive size (%llu of %lld)",
	   (unsigned long long)last, (long long)ast.st_size);
	free(archive);
	free(dest);
}

static void test_broken(void)
{
	const struct member good[] = {
		{ 'f', "x-linux-x86_64-1.0-archive/big", NULL, 0644, NULL, 0 },
		END,
	};
	struct member m[2];
	char *data = xmalloc(1 << 20);
	char *archive, *dest, *text;
	struct xcc_error err;
	struct stat st;
	int fd;

	for (size_t i = 0; i < (1 << 20); i++)
		data[i] = (char)(i * 7919 % 251);
	m[0] = good[0];
	m[0].data = data;
	m[0].len = 1 << 20;
	m[1] = good[1];
	archive = write_archive("trunc.tar.xz", "pax", "xz", m);
	stat(archive, &st);
	truncate(archive, st.st_size / 2);
	dest = fresh_dest();
	ok(unpack(archive, dest, NULL, NULL, &err) == -1 && strstr(err.msg, "trunc.tar.xz"),
	   "a truncated archive is an error naming it (%s)", err.msg);
	free(dest);
	text = path_in_root("plain.tar");
	fd = open(text, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	write(fd, "just text, not an archive\n", 26);
	close(fd);
	dest = fresh_dest();
	ok(unpack(text, dest, NULL, NULL, &err) == -1 && strstr(err.msg, "plain.tar"),
	   "a text file is not an archive (%s)", err.msg);
	free(dest);
	free(text);
	free(archive);
	free(data);
}

static void identify(const char *path, const char *want, const char *why)
{
	static const char *const kinds[] = { "redist", "deb", "wheel" };
	struct package_info info;
	struct xcc_error err = { 0 };
	char *got;

	if (package_identify(path, &info, &err)) {
		got = xasprintf("ERR: %s", err.msg);
	} else {
		got = xasprintf("%s %s %s %s", kinds[info.kind], info.name, info.version,
				info.machine);
		package_info_free(&info);
	}
	if (strncmp(want, "ERR: ", 5) == 0) {
		ok(strncmp(got, "ERR: ", 5) == 0 && strstr(got, want + 5), "identify %s", why);
		if (!strstr(got, want + 5))
			printf("#   got: %s\n#   expected to contain: %s\n", got, want + 5);
	} else {
		is_str(got, want, "identify %s", why);
	}
	free(got);
}

static void test_identify(void)
{
	size_t arm_len, x86_len;
	void *arm = elf_bytes(EM_AARCH64, &arm_len), *x86elf = elf_bytes(EM_X86_64, &x86_len);
	const struct member sbsa[] = {
		{ 'd', "cuda_cudart-linux-sbsa-12.4.127-archive/", NULL, 0, NULL, 0 },
		{ 'f', "cuda_cudart-linux-sbsa-12.4.127-archive/LICENSE", "l\n", 0, NULL, 0 },
		END,
	};
	const struct member dotslash[] = {
		{ 'd', "./", NULL, 0, NULL, 0 },
		{ 'd', "./cuda_cccl-linux-x86_64-12.4.127-archive/", NULL, 0, NULL, 0 },
		END,
	};
	const struct member l4t[] = {
		{ 'f', "./libcudnn-linux-aarch64-9.1.0.70_cuda12-archive/LICENSE", "l\n", 0, NULL, 0 },
		END,
	};
	const struct member x86[] = {
		{ 'f', "cuda_nvcc-linux-x86_64-13.0.48-archive/bin/nvcc", NULL, 0755, x86elf, x86_len },
		END,
	};
	const struct member odd[] = {
		{ 'f', "thing-linux-riscv99-1.2-archive/README", "r\n", 0, NULL, 0 },
		{ 'f', "thing-linux-riscv99-1.2-archive/lib/libt.so", NULL, 0, arm, arm_len },
		END,
	};
	const struct member notredist[] = { { 'f', "foo/bar", "x\n", 0, NULL, 0 }, END };
	const struct member data[] = { { 'f', "./usr/include/a.h", "a\n", 0, NULL, 0 }, END };
	const char *wheel_meta = "Metadata-Version: 2.1\nName: nvidia-cuda-runtime-cu12\n"
				 "Version: 12.4.127\nSummary: x\n\nName: not this\n";
	const struct member whl_x86[] = {
		{ 'f', "nvidia/cuda_runtime/lib/libcudart.so.12", NULL, 0755, arm, arm_len },
		{ 'f', "nvidia_cuda_runtime_cu12-12.4.127.dist-info/METADATA", wheel_meta, 0, NULL,
		  0 },
		{ 'f', "nvidia_cuda_runtime_cu12-12.4.127.dist-info/WHEEL",
		  "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-manylinux2014_x86_64\n",
		  0, NULL, 0 },
		END,
	};
	const struct member whl_arm[] = {
		{ 'f', "nvidia_cuda_runtime_cu12-12.4.127.dist-info/WHEEL",
		  "Wheel-Version: 1.0\r\nTag: py3-none-manylinux_2_17_aarch64\r\n", 0, NULL, 0 },
		{ 'f', "nvidia_cuda_runtime_cu12-12.4.127.dist-info/METADATA", wheel_meta, 0, NULL,
		  0 },
		END,
	};
	const struct member whl_any[] = {
		{ 'f', "pkg-1.0.dist-info/WHEEL", "Tag: py3-none-any\n", 0, NULL, 0 },
		{ 'f', "pkg-1.0.dist-info/METADATA", "Name: Some.Pkg\nVersion: 1.0\n", 0, NULL, 0 },
		{ 'f', "pkg/lib/libp.so.1", NULL, 0755, arm, arm_len },
		END,
	};
	const struct member whl_pure[] = {
		{ 'f', "pkg-1.0.dist-info/WHEEL", "Tag: py3-none-any\n", 0, NULL, 0 },
		{ 'f', "pkg-1.0.dist-info/METADATA", "Name: pkg\nVersion: 1.0\n", 0, NULL, 0 },
		{ 'f', "pkg/__init__.py", "\n", 0, NULL, 0 },
		END,
	};
	const struct member not_wheel[] = { { 'f', "a.txt", "a\n", 0, NULL, 0 }, END };
	char *p;

#define ARCHIVE_CASE(file, fmt, filter, members, want, why)                                    \
	p = write_archive(file, fmt, filter, members);                                         \
	identify(p, want, why);                                                                \
	free(p)

	ARCHIVE_CASE("sbsa.tar.xz", "pax", "xz", sbsa, "redist cuda_cudart 12.4.127 aarch64",
		     "linux-sbsa redist");
	ARCHIVE_CASE("dotslash.tar.xz", "pax", "xz", dotslash,
		     "redist cuda_cccl 12.4.127 x86_64", "redist with a leading ./ entry");
	ARCHIVE_CASE("l4t.tar.xz", "gnutar", "xz", l4t,
		     "redist libcudnn 9.1.0.70_cuda12 aarch64", "linux-aarch64 redist");
	ARCHIVE_CASE("x86.tar.xz", "pax", "xz", x86, "redist cuda_nvcc 13.0.48 x86_64",
		     "linux-x86_64 redist");
	ARCHIVE_CASE("odd.tar.xz", "pax", "xz", odd, "redist thing 1.2 aarch64",
		     "unusual platform: ELF e_machine decides");
	ARCHIVE_CASE("notredist.tar", "pax", NULL, notredist,
		     "ERR: " "notredist.tar: not a .deb, a wheel or a redist archive: its top "
		     "directory foo is not <name>-<platform>-<version>-archive",
		     "a tar that is no redist archive");
	ARCHIVE_CASE("x86.whl", "zip", NULL, whl_x86,
		     "wheel nvidia_cuda_runtime_cu12 12.4.127 x86_64", "manylinux2014_x86_64 wheel");
	ARCHIVE_CASE("arm.whl", "zip", NULL, whl_arm,
		     "wheel nvidia_cuda_runtime_cu12 12.4.127 aarch64",
		     "manylinux_2_17_aarch64 wheel (CRLF)");
	ARCHIVE_CASE("any.whl", "zip", NULL, whl_any, "wheel Some_Pkg 1.0 aarch64",
		     "py3-none-any wheel with an aarch64 .so");
	ARCHIVE_CASE("pure.whl", "zip", NULL, whl_pure, "wheel pkg 1.0 all",
		     "pure-python wheel");
	ARCHIVE_CASE("notwheel.whl", "zip", NULL, not_wheel,
		     "ERR: notwheel.whl: a zip without *.dist-info/WHEEL: not a wheel",
		     "a zip that is no wheel");
#undef ARCHIVE_CASE

	p = write_deb("amd64.deb", "Package: nvidia-cuda-toolkit\nVersion: 11.8.89~11.8.0-5\n"
			 "Architecture: amd64\nDescription: x\n more\n", data);
	identify(p, "deb nvidia-cuda-toolkit 11.8.89~11.8.0-5 x86_64", "amd64 deb");
	free(p);
	p = write_deb("arm64.deb", "Package: libcudart11.0\nArchitecture: arm64\nVersion: 11.8\n",
		      data);
	identify(p, "deb libcudart11.0 11.8 aarch64", "arm64 deb");
	{
		char *dest = fresh_dest();
		struct xcc_error err;
		char *s;

		ok(unpack(p, dest, NULL, NULL, &err) == 0, "a .deb's data.tar.xz unpacks (%s)",
		   err.msg);
		s = read_in(dest, "usr/include/a.h");
		is_str(s, "a\n", "... with its files");
		ok(mode_of(dest, "control") == 0 && mode_of(dest, "debian-binary") == 0,
		   "... and nothing of the control part");
		free(s);
		free(dest);
	}
	free(p);
	p = write_deb("all.deb", "Package: nvidia-cuda-toolkit-doc\nVersion: 1\nArchitecture: all\n",
		      data);
	identify(p, "deb nvidia-cuda-toolkit-doc 1 all", "arch-independent deb");
	free(p);
	p = write_deb("noarch.deb", "Package: x\nVersion: 1\n", data);
	identify(p, "ERR: noarch.deb: the control file has no Architecture field",
		 "a control file without Architecture");
	free(p);
	free(arm);
	free(x86elf);
}

/* Links that each stay inside but together lead out (issue 16): the
 * whole-tree check names them, and opening beneath the root refuses them. */
static void test_tree_links(void)
{
	char *tree = path_in_root("composed"), *cmd, *want;
	struct strvec problems = STRVEC_INIT;
	struct xcc_error err = { 0 };
	int rootfd, fd;

	cmd = xasprintf("mkdir -p '%s/t/x/a' '%s/bin' && ln -s t/x/a/q/../../canary '%s/lib' && "
			"ln -s ../lib/keep '%s/bin/ok' && ln -s ../.. '%s/t/x/a/q_' ",
			tree, tree, tree, tree, tree);
	ok(system(cmd) == 0, "tree_links: a tree whose links stay inside");
	free(cmd);
	ok(unpack_check_tree_links(tree, &problems, &err) == 0 && problems.n == 0,
	   "tree_links: no problem while q is missing (%s)", problems.n ? problems.v[0] : "");
	rootfd = open(tree, O_RDONLY | O_DIRECTORY);
	fd = unpack_open_beneath(rootfd, "lib", O_PATH);
	ok(fd < 0 && errno == ENOENT, "tree_links: lib is dangling, inside");
	cmd = xasprintf("mv '%s/t/x/a/q_' '%s/t/x/a/q'", tree, tree);
	ok(system(cmd) == 0, "tree_links: the second archive's q -> ../..");
	free(cmd);
	ok(unpack_check_tree_links(tree, &problems, &err) == 0 && problems.n == 2,
	   "tree_links: lib and bin/ok, through it, lead outside");
	want = xasprintf("symlink lib -> t/x/a/q/../../canary leads outside the tree, to %s/canary",
			 root);
	ok(strvec_contains(&problems, want), "tree_links: names the link and where it leads");
	if (!strvec_contains(&problems, want))
		for (size_t i = 0; i < problems.n; i++)
			printf("#   got: %s\n", problems.v[i]);
	free(want);
	fd = unpack_open_beneath(rootfd, "lib/keep", O_RDONLY);
	ok(fd < 0 && errno == EXDEV, "tree_links: canary/keep through lib: EXDEV, not opened");
	fd = unpack_open_beneath(rootfd, "lib", O_RDONLY | O_DIRECTORY);
	ok(fd < 0 && errno == EXDEV, "tree_links: lib as a directory: EXDEV");
	fd = unpack_open_beneath(rootfd, "t/x", O_RDONLY | O_DIRECTORY);
	ok(fd >= 0, "tree_links: a real directory opens");
	if (fd >= 0)
		close(fd);
	close(rootfd);
	strvec_free(&problems);
	free(tree);
}

int main(void)
{
	char *canary, *keep;
	FILE *f;

	strcpy(root, "/tmp/test_unpack.XXXXXX");
	if (!mkdtemp(root)) {
		printf("Bail out! mkdtemp failed\n");
		return 1;
	}
	canary = path_in_root("canary");
	keep = path_in_root("canary/keep");
	mkdir(canary, 0755);
	f = fopen(keep, "w");
	fputs("keep\n", f);
	fclose(f);

	test_hostile();
	test_good();
	test_broken();
	test_identify();
	test_tree_links();

	if (!tap_failed) {
		char *cmd = xasprintf("rm -rf '%s'", root);

		if (system(cmd) != 0)
			printf("# could not remove %s\n", root);
		free(cmd);
	} else {
		printf("# left %s for inspection\n", root);
	}
	free(canary);
	free(keep);
	return done_testing();
}
