/* sysroot create --from-device: the board's side. Three ssh connections: a probe (its
 * root, its CUDA installations, /etc/nv_tegra_release, the device tree's compatible
 * strings), a listing of what board.json's device_pull wants (GNU find), and a tar
 * stream of the files that differ from the mirror's, read with libarchive under unpack's
 * path policy. The snapshot and the target side are device_root.c's. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/interrupt.h"
#include "base/proc.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "db/board.h"
#include "db/jetpack.h"
#include "pkg/fetch.h"
#include "pkg/package.h"
#include "pkg/unpack.h"
#include "use/device_pull.h"
#include "use/device_pull_int.h"
#include "sysroot/sysroot.h"
#include "use/run.h"

#define TRIPLE "aarch64-linux-gnu"

/* One pull. */
struct puller {
	const struct device_pull_opts *o;
	struct ssh_target t;
	const char *root;     /* the board's root directory */
	char marker[48];      /* starts every line of the protocol that counts */
	char *board_dir;      /* CACHE/boards/KEY */
	char *mirror;         /* board_dir/mirror: the files as last pulled */
	struct interrupt in;
	int watching;
	atomic_int child;     /* the ssh in flight, 0 when none */
};

/* What the probe found on the board. */
struct probe {
	struct strvec tegra;    /* /etc/nv_tegra_release, line by line */
	struct strvec cudadirs; /* usr/local/cuda-X.Y/targets/DIR that are directories */
	char *cudalink;         /* what usr/local/cuda leads to, its last component */
	char *soc;              /* the device tree's compatible strings */
	int have_root;
};

static void probe_free(struct probe *p)
{
	strvec_free(&p->tegra);
	strvec_free(&p->cudadirs);
	free(p->cudalink);
	free(p->soc);
	memset(p, 0, sizeof *p);
}

/* From the waiter's thread: the ssh in flight goes, so the pull stops. */
static void on_signal(int signo, void *arg)
{
	struct puller *p = arg;
	pid_t child = atomic_load(&p->child);

	(void)signo;
	if (child > 0)
		kill(child, SIGTERM);
}

static int stopped(struct puller *p, struct xcc_error *err)
{
	int sig = p->watching ? interrupt_signal(&p->in.signo) : 0;

	return sig ? interrupt_fail(err, sig, "sysroot create --from-device") : 0;
}

/* ssh running command on the board, stdin from in_fd (-1: none), stdout into out_fd;
 * it is the child a signal ends. */
static pid_t ssh_start(struct puller *p, const char *command, int in_fd, int out_fd,
		       struct xcc_error *err)
{
	struct strvec argv = STRVEC_INIT;
	pid_t pid;

	ssh_argv(&argv, p->o->ssh_config, &p->t, in_fd < 0);
	strvec_push(&argv, command);
	pid = proc_spawn_fds(argv.v, in_fd, out_fd, -1, err);
	strvec_free(&argv);
	if (pid > 0) {
		atomic_store(&p->child, pid);
		if (p->watching && interrupt_signal(&p->in.signo))
			kill(pid, SIGTERM);
	}
	return pid;
}

static int ssh_wait(struct puller *p, pid_t pid, struct xcc_error *err)
{
	int status = proc_wait(pid, err);

	atomic_store(&p->child, 0);
	return status;
}

/* What an ssh that failed means, said once. */
static int ssh_failed(struct puller *p, const char *what, int status, struct xcc_error *err)
{
	if (stopped(p, err))
		return -1;
	return xcc_fail(err, XCC_EFAIL, "%s on %s failed (ssh exit status %d%s)", what,
			p->o->device, status, status == 255 ? ": ssh could not connect or log in; "
			"ssh's message is above" : "; the board's message is above");
}

/* --- the probe ------------------------------------------------------------ */

