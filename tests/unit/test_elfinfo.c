/* The ELF reader on a file image built here: fields, and every truncation
 * and a few corruptions give an error, never a crash. */
#include <config.h>

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfinfo.h"
#include "tap.h"

#define IMG_SIZE 0x200
static const char strtab[] = "\0libfoo.so.1\0$ORIGIN/../lib\0libme.so.2";

/* A little-endian x86_64 shared library: one PT_LOAD over the whole file,
 * PT_INTERP, PT_DYNAMIC with NEEDED, RUNPATH and SONAME. */
static void build(unsigned char *img)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + 64);
	Elf64_Dyn *dyn = (Elf64_Dyn *)(img + 0x180);
	Elf64_Dyn dyns[] = {
		{ DT_NEEDED, { 1 } }, { DT_RUNPATH, { 13 } }, { DT_SONAME, { 28 } },
		{ DT_STRTAB, { 0x120 } }, { DT_STRSZ, { sizeof strtab } }, { DT_NULL, { 0 } },
	};

	memset(img, 0, IMG_SIZE);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_AARCH64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = 64;
	eh->e_ehsize = sizeof *eh;
	eh->e_phentsize = sizeof *ph;
	eh->e_phnum = 3;
	ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, 0, 0, 0, IMG_SIZE, IMG_SIZE, 0x1000 };
	ph[1] = (Elf64_Phdr){ PT_INTERP, PF_R, 0x100, 0x100, 0x100, 13, 13, 1 };
	ph[2] = (Elf64_Phdr){ PT_DYNAMIC, PF_R | PF_W, 0x180, 0x180, 0x180, sizeof dyns,
			      sizeof dyns, 8 };
	memcpy(img + 0x100, "/lib/ld.so.1", 12);
	memcpy(img + 0x120, strtab, sizeof strtab);
	memcpy(dyn, dyns, sizeof dyns);
}

static void test_well_formed_image(void)
{
	unsigned char img[IMG_SIZE];
	struct elfinfo info;
	struct xcc_error err = { 0 };
	int rc;

	build(img);
	rc = elfinfo_read_memory(img, sizeof img, &info, &err);
	ok(rc == 0, "a well-formed image reads (%s)", rc ? err.msg : "ok");
	if (rc)
		return;
	ok(info.machine == EM_AARCH64 && info.elfclass == ELFCLASS64 &&
	   info.data == ELFDATA2LSB && info.type == ET_DYN, "header fields");
	is_str(info.interp, "/lib/ld.so.1", "interpreter");
	ok(info.needed.n == 1, "one DT_NEEDED");
	is_str(info.needed.n ? info.needed.v[0] : NULL, "libfoo.so.1", "DT_NEEDED");
	is_str(info.runpath, "$ORIGIN/../lib", "DT_RUNPATH");
	is_str(info.rpath, NULL, "no DT_RPATH");
	is_str(info.soname, "libme.so.2", "DT_SONAME");
	ok(info.has_dynamic && !info.is_static && !info.is_debug, "dynamic, not static");
	elfinfo_free(&info);
}

/* Every truncation: an error or a result, and nothing leaks. */
static void test_truncations(void)
{
	unsigned char img[IMG_SIZE];
	struct elfinfo info;
	struct xcc_error err = { 0 };
	int crashed_never = 1;

	build(img);
	for (size_t n = 0; n < sizeof img; n++) {
		if (elfinfo_read_memory(img, n, &info, &err) == 0)
			elfinfo_free(&info);
		else if (!strstr(err.msg, "not an ELF file") && !strstr(err.msg, "corrupt"))
			crashed_never = 0;
	}
	ok(crashed_never, "every truncated image is refused with a clear message");
	ok(elfinfo_read_memory(img, 200, &info, &err) != 0 && strstr(err.msg, "truncated"),
	   "truncated inside the tables: '%s'", err.msg);
}

static void test_damaged_tables(void)
{
	unsigned char img[IMG_SIZE];
	struct elfinfo info;
	struct xcc_error err = { 0 };

	build(img);
	((Elf64_Dyn *)(img + 0x180))[0].d_un.d_val = 0x7fffffff;
	ok(elfinfo_read_memory(img, sizeof img, &info, &err) != 0 &&
	   strstr(err.msg, "outside the string table"), "DT_NEEDED past the table: '%s'", err.msg);

	build(img);
	((Elf64_Dyn *)(img + 0x180))[3].d_un.d_ptr = 0x100000;
	ok(elfinfo_read_memory(img, sizeof img, &info, &err) != 0 &&
	   strstr(err.msg, "DT_STRTAB"), "DT_STRTAB outside every segment: '%s'", err.msg);

	build(img);
	img[0x100 + 11] = 'x'; /* interpreter without its NUL, up to the segment end */
	((Elf64_Phdr *)(img + 64))[1].p_filesz = 12;
	ok(elfinfo_read_memory(img, sizeof img, &info, &err) != 0 &&
	   strstr(err.msg, "PT_INTERP"), "unterminated interpreter: '%s'", err.msg);
}

static void test_not_elf(void)
{
	struct elfinfo info;
	struct xcc_error err = { 0 };

	ok(elfinfo_read_memory("hello world, not elf", 20, &info, &err) != 0 &&
	   strstr(err.msg, "not an ELF file"), "not ELF");
}

static void test_names_and_page_sizes(void)
{
	char *name;

	name = elfinfo_machine_name(EM_AARCH64, ELFCLASS64);
	is_str(name, "aarch64", "machine name");
	free(name);
	name = elfinfo_machine_name(4242, ELFCLASS64);
	is_str(name, "machine-4242", "unknown machine");
	free(name);
	ok(elfinfo_default_page_size(EM_AARCH64) == 65536 && elfinfo_default_page_size(EM_PPC64) == 65536 &&
	   elfinfo_default_page_size(EM_X86_64) == 4096, "page sizes: 64 KiB on aarch64 and ppc64");
	ok(elfinfo_osabi_parse("Linux") == ELFOSABI_LINUX && elfinfo_osabi_parse("gnu") == ELFOSABI_LINUX &&
	   elfinfo_osabi_parse("none") == ELFOSABI_SYSV && elfinfo_osabi_parse("FreeBSD") == 9 &&
	   elfinfo_osabi_parse("plan9") == -1, "OS ABI words");
	is_str(elfinfo_osabi_name(ELFOSABI_SYSV), "System V", "OS ABI names");
}

int main(void)
{
	test_well_formed_image();
	test_truncations();
	test_damaged_tables();
	test_not_elf();
	test_names_and_page_sizes();
	return done_testing();
}
