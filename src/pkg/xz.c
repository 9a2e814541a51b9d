/* xz data decoded faster than libarchive does it: on a thread of its own
 * ahead of the tar reader, with liblzma's multi-threaded decoder, and, for
 * a .deb's multi-block data.tar.xz, by seeking through the xz index so
 * that blocks holding only skipped members are never decoded. Both hand a
 * plain tar stream to a libarchive reader; what is done with the members
 * is the caller's. */
#include <config.h>

#ifdef HAVE_LIBLZMA_MT
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/xz.h"

/* ---------------------------------------------------------------------------
 * xz decoded on a thread of its own, with liblzma's multi-threaded decoder
 *
 * libarchive (3.6) decodes xz on the thread that parses the tar and writes
 * the files, so an archive costs its decoding plus its writing; `tar -xJf`
 * runs `xz -d` in a process of its own. Here a decoder thread fills a few
 * slots of decoded tar ahead of the reader, which takes them in order: the
 * two overlap even where liblzma cannot split the work (NVIDIA's redist
 * archives are single xz blocks). Files in several blocks (Debian's
 * data.tar.xz: 87 of them for nvidia-cuda-dev) also decode in parallel
 * inside liblzma. The slots bound what is decoded ahead to 4 MiB, little
 * next to create's 64 MiB of peak RSS with two archives at once.
 */
#define XZ_SLOTS 4
#define XZ_SLOT_SIZE ((size_t)1 << 20)

struct xz_source {
	/* The decoder's own (the reader's when no thread could start): */
	struct archive *outer; /* hands out the compressed bytes */
	lzma_stream lz;
	int in_eof;
	int err_no;            /* why decoding stopped, when it failed */
	char err_msg[256];
	/* Shared, under lock. Slot n % XZ_SLOTS: filled by the decoder when
	 * n < filled, handed to libarchive when n < taken (the reader's),
	 * free again when n < freed; libarchive may read a slot until it
	 * asks for the next one. */
	pthread_mutex_t lock;
	pthread_cond_t moved;  /* a slot filled or freed, the end, a cancel */
	unsigned filled, freed;
	size_t len[XZ_SLOTS];
	uint64_t in_pos[XZ_SLOTS]; /* compressed bytes read once it was filled */
	int end, failed, cancel;
	/* The reader's own: */
	unsigned taken;
	uint64_t pos;          /* in_pos of the slot handed out last */
	int threaded;
	pthread_t thread;
	uint8_t *slot;         /* XZ_SLOTS * XZ_SLOT_SIZE bytes */
};

static const char *lzma_problem(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR:
	case LZMA_MEMLIMIT_ERROR:
		return "out of memory";
	case LZMA_FORMAT_ERROR:
		return "not xz data";
	case LZMA_DATA_ERROR:
		return "corrupt xz data";
	case LZMA_BUF_ERROR:
		return "truncated xz data";
	default:
		return "xz decoding failed";
	}
}

static int xz_fail(struct xz_source *x, int err_no, const char *msg)
{
	x->err_no = err_no;
	snprintf(x->err_msg, sizeof x->err_msg, "%s", msg ? msg : "read error");
	return -1;
}

/* Decode up to a slot's worth into buf (*n bytes): 1 while more follows,
 * 0 at the end of the xz data, -1 failed (err_msg says why). */
static int xz_decode(struct xz_source *x, uint8_t *buf, size_t *n)
{
	int more = 1;

	x->lz.next_out = buf;
	x->lz.avail_out = XZ_SLOT_SIZE;
	while (more > 0 && x->lz.avail_out) {
		lzma_ret r;

		if (!x->lz.avail_in && !x->in_eof) {
			const void *block;
			size_t size;
			la_int64_t offset;
			int ar = archive_read_data_block(x->outer, &block, &size, &offset);

			if (ar == ARCHIVE_EOF) {
				x->in_eof = 1;
			} else if (ar < ARCHIVE_OK) {
				more = xz_fail(x, archive_errno(x->outer),
					       archive_error_string(x->outer));
				break;
			} else {
				x->lz.next_in = block;
				x->lz.avail_in = size;
			}
		}
		r = lzma_code(&x->lz, x->in_eof ? LZMA_FINISH : LZMA_RUN);
		if (r == LZMA_STREAM_END)
			more = 0;
		else if (r != LZMA_OK)
			more = xz_fail(x, EIO, lzma_problem(r));
	}
	*n = XZ_SLOT_SIZE - x->lz.avail_out;
	return more;
}