static char *probe_script(const struct puller *p)
{
	char *root = shell_quote(p->root);
	char *s = xasprintf(
		"M=%s\n"
		"cd -- %s 2>/dev/null || { echo \"$M noroot\"; exit 0; }\n"
		"echo \"$M root\"\n"
		"if [ -r etc/nv_tegra_release ]; then\n"
		"  while IFS= read -r l || [ -n \"$l\" ]; do echo \"$M tegra $l\"; done"
		" < etc/nv_tegra_release\n"
		"fi\n"
		"if [ -e usr/local/cuda ]; then l=$(readlink -f usr/local/cuda) &&"
		" echo \"$M cudalink ${l##*/}\"; fi\n"
		"for d in usr/local/cuda-*/targets/*; do\n"
		"  if [ -d \"$d\" ] && [ ! -h \"$d\" ]; then echo \"$M cudadir $d\"; fi\n"
		"done\n"
		"if [ -r proc/device-tree/compatible ]; then\n"
		"  echo \"$M soc $(tr '\\000' ' ' < proc/device-tree/compatible)\"\n"
		"fi\n", p->marker, root);

	free(root);
	return s;
}

static int probe_board(struct puller *p, struct probe *pr, struct xcc_error *err)
{
	char *script = probe_script(p), *answer = NULL, *line, *save = NULL;
	size_t m = strlen(p->marker);
	int pipefd[2], status = -1;
	pid_t pid;

	memset(pr, 0, sizeof *pr);
	if (pipe2(pipefd, O_CLOEXEC)) {
		free(script);
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	}
	pid = ssh_start(p, script, -1, pipefd[1], err);
	free(script);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return -1;
	}
	status = proc_collect(pid, pipefd[0], &answer, err);
	atomic_store(&p->child, 0);
	if (status < 0)
		return -1;
	if (status != 0) {
		free(answer);
		return ssh_failed(p, "looking at the board", status, err);
	}
	for (line = strtok_r(answer, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *v = line + m + 1;

		if (strncmp(line, p->marker, m) != 0 || line[m] != ' ')
			continue;
		if (strcmp(v, "root") == 0)
			pr->have_root = 1;
		else if (strncmp(v, "tegra ", 6) == 0)
			strvec_push(&pr->tegra, v + 6);
		else if (strncmp(v, "cudalink ", 9) == 0 && !pr->cudalink)
			pr->cudalink = xstrdup(v + 9);
		else if (strncmp(v, "cudadir ", 8) == 0)
			strvec_push(&pr->cudadirs, v + 8);
		else if (strncmp(v, "soc ", 4) == 0 && !pr->soc)
			pr->soc = xstrdup(v + 4);
	}
	free(answer);
	if (!pr->have_root)
		return xcc_fail(err, XCC_EUSAGE, "%s has no directory %s: give the board's root "
				"with --device-root DIR, or leave it out for /", p->o->device,
				p->root);
	return 0;
}

/* --- which CUDA ------------------------------------------------------------ */

/* "usr/local/cuda-12.4/targets/sbsa-linux": 0 with the release and the directory; -1
 * for anything else (no other form comes from the probe's glob). */
static int split_cudadir(const char *d, char release[16], char dir[16])
{
	const char *pre = "usr/local/cuda-", *t = strstr(d, "/targets/");
	size_t n;

	if (strncmp(d, pre, strlen(pre)) != 0 || !t)
		return -1;
	n = (size_t)(t - d - strlen(pre));
	if (n == 0 || n >= 16 || strspn(d + strlen(pre), "0123456789.") != n)
		return -1;
	snprintf(release, 16, "%.*s", (int)n, d + strlen(pre));
	if (strcmp(t + 9, "aarch64-linux") != 0 && strcmp(t + 9, "sbsa-linux") != 0)
		return -1;
	snprintf(dir, 16, "%s", t + 9);
	return 0;
}

/* Whether the asked release (12.4, 12.4.1) is release (12.4). */
static int same_release(const char *asked, const char *release)
{
	size_t n = strlen(release);

	return strncmp(asked, release, n) == 0 && (asked[n] == '\0' || asked[n] == '.');
}

