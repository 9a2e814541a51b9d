#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "db/flags.h"

int ptx_policy_parse(const char *s, enum ptx_policy *out)
{
	if (strcmp(s, "none") == 0)
		*out = PTX_NONE;
	else if (strcmp(s, "highest") == 0)
		*out = PTX_HIGHEST;
	else if (strcmp(s, "all") == 0)
		*out = PTX_ALL;
	else
		return -1;
	return 0;
}

/* A message built from several offending capabilities, one line each. */
struct problems {
	char text[3072];
	size_t len;
	int count;
};

static void problem(struct problems *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct problems *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->len + 4 >= sizeof p->text)
		return;
	p->text[p->len++] = '\n';
	p->text[p->len++] = ' ';
	p->text[p->len++] = ' ';
	va_start(ap, fmt);
	n = vsnprintf(p->text + p->len, sizeof p->text - p->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->len += (size_t)n < sizeof p->text - p->len ? (size_t)n : sizeof p->text - p->len - 1;
	p->count++;
}

static const char *ver(struct cuda_version v, char *buf)
{
	struct cuda_version mm = { v.major, v.minor, -1 };

	return cuda_version_str(mm, buf, 16);
}

static const char *capname(const struct gpu_cap *c, char *buf)
{
	char tok[16];

	snprintf(buf, 32, "sm_%s", gpu_cap_token(c, tok, sizeof tok));
	return buf;
}

static int pre_sbsa_jetson(const struct gpudb *db, const struct gpu_cap *c, struct cuda_version v);
static int jetson_sbsa_ok(const struct gpu_cap *c, struct cuda_version v);

/* Whether CUDA v serves Jetson GPU c at all: in the release, and from the L4T
 * (linux-aarch64) or the SBSA libraries (Orin: not on 13.0 and 13.1). */
static int jetson_served(const struct gpudb *db, const struct gpu_cap *c, struct cuda_version v)
{
	return gpu_cap_supported_by(c, v) && (pre_sbsa_jetson(db, c, v) || jetson_sbsa_ok(c, v));
}

char *flags_jetson_boards(const struct gpudb *db, struct cuda_version v)
{
	struct strvec lines = STRVEC_INIT;
	char *s, name[32];

	for (size_t i = 0; i < db->n_caps; i++) {
		const struct gpu_cap *c = &db->caps[i];

		if (!c->jetson || c->variant)
			continue;
		strvec_pushf(&lines, "    %-40s %s (-arch %s)%s", c->boards ? c->boards : c->arch,
			     gpu_cap_name(c, name, sizeof name), capname(c, (char[32]){0}),
			     !gpu_cap_supported_by(c, v) ? "  [not in this CUDA version]"
			     : jetson_served(db, c, v) ? "" : "  [not served by this CUDA version]");
	}
	s = strvec_join(&lines, "\n");
	strvec_free(&lines);
	return s;
}

int flags_check_cuda(const struct gpudb *db, struct cuda_version v, struct xcc_error *err)
{
	const struct cuda_version *last = gpudb_last_minor(db, v.major);
	char b[16], b2[16];

	if (gpudb_never_released(db, v))
		return xcc_fail(err, XCC_EUSAGE,
				"CUDA %s was never released; pick another version (e.g. %d.%d or %d.%d)",
				ver(v, b), v.major, v.minor - 1, v.major, v.minor + 1);
	if (cuda_version_cmp(v, (struct cuda_version){ 11, 0, -1 }) < 0)
		return xcc_fail(err, XCC_EUSAGE,
				"CUDA %s is older than cuda-xcc supports; use CUDA 11.0 or newer",
				ver(v, b));
	if (last && cuda_version_cmp(v, *last) > 0)
		return xcc_fail(err, XCC_EUSAGE,
				"CUDA %s does not exist: %s was the last CUDA %d release; use %s or "
				"older, or CUDA %d.0 or newer", ver(v, b), ver(*last, b2), v.major,
				ver(*last, (char[16]){ 0 }), v.major + 1);
	/* A new major release may drop, add or rename GPUs (13.0 dropped
	 * sm_50-sm_72 and renamed sm_101): nothing in the tables holds for it. */
	if (v.major > db->newest_known.major)
		return xcc_fail(err, XCC_EUSAGE,
				"CUDA %s is newer than any release cuda-xcc knows (its tables end at "
				"%s): a new major release changes which GPUs exist, so cuda-xcc cannot "
				"check the build. Use CUDA %s or older, or a newer cuda-xcc.",
				ver(v, b), ver(db->newest_known, b2),
				ver(db->newest_known, (char[16]){ 0 }));
	return 0;
}

