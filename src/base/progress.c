#include <config.h>

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "base/progress.h"

int progress_mode_parse(const char *s, enum progress_mode *out)
{
	if (strcmp(s, "auto") == 0)
		*out = PROGRESS_AUTO;
	else if (strcmp(s, "always") == 0)
		*out = PROGRESS_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*out = PROGRESS_NEVER;
	else
		return -1;
	return 0;
}

void progress_init(struct progress *pr, enum progress_mode mode, FILE *f, size_t n_archives)
{
	memset(pr, 0, sizeof *pr);
	pthread_mutex_init(&pr->mu, NULL);
	pr->f = mode == PROGRESS_NEVER ? NULL : f;
	pr->bar = mode == PROGRESS_ALWAYS || (mode == PROGRESS_AUTO && f && isatty(fileno(f)));
	pr->n_archives = n_archives;
}

static double now_s(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec / 1e9;
}

void progress_draw(struct progress *pr, int force)
{
	struct timespec t;
	uint64_t total = pr->dl_total + pr->ex_total, done = pr->dl_done + pr->ex_done;
	int filled, pct;
	char bar[31];

	if (!pr->f || !pr->bar)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (!force && pr->drawn && now_s(&t) - now_s(&pr->last) < 0.1)
		return;
	pr->last = t;
	pr->drawn = 1;
	if (done > total)
		done = total;
	pct = total ? (int)(done * 100 / total) : 100;
	filled = pct * 30 / 100;
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, '-', (size_t)(30 - filled));
	bar[30] = '\0';
	fprintf(pr->f, "\r[%s] %3d%%  download %.1f/%.1f MB  extract %.1f/%.1f MB  %zu/%zu",
		bar, pct, (double)pr->dl_done / 1e6, (double)pr->dl_total / 1e6,
		(double)pr->ex_done / 1e6, (double)pr->ex_total / 1e6, pr->n_done, pr->n_archives);
	fflush(pr->f);
}

void progress_line(struct progress *pr, const char *fmt, ...)
{
	va_list ap;

	if (!pr->f || pr->bar)
		return;
	pthread_mutex_lock(&pr->mu);
	va_start(ap, fmt);
	vfprintf(pr->f, fmt, ap);
	va_end(ap);
	fputc('\n', pr->f);
	fflush(pr->f);
	pthread_mutex_unlock(&pr->mu);
}

void progress_end(struct progress *pr)
{
	if (pr->f && pr->bar && pr->drawn) {
		pthread_mutex_lock(&pr->mu);
		progress_draw(pr, 1);
		fputc('\n', pr->f);
		pthread_mutex_unlock(&pr->mu);
	}
}

void progress_free(struct progress *pr)
{
	pthread_mutex_destroy(&pr->mu);
}