/* The board's CUDA release and target directory: --cuda's, else the one
 * /usr/local/cuda leads to, else the only one. */
static int choose_cuda(const struct puller *p, const struct probe *pr, char release[16],
		       char dir[16], struct xcc_error *err)
{
	struct strvec seen = STRVEC_INIT;
	size_t found = 0;
	char r[16], d[16];

	for (size_t i = 0; i < pr->cudadirs.n; i++) {
		int pick;

		if (split_cudadir(pr->cudadirs.v[i], r, d))
			continue;
		strvec_pushf(&seen, "%s (targets/%s)", r, d);
		if (p->o->cuda)
			pick = same_release(p->o->cuda, r);
		else
			pick = pr->cudalink && strncmp(pr->cudalink, "cuda-", 5) == 0 &&
			       strcmp(pr->cudalink + 5, r) == 0;
		if (pick || (!p->o->cuda && !pr->cudalink && pr->cudadirs.n == 1)) {
			memcpy(release, r, 16);
			memcpy(dir, d, 16);
			found++;
		}
	}
	if (found == 1) {
		strvec_free(&seen);
		return 0;
	}
	if (!seen.n)
		xcc_fail(err, XCC_EUSAGE, "%s has no CUDA toolkit for the target "
			 "(no /usr/local/cuda-X.Y/targets/aarch64-linux or sbsa-linux under %s): "
			 "install the JetPack's CUDA there (apt install nvidia-jetpack)",
			 p->o->device, p->root);
	else {
		char *list = strvec_join(&seen, ", ");

		xcc_fail(err, XCC_EUSAGE, "%s has CUDA %s%s: name the one to use with --cuda X.Y",
			 p->o->device, list, found > 1 ? ", several for one release" :
			 p->o->cuda ? ", not the one --cuda asks for" : "");
		free(list);
	}
	strvec_free(&seen);
	return -1;
}

/* --- the listing ------------------------------------------------------------ */

/* What board.json's patterns may hold: they go to the board's shell unquoted, to be
 * globbed there. */
static int safe_pattern(const char *s)
{
	if (!*s || s[0] == '/' || strstr(s, ".."))
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+*/-",
			    *s))
			return 0;
	return 1;
}

/* pattern with {triple}, {cuda} and {dir} filled in, onto out (twice for {libdir}). */
static void expand(const char *pattern, const char *cuda_dir, const char *dir,
		   struct strvec *out)
{
	static const char *const libdirs[] = { "lib/" TRIPLE, "usr/lib/" TRIPLE };
	int n = strstr(pattern, "{libdir}") ? 2 : 1;

	for (int k = 0; k < n; k++) {
		struct strvec parts = STRVEC_INIT;
		const char *s = pattern;

		while (*s) {
			const char *open = strchr(s, '{'), *close = open ? strchr(open, '}') : NULL;
			char *key;
			const char *val;

			if (!close) {
				strvec_push(&parts, s);
				break;
			}
			strvec_pushf(&parts, "%.*s", (int)(open - s), s);
			key = xstrndup(open + 1, (size_t)(close - open - 1));
			val = strcmp(key, "triple") == 0 ? TRIPLE :
			      strcmp(key, "cuda") == 0 ? cuda_dir :
			      strcmp(key, "dir") == 0 ? dir :
			      strcmp(key, "libdir") == 0 ? libdirs[k] : "{unknown}";
			strvec_push(&parts, val);
			free(key);
			s = close + 1;
		}
		{
			char *whole = strvec_join(&parts, "");

			if (safe_pattern(whole) && !strvec_contains(out, whole))
				strvec_push(out, whole);
			free(whole);
		}
		strvec_free(&parts);
	}
}

/* The L4T library directory the board's nv_tegra_release names
 * (TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia), or NULL. */
