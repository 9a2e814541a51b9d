/* Downloads into a content-addressed cache, and verification.
 *
 * A download goes to <cache>/<sha256>.part, hashed as it arrives, and is
 * renamed to <cache>/<sha256> only once its size and hash match: a file
 * under its final name is always complete. A .part survives a failed run
 * and the next attempt resumes it with a Range request. Its lock (flock)
 * makes processes that share the cache, CI runners with one download
 * directory, wait for each other's download of a file and take it. */
#include <config.h>

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/interrupt.h"
#include "base/sha256.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "pkg/cache.h"
#include "pkg/fetch.h"
#include "pkg/fetch_local.h"

#define DEFAULT_RETRIES 3
#define DEFAULT_STALL_S 60L

/* ---------------------------------------------------------------------------
 * Small helpers
 */

int fetch_is_url(const char *s)
{
	return strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0 ||
	       strncasecmp(s, "file://", 7) == 0;
}

static int is_file_url(const char *s)
{
	return strncasecmp(s, "file://", 7) == 0;
}

static void curl_global_setup(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* curl_global_init is not thread-safe in older libcurl, and downloads may
 * run from several threads. */
static void curl_setup_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, curl_global_setup);
}

/* The local path a file:// URL names. libcurl only parses it: a libcurl
 * built without the file protocol (the static build) must still accept it. */
int fetch_file_url_path(const char *url, char **path, struct xcc_error *err)
{
	CURLU *u;
	char *host = NULL, *p = NULL;
	int rc = 0;

	curl_setup_once();
	u = curl_url();
	if (!u || curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) ||
	    curl_url_get(u, CURLUPART_PATH, &p, CURLU_URLDECODE)) {
		rc = xcc_fail(err, XCC_EUSAGE, "%s: not a valid file:// URL", url);
		goto out;
	}
	if (!curl_url_get(u, CURLUPART_HOST, &host, 0) && host && *host &&
	    strcasecmp(host, "localhost") != 0) {
		rc = xcc_fail(err, XCC_EUSAGE, "%s: file:// URLs must name this machine (host %s)",
			      url, host);
		goto out;
	}
	*path = xstrdup(p);
out:
	curl_free(host);
	curl_free(p);
	curl_url_cleanup(u);
	return rc;
}

/* The file name a URL ends with, for messages. */
static char *url_file_name(const char *url)
{
	const char *end = url + strcspn(url, "?#");
	const char *start = end;

	while (start > url && start[-1] != '/')
		start--;
	return start < end ? xstrndup(start, (size_t)(end - start)) : xstrdup(url);
}

/* Lowercase a sha256 given by a manifest, refusing anything else. */
static int check_sha_arg(const char *sha, char out[65], struct xcc_error *err)
{
	size_t i;

	for (i = 0; sha[i] && i < 64; i++) {
		char c = sha[i];

		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			break;
		out[i] = c;
	}
	if (i != 64 || sha[64])
		return xcc_fail(err, XCC_EUSAGE,
				"'%s' is not a sha256 (64 hexadecimal digits expected)", sha);
	out[64] = '\0';
	return 0;
}

