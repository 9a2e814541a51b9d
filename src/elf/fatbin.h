/* Fatbin inventory: which SASS, PTX and LTO-IR entries an ELF file, object
 * or static archive carries, read from the fatbin containers without
 * decompressing anything, and whether that code can serve a given GPU. */
#ifndef XCC_FATBIN_H
#define XCC_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "db/gpus.h"

/* The entry kinds as the fatbin stores them; other values are kept as read. */
enum fatbin_kind {
	FATBIN_KIND_PTX = 1,
	FATBIN_KIND_SASS = 2,  /* an ELF cubin */
	FATBIN_KIND_LTOIR = 8, /* NVVM IR for link-time optimisation */
};

enum fatbin_compression {
	FATBIN_COMPRESS_NONE,
	FATBIN_COMPRESS_LZ4,
	FATBIN_COMPRESS_ZSTD,
};

struct fatbin_entry {
	unsigned kind;   /* enum fatbin_kind, or an unknown value */
	unsigned sm;     /* 75, 90, 100, 121 */
	char variant;    /* '\0', 'a' (arch-specific) or 'f' (family-specific) */
	enum fatbin_compression compression;
	uint64_t size;               /* payload bytes in the file */
	uint64_t uncompressed_size;  /* equals size when not compressed */
	unsigned version_major, version_minor; /* PTX ISA for PTX entries */
	uint64_t flags;              /* the raw entry flags */
	const char *section;         /* static string: ".nv_fatbin", ... */
	uint64_t offset;             /* of the entry header in the file or member */
	size_t object;               /* index into fatbin_file.objects */
};

/* One ELF object: the file itself, or one member of a static archive. */
struct fatbin_object {
	char *member; /* archive member name; NULL for a plain ELF file */
};

struct fatbin_file {
	char *path;
	struct fatbin_object *objects;
	size_t n_objects, cap_objects;
	struct fatbin_entry *entries;
	size_t n_entries, cap_entries;
	size_t n_containers;
};

/* How sections are read. Containers are looked for in .nv_fatbin (device
 * code the CUDA runtime registers), __nv_relfatbin (relocatable device code
 * of -rdc objects) and, unless fatbin_sections_only, by their magic in the
 * other data sections, where libraries that load their kernels themselves
 * keep them (cuFFT: tens of thousands of containers in .ldata). */
struct fatbin_options {
	int fatbin_sections_only;
};

/* Inventory of an ELF file, a static archive of ELF objects, or a raw
 * fatbin (nvcc -fatbin). The file is memory-mapped; nothing is
 * decompressed. On error *out is freed and err names the file and the
 * place that is broken. */
int fatbin_read_file(const char *path, const struct fatbin_options *opt, struct fatbin_file *out,
		     struct xcc_error *err);
/* The same for bytes in memory; name is used in messages. buf is not
 * written to but libelf wants a mutable pointer. */
int fatbin_read_memory(char *buf, size_t len, const char *name, const struct fatbin_options *opt,
		       struct fatbin_file *out, struct xcc_error *err);
void fatbin_file_free(struct fatbin_file *f);

/* Parse one section's worth of concatenated containers into f (entries get
 * object index `object`, section name `section`, offsets from `base`).
 * strict: every byte must belong to a container (zero padding between them
 * allowed); otherwise containers are searched by magic and one that does
 * not parse is skipped, since those bytes may be ordinary data. Never reads
 * outside [data, data + size). */
int fatbin_parse_section(const unsigned char *data, size_t size, int strict, const char *section,
			 size_t object, uint64_t base, struct fatbin_file *f, struct xcc_error *err);

/* The size of the fatbin container whose header starts at data (avail
 * bytes readable there), header included, as the header states it; 0 when
 * no container starts there. Lets a caller cut a long section into runs of
 * whole containers without decoding them. */
uint64_t fatbin_container_size(const unsigned char *data, size_t avail);