static const char *tegra_lib_dir(const struct probe *pr)
{
	const char *key = "TARGET_USERSPACE_LIB_DIR_PATH=";

	for (size_t i = 0; i < pr->tegra.n; i++)
		if (strncmp(pr->tegra.v[i], key, strlen(key)) == 0 &&
		    safe_pattern(pr->tegra.v[i] + strlen(key)) &&
		    !strchr(pr->tegra.v[i] + strlen(key), '*'))
			return pr->tegra.v[i] + strlen(key);
	return NULL;
}

static void wanted_patterns(const struct board_db *bdb, const struct probe *pr,
			    const char *cuda_dir, const char *dir, struct strvec *paths,
			    struct strvec *links)
{
	const char *l4t = tegra_lib_dir(pr);

	for (size_t i = 0; i < bdb->pull.n_paths; i++)
		expand(bdb->pull.paths[i], cuda_dir, dir, paths);
	if (l4t)
		strvec_push(paths, l4t);
	else
		for (size_t i = 0; i < bdb->pull.n_l4t_dirs; i++)
			expand(bdb->pull.l4t_dirs[i], cuda_dir, dir, paths);
	for (size_t i = 0; i < bdb->pull.n_links; i++)
		expand(bdb->pull.links[i], cuda_dir, dir, links);
}

/* Lists, NUL-separated after a marker line, every file and link below the patterns
 * that exist and that no symlinked directory leads to (the copy must hold the
 * board's own paths, not a second copy through a link). */
static char *listing_script(const struct puller *p, const struct strvec *paths,
			    const struct strvec *links)
{
	struct strvec s = STRVEC_INIT;
	char *root = shell_quote(p->root), *text;

	strvec_pushf(&s, "cd -- %s || exit 3\n", root);
	strvec_push(&s, "R=$(pwd -P); [ \"$R\" = / ] && R=\n"
		    "under() { case \"$1\" in */*) d=${1%/*} ;; *) return 0 ;; esac\n"
		    "  [ \"$(cd -- \"$d\" 2>/dev/null && pwd -P)\" = \"$R/$d\" ]; }\n"
		    "set --\nfor p in");
	for (size_t i = 0; i < paths->n; i++)
		strvec_pushf(&s, " %s", paths->v[i]);
	strvec_push(&s, "; do\n  if { [ -e \"$p\" ] || [ -h \"$p\" ]; } && under \"$p\"; then "
		    "set -- \"$@\" \"$p\"; fi\ndone\nfor p in");
	for (size_t i = 0; i < links->n; i++)
		strvec_pushf(&s, " %s", links->v[i]);
	strvec_pushf(&s, "; do\n  if [ -h \"$p\" ] && under \"$p\"; then set -- \"$@\" \"$p\"; fi\n"
		     "done\necho %s\n[ $# -eq 0 ] || exec find -P \"$@\" "
		     "\\( -type f -o -type l \\) -printf '%%y %%s %%Ts %%p\\0%%l\\0'\n", p->marker);
	text = strvec_join(&s, "");
	strvec_free(&s);
	free(root);
	return text;
}

/* The listing into l: ssh's stdout into a file of the board's directory (it holds
 * NULs), then parsed. */