/* Add to the end of an error already recorded. */
static void append_note(struct xcc_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void append_note(struct xcc_error *err, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (!err)
		return;
	n = strlen(err->msg);
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------------------
 * Downloads
 */

struct transfer {
	CURL *curl;
	const struct fetch_opts *o;
	int fd;             /* the .part file, or -1 for fetch_text */
	struct xcc_sha256 hash; /* of everything in the .part */
	uint64_t offset;    /* bytes the .part held when the request went out */
	uint64_t received;  /* bytes written by this request */
	int64_t expect;     /* expected total size, or -1 */
	uint64_t cap;       /* with none expected, the most it may be; 0: no cap */
	int too_big;        /* aborted: more than cap */
	int started;        /* the first body bytes of this request arrived */
	curl_off_t seen;    /* body bytes of this request at the last progress call */
	struct timespec moved; /* when `seen` last grew (or the request began) */
	int stalled;        /* aborted: nothing arrived for the stall time */
	int64_t bad_size;   /* the server's total size, when it is not `expect` */
	int local_errno;    /* a write to disk failed */
	char *text;         /* fetch_text's buffer */
	size_t text_len, text_cap;
	int revalidating;   /* no promised hash: the server's Last-Modified is asked for */
	int64_t if_modified_since; /* > 0: ask for the file only if it is newer */
	int not_modified;   /* the server said 304: what we have is current */
	int64_t filetime;   /* the server's Last-Modified, or -1 */
};

/* The first bytes of a response: a server that ignored our Range sends the
 * whole file again, and Content-Length tells a wrong size early. */
static int transfer_start(struct transfer *t)
{
	long code = 0;
	curl_off_t length = -1;

	t->started = 1;
	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
	if (t->offset && code != 206) {
		if (ftruncate(t->fd, 0) || lseek(t->fd, 0, SEEK_SET)) {
			t->local_errno = errno ? errno : EIO;
			return -1;
		}
		xcc_sha256_init(&t->hash);
		t->offset = 0;
	}
	curl_easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
	if (t->cap && length >= 0 && t->offset + (uint64_t)length > t->cap) {
		t->too_big = 1;
		return -1;
	}
	if (t->expect >= 0 && length >= 0 && (int64_t)t->offset + length != t->expect) {
		t->bad_size = (int64_t)t->offset + length;
		return -1;
	}
	return 0;
}

static size_t write_part(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * nmemb, done = 0;

	if (!t->started && transfer_start(t))
		return 0;
	if (t->cap && t->offset + t->received + len > t->cap) {
		t->too_big = 1;
		return 0;
	}
	if (t->expect >= 0 && t->offset + t->received + len > (uint64_t)t->expect) {
		t->bad_size = (int64_t)(t->offset + t->received + len);
		return 0;
	}
	while (done < len) {
		ssize_t w = write(t->fd, data + done, len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			t->local_errno = errno;
			break;
		}
		xcc_sha256_update(&t->hash, data + done, (size_t)w);
		done += (size_t)w;
		t->received += (uint64_t)w;
	}
	return done;
}

static size_t write_text(char *data, size_t size, size_t nmemb, void *arg)
{
	struct transfer *t = arg;
	size_t len = size * nmemb;

	if (!t->started) {
		/* A retried text download starts over. */
		t->started = 1;
		t->text_len = 0;
	}
	if (t->text_len + len + 1 > FETCH_MAX_TEXT) {
		t->bad_size = (int64_t)(t->text_len + len);
		return 0;
	}
	if (t->text_len + len + 1 > t->text_cap) {
		while (t->text_len + len + 1 > t->text_cap)
			t->text_cap = t->text_cap ? 2 * t->text_cap : 64 * 1024;
		t->text = xrealloc(t->text, t->text_cap);
	}
	memcpy(t->text + t->text_len, data, len);
	t->text_len += len;
	return len;
}

static long stall_seconds(const struct fetch_opts *o)
{
	return o && o->stall_s > 0 ? (long)o->stall_s : DEFAULT_STALL_S;
}

/* Called about once a second even while nothing arrives, so it is also
 * the stall clock. curl's own LOW_SPEED_TIME judges an average over its
 * last few seconds of samples, so it fired some 6 s after the last byte
 * whatever the limit; this fires stall_s after it. */
static int progress_cb(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct transfer *t = arg;
	uint64_t total = t->expect >= 0 ? (uint64_t)t->expect :
			 dltotal > 0 ? t->offset + (uint64_t)dltotal : 0;
	struct timespec now;

	(void)ultotal;
	(void)ulnow;
	if (t->o && t->o->stop && atomic_load(t->o->stop))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (dlnow != t->seen) {
		t->seen = dlnow;
		t->moved = now;
	} else if (now.tv_sec - t->moved.tv_sec +
			   (now.tv_nsec - t->moved.tv_nsec) / 1e9 >= (double)stall_seconds(t->o)) {
		t->stalled = 1;
		return 1;
	}
	if (t->o && t->o->progress)
		t->o->progress(t->o->progress_arg, t->offset + (uint64_t)dlnow, total);
	return 0;
}

/* Where the trusted CA certificates are. SSL_CERT_FILE and SSL_CERT_DIR
 * (OpenSSL's variables) come first. Otherwise a libcurl with places of its
 * own (Debian's) keeps them, and one built without any (the static build,
 * which runs on any Linux) gets the first bundle of the usual places that
 * exists, else the first directory of hashed certificates. */
static void set_ca_places(CURL *c)
{
	static const char *const bundles[] = {
		"/etc/ssl/certs/ca-certificates.crt",                /* Debian, Arch */
		"/etc/pki/tls/certs/ca-bundle.crt",                  /* Fedora, RHEL */
		"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL 7 and later */
		"/etc/ssl/ca-bundle.pem",                            /* openSUSE */
		"/etc/ssl/cert.pem",                                 /* Alpine, OpenSSL's own */
		NULL,
	};
	static const char *const dirs[] = { "/etc/ssl/certs", "/etc/pki/tls/certs", NULL };
	const char *file = getenv("SSL_CERT_FILE"), *dir = getenv("SSL_CERT_DIR");
	struct stat st;

	if ((file && *file) || (dir && *dir)) {
		curl_easy_setopt(c, CURLOPT_CAINFO, file && *file ? file : NULL);
		curl_easy_setopt(c, CURLOPT_CAPATH, dir && *dir ? dir : NULL);
		return;
	}
#if LIBCURL_VERSION_NUM >= 0x074600 /* 7.70: curl_version_info tells its CA places */
	{
		const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);

		if (info->age >= CURLVERSION_SEVENTH && (info->cainfo || info->capath))
			return;
	}
#endif
	for (const char *const *f = bundles; *f; f++)
		if (stat(*f, &st) == 0 && S_ISREG(st.st_mode)) {
			curl_easy_setopt(c, CURLOPT_CAINFO, *f);
			return;
		}
	for (const char *const *d = dirs; *d; d++)
		if (stat(*d, &st) == 0 && S_ISDIR(st.st_mode)) {
			curl_easy_setopt(c, CURLOPT_CAPATH, *d);
			return;
		}
}

/* Where a redirect may lead: never off HTTP (file://, ftp://, ...), and
 * never from https to plain http, where anyone on the path could answer. */
static int https_only(const char *url)
{
	return strncasecmp(url, "https://", 8) == 0;
}

static CURL *curl_new(struct transfer *t, const char *url, char *errbuf)
{
	CURL *c;

	curl_setup_once();
	c = curl_easy_init();
	if (!c)
		return NULL;
	t->seen = 0;
	t->stalled = 0;
	clock_gettime(CLOCK_MONOTONIC, &t->moved);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, https_only(url) ? "https" : "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS,
			 https_only(url) ? (long)CURLPROTO_HTTPS : (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	/* A stalled connection (no byte for stall_s, headers included) is a
	 * failed attempt, retried and resumed, not a hang: progress_cb. */
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress_cb);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, t);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
	set_ca_places(c);
	return c;
}