/* Fill the next slot and hand it over; the caller has checked it is free. */
static void xz_fill_slot(struct xz_source *x)
{
	unsigned i = x->filled % XZ_SLOTS; /* only this side writes filled */
	size_t n;
	int more = xz_decode(x, x->slot + i * XZ_SLOT_SIZE, &n);
	uint64_t pos = (uint64_t)archive_filter_bytes(x->outer, -1);

	pthread_mutex_lock(&x->lock);
	x->len[i] = n;
	x->in_pos[i] = pos;
	if (n)
		x->filled++;
	if (more <= 0) {
		x->end = 1;
		x->failed = more < 0;
	}
	pthread_cond_broadcast(&x->moved);
	pthread_mutex_unlock(&x->lock);
}

static void *xz_decoder(void *arg)
{
	struct xz_source *x = arg;

	pthread_mutex_lock(&x->lock);
	for (;;) {
		while (x->filled - x->freed == XZ_SLOTS && !x->cancel)
			pthread_cond_wait(&x->moved, &x->lock);
		if (x->cancel || x->end)
			break;
		pthread_mutex_unlock(&x->lock);
		xz_fill_slot(x);
		pthread_mutex_lock(&x->lock);
	}
	pthread_mutex_unlock(&x->lock);
	return NULL;
}

static la_ssize_t xz_read(struct archive *inner, void *arg, const void **buf)
{
	struct xz_source *x = arg;
	unsigned i;

	pthread_mutex_lock(&x->lock);
	x->freed = x->taken; /* libarchive is done with the slot it had */
	pthread_cond_broadcast(&x->moved);
	if (!x->threaded && x->filled == x->taken && !x->end) {
		pthread_mutex_unlock(&x->lock);
		xz_fill_slot(x);
		pthread_mutex_lock(&x->lock);
	}
	while (x->filled == x->taken && !x->end)
		pthread_cond_wait(&x->moved, &x->lock);
	if (x->filled == x->taken) {
		pthread_mutex_unlock(&x->lock);
		if (!x->failed)
			return 0;
		archive_set_error(inner, x->err_no, "%s", x->err_msg);
		return -1;
	}
	i = x->taken++ % XZ_SLOTS;
	x->pos = x->in_pos[i];
	pthread_mutex_unlock(&x->lock);
	*buf = x->slot + i * XZ_SLOT_SIZE;
	return (la_ssize_t)x->len[i];
}

uint64_t xz_source_file_pos(void *arg)
{
	const struct xz_source *x = arg;

	return x->pos;
}

/* One decoder thread per CPU this process may run on (its affinity mask,
 * which containers and taskset narrow): several archives extracted at once
 * share them, and a single-block file only ever uses one. */
int xz_threads(void)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) :
		   (int)sysconf(_SC_NPROCESSORS_ONLN);

	return cpus > 1 ? (cpus > 16 ? 16 : cpus) : 1;
}

/* The tar inside the xz data that `outer` reads out, or NULL with err set.
 * *xp is to be freed (xz_source_free) after the returned archive. */
struct archive *xz_open_tar(struct archive *outer, uint64_t memlimit, const char *what,
			    struct xz_source **xp, struct xcc_error *err)
{
	struct xz_source *x = xmalloc(sizeof *x);
	lzma_mt mt = {
		.flags = LZMA_CONCATENATED,
		.threads = (uint32_t)xz_threads(),
		.memlimit_stop = UINT64_MAX,
	};
	struct archive *inner;
	lzma_ret r;

	mt.memlimit_threading = memlimit;
	*x = (struct xz_source){ .outer = outer, .lz = LZMA_STREAM_INIT };
	r = lzma_stream_decoder_mt(&x->lz, &mt);
	if (r != LZMA_OK) {
		free(x);
		xcc_fail(err, XCC_EFAIL, "%s: %s", what, lzma_problem(r));
		return NULL;
	}
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->moved, NULL);
	x->slot = xmalloc(XZ_SLOTS * XZ_SLOT_SIZE);
	/* Without a thread (a limit on them), the reader decodes each slot. */
	x->threaded = pthread_create(&x->thread, NULL, xz_decoder, x) == 0;
	inner = archive_read_new();
	archive_read_support_format_tar(inner);
	if (archive_read_open(inner, x, NULL, xz_read, NULL) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", what,
			 archive_error_string(inner) ? archive_error_string(inner) : "unreadable");
		archive_read_free(inner);
		xz_source_free(x);
		return NULL;
	}
	*xp = x;
	return inner;
}

/* The tar reader stops at its end-of-archive blocks; decoding the rest of
 * the xz data (padding) checks the last block's integrity too. */
int xz_drain(struct archive *inner, struct xz_source *x, const char *what,
	     struct xcc_error *err)
{
	const void *buf;
	la_ssize_t n;