char *flags_cuda_warning(const struct gpudb *db, struct cuda_version v)
{
	char b[16], b2[16];
	const char *what = gpudb_cuda_unverified(db, v);

	if (what)
		return xasprintf("CUDA %d.%d is in cuda-xcc's tables, but unverified: %s; GPUs are "
				 "checked as the tables hold them", v.major, v.minor, what);
	if (cuda_version_cmp(v, db->newest_known) <= 0)
		return NULL;
	return xasprintf("CUDA %s is newer than the newest release cuda-xcc's tables know (%s); "
			 "GPUs are checked as for %s, which a newer release may have changed",
			 ver(v, b), ver(db->newest_known, b2), ver(db->newest_known, (char[16]){ 0 }));
}

/* Add cap to the set (once) with the outputs asked for: SASS, PTX, LTO-IR. */
static void add_outputs(struct arch_choice *c, const struct gpu_cap *cap, int sass, int ptx,
			int lto)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->entries[i].cap == cap) {
			c->entries[i].sass |= sass;
			c->entries[i].ptx |= ptx;
			c->entries[i].lto |= lto;
			return;
		}
	}
	XGROW(c->entries, c->n + 1, c->cap_entries);
	c->entries[c->n++] = (struct arch_entry){ cap, sass, ptx, lto, 0 };
}

/* Add cap's SASS to the set; ptx asks for its PTX as well. */
static void add_entry(struct arch_choice *c, const struct gpu_cap *cap, int ptx)
{
	add_outputs(c, cap, 1, ptx, 0);
}

/* A capability that only a keyword brought in (all-major): the target's
 * Jetson checks do not apply to it. */
static void add_keyword_entry(struct arch_choice *c, const struct gpu_cap *cap)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->entries[i].cap == cap)
			return;
	add_entry(c, cap, 0);
	c->entries[c->n - 1].from_keyword = 1;
}

static int entry_cmp(const void *a, const void *b)
{
	return gpu_cap_cmp(((const struct arch_entry *)a)->cap, ((const struct arch_entry *)b)->cap);
}

static int is_aarch64(const struct target_profile *t)
{
	return strcmp(t->machine, "aarch64") == 0;
}

static int below(const struct gpu_cap *c, int major, int minor)
{
	return c->major < major || (c->major == major && c->minor < minor);
}

/* Jetson capabilities the linux-aarch64 (L4T) redist serves for this version. */
static int pre_sbsa_jetson(const struct gpudb *db, const struct gpu_cap *c, struct cuda_version v)
{
	int tmaj, tmin;

	gpudb_sbsa_threshold(db, v, &tmaj, &tmin);
	return c->jetson && below(c, tmaj, tmin);
}

static int jetson_sbsa_ok(const struct gpu_cap *c, struct cuda_version v)
{
	return !c->has_sbsa_from || cuda_version_cmp(v, c->sbsa_from) >= 0;
}

/* "-arch sm_87 for Orin": an example GPU that this same command accepts
 * (target t, CUDA v), for refusals that ask for one; the first of a few
 * per kind of target that flags_resolve takes. */
static char *example_arch(const struct gpudb *db, const struct target_profile *t,
			  struct cuda_version v)
{
	static const char *const jetson[][2] = { { "sm_87", "Orin" }, { "sm_110", "Thor" },
						 { "sm_101", "Thor" }, { "sm_72", "Xavier" },
						 { NULL, NULL } };
	static const char *const server[][2] = { { "sm_90", "Hopper" }, { "sm_86", "Ampere" },
						 { "sm_75", "Turing" }, { NULL, NULL } };
	const char *const (*c)[2] = t->jetson_only ? jetson : server;

