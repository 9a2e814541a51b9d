/* Which CUDA release a sysroot's files are: what create checks --cuda
 * against and verify checks sysroot.json's "cuda" against. nvcc and cudart
 * carry CUDA's own version (nvcc 11.8.89 is CUDA 11.8); the libraries do
 * not (cuFFT 11.2.1.3 is in CUDA 12.4), so only the packages of those two
 * and the headers' CUDA_VERSION tell. */
#ifndef XCC_SYSROOT_CUDA_H
#define XCC_SYSROOT_CUDA_H

#include "base/error.h"
#include "base/strvec.h"
#include "db/gpus.h"
#include "sysroot/sysroot_meta.h"

/* The CUDA release (major.minor) a package's version says, when the package
 * is one whose version is CUDA's: nvcc's or cudart's (a redist archive, a
 * wheel, NVIDIA's or Debian's .deb), or Debian's whole-toolkit ones
 * (nvidia-cuda-toolkit, nvidia-cuda-dev). Debian's 11.8.89~11.8.0-5~deb12u1
 * is read by its upstream part before '~' (11.8.89). -1 when it says none. */
int sysroot_cuda_of_package(const struct gpudb *db, const char *package, const char *version,
			    struct cuda_version *v);

/* The release targets/<target_dir>/include/cuda.h's CUDA_VERSION says (else
 * cuda_runtime_api.h's CUDART_VERSION): 11080 is 11.8. *evidence (caller
 * frees) names the header and the define. -1 when neither says. */
int sysroot_cuda_of_headers(const char *root, const char *target_dir, struct cuda_version *v,
			    char **evidence);

/* create, before planning: the archives given alone whose versions are
 * CUDA's are the release asked for, and all one release; else a usage
 * error naming both and the way out. */
struct sysroot_request;
int sysroot_check_packages_cuda(const struct sysroot_request *rq, struct xcc_error *err);

/* create, after extraction: the headers are the release asked for (label,
 * "12.6"), else a usage error naming both and the way out. */
int sysroot_check_cuda_headers(const char *root, const char *target_dir, const char *label,
			       struct xcc_error *err);

/* verify: sysroot.json's "cuda" against the headers and against the
 * versions of the packages it records; one problem each. */
void sysroot_verify_cuda(const struct gpudb *db, const char *root, const struct sysroot_meta *m,
			 struct strvec *problems);

#endif