static int list_board(struct puller *p, const struct strvec *paths, const struct strvec *links,
		      struct pull_listing *l, struct xcc_error *err)
{
	char *script = listing_script(p, paths, links);
	char *path = xasprintf("%s/listing", p->board_dir), *data = NULL, *start;
	size_t len = 0, m = strlen(p->marker);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), status, rc = -1;
	pid_t pid;

	if (fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	pid = ssh_start(p, script, -1, fd, err);
	close(fd);
	if (pid < 0 || (status = ssh_wait(p, pid, err)) < 0)
		goto out;
	if (status != 0) {
		ssh_failed(p, "listing the board's files (GNU find)", status, err);
		goto out;
	}
	if (!(data = file_read_text(path, &len))) {
		xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	/* The marker's line: what a login printed before it does not count. */
	for (start = data; start && (size_t)(start - data) + m < len;
	     start = memchr(start, '\n', len - (size_t)(start - data)), start = start ? start + 1
										   : NULL)
		if (strncmp(start, p->marker, m) == 0 && start[m] == '\n')
			break;
	if (!start || (size_t)(start - data) + m >= len) {
		xcc_fail(err, XCC_EFAIL, "%s did not list its files (its shell printed no listing)",
			 p->o->device);
		goto out;
	}
	start += m + 1;
	rc = pull_listing_parse(start, len - (size_t)(start - data), p->o->device, l, err);
out:
	unlink(path);
	free(data);
	free(path);
	free(script);
	return rc;
}

/* --- the mirror ------------------------------------------------------------- */

/* Whether the mirror holds e as the board has it. */
static int mirror_has(int mirrorfd, const struct pull_entry *e)
{
	int fd = unpack_open_beneath(mirrorfd, e->path, O_PATH | O_NOFOLLOW);
	struct stat st;
	int same = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0) {
		if (e->type == 'f')
			same = S_ISREG(st.st_mode) && (uint64_t)st.st_size == e->size &&
			       (int64_t)st.st_mtime == e->mtime;
		else if (S_ISLNK(st.st_mode)) {
			char buf[4096];
			ssize_t n = readlinkat(fd, "", buf, sizeof buf - 1);

			same = n >= 0 && (size_t)n == strlen(e->target) &&
			       memcmp(buf, e->target, (size_t)n) == 0;
		}
	}
	close(fd);
	return same;
}

/* The entries the mirror lacks, as paths. */
static int differing(const struct puller *p, const struct pull_listing *l, struct strvec *want,
		     struct xcc_error *err)
{
	int fd = open(p->mirror, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s: %s", p->mirror, strerror(errno));
	for (size_t i = 0; i < l->n; i++)
		if (!mirror_has(fd, &l->v[i]))
			strvec_push(want, l->v[i].path);
	close(fd);
	return 0;
}

/* Only what was asked for is written, whatever else the stream holds. */
static char *map_wanted(void *arg, const char *member)
{
	const struct strvec *want = arg;
	size_t lo = 0, hi = want->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(want->v[mid], member);

		if (c == 0)
			return xstrdup(member);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The want list, NUL-separated, for tar -T - on the board: a file, so that writing it
 * never waits for the stream it asks for. */
static int want_file(const struct puller *p, const struct strvec *want, struct xcc_error *err)
{
	char *path = xasprintf("%s/want", p->board_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	unlink(path);
	free(path);
	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s/want: %s", p->board_dir, strerror(errno));
	for (size_t i = 0; i < want->n; i++) {
		size_t n = strlen(want->v[i]) + 1;

		if (write(fd, want->v[i], n) != (ssize_t)n) {
			close(fd);
			return xcc_fail(err, XCC_EFAIL, "%s/want: %s", p->board_dir,
					strerror(errno));
		}
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return xcc_fail(err, XCC_EFAIL, "%s/want: %s", p->board_dir, strerror(errno));
	}
	return fd;
}

/* tar on the board, its stream unpacked into the mirror as it comes. */
static int fetch_files(struct puller *p, const struct strvec *want, struct unpack_stats *st,
		       struct xcc_error *err)
{
	char *root = shell_quote(p->root), *command, *at, *what;
	struct unpack_opts uo = { .map = map_wanted, .map_arg = (void *)want, .root_links = 1 };
	struct xcc_error wait_err = { 0 };
	int in = want_file(p, want, err), pipefd[2], rc, status;
	pid_t pid;

	if (in < 0) {
		free(root);
		return -1;
	}
	command = xasprintf("cd -- %s && exec tar --null --no-recursion --hard-dereference "
			    "-cf - -T -", root);
	free(root);
	if (pipe2(pipefd, O_CLOEXEC)) {
		close(in);
		free(command);
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	}
	pid = ssh_start(p, command, in, pipefd[1], err);
	free(command);
	close(in);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return -1;
	}
	uo.stop = p->watching ? &p->in.signo : NULL;
	at = xasprintf("/proc/self/fd/%d", pipefd[0]);
	what = xasprintf("%s's files", p->o->device);
	uo.open_path = at;
	rc = unpack_archive(what, p->mirror, &uo, st, err);
	if (rc)
		kill(pid, SIGTERM);
	close(pipefd[0]);
	status = ssh_wait(p, pid, &wait_err);
	free(at);
	free(what);
	if (stopped(p, err))
		return -1;
	if (rc)
		return -1;
	if (status != 0)
		return status < 0 ? (*err = wait_err, -1)
				  : ssh_failed(p, "copying the board's files (tar)", status, err);
	return 0;
}

/* Files and links in the mirror the board no longer has, removed (directories stay:
 * an empty one changes nothing a build reads). */
static int remove_gone(const char *dir, const char *rel, const struct pull_listing *l,
		       uint64_t *removed)
{
	char *path = *rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
	struct strvec names = STRVEC_INIT;
	int rc = file_list_dir(path, &names);

	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		char *sub = *rel ? xasprintf("%s/%s", rel, names.v[i]) : xstrdup(names.v[i]);
		char *full = xasprintf("%s/%s", dir, sub);
		struct stat st;

		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
			rc = remove_gone(dir, sub, l, removed);
		else if (!pull_listing_find(l, sub) && unlink(full) == 0)
			(*removed)++;
		free(full);
		free(sub);
	}
	strvec_free(&names);
	free(path);
	return rc;
}

/* The mirror made to hold l: what differs copied, what is gone removed, and then
 * checked again (a file that changed while it was read is an error, not a copy). */
static int sync_mirror(struct puller *p, const struct pull_listing *l, struct device_pull *r,
		       struct xcc_error *err)
{
	struct strvec want = STRVEC_INIT, still = STRVEC_INIT;
	struct unpack_stats st = { 0 };
	int rc = -1;