	for (; (*c)[0]; c++) {
		struct strvec spec = STRVEC_INIT;
		struct arch_choice ch;
		struct xcc_error e = { 0 };
		int ok;

		strvec_push(&spec, (*c)[0]);
		ok = flags_resolve(db, t, v, &spec, PTX_NONE, &ch, &e) == 0;
		if (ok)
			arch_choice_free(&ch);
		strvec_free(&spec);
		if (ok)
			return xasprintf("-arch %s for %s", (*c)[0], (*c)[1]);
	}
	return xstrdup("-arch sm_XX, the device's own");
}

/* Expand a keyword into capabilities; returns 1 if tok was a keyword. */
static int expand_keyword(const struct gpudb *db, const struct target_profile *t,
			  struct cuda_version v, const char *tok, struct arch_choice *out,
			  struct xcc_error *err, int *failed)
{
	int all = strcmp(tok, "all") == 0;
	int major_only = strcmp(tok, "all-major") == 0;
	int dflt = strcmp(tok, "default") == 0;
	char b[16];

	*failed = 0;
	if (strcmp(tok, "native") == 0) {
		char *ex = example_arch(db, t, v);

		*failed = 1;
		xcc_fail(err, XCC_EUSAGE,
			 "-arch native asks the build machine's GPU, which says nothing about the "
			 "target device; name the device's capability instead (e.g. %s)", ex);
		free(ex);
		return 1;
	}
	if (!all && !major_only && !dflt)
		return 0;
	if (t->jetson_only && !all) {
		char *boards = flags_jetson_boards(db, v), *ex = example_arch(db, t, v);

		*failed = 1;
		xcc_fail(err, XCC_EUSAGE,
			 "-arch %s means nothing for --target %s: the board decides. Jetson boards "
			 "and their capabilities (CUDA %s):\n%s\nPass the board's capability, "
			 "e.g. %s.", tok, t->name, ver(v, b), boards, ex);
		free(boards);
		free(ex);
		return 1;
	}
	if (t->jetson_only) {
		/* Every board this version can serve from one tag: the L4T boards
		 * if there are any, else the SBSA-served ones. */
		int have_pre = 0;

		for (size_t i = 0; i < db->n_caps; i++) {
			const struct gpu_cap *c = &db->caps[i];

			if (c->jetson && !c->variant && gpu_cap_supported_by(c, v) &&
			    pre_sbsa_jetson(db, c, v))
				have_pre = 1;
		}
		for (size_t i = 0; i < db->n_caps; i++) {
			const struct gpu_cap *c = &db->caps[i];

			if (!c->jetson || c->variant || !gpu_cap_supported_by(c, v))
				continue;
			if (pre_sbsa_jetson(db, c, v) == have_pre && (have_pre || jetson_sbsa_ok(c, v)))
				add_entry(out, c, 0);
		}
		return 1;
	}
	if (major_only) {
		/* nvcc's own all-major (checked with nvcc 13.0 --dryrun, and
		 * CMake's table): the lowest capability the release supports and
		 * every X.0 (13.0: sm_75 sm_80 sm_90 sm_100 sm_110 sm_120; 11.8:
		 * sm_35 sm_50 sm_60 sm_70 sm_80 sm_90), less those the target
		 * cannot serve: -arch sm_110 (Jetson Thor) is refused for x86_64,
		 * so all-major leaves it out there too. */
		const struct gpu_cap *lowest = NULL;

		for (size_t i = 0; i < db->n_caps; i++) {
			const struct gpu_cap *c = &db->caps[i];

			if (c->variant || !gpu_cap_supported_by(c, v) ||
			    !flags_target_accepts(db, t, c, &v))
				continue;
			if (!lowest)
				lowest = c;
			if (c == lowest || c->minor == 0)
				add_keyword_entry(out, c);
		}
		return 1;
	}
	for (size_t i = 0; i < db->n_caps; i++) {
		const struct gpu_cap *c = &db->caps[i];

		if (dflt ? !gpu_cap_default_for(c, v)
			 : (c->jetson || c->variant || !gpu_cap_supported_by(c, v)))
			continue;
		add_entry(out, c, 0);
	}
	return 1;
}

