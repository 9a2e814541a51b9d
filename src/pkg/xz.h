/* xz decoding for extraction, faster than libarchive's single thread:
 * a decoder thread ahead of the tar reader (liblzma's multi-threaded
 * decoder where the data has several blocks), and seeking by block through the xz
 * index of a .deb's data.tar.xz, so that blocks holding only skipped
 * members are never decoded. Each gives a libarchive tar reader; only with
 * liblzma 5.4's multi-threaded decoder (HAVE_LIBLZMA_MT). */
#ifndef XCC_XZ_H
#define XCC_XZ_H

#ifdef HAVE_LIBLZMA_MT
#include <stdint.h>

#include "base/error.h"

struct archive;

/*
 * What one decoder may hold for its threads. Each thread holds a dictionary
 * (8 MiB for xz -6), its block's compressed input and its decoded output:
 * about 50 MiB for Debian's 24 MiB blocks. With less, liblzma uses fewer
 * threads or decodes on one thread; it never fails.
 *  - .deb data: room for two threads, the point of the exercise (dpkg-deb
 *    itself peaks near 160 MiB on nvidia-cuda-dev).
 *  - .tar.xz files: NVIDIA's redist archives are single blocks, where more
 *    threads gain nothing; a small bound keeps create's peak RSS under
 *    64 MiB with two archives unpacked at once.
 */
#define XZ_MEMLIMIT_DEB (128u << 20)
#define XZ_MEMLIMIT_FILE (24u << 20)

/* How many decoder threads are worth starting: the CPUs this process may
 * run on, at most 16. */
int xz_threads(void);

/* The tar inside the xz data that the libarchive reader `outer` hands out
 * block by block (a .deb's member, or a raw file), decoded on a thread of
 * its own (and xz_threads() threads where it has several blocks), which
 * from now on is the only one to use outer; NULL with err set. *xp is
 * freed (xz_source_free, which stops the decoder) after the returned
 * reader. what names the data in messages. */
struct xz_source;
struct archive *xz_open_tar(struct archive *outer, uint64_t memlimit, const char *what,
			    struct xz_source **xp, struct xcc_error *err);
/* Decode what follows the tar's end (padding), which checks the last
 * block's integrity too. */
int xz_drain(struct archive *inner, struct xz_source *x, const char *what,
	     struct xcc_error *err);
void xz_source_free(struct xz_source *x);
/* How far into outer's file decoding has gone, as of the data the tar
 * reader has been handed, for progress; arg is the struct xz_source. */
uint64_t xz_source_file_pos(void *arg);

/* The xz stream of `size` bytes at offset `base` of the file at path,
 * ready to be read by block; NULL when it is not one xz stream of several
 * blocks (it is then decoded as a whole, with xz_open_tar). */
struct xz_seek;
struct xz_seek *xz_seek_open(const char *path, uint64_t base, uint64_t size);
/* The tar reader over it: the data of members the caller skips is not
 * decoded when it fills whole blocks. NULL with err set. Freed before x. */
struct archive *xz_seek_tar(struct xz_seek *x, const char *what, struct xcc_error *err);
/* How far into the file decoding has gone (skipped blocks count as read),
 * for progress; arg is the struct xz_seek. */
uint64_t xz_seek_file_pos(void *arg);
void xz_seek_free(struct xz_seek *x);
#endif

#endif