enum attempt {
	ATTEMPT_DONE,
	ATTEMPT_RETRY, /* a transient failure: try again, resuming */
	ATTEMPT_FATAL,
};

/* A redirect that curl_new's protocols refused: named, with where it led. */
static int refused_redirect(struct transfer *t, const char *url, struct xcc_error *err)
{
	char *to = NULL;
	long redirects = 0;

	/* Following, curl names the refused URL as the effective one;
	 * REDIRECT_URL is where a redirect that was not followed leads. */
	curl_easy_getinfo(t->curl, CURLINFO_REDIRECT_COUNT, &redirects);
	curl_easy_getinfo(t->curl, CURLINFO_EFFECTIVE_URL, &to);
	if (to && strcmp(to, url) == 0)
		curl_easy_getinfo(t->curl, CURLINFO_REDIRECT_URL, &to);
	if (to && strcmp(to, url) == 0)
		to = NULL;
	if (!to && redirects == 0)
		return 0;
	xcc_fail(err, XCC_EFAIL, "%s: the server redirected to %s, which is refused: a download "
		 "follows redirects to http:// and https:// only, and from https:// to https:// "
		 "only; give the final URL if you trust it", url, to ? to : "another protocol");
	return 1;
}

/* Classify a finished transfer; err gets the reason either way. */
static enum attempt judge(struct transfer *t, CURLcode rc, const char *url, const char *errbuf,
			  struct xcc_error *err)
{
	long code = 0;

