/* apt repositories as create's sources (NVIDIA's CUDA x86_64, cross-linux-sbsa and
 * cross-linux-aarch64 repositories, the Jetson L4T repository): the packages of the
 * request chosen by name from their indexes, each fetched and checked against its
 * index entry, then handed on as a .deb given alone. */
#ifndef XCC_SYSROOT_APT_H
#define XCC_SYSROOT_APT_H

#include "base/error.h"
#include "base/strvec.h"
#include "pkg/aptrepo.h"
#include "pkg/fetch.h"

struct sysroot_request;

/*
 * Read the apt sources (--from lines apt_is_source() accepts), choose the
 * packages of rq's host and target components (cuda_nvcc from an amd64
 * cuda-nvcc-X-Y; the target's from -cross-<sbsa|aarch64> packages, else the
 * L4T repository's arm64 ones; tensorrt, cudnn, vpi, l4t_multimedia from
 * their own names), fetch them (checked against the index's SHA256 and Size
 * before anything reads them) and append them to rq->packages.
 */
int sysroot_apt_read(struct sysroot_request *rq, const struct strvec *sources,
		     const struct fetch_opts *fo, struct xcc_error *err);

/* The packages idx offers for component (host side or target side) of a
 * CUDA major.minor request whose target directory is flavour's ("sbsa",
 * "aarch64"): their positions in idx into chosen (room for idx->n),
 * the newest version of each name; *n_chosen may be 0. The name patterns
 * looked for, for messages, go to looked. Returns -1 with err when only
 * packages of another architecture carry the names. */
int sysroot_apt_choose(const struct apt_index *idx, const char *component, int host,
		       const char *flavour, int cuda_major, int cuda_minor, size_t *chosen,
		       size_t *n_chosen, struct strvec *looked, struct xcc_error *err);

#endif