	while ((n = xz_read(inner, x, &buf)) > 0)
		;
	if (n < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", what, archive_error_string(inner));
	return 0;
}

/* Stops the decoder wherever it is (the reader may have failed). */
void xz_source_free(struct xz_source *x)
{
	if (!x)
		return;
	if (x->threaded) {
		pthread_mutex_lock(&x->lock);
		x->cancel = 1;
		pthread_cond_broadcast(&x->moved);
		pthread_mutex_unlock(&x->lock);
		pthread_join(x->thread, NULL);
	}
	pthread_cond_destroy(&x->moved);
	pthread_mutex_destroy(&x->lock);
	lzma_end(&x->lz);
	free(x->slot);
	free(x);
}


/* ---------------------------------------------------------------------------
 * xz that skips: a .deb's data.tar.xz read through its xz index
 *
 * A sysroot takes a few percent of Debian's nvidia-cuda-dev (cudart, not the
 * 2 GB of math libraries). The tar reader hands the data of the members the
 * map skips to the skip callback below, which, when the skip leaves the xz
 * block being decoded, starts decoding at the block that holds the next
 * member instead: the blocks in between (24 MiB each in Debian's packages)
 * are never decoded. Only for multi-block data in a single xz stream; the
 * other cases go through the decoders above.
 */
#define XZ_SEEK_IN (64 * 1024)
#define XZ_OUT_BLOCK (256 * 1024)

struct xz_seek {
	int fd;
	uint64_t base, size;   /* the xz stream's offset and size in the file */
	lzma_index *idx;
	lzma_stream_flags flags;
	lzma_index_iter it;    /* the block being decoded */
	lzma_stream lz;
	int block_open;
	uint64_t in_off, in_end; /* file offsets: next compressed byte, block end */
	uint64_t out_pos;      /* uncompressed offset of the next byte handed out */
	uint64_t discard;      /* decoded bytes to drop before out_pos */
	/* liblzma's block decoder keeps a pointer to this and reads it while
	 * decoding: it must live as long as the decoder, not on a stack. */
	lzma_block block;
	uint8_t in[XZ_SEEK_IN];
	uint8_t out[XZ_OUT_BLOCK];
};

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Read the stream's header flags and index; 0 when the data is one xz
 * stream of several blocks, -1 otherwise (then it is decoded as a whole). */
static int xz_seek_index(struct xz_seek *x)
{
	uint8_t head[LZMA_STREAM_HEADER_SIZE], foot[LZMA_STREAM_HEADER_SIZE];
	lzma_stream_flags footer;
	uint64_t memlimit = UINT64_MAX;
	size_t pos = 0;
	uint8_t *ibuf;
	int rc = -1;

	if (x->size < 2 * LZMA_STREAM_HEADER_SIZE ||
	    pread_all(x->fd, head, sizeof head, x->base) ||
	    lzma_stream_header_decode(&x->flags, head) != LZMA_OK ||
	    pread_all(x->fd, foot, sizeof foot, x->base + x->size - sizeof foot) ||
	    lzma_stream_footer_decode(&footer, foot) != LZMA_OK ||
	    lzma_stream_flags_compare(&x->flags, &footer) != LZMA_OK ||
	    footer.backward_size > x->size - 2 * LZMA_STREAM_HEADER_SIZE)
		return -1;
	ibuf = xmalloc(footer.backward_size);
	if (pread_all(x->fd, ibuf, footer.backward_size,
		      x->base + x->size - sizeof foot - footer.backward_size) == 0 &&
	    lzma_index_buffer_decode(&x->idx, &memlimit, NULL, ibuf, &pos,
				     footer.backward_size) == LZMA_OK &&
	    lzma_index_block_count(x->idx) > 1 &&
	    lzma_index_total_size(x->idx) + footer.backward_size + 2 * LZMA_STREAM_HEADER_SIZE ==
		    x->size)
		rc = 0;
	free(ibuf);
	return rc;
}

/* Start decoding at the block holding uncompressed offset x->out_pos. */
static int xz_seek_open_block(struct xz_seek *x, struct archive *inner)
{
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block *bp = &x->block;
	uint8_t header[LZMA_BLOCK_HEADER_SIZE_MAX];
	uint64_t off;
	lzma_ret r;

	lzma_index_iter_init(&x->it, x->idx);
	if (lzma_index_iter_locate(&x->it, x->out_pos))
		return 1; /* past the end */
	off = x->base + x->it.block.compressed_file_offset;
	if (pread_all(x->fd, header, 1, off))
		goto broken;
	memset(bp, 0, sizeof *bp);
	bp->version = 1;
	bp->check = x->flags.check;
	bp->filters = filters;
	bp->header_size = lzma_block_header_size_decode(header[0]);
	if (header[0] == 0 || pread_all(x->fd, header, bp->header_size, off) ||
	    lzma_block_header_decode(bp, NULL, header) != LZMA_OK)
		goto broken;
	r = lzma_block_compressed_size(bp, x->it.block.unpadded_size);
	if (r == LZMA_OK)
		r = lzma_block_decoder(&x->lz, bp);
	/* The decoder keeps its own copy of the filter options. */
	for (size_t i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
		free(filters[i].options);
	bp->filters = NULL; /* a stack array: nothing may read it from now on */
	if (r != LZMA_OK) {
		archive_set_error(inner, EIO, "%s", lzma_problem(r));
		return -1;
	}
	x->in_off = off + bp->header_size;
	x->in_end = off + x->it.block.total_size;
	x->lz.avail_in = 0;
	x->discard = x->out_pos - x->it.block.uncompressed_file_offset;
	x->block_open = 1;
	return 0;
broken:
	archive_set_error(inner, EIO, "corrupt xz block header");
	return -1;
}

static la_ssize_t xz_seek_read(struct archive *inner, void *arg, const void **buf)
{
	struct xz_seek *x = arg;

	for (;;) {
		size_t made;
		lzma_ret r;

		if (!x->block_open) {
			int o = xz_seek_open_block(x, inner);

			if (o)
				return o > 0 ? 0 : -1;
		}
		if (!x->lz.avail_in && x->in_off < x->in_end) {
			size_t n = x->in_end - x->in_off < sizeof x->in ?
				   (size_t)(x->in_end - x->in_off) : sizeof x->in;

			if (pread_all(x->fd, x->in, n, x->in_off)) {
				archive_set_error(inner, EIO, "truncated xz data");
				return -1;
			}
			x->lz.next_in = x->in;
			x->lz.avail_in = n;
			x->in_off += n;
		}
		x->lz.next_out = x->out;
		x->lz.avail_out = sizeof x->out;
		r = lzma_code(&x->lz, LZMA_RUN);
		if (r == LZMA_STREAM_END)
			x->block_open = 0;
		else if (r != LZMA_OK || (!x->lz.avail_in && x->in_off >= x->in_end &&
					  x->lz.avail_out == sizeof x->out)) {
			archive_set_error(inner, EIO, "%s",
					  lzma_problem(r == LZMA_OK ? LZMA_BUF_ERROR : r));
			return -1;
		}
		made = sizeof x->out - x->lz.avail_out;
		if (x->discard >= made) {
			x->discard -= made;
			continue;
		}
		*buf = x->out + x->discard;
		made -= (size_t)x->discard;
		x->discard = 0;
		x->out_pos += made;
		return (la_ssize_t)made;
	}
}

static la_int64_t xz_seek_skip(struct archive *inner, void *arg, la_int64_t request)
{
	struct xz_seek *x = arg;
	uint64_t block_end = x->it.block.uncompressed_file_offset + x->it.block.uncompressed_size;

	(void)inner;
	if (request <= 0)
		return 0;
	/* Within the block being decoded: decoded and dropped, as the block
	 * must be decoded up to the next member anyway. */
	if (x->block_open && x->out_pos + (uint64_t)request < block_end)
		x->discard += (uint64_t)request;
	else
		x->block_open = 0;
	x->out_pos += (uint64_t)request;
	return request;
}

/* How far into the file decoding has gone (skipped blocks count as read). */
uint64_t xz_seek_file_pos(void *arg)
{
	const struct xz_seek *x = arg;

	return x->in_off ? x->in_off : x->base;
}

struct xz_seek *xz_seek_open(const char *path, uint64_t base, uint64_t size)
{
	static const uint8_t magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	struct xz_seek *x = xmalloc(sizeof *x);
	uint8_t head[6];

	memset(x, 0, offsetof(struct xz_seek, in));
	x->lz = (lzma_stream)LZMA_STREAM_INIT;
	x->base = base;
	x->size = size;
	x->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0 || pread_all(x->fd, head, sizeof head, x->base) ||
	    memcmp(head, magic, sizeof magic) || xz_seek_index(x)) {
		xz_seek_free(x);
		return NULL;
	}
	return x;
}

struct archive *xz_seek_tar(struct xz_seek *x, const char *what, struct xcc_error *err)
{
	struct archive *inner = archive_read_new();

	archive_read_support_format_tar(inner);
	archive_read_set_callback_data(inner, x);
	archive_read_set_read_callback(inner, xz_seek_read);
	archive_read_set_skip_callback(inner, xz_seek_skip);
	if (archive_read_open1(inner) != ARCHIVE_OK) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", what, archive_error_string(inner) ?
			 archive_error_string(inner) : "unreadable");
		archive_read_free(inner);
		return NULL;
	}
	return inner;
}

void xz_seek_free(struct xz_seek *x)
{
	if (!x)
		return;
	if (x->fd >= 0)
		close(x->fd);
	if (x->idx)
		lzma_index_end(x->idx, NULL);
	lzma_end(&x->lz);
	free(x);
}
#endif