/* "sm_90a", "sm_100f", "sm_86". */
const char *fatbin_sm_name(unsigned sm, char variant, char *buf, size_t len);
const char *fatbin_kind_name(unsigned kind);         /* "sass", "ptx", "lto-ir", "kind-N" */
const char *fatbin_compression_name(enum fatbin_compression c); /* "none", "lz4", "zstd" */

/* The distinct SMs of one kind in f, sorted (numeric, then "" < a < f), as
 * "sm_XY" names into a NULL-terminated array of owned strings; returns the
 * count. Free with fatbin_names_free. */
size_t fatbin_sm_set(const struct fatbin_file *f, unsigned kind, char ***names);
void fatbin_names_free(char **names);
/* One line, without newline: "sass sm_75 sm_86 ptx sm_86" ("-" for an empty
 * set; " lto-ir sm_75 ..." appended only when LTO-IR is present). Caller
 * frees. */
char *fatbin_summary_line(const struct fatbin_file *f);
int fatbin_has_device_code(const struct fatbin_file *f);

/* The serving check: can the code in f run on the GPU of capability cap
 * (a capability of db, which says which SMs are Tegra ones)?
 * cap's major.minor names the GPU; its a/f suffix describes how a user's
 * own code is built, not the device, so it does not change the verdict. */
enum fatbin_verdict {
	FATBIN_SERVED_SASS,    /* machine code that runs on the GPU as is */
	FATBIN_SERVED_PTX_JIT, /* only PTX the driver must JIT-compile */
	FATBIN_NOT_SERVED,
};

struct fatbin_serving {
	enum fatbin_verdict verdict;
	unsigned sm;  /* the entry that serves it (best one); 0 when not served */
	char variant;
};

enum fatbin_verdict fatbin_serves(const struct gpudb *db, const struct fatbin_file *f,
				  const struct gpu_cap *cap, struct fatbin_serving *how);
/* "OK", "PTX-JIT", "NOT SERVED" */
const char *fatbin_verdict_name(enum fatbin_verdict v);
/* The verdict a name of fatbin_verdict_name's stands for; -1 for another. */
int fatbin_verdict_parse(const char *name, enum fatbin_verdict *v);

/* NVIDIA builds its aarch64 libraries of CUDA 11.8-12.9 twice: for Jetson
 * (L4T, redist tag linux-aarch64) and for Arm servers with a discrete GPU
 * (SBSA, linux-sbsa). Only the L4T build carries SASS for the Jetson GPUs
 * that CUDA v serves through L4T (capabilities below T(v): 5.3, 6.2, 7.2,
 * 8.7); the SBSA build of the same release has none (Thor's 10.1 and 11.0
 * are SBSA GPUs and prove nothing). The SM of the first such SASS entry of
 * f, or 0 when it has none. */
unsigned fatbin_l4t_sass(const struct gpudb *db, const struct fatbin_file *f,
			 struct cuda_version v);
/* The SM of the first SASS entry of f for a GPU that is no Jetson (sm_80,
 * sm_90...), or 0. A library with it and L4T-only SASS too was built for
 * every GPU of its time and tells neither build: Debian's arm64 (SBSA)
 * libcufile 1.9.1 carries sm_60 to sm_86, sm_62 and sm_72 among them. */
unsigned fatbin_discrete_sass(const struct gpudb *db, const struct fatbin_file *f);

/* The rules, one entry at a time, for GPU major.minor. tegra: the GPU or
 * the cubin's SM is an integrated (Tegra) one, where only exactly that
 * capability's SASS runs. */
int fatbin_sass_runs_on(unsigned sm, char variant, int major, int minor, int tegra);
int fatbin_ptx_jits_on(unsigned sm, char variant, int major, int minor);

/* The fatbin inventory of one library, with memory bounded whatever its
 * size (fatbin_read_file maps and touches all of it). */
struct fatbin_file;
int fatbin_read_file_bounded(const char *path, struct fatbin_file *f, struct xcc_error *err);

#endif