	if (rc == CURLE_OK)
		return ATTEMPT_DONE;
	if (t->o && t->o->stop && atomic_load(t->o->stop)) {
		xcc_fail(err, 128 + atomic_load(t->o->stop), "%s: download interrupted", url);
		return ATTEMPT_FATAL;
	}
	if (t->local_errno) {
		xcc_fail(err, XCC_EFAIL, "%s: writing the download failed: %s", url,
			 strerror(t->local_errno));
		return ATTEMPT_FATAL;
	}
	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_HTTP_RETURNED_ERROR) {
		xcc_fail(err, XCC_EFAIL, "%s: the server answered HTTP status %ld", url, code);
		/* Only server trouble and rate limits are worth retrying. */
		return code >= 500 || code == 408 || code == 429 ? ATTEMPT_RETRY : ATTEMPT_FATAL;
	}
	/* A libcurl built without a protocol (the static build's has no
	 * file://) reports the redirect's URL as malformed instead. */
	if ((rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) &&
	    refused_redirect(t, url, err))
		return ATTEMPT_FATAL;
	if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE)
		xcc_fail(err, XCC_EFAIL,
			 "%s: %s; the server's certificate could not be verified against the "
			 "trusted CA certificates (SSL_CERT_FILE or SSL_CERT_DIR name others "
			 "than the system's)", url, *errbuf ? errbuf : curl_easy_strerror(rc));
	else if (t->stalled && t->started)
		xcc_fail(err, XCC_EFAIL, "%s: the server stopped sending (nothing for %ld s)", url,
			 stall_seconds(t->o));
	else if (t->stalled)
		xcc_fail(err, XCC_EFAIL, "%s: the server did not answer (nothing for %ld s)", url,
			 stall_seconds(t->o));
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		xcc_fail(err, XCC_EFAIL, "%s: the server did not answer (%s)", url,
			 *errbuf ? errbuf : curl_easy_strerror(rc));
	else
		xcc_fail(err, XCC_EFAIL, "%s: %s", url, *errbuf ? errbuf : curl_easy_strerror(rc));
	switch (rc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_FILESIZE_EXCEEDED:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
		return ATTEMPT_FATAL;
	default:
		return ATTEMPT_RETRY;
	}
}