static void list_known(const struct gpudb *db, struct cuda_version v, char *buf, size_t len)
{
	size_t off = 0;
	char tok[16];

	buf[0] = '\0';
	for (size_t i = 0; i < db->n_caps && off < len; i++) {
		if (!gpu_cap_supported_by(&db->caps[i], v))
			continue;
		int n = snprintf(buf + off, len - off, "%s%s", off ? " " : "",
				 gpu_cap_token(&db->caps[i], tok, sizeof tok));
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* compute_XX is SASS and PTX for XX in cuda-xcc (-gencode arch=compute_XX,
 * code=[sm_XX,compute_XX]); nvcc's own -arch=compute_XX alone embeds PTX
 * only. Said once per capability where the driver rewrites it. */
static void note_compute(struct strvec *notes, const struct gpu_cap *c)
{
	char tok[16];

	gpu_cap_token(c, tok, sizeof tok);
	strvec_pushf(notes, "compute_%s means SASS and PTX for %d.%d in cuda-xcc "
		     "(-gencode=arch=compute_%s,code=sm_%s and code=compute_%s), where nvcc's "
		     "own -arch=compute_%s embeds PTX only; for nvcc's meaning pass "
		     "-gencode=arch=compute_%s,code=compute_%s yourself", tok, c->major, c->minor,
		     tok, tok, tok, tok, tok, tok);
}

void flags_compute_notes(const struct gpudb *db, const struct strvec *arch, struct strvec *notes)
{
	struct strvec toks = STRVEC_INIT;

	for (size_t i = 0; i < arch->n; i++)
		strvec_split(&toks, arch->v[i]);
	for (size_t i = 0; i < toks.n; i++) {
		struct gpu_cap_spelling how;
		const struct gpu_cap *c;

		for (char *p = toks.v[i]; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		if ((c = gpudb_cap_named(db, toks.v[i], &how)) && how.prefix == GPU_CAP_COMPUTE)
			note_compute(notes, c);
	}
	strvec_free(&toks);
}

static int collect(const struct gpudb *db, const struct target_profile *t, struct cuda_version v,
		   const struct strvec *specs, struct arch_choice *out, struct xcc_error *err)
{
	struct strvec toks = STRVEC_INIT;
	struct problems unknown = { .len = 0 };
	int rc = 0;

	for (size_t i = 0; i < specs->n; i++)
		strvec_split(&toks, specs->v[i]);
	if (!toks.n)
		strvec_push(&toks, "default");
	for (size_t i = 0; i < toks.n; i++) {
		char *tok = toks.v[i];
		struct gpu_cap_spelling how;
		int failed;
		const struct gpu_cap *c;

		for (char *p = tok; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		if (expand_keyword(db, t, v, tok, out, err, &failed)) {
			if (failed) {
				rc = -1;
				goto done;
			}
			continue;
		}
		if (!(c = gpudb_cap_named(db, tok, &how))) {
			problem(&unknown, "'%s' is not a known GPU capability", toks.v[i]);
			continue;
		}
		if (how.prefix == GPU_CAP_LTO)
			add_outputs(out, c, 0, 0, 1);
		else
			add_entry(out, c, how.prefix == GPU_CAP_COMPUTE);
	}
	if (unknown.count) {
		char known[1024], b[16];

		list_known(db, v, known, sizeof known);
		rc = xcc_fail(err, XCC_EUSAGE,
			      "unknown GPU capabilit%s:%s\nCUDA %s knows: %s\n"
			      "Spell them as sm_87, 87, 8.7, compute_87, lto_87 or sm_90a; see 'cuda-xcc gpus'.",
			      unknown.count > 1 ? "ies" : "y", unknown.text, ver(v, b), known);
	}
done:
	strvec_free(&toks);
	return rc;
}

static int check_versions(const struct arch_choice *c, struct cuda_version v, struct xcc_error *err)
{
	struct problems p = { .len = 0 };
	char n[32], b1[16], b2[16];

	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;

		if (cuda_version_cmp(v, cap->min_cuda) < 0)
			problem(&p, "%s (%s) needs CUDA %s or newer", capname(cap, n), cap->arch,
				ver(cap->min_cuda, b1));
		else if (cap->has_max && cuda_version_cmp(v, cap->max_cuda) > 0 && cap->renamed_to) {
			char renamed[32];

			snprintf(renamed, sizeof renamed, "sm_%d%d%.1s", cap->renamed_major,
				 cap->renamed_minor, &cap->variant);
			problem(&p, "%s (%s) was renamed %s in CUDA %d.0 (the same GPU); use -arch %s "
				"with CUDA %d.0 or newer, or --cuda %s for %s", capname(cap, n),
				cap->boards, renamed, cap->max_cuda.major + 1, renamed,
				cap->max_cuda.major + 1, ver(cap->max_cuda, b1),
				capname(cap, (char[32]){ 0 }));
		}
		else if (cap->has_max && cuda_version_cmp(v, cap->max_cuda) > 0) {
			struct cuda_version removed = { cap->max_cuda.major, cap->max_cuda.minor + 1, -1 };

			/* x.9 is the last minor release of every CUDA major so far. */
			if (cap->max_cuda.minor == 9)
				removed = (struct cuda_version){ cap->max_cuda.major + 1, 0, -1 };
			if (cap->max_cuda.major == 11 && cap->max_cuda.minor == 8)
				removed = (struct cuda_version){ 12, 0, -1 };
			problem(&p, "%s (%s) was removed in CUDA %s, last supported by %s",
				capname(cap, n), cap->arch, ver(removed, b1), ver(cap->max_cuda, b2));
		}
		/* Device LTO (-dlto, code=lto_XX) came with CUDA 11.2. */
		if (c->entries[i].lto && cuda_version_cmp(v, (struct cuda_version){ 11, 2, -1 }) < 0)
			problem(&p, "lto_%s (LTO-IR, for -dlto) needs CUDA 11.2 or newer",
				gpu_cap_token(cap, n, sizeof n));
	}
	if (p.count)
		return xcc_fail(err, XCC_EUSAGE,
				"GPU capabilit%s not supported by CUDA %s:%s\n"
				"Drop %s, or pick a CUDA version that supports %s ('cuda-xcc gpus' shows the ranges).",
				p.count > 1 ? "ies" : "y", ver(v, b1), p.text,
				p.count > 1 ? "them" : "it", p.count > 1 ? "them" : "it");
	return 0;
}

static int check_families(const struct arch_choice *c, struct xcc_error *err)
{
	struct problems p = { .len = 0 };
	char n1[32], n2[32];

	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *f = c->entries[i].cap;

		if (f->variant != 'f')
			continue;
		for (size_t j = 0; j < c->n; j++) {
			const struct gpu_cap *base = c->entries[j].cap;

			if (!base->variant && base->major == f->major && base->minor == f->minor)
				problem(&p, "%s together with its own baseline %s", capname(f, n1),
					capname(base, n2));
		}
	}
	if (p.count)
		return xcc_fail(err, XCC_EUSAGE,
				"a family-specific capability may not be mixed with its baseline "
				"(nvcc refuses it):%s\nKeep only one of the two: the f variant "
				"runs on the whole family, the plain one also gives forward-compatible code.",
				p.text);
	return 0;
}

static int check_jetson(const struct gpudb *db, const struct target_profile *t,
			struct cuda_version v, const struct arch_choice *c, struct xcc_error *err)
{
	struct problems p = { .len = 0 };
	char n[32], b[16];

	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;

		if (c->entries[i].from_keyword && !t->jetson_only)
			continue;
		if (cap->jetson && !is_aarch64(t))
			problem(&p, "%s is a Jetson GPU (%s), and Jetsons are aarch64", capname(cap, n),
				cap->boards);
		else if (!cap->jetson && t->jetson_only)
			problem(&p, "%s (%s) is not a Jetson GPU", capname(cap, n), cap->arch);
	}
	if (p.count) {
		char *boards = flags_jetson_boards(db, v);

		xcc_fail(err, XCC_EUSAGE,
			 "GPU capabilit%s that --target %s cannot serve:%s\n"
			 "%s\nJetson boards and their capabilities (CUDA %s):\n%s",
			 p.count > 1 ? "ies" : "y", t->name, p.text,
			 t->jetson_only ? "For Arm servers with discrete GPUs use --target sbsa."
					: "For a Jetson board use --target jetson.",
			 ver(v, b), boards);
		free(boards);
		return -1;
	}
	return 0;
}

/* "Use --cuda 12.9 or older, or --cuda 13.2 or newer.": only the versions
 * every GPU of c is in (sm_110 has no 12.9), else the set to split. */
static char *cuda_way_out(const struct arch_choice *c, struct cuda_version from)
{
	struct cuda_version last_l4t = { 12, 9, -1 };
	int lower = 1, upper = 1;
	char b[16];

	for (size_t i = 0; i < c->n; i++) {
		lower &= gpu_cap_supported_by(c->entries[i].cap, last_l4t);
		upper &= gpu_cap_supported_by(c->entries[i].cap, from);
	}
	ver(from, b);
	if (lower && upper)
		return xasprintf("Use --cuda 12.9 or older, or --cuda %s or newer.", b);
	if (upper)
		return xasprintf("Use --cuda %s or newer.", b);
	if (lower)
		return xstrdup("Use --cuda 12.9 or older.");
	return xstrdup("No CUDA release serves all of these GPUs: build once per board family.");
}

/* cuda-facts section 1: linux-aarch64 iff some Jetson capability is below
 * T(V); those pre-SBSA capabilities cannot share a build with anything else. */
static int choose_tag(const struct gpudb *db, const struct target_profile *t, struct cuda_version v,
		      struct arch_choice *c, struct xcc_error *err)
{
	const char *tag = t->tags[0].tag;
	const struct target_tag *tt;
	char n1[32], n2[32], b[16], b2[16];

	if (is_aarch64(t)) {
		const struct gpu_cap *pre = NULL, *other = NULL;

		for (size_t i = 0; i < c->n; i++) {
			const struct gpu_cap *cap = c->entries[i].cap;

			if (pre_sbsa_jetson(db, cap, v))
				pre = pre ? pre : cap;
			else
				other = other ? other : cap;
		}
		if (pre && other)
			return xcc_fail(err, XCC_EUSAGE,
					"%s (%s) cannot be mixed with %s: with CUDA %s, %s is served by the "
					"L4T (linux-aarch64) libraries and %s by linux-sbsa, and one build "
					"uses one of them.\nBuild once per board family.",
					capname(pre, n1), pre->boards, capname(other, n2), ver(v, b),
					capname(pre, (char[32]){0}), capname(other, (char[32]){0}));
		tag = pre ? "linux-aarch64" : "linux-sbsa";
		for (size_t i = 0; !pre && i < c->n; i++) {
			const struct gpu_cap *cap = c->entries[i].cap;

			if (!cap->jetson)
				continue;
			if (!jetson_sbsa_ok(cap, v)) {
				char *way = cuda_way_out(c, cap->sbsa_from);

				xcc_fail(err, XCC_EUSAGE,
					 "%s (%s) cannot be served by CUDA %s: its L4T "
					 "(linux-aarch64) libraries ended with CUDA 12.9, and linux-sbsa "
					 "serves it only from CUDA %s on.\n%s",
					 capname(cap, n1), cap->boards, ver(v, b),
					 ver(cap->sbsa_from, b2), way);
				free(way);
				return -1;
			}
		}
	}
	tt = target_find_tag(t, tag);
	if (!tt)
		return xcc_fail(err, XCC_EUSAGE,
				"--target %s cannot serve these GPUs: with CUDA %s they need the %s "
				"libraries, which are for Jetson boards.\nUse --target jetson.",
				t->name, ver(v, b), tag);
	if (!target_tag_available(tt, v)) {
		char ranges[256] = "";
		size_t off = 0;

		for (size_t i = 0; i < tt->n_ranges; i++) {
			int k = snprintf(ranges + off, sizeof ranges - off, "%s%s-%s", i ? ", " : "",
					 ver(tt->ranges[i][0], b), ver(tt->ranges[i][1], b2));
			if (k > 0)
				off += (size_t)k;
		}
		return xcc_fail(err, XCC_EUSAGE,
				"NVIDIA publishes no %s libraries for CUDA %s, so --target %s cannot "
				"build for these GPUs with it.\n%s exists for CUDA %s; pick one of those "
				"versions.", tag, ver(v, b), t->name, tag, ranges);
	}
	c->tag = tt->tag;
	c->target_dir = tt->target_dir;
	return 0;
}

/*
 * PTX is decided by GPU, not by target: the same Orin or Thor gets the same
 * code through --target jetson and --target sbsa. A Jetson's driver comes
 * with its JetPack and lags the toolkit, and PTX from a newer toolkit fails
 * to JIT there ("the provided PTX was compiled with an unsupported
 * toolchain"), so by default Tegra GPUs get SASS only and PTX goes to the
 * highest other plain capability. Family PTX (compute_100f) is allowed: the
 * driver JIT-compiles it for every GPU of that family. Arch-specific PTX
 * (compute_90a) runs on exactly one GPU, whose SASS the build already has:
 * it is refused as a mistake.
 */
static int apply_ptx(enum ptx_policy ptx, struct arch_choice *c, struct xcc_error *err)
{
	struct problems p = { .len = 0 };
	char n[32];
	ssize_t highest = -1;
	int by_gpu = ptx == PTX_DEFAULT;

	if (by_gpu)
		ptx = PTX_HIGHEST;
	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;

		if (c->entries[i].ptx && cap->variant == 'a')
			problem(&p, "compute_%s", gpu_cap_token(cap, n, sizeof n));
		if (!cap->variant && !(by_gpu && cap->tegra))
			highest = (ssize_t)i;
	}
	if (p.count)
		return xcc_fail(err, XCC_EUSAGE,
				"PTX asked for an arch-specific capability:%s\n"
				"a code runs on exactly that one GPU, so its PTX can never be JIT-compiled "
				"for another one; ask for the SASS (sm_XXa) and take PTX from the plain "
				"capability (e.g. compute_90) or the family (e.g. compute_100f).", p.text);
	for (size_t i = 0; i < c->n; i++) {
		const struct gpu_cap *cap = c->entries[i].cap;

		if (cap->variant || (by_gpu && cap->tegra))
			continue;
		if (ptx == PTX_ALL || (ptx == PTX_HIGHEST && (ssize_t)i == highest))
			c->entries[i].ptx = 1;
	}
	return 0;
}