	if (file_mkdir_p(p->mirror, err) || differing(p, l, &want, err))
		goto out;
	if (want.n) {
		strvec_sort(&want);
		if (fetch_files(p, &want, &st, err))
			goto out;
		r->copied_bytes = st.bytes;
		if (differing(p, l, &still, err))
			goto out;
		if (still.n) {
			xcc_fail(err, XCC_EFAIL, "%s changed while it was copied, or its stream "
				 "did not hold it (%zu file%s, first %s): run the same command "
				 "again", p->o->device, still.n, still.n == 1 ? "" : "s",
				 still.v[0]);
			goto out;
		}
	}
	r->copied = want.n;
	if (remove_gone(p->mirror, "", l, &r->removed) < 0) {
		xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", p->mirror, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	strvec_free(&want);
	strvec_free(&still);
	return rc;
}

/* --- what the board is ------------------------------------------------------ */

/* "# R38 (release), REVISION: 2.0, GCID: ..." -> "38.2.0"; NULL for another line. */
static char *l4t_release(const char *line)
{
	int major, minor, patch = 0, n = 0;

	if (sscanf(line, "# R%d (release), REVISION: %d.%d%n", &major, &minor, &patch, &n) < 2 ||
	    major < 0 || minor < 0 || patch < 0)
		return NULL;
	return xasprintf("%d.%d.%d", major, minor, patch);
}

/* The board as it says it is: the L4T release and its JetPack, its CUDA, its SoC's GPU. */
static void identify(const struct gpudb *db, const struct board_db *bdb, const struct puller *p,
		     const struct probe *pr, const char *cuda_dir, struct device_pull *r)
{
	struct sysroot_board *b = &r->board;
	struct jetpack_db jdb;
	struct xcc_error e = { 0 };
	const struct board_soc *soc = pr->soc ? board_soc_find(bdb, pr->soc) : NULL;

	b->device = xstrdup(p->o->device);
	b->root = xstrdup(p->root);
	b->cuda_dir = xasprintf("/%s", cuda_dir);
	b->cuda = pull_cuda_version(r->root, cuda_dir);
	if (!b->cuda) {
		b->cuda = xstrdup(r->cuda);
		strvec_pushf(&r->notes, "the board's %s has no version.json or version.txt: its "
			     "CUDA is taken as %s, from the directory's name", b->cuda_dir,
			     r->cuda);
	}
	if (pr->tegra.n) {
		b->tegra_release = xstrdup(pr->tegra.v[0]);
		b->l4t = l4t_release(pr->tegra.v[0]);
	}
	if (b->l4t && jetpack_db_load(&jdb, db, &e) == 0) {
		const struct jetpack_release *jp = jetpack_find_l4t(&jdb, b->l4t);

		b->jetpack = jp ? xstrdup(jp->version) : NULL;
		jetpack_db_free(&jdb);
	}
	if (pr->soc) {
		size_t n = strlen(pr->soc);

		while (n && pr->soc[n - 1] == ' ')
			n--;
		b->soc = n ? xstrndup(pr->soc, n) : NULL;
	}
	if (soc)
		b->gpu = xstrdup(soc->gpu);
	strvec_pushf(&r->notes, "the board: %s%s%s, CUDA %s, GPU %s%s%s", b->l4t ? "L4T " : "",
		     b->l4t ? b->l4t : "no /etc/nv_tegra_release (not a Jetson's L4T)",
		     b->l4t ? (b->jetpack ? "" : " (a JetPack jetpack.json does not list)") : "",
		     b->cuda, b->gpu ? b->gpu : "unknown", soc ? " of " : "",
		     soc ? (soc->unverified ? "its SoC (unverified: board.json socs)" : "its SoC")
			 : "");
	if (b->jetpack)
		strvec_pushf(&r->notes, "L4T %s is JetPack %s: recorded as the board's; pass "
			     "--jetpack %s to check GPUs and CUDA against it", b->l4t, b->jetpack,
			     b->jetpack);
}

/* --- the pull -------------------------------------------------------------- */

/* CACHE/boards/KEY, KEY the sha256 of the device and root (one mirror per board). */
static char *board_dir(const struct device_pull_opts *o, const char *root)
{
	char *cache = o->cache_dir ? xstrdup(o->cache_dir) : fetch_default_cache_dir();
	char *id = xasprintf("%s\n%s", o->device, root), hex[65], *dir;

	xcc_sha256_buffer(id, strlen(id), hex);
	dir = xasprintf("%s/boards/%.16s", cache, hex);
	free(id);
	free(cache);
	return dir;
}

/* One pull of a board at a time: the lock on board_dir/lock, held until the fd closes. */
static int lock_board(const char *dir, struct xcc_error *err)
{
	char *path = xasprintf("%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	free(path);
	if (fd < 0)
		return xcc_fail(err, XCC_EFAIL, "%s/lock: %s", dir, strerror(errno));
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			close(fd);
			return xcc_fail(err, XCC_EFAIL, "%s/lock: %s", dir, strerror(errno));
		}
	return fd;
}

static int pull_steps(const struct gpudb *db, const struct board_db *bdb, struct puller *p,
		      struct device_pull *r, struct xcc_error *err)
{
	struct probe pr;
	struct strvec paths = STRVEC_INIT, links = STRVEC_INIT;
	struct pull_listing l = { 0 };
	char release[16], dir[16], *cuda_dir = NULL, *prefix = NULL;
	int rc = -1;