static void backoff(int attempt)
{
	long ms = 250L << (attempt < 4 ? attempt : 4);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int retries_of(const struct fetch_opts *o)
{
	return o && o->retries > 0 ? o->retries : o && o->retries < 0 ? 0 : DEFAULT_RETRIES;
}

/* A download without a promised hash asks for the server's Last-Modified
 * (to revalidate its cache entry next time) and, when it has an entry,
 * for the file only if it changed since. */
static void set_condition(struct transfer *t)
{
	if (!t->revalidating)
		return;
	curl_easy_setopt(t->curl, CURLOPT_FILETIME, 1L);
	if (t->if_modified_since <= 0)
		return;
	curl_easy_setopt(t->curl, CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_IFMODSINCE);
#if LIBCURL_VERSION_NUM >= 0x073B00 /* 7.59 */
	curl_easy_setopt(t->curl, CURLOPT_TIMEVALUE_LARGE, (curl_off_t)t->if_modified_since);
#else
	curl_easy_setopt(t->curl, CURLOPT_TIMEVALUE, (long)t->if_modified_since);
#endif
}

static void read_condition(struct transfer *t)
{
	long unmet = 0;

	if (!t->revalidating)
		return;
	if (t->if_modified_since > 0 &&
	    curl_easy_getinfo(t->curl, CURLINFO_CONDITION_UNMET, &unmet) == CURLE_OK && unmet)
		t->not_modified = 1;
#if LIBCURL_VERSION_NUM >= 0x073B00
	{
		curl_off_t ft = -1;

		curl_easy_getinfo(t->curl, CURLINFO_FILETIME_T, &ft);
		t->filetime = ft > 0 ? (int64_t)ft : -1;
	}
#else
	{
		long ft = -1;

		curl_easy_getinfo(t->curl, CURLINFO_FILETIME, &ft);
		t->filetime = ft > 0 ? (int64_t)ft : -1;
	}
#endif
}

/* A 304 answers a conditional request only: to any other it says nothing
 * about the bytes, and taking it would store an empty body as the file. */
static int not_modified_unasked(struct transfer *t, const char *url, struct xcc_error *err)
{
	long code = 0;

	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code != 304 || (t->revalidating && t->if_modified_since > 0))
		return 0;
	xcc_fail(err, XCC_EFAIL, "%s: the server answered 304 Not Modified to a request that "
		 "was not conditional; the server (or a proxy before it) is broken: nothing was "
		 "stored", url);
	return 1;
}

/*
 * Fill the locked .part behind t->fd from url until complete, resuming and
 * retrying. On return the .part holds the whole body (or the caller learns
 * why not); t->hash is its hash.
 */
static int download_part(struct transfer *t, const char *url, const char *shown,
			 struct xcc_error *err)
{
	char errbuf[CURL_ERROR_SIZE];
	int retries = retries_of(t->o);
	char range[32];

	for (int attempt = 0;; attempt++) {
		struct stat st;
		enum attempt verdict;
		CURLcode rc;

		if (fstat(t->fd, &st))
			return xcc_fail(err, XCC_EFAIL, "%s: %s", shown, strerror(errno));
		t->offset = (uint64_t)st.st_size;
		t->received = 0;
		t->started = 0;
		if (t->expect >= 0 && t->offset == (uint64_t)t->expect)
			return 0; /* a previous run got it all */
		errbuf[0] = '\0';
		t->curl = curl_new(t, url, errbuf);
		if (!t->curl)
			return xcc_fail(err, XCC_EFAIL, "%s: libcurl failed to start", url);
		curl_easy_setopt(t->curl, CURLOPT_WRITEFUNCTION, write_part);
		if (t->offset) {
			snprintf(range, sizeof range, "%" PRIu64 "-", t->offset);
			curl_easy_setopt(t->curl, CURLOPT_RANGE, range);
		}
		if (lseek(t->fd, (off_t)t->offset, SEEK_SET) < 0) {
			curl_easy_cleanup(t->curl);
			return xcc_fail(err, XCC_EFAIL, "%s: %s", shown, strerror(errno));
		}
		set_condition(t);
		rc = curl_easy_perform(t->curl);
		if (t->too_big) {
			curl_easy_cleanup(t->curl);
			return xcc_fail(err, XCC_EFAIL,
					"%s: larger than %" PRIu64 " bytes, the most a download with "
					"no promised size may be (%s); --max-download SIZE raises the "
					"bound, or give the archive through a manifest with its size "
					"and sha256", shown, t->cap, url);
		}
		if (t->bad_size >= 0) {
			curl_easy_cleanup(t->curl);
			return xcc_fail(err, XCC_EFAIL,
					"%s: size mismatch: expected %" PRId64 " bytes, the server "
					"has %" PRId64 " (%s)", shown, t->expect, t->bad_size, url);
		}
		verdict = judge(t, rc, url, errbuf, err);
		if (rc == CURLE_HTTP_RETURNED_ERROR && t->offset) {
			long code = 0;

			/* 416: our .part is no prefix of what the server has
			 * now; start over rather than give up. */
			curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
			if (code == 416 && ftruncate(t->fd, 0) == 0) {
				xcc_sha256_init(&t->hash);
				verdict = ATTEMPT_RETRY;
			}
		}
		if (verdict == ATTEMPT_DONE && not_modified_unasked(t, url, err))
			verdict = ATTEMPT_FATAL;
		if (verdict == ATTEMPT_DONE)
			read_condition(t);
		curl_easy_cleanup(t->curl);
		t->curl = NULL;
		if (verdict == ATTEMPT_DONE)
			return 0;
		if (verdict == ATTEMPT_FATAL)
			return -1;
		if (attempt >= retries)
			return xcc_error_prefix(err, "download failed after %d attempt%s",
						attempt + 1, attempt ? "s" : "");
		backoff(attempt);
	}
}