int flags_resolve(const struct gpudb *db, const struct target_profile *t,
		  struct cuda_version v, const struct strvec *specs,
		  enum ptx_policy ptx, struct arch_choice *out, struct xcc_error *err)
{
	memset(out, 0, sizeof *out);
	out->target = t;
	out->cuda = v;
	if (flags_check_cuda(db, v, err) || collect(db, t, v, specs, out, err))
		goto fail;
	{
		char *w = flags_cuda_warning(db, v);

		if (w)
			strvec_push(&out->warnings, w);
		free(w);
	}
	if (!out->n) {
		char b[16];

		xcc_fail(err, XCC_EUSAGE, "no GPU capability of that set exists in CUDA %s for --target %s",
			 ver(v, b), t->name);
		goto fail;
	}
	qsort(out->entries, out->n, sizeof *out->entries, entry_cmp);
	if (check_versions(out, v, err) || check_jetson(db, t, v, out, err) ||
	    check_families(out, err) || choose_tag(db, t, v, out, err) ||
	    apply_ptx(ptx, out, err))
		goto fail;
	return 0;
fail:
	arch_choice_free(out);
	return -1;
}

void flags_specs_from_nvcc_value(struct strvec *specs, const char *value)
{
	struct strvec toks = STRVEC_INIT;
	char *copy = xstrdup(value);

	/* code=[sm_80,compute_80]: the brackets group a list. */
	for (char *p = copy; *p; p++)
		if (*p == '[' || *p == ']')
			*p = ',';
	strvec_split(&toks, copy);
	for (size_t i = 0; i < toks.n; i++)
		strvec_push(specs, toks.v[i]);
	strvec_free(&toks);
	free(copy);
}

