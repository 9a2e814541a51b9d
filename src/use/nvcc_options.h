/* nvcc's command line, modelled once: the table of nvcc's options (each
 * one's spellings, whether it takes a value, what cuda-xcc reads it for) and
 * the one reading of an argument vector into typed arguments. Driver mode and
 * check-link read nvcc's arguments only through it, so "-name VALUE" and
 * "-name=VALUE" always mean the same (as they do to nvcc). */
#ifndef XCC_NVCC_OPTIONS_H
#define XCC_NVCC_OPTIONS_H

#include <stddef.h>

#include "base/strvec.h"

/* What cuda-xcc reads an option for; NVCC_PASS: nothing, it goes to nvcc
 * as written. */
enum nvcc_role {
	NVCC_PASS = 0,
	NVCC_OUTPUT,       /* -o FILE */
	NVCC_CCBIN,        /* -ccbin: the host compiler */
	NVCC_ALLOW_UNSUPPORTED, /* -allow-unsupported-compiler */
	NVCC_ARCH,         /* -arch: cuda-xcc's own in driver mode */
	NVCC_CODE,         /* -code */
	NVCC_GENCODE,      /* -gencode */
	NVCC_DLTO,         /* -dlto: device link-time optimisation */
	NVCC_RDC,          /* -rdc {true|false} */
	NVCC_DEVICE_C,     /* -dc: -rdc=true -c */
	NVCC_DLINK,        /* -dlink: a device link only */
	NVCC_LIB,          /* -lib: a library, by -arbin's archiver */
	NVCC_CUDART,       /* -cudart {none|shared|static} */
	NVCC_TARGET_DIR,   /* -target-dir */
	NVCC_ARBIN,        /* -arbin: the archiver */
	NVCC_OPTIONS_FILE, /* -optf: more options in a file, which nvcc alone reads */
};

/* An option's properties. */
enum {
	NVCC_VALUE = 1 << 0,    /* takes a value: "-name VALUE" or "-name=VALUE" */
	NVCC_ATTACHED = 1 << 1, /* the short name also takes it joined: -O3, -Idir */
	NVCC_NO_LINK = 1 << 2,  /* nvcc stops before the host link: no program */
	NVCC_HIDDEN = 1 << 3,   /* not in nvcc's --help, but nvcc takes it */
};

struct nvcc_option {
	const char *short_name; /* "-ccbin", one dash; NULL when none */
	const char *long_name;  /* "--compiler-bindir", two dashes */
	unsigned flags;
	enum nvcc_role role;
};

/* The whole table, *n entries: for the tests that hold it against nvcc's
 * --help. */
const struct nvcc_option *nvcc_option_table(size_t *n);
const char *nvcc_role_name(enum nvcc_role role);

/* How an argument is written. */
enum nvcc_form {
	NVCC_OPERAND,   /* an input file (or "-" alone) */
	NVCC_UNKNOWN,   /* an option the table lacks: passed on, one word */
	NVCC_FLAG,      /* an option without a value */
	NVCC_SEPARATE,  /* "-name VALUE", two words */
	NVCC_EQUALS,    /* "-name=VALUE" */
	NVCC_JOINED,    /* "-nameVALUE" (NVCC_ATTACHED options only) */
};

/* One argument, typed: which option (NULL for an operand or an unknown
 * option), how it was written and its value. The strings point into the
 * vector read. */
struct nvcc_arg {
	const struct nvcc_option *opt;
	enum nvcc_form form;
	int long_spelling; /* written with the long name */
	const char *word;  /* its first word as written */
	const char *value; /* the value; NULL without one (or missing at the end) */
	int words;         /* 1, or 2 for NVCC_SEPARATE */
};

/* Read the argument at argv[i] (i < argc) into *arg; returns its words. */
int nvcc_arg_read(int argc, char *const argv[], int i, struct nvcc_arg *arg);

struct nvcc_args {
	struct nvcc_arg *v;
	size_t n, cap;
};

#define NVCC_ARGS_INIT { .v = NULL, .n = 0, .cap = 0 }

void nvcc_args_push(struct nvcc_args *args, const struct nvcc_arg *arg);
/* The whole vector, typed (a fresh *args). */
void nvcc_args_read(int argc, char *const argv[], struct nvcc_args *args);
void nvcc_args_free(struct nvcc_args *args);

/* What an nvcc command line decides, read once from its typed arguments:
 * every stage of the driver's plan, and check-link, reads this. */
struct nvcc_line {
	int links;          /* nvcc ends with the host link (no -c, -E, -dlink...) */
	int dlink;          /* -dlink: a device link only */
	int sources;        /* inputs nvcc compiles (not objects or libraries) */
	const char *output; /* -o's value (the last), or NULL */
	int cudart_shared;  /* -cudart shared */
	int has_gencode;    /* -gencode or -code */
	const char *ccbin;  /* -ccbin's value, or NULL */
	int has_target_dir, has_arbin, allow_unsupported;
	int dlto;           /* -dlto */
	int rdc;            /* -rdc=true or -dc: relocatable device code */
	struct strvec specs; /* capabilities named by -gencode and -code values */
};

void nvcc_line_read(const struct nvcc_args *args, struct nvcc_line *line);
void nvcc_line_free(struct nvcc_line *line);

/* Whether an input is one nvcc only links: an object or a library. */
int nvcc_input_links_only(const char *path);

/* The program an nvcc command line (argv[0] being nvcc) links, or NULL when
 * it links none or names none with -o. */
const char *nvcc_command_output(int argc, char *const argv[]);

#endif