/*
 * Fill the locked .part behind t->fd with the whole file, resuming what it
 * holds, and check it against sha and size; actual gets its sha256, hashed
 * as the bytes went into the descriptor. A failure removes the .part,
 * unless it keeps received bytes for the next run: nothing ever reaches
 * the entry's final name but a complete file.
 */
static int fill_part(struct transfer *t, const char *url, const char *shown,
		     const struct fetch_cache *c, const char *part, const char *sha, int64_t size,
		     char actual[65], struct xcc_error *err)
{
	char *path = cache_path(c, part);
	uint64_t have;
	int resumed, rc = -1;

	xcc_sha256_init(&t->hash);
	/* A .part left by an earlier run is resumed: its bytes go into the
	 * hash first, unless it is already longer than the file can be. */
	if (cache_hash_fd(t->fd, &t->hash, &have)) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (size >= 0 && have > (uint64_t)size) {
		if (ftruncate(t->fd, 0)) {
			xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
			goto out;
		}
		xcc_sha256_init(&t->hash);
	}
	resumed = have > 0;
	for (;;) {
		if (download_part(t, url, shown, err)) {
			struct stat st;
			off_t kept = t->bad_size < 0 && !t->too_big && !t->local_errno &&
					     fstat(t->fd, &st) == 0 ? st.st_size : 0;

			/* An empty .part would only wait for ever; we hold its
			 * lock, and a waiter sees the inode go. Nor are bytes kept
			 * past the cap or on a disk that filled up: they would
			 * only hold the space a later run needs. */
			if (kept > 0)
				append_note(err, "; the %jd bytes received stay in %s, and the "
					    "next run resumes from them", (intmax_t)kept, path);
			else
				cache_remove(c, part);
			if (t->too_big || t->local_errno)
				append_note(err, "; the partial download %s was removed", path);
			goto out;
		}
		if (t->not_modified) {
			rc = 0; /* the entry we have is current: the caller takes it */
			goto out;
		}
		have = t->offset + t->received;
		xcc_sha256_hex(&t->hash, actual);
		if ((size < 0 || have == (uint64_t)size) && (!sha || strcmp(actual, sha) == 0)) {
			rc = 0;
			goto out;
		}
		/* A .part from an earlier run may hold bytes of another
		 * version of the file: one fresh download before giving up. */
		if (resumed) {
			resumed = 0;
			if (ftruncate(t->fd, 0) == 0) {
				xcc_sha256_init(&t->hash);
				continue;
			}
		}
		cache_remove(c, part);
		if (size >= 0 && have != (uint64_t)size)
			xcc_fail(err, XCC_EFAIL, "%s: size mismatch: expected %" PRId64 " bytes, got %"
				 PRIu64 " (%s); the download was removed", shown, size, have, url);
		else
			xcc_fail(err, XCC_EFAIL, "%s: sha256 mismatch: expected %s, got %s (%s); the "
				 "download was removed", shown, sha, actual, url);
		goto out;
	}
out:
	free(path);
	return rc;
}

/* What another process stored while we waited for the .part's lock: the
 * entry of the promised sha, or, without one, the one the URL's record,
 * replaced meanwhile, names; its descriptor, and name in `name`. -1 when
 * we are the one to download it. */