	if (probe_board(p, &pr, err) || choose_cuda(p, &pr, release, dir, err))
		goto out;
	r->cuda = xstrdup(release);
	r->target = strcmp(dir, "sbsa-linux") == 0 ? "sbsa" : "jetson";
	cuda_dir = xasprintf("usr/local/cuda-%s", release);
	wanted_patterns(bdb, &pr, cuda_dir, dir, &paths, &links);
	if (stopped(p, err) || list_board(p, &paths, &links, &l, err) || stopped(p, err) ||
	    sync_mirror(p, &l, r, err) || stopped(p, err) ||
	    pull_snapshot(p->board_dir, p->mirror, &l, &r->root, err))
		goto out;
	r->listed = l.n;
	identify(db, bdb, p, &pr, cuda_dir, r);
	r->board.listing = xstrdup(l.digest);
	prefix = xasprintf("%s/targets/%s/", cuda_dir, dir);
	if (pull_target_archive(p->board_dir, r->root, &l, prefix,
				strcmp(dir, "sbsa-linux") == 0 ? "linux-sbsa" : "linux-aarch64",
				r->board.cuda, &r->archive, err))
		goto out;
	rc = 0;
out:
	free(prefix);
	free(cuda_dir);
	pull_listing_free(&l);
	strvec_free(&paths);
	strvec_free(&links);
	probe_free(&pr);
	return rc;
}

int device_pull(const struct gpudb *db, const struct device_pull_opts *o, struct device_pull *r,
		struct xcc_error *err)
{
	struct puller p = { .o = o, .root = o->device_root ? o->device_root : "/" };
	struct board_db bdb;
	struct timespec t0, t1;
	int lock = -1, rc = -1;