int flags_target_accepts(const struct gpudb *db, const struct target_profile *t,
			 const struct gpu_cap *c, const struct cuda_version *v)
{
	if (t->jetson_only)
		return c->jetson;
	if (!is_aarch64(t))
		return !c->jetson;
	if (!c->jetson)
		return 1;
	if (v)
		return !pre_sbsa_jetson(db, c, *v) && jetson_sbsa_ok(c, *v);
	/* Some CUDA version serves it from linux-sbsa: at or above the lowest
	 * threshold (the data lists the thresholds newest first). */
	for (size_t i = 0; i < db->n_thresholds; i++)
		if (!below(c, db->thresholds[i].major, db->thresholds[i].minor))
			return 1;
	return 0;
}

void arch_choice_free(struct arch_choice *c)
{
	free(c->entries);
	strvec_free(&c->warnings);
	memset(c, 0, sizeof *c);
}

void arch_choice_gencode(const struct arch_choice *c, struct strvec *out)
{
	char tok[16];

	for (size_t i = 0; i < c->n; i++) {
		gpu_cap_token(c->entries[i].cap, tok, sizeof tok);
		if (c->entries[i].sass)
			strvec_pushf(out, "-gencode=arch=compute_%s,code=sm_%s", tok, tok);
		if (c->entries[i].lto)
			strvec_pushf(out, "-gencode=arch=compute_%s,code=lto_%s", tok, tok);
		if (c->entries[i].ptx)
			strvec_pushf(out, "-gencode=arch=compute_%s,code=compute_%s", tok, tok);
	}
}