static int done_by_other(const struct fetch_cache *c, const char *sha, int64_t size,
			 const char *index, ino_t index_before, char name[65])
{
	struct cache_record r;
	ino_t now;
	int fd;

	if (sha) {
		memcpy(name, sha, 65);
		return cache_entry_open(c, sha, size);
	}
	now = cache_record_stamp(c, index);
	if (!now || now == index_before || (fd = cache_record_entry_open(c, index, &r)) < 0)
		return -1;
	memcpy(name, r.sha256, 65);
	return fd;
}

/* The names of a URL's files in the cache: with a promised hash, its entry
 * and .part; without, the URL's record and a .part named after the URL, so
 * that it can still be resumed. */
static void cache_names(const char *url, const char *sha, char part[80], char index[80])
{
	char h[65];

	if (sha) {
		snprintf(part, 80, "%s.part", sha);
		index[0] = '\0';
		return;
	}
	xcc_sha256_buffer(url, strlen(url), h);
	snprintf(part, 80, "url-%s.part", h);
	snprintf(index, 80, "url-%s", h);
}

/* *fdp: the verified file, read-only or not, at offset 0; *name: its entry. */
static int fetch_url(const struct fetch_opts *o, const char *url, const char *sha, int64_t size,
		     char name[65], int *fdp, struct xcc_error *err)
{
	char *dir = o && o->cache_dir ? xstrdup(o->cache_dir) : fetch_default_cache_dir();
	char *shown = url_file_name(url);
	char part[80], index[80], actual[65];
	struct fetch_cache c = { .dfd = -1 };
	struct cache_record prior = { .last_modified = -1 };
	struct transfer t = { .o = o, .fd = -1, .expect = size, .bad_size = -1, .filetime = -1,
			      .cap = size >= 0 ? 0 : o && o->max_size ? o->max_size :
					  FETCH_DEFAULT_MAX_SIZE };
	ino_t index_before = 0;
	int rc = -1, fd = -1;

	if (cache_open(&c, dir, err))
		goto out;
	cache_names(url, sha, part, index);
	if (sha && (fd = cache_entry_open(&c, sha, size)) >= 0) {
		memcpy(name, sha, 65);
		goto done;
	}
	if (!sha)
		index_before = cache_record_stamp(&c, index);
	t.fd = cache_part_open(&c, part, o ? o->stop : NULL, err);
	if (t.fd < 0)
		goto out;
	if ((fd = done_by_other(&c, sha, size, index, index_before, name)) >= 0) {
		/* Another process finished it while we waited for the lock.
		 * The .part we hold is a new, empty one (the other renamed
		 * its own): it goes, or every such race would leave one. */
		cache_remove(&c, part);
		goto done;
	}
	if (!sha) {
		t.revalidating = 1;
		/* The record's entry, hashed now: a 304 revalidates these
		 * bytes, the ones the record binds to the validator. */
		if ((fd = cache_record_entry_open(&c, index, &prior)) >= 0)
			t.if_modified_since = prior.last_modified > 0 ? prior.last_modified : 0;
	}
	if (fill_part(&t, url, shown, &c, part, sha, size, actual, err))
		goto out;
	if (t.not_modified) {
		/* The .part we hold is empty or older bytes of the same file. */
		cache_remove(&c, part);
		memcpy(name, prior.sha256, 65);
		goto done;
	}
	if (fd >= 0)
		close(fd);
	fd = -1;
	if (cache_store(&c, t.fd, part, actual, err))
		goto out;
	/* Before the lock goes: a waiter for the same URL finds it. */
	if (!sha) {
		struct cache_record r = { .last_modified = t.filetime };

		memcpy(r.sha256, actual, 65);
		cache_record_store(&c, index, &r, t.fd);
	}
	if (lseek(t.fd, 0, SEEK_SET) != 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", shown, strerror(errno));
		goto out;
	}
	/* The lock goes now: the descriptor stays open while the file is
	 * read, and waiters must not wait for that. */
	flock(t.fd, LOCK_UN);
	memcpy(name, actual, 65);
	fd = t.fd;
	t.fd = -1;
done:
	*fdp = fd;
	fd = -1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (t.fd >= 0)
		close(t.fd);
	cache_close(&c);
	free(dir);
	free(shown);
	return rc;
}

