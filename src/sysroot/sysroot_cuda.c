#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/xalloc.h"
#include "sysroot/plan.h"
#include "sysroot/sysroot_cuda.h"
#include "sysroot/sysroot_request.h"

/* "11.8" of "1:11.8.89~11.8.0-5~deb12u1", "12.6.85", "12.4.5.8". */
static int major_minor(const char *version, struct cuda_version *v)
{
	const char *s = strchr(version, ':') ? strchr(version, ':') + 1 : version;
	const char *dot = strchr(s, '.');
	size_t n = dot ? strspn(dot + 1, "0123456789") : 0;
	char *mm;
	int rc;

	if (!dot || !n)
		return -1;
	mm = xstrndup(s, (size_t)(dot + 1 + n - s));
	rc = cuda_version_parse(mm, v);
	free(mm);
	v->patch = -1;
	return rc;
}

int sysroot_cuda_of_package(const struct gpudb *db, const char *package, const char *version,
			    struct cuda_version *v)
{
	int many = 0;
	const char *c;

	if (!package || !version)
		return -1;
	c = plan_package_component(db, package, &many);
	if (!many && (!c || (strcmp(c, "cuda_nvcc") != 0 && strcmp(c, "cuda_cudart") != 0)))
		return -1;
	return major_minor(version, v);
}

/* The value of "#define NAME 11080" in text, or -1. */
static long define_value(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, "#define")); p += 7) {
		const char *q = p + 7;
		char *end;
		long val;

		q += strspn(q, " \t");
		if (strncmp(q, name, n) != 0 || (q[n] != ' ' && q[n] != '\t'))
			continue;
		val = strtol(q + n, &end, 10);
		if (end != q + n && val > 0)
			return val;
	}
	return -1;
}

int sysroot_cuda_of_headers(const char *root, const char *target_dir, struct cuda_version *v,
			    char **evidence)
{
	static const char *const headers[][2] = {
		{ "cuda.h", "CUDA_VERSION" },
		{ "cuda_runtime_api.h", "CUDART_VERSION" },
	};

	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
		char *rel = xasprintf("targets/%s/include/%s", target_dir, headers[i][0]);
		char *path = xasprintf("%s/%s", root, rel);
		char *text = file_read_text(path, NULL);
		long val = text ? define_value(text, headers[i][1]) : -1;

		free(text);
		free(path);
		if (val > 0) {
			v->major = (int)(val / 1000);
			v->minor = (int)(val % 1000 / 10);
			v->patch = -1;
			*evidence = xasprintf("%s (%s %ld)", rel, headers[i][1], val);
			free(rel);
			return 0;
		}
		free(rel);
	}
	return -1;
}

/* The archives given alone whose versions are CUDA's (nvcc's, cudart's,
 * Debian's toolkit) are the release asked for, and one release: a sysroot
 * records the CUDA its files are, since nvcc and the host compiler are
 * chosen by it. */
int sysroot_check_packages_cuda(const struct sysroot_request *rq, struct xcc_error *err)
{
	const struct sysroot_package *first = NULL;
	struct cuda_version fv = { 0, 0, -1 };

	for (size_t i = 0; i < rq->n_packages; i++) {
		const struct sysroot_package *pk = &rq->packages[i];
		struct cuda_version v;

		if (sysroot_cuda_of_package(rq->plan.db, pk->name, pk->info.version, &v))
			continue;
		if (first && cuda_version_cmp(v, fv) != 0)
			return xcc_fail(err, XCC_EUSAGE, "%s (%s %s) is CUDA %d.%d, but %s (%s %s) "
					"is CUDA %d.%d: give the packages of one CUDA release",
					file_base_name(pk->path), pk->name, pk->info.version, v.major,
					v.minor, file_base_name(first->path), first->name,
					first->info.version, fv.major, fv.minor);
		if (cuda_version_cmp(v, rq->cuda) != 0)
			return xcc_fail(err, XCC_EUSAGE, "--cuda %s asked for, but %s (%s %s) is "
					"CUDA %d.%d: a sysroot records the CUDA its files are; pass "
					"--cuda %d.%d, or the packages of CUDA %d.%d", rq->cuda_label,
					file_base_name(pk->path), pk->name, pk->info.version, v.major,
					v.minor, v.major, v.minor, rq->cuda.major, rq->cuda.minor);
		first = pk;
		fv = v;
	}
	return 0;
}

int sysroot_check_cuda_headers(const char *root, const char *target_dir, const char *label,
			       struct xcc_error *err)
{
	struct cuda_version asked, have;
	char *evidence = NULL;
	int rc = 0;

	if (cuda_version_parse(label, &asked) ||
	    sysroot_cuda_of_headers(root, target_dir, &have, &evidence))
		return 0;
	if (cuda_version_cmp(asked, have) != 0)
		rc = xcc_fail(err, XCC_EUSAGE, "--cuda %s asked for, but the sysroot's %s says CUDA "
			      "%d.%d: a sysroot records the CUDA its files are; pass --cuda %d.%d, "
			      "or the archives of CUDA %d.%d", label, evidence, have.major,
			      have.minor, have.major, have.minor, asked.major, asked.minor);
	free(evidence);
	return rc;
}

void sysroot_verify_cuda(const struct gpudb *db, const char *root, const struct sysroot_meta *m,
			 struct strvec *problems)
{
	struct cuda_version rec, have;
	char *evidence = NULL;

	if (cuda_version_parse(m->cuda, &rec))
		return;
	if (sysroot_cuda_of_headers(root, m->target_dir, &have, &evidence) == 0 &&
	    cuda_version_cmp(rec, have) != 0)
		strvec_pushf(problems, "sysroot.json records CUDA %s, but %s is CUDA %d.%d: nvcc "
			     "and the host compiler are chosen by the recorded release; make the "
			     "sysroot again with --cuda %d.%d", m->cuda, evidence, have.major,
			     have.minor, have.major, have.minor);
	free(evidence);
	for (size_t i = 0; i < m->n_components; i++) {
		const struct sysroot_component *c = &m->components[i];

		if (sysroot_cuda_of_package(db, c->name, c->version, &have) == 0 &&
		    cuda_version_cmp(rec, have) != 0)
			strvec_pushf(problems, "sysroot.json records CUDA %s, but it was made from "
				     "%s %s, which is CUDA %d.%d; make the sysroot again with "
				     "--cuda %d.%d", m->cuda, c->name, c->version, have.major,
				     have.minor, have.major, have.minor);
	}
}
