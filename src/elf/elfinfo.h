/* Reading what the dynamic loader sees in an ELF file: machine, class,
 * interpreter, DT_NEEDED, search paths, soname. Built on libelf; every
 * offset is checked, so truncated or corrupt files give an error, not a
 * crash. */
#ifndef XCC_ELFINFO_H
#define XCC_ELFINFO_H

#include <stddef.h>

#include "base/error.h"
#include "base/strvec.h"

struct elfinfo {
	int machine;  /* e_machine: EM_X86_64, EM_AARCH64 ... */
	int elfclass; /* ELFCLASS32 or ELFCLASS64 */
	int data;     /* ELFDATA2LSB or ELFDATA2MSB */
	int osabi;    /* e_ident[EI_OSABI] */
	int type;     /* e_type: ET_EXEC, ET_DYN, ET_REL ... */
	char *interp;  /* PT_INTERP, NULL if none */
	struct strvec needed;
	char *rpath;   /* DT_RPATH, NULL if none */
	char *runpath; /* DT_RUNPATH, NULL if none */
	char *soname;  /* DT_SONAME, NULL if none */
	int has_dynamic; /* has a PT_DYNAMIC */
	int dynamic_section_only; /* no PT_DYNAMIC, but a .dynamic section was read */
	int is_static;   /* an executable with no PT_DYNAMIC and no PT_INTERP */
	int is_debug;    /* a separate debug file: loadable segments hold no file data */
};

/* 1 when the first bytes are the ELF magic. */
int elfinfo_is_elf(const void *buf, size_t len);

/*
 * Opening ELF files: every module goes through these, so that libelf is
 * initialised in one place and "not an ELF file" is one message with one
 * status (XCC_EFAIL, as every content problem).
 */
typedef struct Elf Elf;

/* Begin reading the ELF file open on fd (path names it in messages):
 * the ELF magic is checked first, then libelf reads it (mmap). */
int elfinfo_begin(int fd, const char *path, Elf **out, struct xcc_error *err);
/* libelf over bytes in memory (which it may convert in place): an ELF
 * file, a static archive or whatever else elf_kind() then says. */
int elfinfo_begin_memory(void *buf, size_t len, const char *name, Elf **out,
			 struct xcc_error *err);

struct elfinfo_file {
	int fd;
	Elf *elf;
};

/* Open path read-only as an ELF file; elfinfo_close() releases it. A
 * failed open leaves nothing to release (and closing it does no harm). */
int elfinfo_open(const char *path, struct elfinfo_file *f, struct xcc_error *err);
void elfinfo_close(struct elfinfo_file *f);

/* What a file named to a check is. */
enum elfinfo_kind {
	ELFINFO_KIND_ELF, /* an ELF file */
	ELFINFO_KIND_AR,  /* a static archive (ar), which libelf reads too */
};

/* Classify path for a check that reads ELF files: 0 and *kind, or -1 with
 * err: XCC_EUSAGE when path does not exist or is no regular file (the
 * command line named the wrong thing), XCC_EFAIL when it cannot be read or
 * is neither ELF nor an archive. */
int elfinfo_classify(const char *path, enum elfinfo_kind *kind, struct xcc_error *err);

/* e_machine of the ELF file at path, -1 when it is none or unreadable. */
int elfinfo_file_machine(const char *path);

/* Read the file at path. Not an ELF file, truncated or corrupt: -1 with an
 * XCC_EFAIL error naming path and the problem. */
int elfinfo_read(const char *path, struct elfinfo *info, struct xcc_error *err);
/* The same from bytes in memory (the fuzz target's entry point). */
int elfinfo_read_memory(const void *buf, size_t len, struct elfinfo *info,
			 struct xcc_error *err);
void elfinfo_free(struct elfinfo *info);

/* "x86_64", "aarch64", "ppc64", "i386" ... or "machine-N". Caller frees. */
char *elfinfo_machine_name(int machine, int elfclass);
/* The default page size for new loadable segments on this machine. */
unsigned long elfinfo_default_page_size(int machine);
/* patchelf's names for the OS ABI ("System V", "Linux") and the codes
 * for --set-os-abi's words; -1 when unknown. */
const char *elfinfo_osabi_name(int osabi);
int elfinfo_osabi_parse(const char *word);

#endif