	memset(r, 0, sizeof *r);
	if (ssh_parse_url("--from-device", o->device, &p.t, err))
		return -1;
	if (p.root[0] != '/' || strchr(p.root, '\n')) {
		ssh_target_free(&p.t);
		return xcc_fail(err, XCC_EUSAGE, "--device-root %s: give the board's root as an "
				"absolute path", p.root);
	}
	if (board_db_load(&bdb, err)) {
		ssh_target_free(&p.t);
		return -1;
	}
	p.board_dir = board_dir(o, p.root);
	p.mirror = xasprintf("%s/mirror", p.board_dir);
	if (ssh_marker(p.marker, sizeof p.marker, "cuda-xcc-pull-", err) || file_mkdir_p(p.board_dir, err) ||
	    (lock = lock_board(p.board_dir, err)) < 0)
		goto out;
	p.watching = interrupt_begin_notify(&p.in, on_signal, &p) == 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pull_steps(db, &bdb, &p, r, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (p.watching) {
		if (rc == 0 && interrupt_signal(&p.in.signo))
			rc = stopped(&p, err);
		interrupt_end(&p.in);
	}
	if (rc == 0 && o->log)
		fprintf(o->log, "cuda-xcc: %s: %llu of %llu files copied (%.1f MiB), %llu removed, "
			"in %.2f s: %s\n", o->device, (unsigned long long)r->copied,
			(unsigned long long)r->listed, (double)r->copied_bytes / (1024.0 * 1024.0),
			(unsigned long long)r->removed, (double)(t1.tv_sec - t0.tv_sec) +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e9, r->root);
out:
	if (lock >= 0)
		close(lock);
	board_db_free(&bdb);
	free(p.board_dir);
	free(p.mirror);
	ssh_target_free(&p.t);
	if (rc)
		device_pull_free(r);
	return rc;
}

void device_pull_free(struct device_pull *r)
{
	free(r->root);
	free(r->archive);
	free(r->cuda);
	sysroot_board_free(&r->board);
	strvec_free(&r->notes);
	memset(r, 0, sizeof *r);
}

int device_pull_apply(const struct device_pull *r, struct sysroot_create_opts *o,
		      struct xcc_error *err)
{
	if (o->target && strcmp(o->target, r->target) != 0)
		return xcc_fail(err, XCC_EUSAGE, "--target %s, but the board's CUDA is for %s "
				"(%s/targets/%s): leave --target out", o->target, r->target,
				r->board.cuda_dir, strcmp(r->target, "sbsa") == 0 ? "sbsa-linux"
										: "aarch64-linux");
	o->target = r->target;
	if (!o->cuda)
		o->cuda = r->cuda;
	o->target_fs = r->root;
	o->board = &r->board;
	strvec_push(&o->from, r->archive);
	return 0;
}