int fetch_file_fd(const struct fetch_opts *o, const char *src, const char *sha256_hex,
		  int64_t size, char **local_path, int *fdp, struct xcc_error *err)
{
	char sha[65], name[65];
	char *path;
	int fd = -1;

	*local_path = NULL;
	*fdp = -1;
	if (sha256_hex && check_sha_arg(sha256_hex, sha, err))
		return -1;
	if (fetch_is_url(src) && !is_file_url(src)) {
		char *dir = o && o->cache_dir ? xstrdup(o->cache_dir) : fetch_default_cache_dir();

		if (fetch_url(o, src, sha256_hex ? sha : NULL, size, name, &fd, err)) {
			free(dir);
			return -1;
		}
		*local_path = xasprintf("%s/%s", dir, name);
		*fdp = fd;
		free(dir);
		return 0;
	}
	/* Local files are checked where they are, and never removed: they
	 * are the user's, not the cache's. */
	if (is_file_url(src)) {
		if (fetch_file_url_path(src, &path, err))
			return -1;
	} else {
		path = xstrdup(src);
	}
	if (fetch_verify_local(path, sha256_hex ? sha : NULL, size, &fd, err)) {
		free(path);
		return -1;
	}
	*local_path = path;
	*fdp = fd;
	return 0;
}

char *fetch_fd_path(int fd)
{
	return xasprintf("/proc/self/fd/%d", fd);
}

int fetch_file(const struct fetch_opts *o, const char *src, const char *sha256_hex,
	       int64_t size, char **local_path, struct xcc_error *err)
{
	int fd;

	if (fetch_file_fd(o, src, sha256_hex, size, local_path, &fd, err))
		return -1;
	close(fd);
	return 0;
}

/* ---------------------------------------------------------------------------
 * Texts
 */

int fetch_text(const struct fetch_opts *o, const char *src, char **text, size_t *len,
	       struct xcc_error *err)
{
	struct transfer t = { .o = o, .fd = -1, .expect = -1, .bad_size = -1 };
	char errbuf[CURL_ERROR_SIZE];
	int retries = retries_of(o);

	*text = NULL;
	if (!fetch_is_url(src))
		return fetch_read_local_text(src, text, len, err);
	if (is_file_url(src)) {
		char *path;
		int rc;

		if (fetch_file_url_path(src, &path, err))
			return -1;
		rc = fetch_read_local_text(path, text, len, err);
		free(path);
		return rc;
	}
	for (int attempt = 0;; attempt++) {
		enum attempt verdict;
		CURLcode rc;

		errbuf[0] = '\0';
		t.started = 0;
		t.curl = curl_new(&t, src, errbuf);
		if (!t.curl)
			return xcc_fail(err, XCC_EFAIL, "%s: libcurl failed to start", src);
		curl_easy_setopt(t.curl, CURLOPT_WRITEFUNCTION, write_text);
		rc = curl_easy_perform(t.curl);
		if (t.bad_size >= 0) {
			verdict = ATTEMPT_FATAL;
			xcc_fail(err, XCC_EFAIL, "%s: larger than %u MiB: not a manifest", src,
				 FETCH_MAX_TEXT >> 20);
		} else {
			verdict = judge(&t, rc, src, errbuf, err);
		}
		curl_easy_cleanup(t.curl);
		if (verdict == ATTEMPT_DONE)
			break;
		if (verdict == ATTEMPT_FATAL || attempt >= retries) {
			free(t.text);
			if (verdict == ATTEMPT_RETRY)
				xcc_error_prefix(err, "download failed after %d attempt%s",
						 attempt + 1, attempt ? "s" : "");
			return -1;
		}
		backoff(attempt);
	}
	if (!t.text)
		t.text = xmalloc(1);
	t.text[t.text_len] = '\0';
	*text = t.text;
	if (len)
		*len = t.text_len;
	return 0;
}