void arch_choice_sass_to_lto(struct arch_choice *c)
{
	for (size_t i = 0; i < c->n; i++) {
		c->entries[i].lto |= c->entries[i].sass;
		c->entries[i].sass = 0;
	}
}

void arch_choice_lto_to_sass(struct arch_choice *c)
{
	for (size_t i = 0; i < c->n; i++) {
		c->entries[i].sass |= c->entries[i].lto;
		c->entries[i].lto = 0;
	}
}

/* CUDA_ARCHITECTURES has no spelling for LTO-IR (CMake asks for it with
 * INTERPROCEDURAL_OPTIMIZATION): an LTO-IR entry is written as its SASS. */
char *arch_choice_cmake(const struct arch_choice *c)
{
	struct strvec parts = STRVEC_INIT;
	char tok[16], *s;

	for (size_t i = 0; i < c->n; i++) {
		const struct arch_entry *e = &c->entries[i];

		int sass = e->sass || e->lto;

		gpu_cap_token(e->cap, tok, sizeof tok);
		strvec_pushf(&parts, "%s%s", tok,
			     sass && e->ptx ? "" : sass ? "-real" : "-virtual");
	}
	s = strvec_join(&parts, ";");
	strvec_free(&parts);
	return s;
}

static int resolves(const struct gpudb *db, const struct target_profile *t, struct cuda_version v,
		    const struct strvec *specs)
{
	struct arch_choice c;
	struct xcc_error err = { 0 };

	if (gpudb_never_released(db, v) || flags_resolve(db, t, v, specs, PTX_DEFAULT, &c, &err))
		return 0;
	arch_choice_free(&c);
	return 1;
}

char *flags_newest_cuda(const struct gpudb *db, const struct target_profile *t,
			const struct strvec *specs)
{
	struct cuda_version v = { db->newest_known.major, db->newest_known.minor, -1 };
	char b[16];

	while (v.major >= 11) {
		/* A release the tables hold unverified is not the one to suggest. */
		if (!gpudb_cuda_unverified(db, v) && resolves(db, t, v, specs))
			return xstrdup(ver(v, b));
		if (v.minor > 0) {
			v.minor--;
		} else {
			const struct cuda_version *last = gpudb_last_minor(db, --v.major);

			v.minor = last ? last->minor : 9;
		}
	}
	return NULL;
}

char *flags_newest_jetson_arch(const struct gpudb *db, const struct target_profile *t,
			       struct cuda_version v)
{
	char name[32];

	for (size_t i = db->n_caps; i-- > 0;) {
		const struct gpu_cap *c = &db->caps[i];
		struct strvec one = STRVEC_INIT;
		int ok;

		if (!c->jetson || c->variant)
			continue;
		strvec_push(&one, capname(c, name));
		ok = resolves(db, t, v, &one);
		strvec_free(&one);
		if (ok)
			return xstrdup(name);
	}
	return NULL;
}
