/* run --device: a program run on the device over ssh (ssh://[user@]host[:port]),
 * with the libraries it needs copied beside it; the local half of `cuda-xcc
 * run` is run.c. */
#include <config.h>

#include <archive.h>
#include <archive_entry.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/interrupt.h"
#include "base/proc.h"
#include "base/xalloc.h"
#include "use/run.h"

/* --- the device: ssh://[user@]host[:port] ------------------------------- */

/* A copy of s[0..n). */
static char *dup_range(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);

	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

/*
 * A user or host name as ssh gets it: RFC 3986's unreserved characters
 * less '~' (letters, digits, '-', '.', '_'), not starting with '-' or '.'.
 * That is every DNS name and IPv4 address; the sub-delims a reg-name also
 * allows ($, (, ), ', ;, ...) mean something to the shell that runs a
 * ProxyCommand with %h or %r in it, so they are refused, as is every
 * percent-encoding.
 */
static int plain_name(const char *s, size_t n)
{
	if (n == 0 || s[0] == '-' || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-._", s[i]))
			return 0;
	return 1;
}

/* [v6-address] or [v6-address%25zone] (RFC 6874) into "address%zone". */
static char *bracketed_v6(const char *s, size_t n)
{
	struct in6_addr a;
	char *addr = dup_range(s, n), *zone = strstr(addr, "%25");

	if (zone) {
		*zone = '\0';
		zone += 3;
	}
	if (inet_pton(AF_INET6, addr, &a) != 1 || (zone && !plain_name(zone, strlen(zone)))) {
		free(addr);
		return NULL;
	}
	if (zone) {
		char *both = xasprintf("%s%%%s", addr, zone);

		free(addr);
		return both;
	}
	return addr;
}

static int bad_device(struct xcc_error *err, const char *option, const char *url,
		      const char *why)
{
	return xcc_fail(err, XCC_EUSAGE, "%s %s: %s; give it as ssh://[user@]host[:port] "
			"(user and host: letters, digits, '-', '.', '_', not starting with '-'; "
			"an IPv6 address in brackets; port 1-65535)", option, url, why);
}

int run_parse_device(const char *url, struct ssh_target *t, struct xcc_error *err)
{
	return ssh_parse_url("--device", url, t, err);
}

int ssh_parse_url(const char *option, const char *url, struct ssh_target *t,
		  struct xcc_error *err)
{
	const char *p, *end, *at, *host_end;
	size_t n;

	memset(t, 0, sizeof *t);
	if (strncmp(url, "ssh://", 6) != 0)
		return bad_device(err, option, url, "not an ssh:// URL");
	p = url + 6;
	/* The authority, and at most a trailing '/': nothing is a path. */
	end = p + strcspn(p, "/");
	if (*end && strcmp(end, "/") != 0)
		return bad_device(err, option, url, "a path after the host");
	at = memchr(p, '@', (size_t)(end - p));
	if (at) {
		if (!plain_name(p, (size_t)(at - p)))
			return bad_device(err, option, url,
					  at == p ? "the user before '@' is empty"
						  : "the user is not a plain user name");
		t->user = dup_range(p, (size_t)(at - p));
		p = at + 1;
	}
	if (*p == '[') {
		host_end = memchr(p, ']', (size_t)(end - p));
		if (!host_end || !(t->host = bracketed_v6(p + 1, (size_t)(host_end - p - 1))))
			goto bad_host;
		host_end++;
	} else {
		host_end = p + strcspn(p, ":/");
		if (!plain_name(p, (size_t)(host_end - p)))
			goto bad_host;
		t->host = dup_range(p, (size_t)(host_end - p));
	}
	if (*host_end == ':') {
		host_end++;
		n = (size_t)(end - host_end);
		if (n == 0 || n > 5 || strspn(host_end, "0123456789") != n ||
		    atoi(host_end) < 1 || atoi(host_end) > 65535) {
			ssh_target_free(t);
			return bad_device(err, option, url,
					  "the port is not a number from 1 to 65535");
		}
		t->port = dup_range(host_end, n);
	} else if (host_end != end) {
		goto bad_host;
	}
	return 0;
bad_host:
	ssh_target_free(t);
	return bad_device(err, option, url, "the host is not a host name, an IPv4 address or an "
			  "[IPv6 address]");
}

void ssh_target_free(struct ssh_target *t)
{
	free(t->user);
	free(t->host);
	free(t->port);
	memset(t, 0, sizeof *t);
}

/* --- ssh ------------------------------------------------------------------ */

/* The signals of one device run (base/interrupt.h: a signal ignored at
 * start, under nohup or `trap '' HUP`, stays ignored) and the ssh in
 * flight, which a signal ends so that the program on the device can still
 * be stopped and its directory removed before this process exits. */
struct run_watch {
	struct interrupt in;
	atomic_int signals; /* how many came */
	atomic_int child;   /* the ssh in flight, 0 when none */
	/* ssh_start ends at once an ssh started after more than this many
	 * signals: those stop_remote answers do not count. */
	int answered;
};

/* From the waiter's thread, at each signal. */
static void on_signal(int signo, void *arg)
{
	struct run_watch *w = arg;
	pid_t child;

	(void)signo;
	atomic_fetch_add(&w->signals, 1);
	if ((child = atomic_load(&w->child)) > 0)
		kill(child, SIGTERM);
}

/* The signal that stops this run, or 0. */
static int run_signal(const struct run_watch *w)
{
	return interrupt_signal(&w->in.signo);
}

/* What the steps of one run on the device share. */
struct remote {
	const struct run_opts *o;
	struct ssh_target t;
	/* Starts every line of the protocol: "cuda-xcc-" and 32 random hex
	 * digits, which no login banner, shell profile or program prints. */
	char marker[48];
	char *dir; /* the directory on the device, once made */
	struct run_watch *watch;
};

int ssh_marker(char *marker, size_t size, const char *prefix, struct xcc_error *err)
{
	unsigned char r[16];
	size_t got = 0;
	int off;

	while (got < sizeof r) {
		ssize_t n = getrandom(r + got, sizeof r - got, 0);

		if (n < 0 && errno != EINTR)
			return xcc_fail(err, XCC_EFAIL, "getrandom: %s", strerror(errno));
		if (n > 0)
			got += (size_t)n;
	}
	off = snprintf(marker, size, "%s", prefix);
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(marker + off + 2 * i, size - (size_t)off - 2 * i, "%02x", r[i]);
	return 0;
}

void ssh_argv(struct strvec *argv, const char *ssh_config, const struct ssh_target *t,
	      int no_stdin)
{
	strvec_push(argv, "ssh");
	if (ssh_config)
		strvec_pushl(argv, "-F", ssh_config, NULL);
	/* A password prompt would hang CTest: keys or an agent only. */
	strvec_pushl(argv, "-o", "BatchMode=yes", NULL);
	if (no_stdin)
		strvec_push(argv, "-n");
	if (t->port)
		strvec_pushl(argv, "-p", t->port, NULL);
	if (t->user)
		strvec_pushl(argv, "-l", t->user, NULL);
	/* Every option before the host, and "--": the host is never an option. */
	strvec_pushl(argv, "--", t->host, NULL);
}

/* Start ssh running command, with stdin (-1: ours; no_stdin: none),
 * stdout and stderr given (-1: ours); it is the child a signal ends. */
static pid_t ssh_start(const struct remote *rm, const char *command, int no_stdin, int in_fd,
		       int out_fd, int err_fd, struct xcc_error *err)
{
	struct strvec argv = STRVEC_INIT;
	pid_t pid;

	ssh_argv(&argv, rm->o->ssh_config, &rm->t, no_stdin);
	strvec_push(&argv, command);
	pid = proc_spawn_fds(argv.v, in_fd, out_fd, err_fd, err);
	strvec_free(&argv);
	if (pid > 0) {
		atomic_store(&rm->watch->child, pid);
		/* A signal that came before the child was known. */
		if (atomic_load(&rm->watch->signals) > rm->watch->answered)
			kill(pid, SIGTERM);
	}
	return pid;
}

/* Run a shell command on the device; its stdout into *out when out is not
 * NULL. Returns the exit status (255: ssh itself failed), -1 on error. */
static int ssh_command(const struct remote *rm, const char *command, char **out,
		       struct xcc_error *err)
{
	int pipefd[2] = { -1, -1 }, status;
	pid_t pid;

	if (out && pipe2(pipefd, O_CLOEXEC))
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	pid = ssh_start(rm, command, 1, -1, pipefd[1], -1, err);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pid < 0) {
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		return -1;
	}
	status = out ? proc_collect(pid, pipefd[0], out, err) : proc_wait(pid, err);
	atomic_store(&rm->watch->child, 0);
	return status;
}

/* One file's header: a regular file of size bytes. */
static int tar_header(struct archive *a, const char *name, mode_t mode, int64_t size,
		      time_t mtime, struct xcc_error *err)
{
	struct archive_entry *e = archive_entry_new();
	int rc = 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, mode);
	archive_entry_set_size(e, size);
	archive_entry_set_mtime(e, mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		rc = xcc_fail(err, XCC_EFAIL, "sending %s: %s", name, archive_error_string(a));
	archive_entry_free(e);
	return rc;
}

/* One regular file into the archive, contents read through symlinks. */
static int tar_add_file(struct archive *a, const char *path, const char *name, mode_t mode,
			struct xcc_error *err)
{
	struct stat st;
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
	}
	if (tar_header(a, name, mode, st.st_size, st.st_mtime, err))
		goto out;
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			xcc_fail(err, XCC_EFAIL, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (archive_write_data(a, buf, (size_t)n) != n) {
			xcc_fail(err, XCC_EFAIL, "sending %s: %s", path, archive_error_string(a));
			goto out;
		}
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static int tar_add_text(struct archive *a, const char *name, const char *text,
			struct xcc_error *err)
{
	size_t n = strlen(text);

	if (tar_header(a, name, 0600, (int64_t)n, time(NULL), err))
		return -1;
	if (archive_write_data(a, text, n) != (la_ssize_t)n)
		return xcc_fail(err, XCC_EFAIL, "sending %s: %s", name, archive_error_string(a));
	return 0;
}

/* The files, and the program's arguments as .args, into `tar -x` there. */
static int send_files(struct archive *a, int fd, const struct strvec *paths,
		      const struct strvec *names, const char *args, struct xcc_error *err)
{
	/* ustar: every tar, busybox's included, reads it. */
	archive_write_set_format_ustar(a);
	archive_write_set_bytes_in_last_block(a, 1);
	if (archive_write_open_fd(a, fd) != ARCHIVE_OK)
		return xcc_fail(err, XCC_EFAIL, "sending files: %s", archive_error_string(a));
	for (size_t i = 0; i < paths->n; i++)
		if (tar_add_file(a, paths->v[i], names->v[i], i == 0 ? 0755 : 0644, err))
			return -1;
	if (tar_add_text(a, ".args", args, err))
		return -1;
	if (archive_write_close(a) != ARCHIVE_OK)
		return xcc_fail(err, XCC_EFAIL, "sending files: %s", archive_error_string(a));
	return 0;
}

static int upload(const struct remote *rm, const struct strvec *paths, const struct strvec *names,
		  const char *args, struct xcc_error *err)
{
	struct archive *a;
	struct sigaction ign, old_pipe;
	struct xcc_error wait_err = { 0 };
	char *qdir = shell_quote(rm->dir), *command = xasprintf("tar -xf - -C %s", qdir);
	int pipefd[2], status, rc;
	pid_t pid;

	free(qdir);
	if (pipe2(pipefd, O_CLOEXEC)) {
		free(command);
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	}
	pid = ssh_start(rm, command, 0, pipefd[0], -1, -1, err);
	free(command);
	close(pipefd[0]);
	if (pid < 0) {
		close(pipefd[1]);
		return -1;
	}
	/* An ssh that dies mid-way is an error to report, not SIGPIPE. */
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	a = archive_write_new();
	rc = send_files(a, pipefd[1], paths, names, args, err);
	archive_write_free(a);
	close(pipefd[1]);
	sigaction(SIGPIPE, &old_pipe, NULL);
	status = proc_wait(pid, &wait_err);
	atomic_store(&rm->watch->child, 0);
	if (rc == 0 && status < 0) {
		*err = wait_err;
		return -1;
	}
	if (rc == 0 && status != 0)
		return xcc_fail(err, XCC_EFAIL, "copying the program to %s:%s failed (ssh/tar exit "
				"status %d)", rm->t.host, rm->dir, status);
	return rc;
}

/* Which of names the device's loader finds by itself: its ld.so cache
 * (ldconfig -p, where JetPack's CUDA and Tegra dirs are listed) or the
 * usual lib dirs. Prints "MARKER dir DIR" first, then "MARKER have NAME"
 * lines: only those lines count, whatever else a login prints. */
static char *probe_script(const char *marker, const struct strvec *names,
			  const struct run_plan *plan)
{
	struct strvec s = STRVEC_INIT;
	char *text;

	strvec_pushf(&s, "M=%s\n", marker);
	strvec_push(&s, "d=$(mktemp -d \"${TMPDIR:-/tmp}/cuda-xcc-run.XXXXXX\") || exit 1\n"
		    "echo \"$M dir $d\"\n"
		    "m=$(uname -m)\n"
		    "c=$( (ldconfig -p || /sbin/ldconfig -p || /usr/sbin/ldconfig -p) 2>/dev/null)\n");
	strvec_push(&s, "for n in");
	for (size_t i = 0; i < names->n; i++) {
		char *q = shell_quote(names->v[i]);

		strvec_pushf(&s, " %s", q);
		free(q);
	}
	strvec_push(&s, "; do\n"
		    "  case \"$c\" in *\"\t$n (\"*) echo \"$M have $n\"; continue ;; esac\n"
		    "  for p in /lib /usr/lib /lib64 /usr/lib64 /lib/$m-linux-gnu /usr/lib/$m-linux-gnu; do\n"
		    "    if [ -e \"$p/$n\" ]; then echo \"$M have $n\"; break; fi\n"
		    "  done\n"
		    "done\n");
	/* NVIDIA's compat libraries where the board's package puts them:
	 * "MARKER compat DIR" when DIR holds a libcuda.so. */
	for (size_t i = 0; i < plan->n_compat; i++) {
		char *q;

		if (!plan->compat[i].device_dir)
			continue;
		q = shell_quote(plan->compat[i].device_dir);
		strvec_pushf(&s, "for f in %s/libcuda.so*; do\n"
			     "  if [ -e \"$f\" ]; then echo \"$M compat \"%s; break; fi\n"
			     "done\n", q, q);
		free(q);
	}
	text = strvec_join(&s, "");
	strvec_free(&s);
	return text;
}

/* Make the directory on the device; the names it has into *has. */
static int probe_device(struct remote *rm, const struct strvec *names,
			const struct run_plan *plan, struct strvec *has, struct strvec *compat,
			struct xcc_error *err)
{
	char *script = probe_script(rm->marker, names, plan), *answer = NULL, *line, *save = NULL;
	size_t m = strlen(rm->marker);
	int status = ssh_command(rm, script, &answer, err), rc = -1;

	free(script);
	for (line = answer ? strtok_r(answer, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, rm->marker, m) != 0 || line[m] != ' ')
			continue;
		line += m + 1;
		/* Only what mktemp makes is ever removed. */
		if (strncmp(line, "dir /", 5) == 0 && strstr(line, "/cuda-xcc-run.") && !rm->dir)
			rm->dir = xstrdup(line + 4);
		else if (strncmp(line, "have ", 5) == 0)
			strvec_push(has, line + 5);
		else if (strncmp(line, "compat ", 7) == 0)
			strvec_push(compat, line + 7);
	}
	if (status < 0)
		goto out;
	if (status != 0) {
		xcc_fail(err, XCC_EFAIL, "cannot prepare a directory on %s (ssh exit status %d%s)",
			 rm->o->device, status, status == 255 ? ": ssh could not connect or log in; "
			 "ssh's message is above" : "");
		goto out;
	}
	if (!rm->dir) {
		xcc_fail(err, XCC_EFAIL, "%s did not make a temporary directory (no mktemp?)",
			 rm->o->device);
		goto out;
	}
	rc = 0;
out:
	free(answer);
	return rc;
}

/*
 * Linux takes at most 128 KiB in one argument (MAX_ARG_STRLEN) and by
 * default a quarter of the stack limit, 2 MiB, for the arguments and the
 * environment together. Past that the program could not start on the
 * device: refused here, with the reason, rather than failing there.
 */
#define ARG_ONE_MAX (128 * 1024 - 1)
#define ARG_ALL_MAX (1024 * 1024)

static int check_arguments(char *const *argv, struct xcc_error *err)
{
	size_t total = 0;

	for (size_t i = 1; argv[i]; i++) {
		size_t n = strlen(argv[i]);

		if (n > ARG_ONE_MAX)
			return xcc_fail(err, XCC_EUSAGE, "argument %zu of the program is %zu bytes: "
					"Linux on the device takes at most %d bytes in one argument; "
					"pass that data in a file or on stdin", i, n, ARG_ONE_MAX);
		total += n + 1;
	}
	if (total > ARG_ALL_MAX)
		return xcc_fail(err, XCC_EUSAGE, "the program's arguments are %zu bytes in all: "
				"run --device passes at most %d (the device's kernel takes about "
				"2 MiB with the environment); pass that data in a file or on stdin",
				total, ARG_ALL_MAX);
	return 0;
}

/* The program's arguments as the shell reads them back: "set -- ARGS". */
static char *args_script(char *const *argv)
{
	struct strvec s = STRVEC_INIT;
	char *text;

	strvec_push(&s, "set --");
	for (size_t i = 1; argv[i]; i++) {
		char *q = shell_quote(argv[i]);

		strvec_pushf(&s, " %s", q);
		free(q);
	}
	strvec_push(&s, "\n");
	text = strvec_join(&s, "");
	strvec_free(&s);
	return text;
}

/*
 * The command on the device. The program runs in its directory with that
 * directory first on the library path, under setsid where the device has
 * it: its own process group, whose id it writes to .pgid before it starts,
 * so that an interrupted run can stop it and everything it started. It
 * checks .stop after writing .pgid, and the stop writes .stop before it
 * reads .pgid: whichever comes second sees the other. The shell stays to
 * remove the directory and to end with "MARKER status N" on stderr, which
 * is how the program's own 255 is told from ssh's.
 */
static char *run_command(const struct remote *rm, const char *prog_name,
			 const struct strvec *lib_dirs)
{
	static const char inner[] =
		"echo $$ > .pgid || exit 127; if [ -e .stop ]; then exit 143; fi; "
		". ./.args && exec \"$0\" \"$@\"";
	char *qdir = shell_quote(rm->dir), *qprog = shell_quote(prog_name),
	     *qinner = shell_quote(inner), *command, *qextra = NULL;
	struct strvec path = STRVEC_INIT;

	/* The device's own directories after the program's (compat libraries). */
	strvec_push(&path, rm->dir);
	strvec_extend(&path, lib_dirs);
	{
		char *joined = strvec_join(&path, ":");

		qextra = shell_quote(joined);
		free(joined);
	}
	strvec_free(&path);
	/* shell_quote may quote: "./'a b'" is still one word. */
	command = xasprintf("cd %s || exit 127; "
			    "LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; "
			    "export LD_LIBRARY_PATH; s=; "
			    "if command -v setsid >/dev/null 2>&1; then s=setsid; fi; "
			    "$s sh -c %s ./%s; st=$?; rm -f .pgid; %s%s%s"
			    "printf '%%s status %%d\\n' %s \"$st\" >&2; exit \"$st\"",
			    qdir, qextra, qinner, qprog, rm->o->keep ? "" : "cd / && rm -rf ",
			    rm->o->keep ? "" : qdir, rm->o->keep ? "" : "; ", rm->marker);
	free(qdir);
	free(qprog);
	free(qinner);
	free(qextra);
	return command;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The length of the longest end of buf[0..n) that starts marker. */
static size_t partial_marker(const char *buf, size_t n, const char *marker, size_t m)
{
	for (size_t k = n < m ? n : m - 1; k > 0; k--)
		if (memcmp(buf + n - k, marker, k) == 0)
			return k;
	return 0;
}

/* "MARKER status N" (NUL-terminated) to N, or -1. */
static int record_status(const char *line, size_t m)
{
	char *end;
	long v;

	if (strncmp(line + m, " status ", 8) != 0)
		return -1;
	errno = 0;
	v = strtol(line + m + 8, &end, 10);
	return errno || end == line + m + 8 || *end || v < 0 || v > 255 ? -1 : (int)v;
}

/*
 * Pass ssh's stderr on to ours as it comes, less the record the device's
 * command ends with: returns its status, or -1 when none came (ssh failed,
 * was killed, or the connection was lost). Only what could be the start
 * of the marker waits for the next read.
 */
static int relay_stderr(int fd, const char *marker)
{
	size_t m = strlen(marker), len = 0, cap = 0;
	char *buf = NULL, chunk[8192];
	int status = -1, done = 0;
	ssize_t n;

	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		char *hit, *nl;
		size_t pass;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (done) {
			write_all(STDERR_FILENO, chunk, (size_t)n);
			continue;
		}
		XGROW(buf, len + (size_t)n + 1, cap);
		memcpy(buf + len, chunk, (size_t)n);
		len += (size_t)n;
		hit = memmem(buf, len, marker, m);
		pass = hit ? (size_t)(hit - buf) : len - partial_marker(buf, len, marker, m);
		write_all(STDERR_FILENO, buf, pass);
		memmove(buf, buf + pass, len - pass);
		len -= pass;
		if (hit && (nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			status = record_status(buf, m);
			done = 1;
			write_all(STDERR_FILENO, nl + 1, len - (size_t)(nl + 1 - buf));
			len = 0;
		}
	}
	if (!done && len)
		write_all(STDERR_FILENO, buf, len);
	free(buf);
	return status;
}

/* Run the program there: ssh's exit status, the record's in *record. */
static int run_program(const struct remote *rm, const char *command, int *record,
		       struct xcc_error *err)
{
	int pipefd[2], status;
	pid_t pid;

	*record = -1;
	if (pipe2(pipefd, O_CLOEXEC))
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	pid = ssh_start(rm, command, 0, -1, -1, pipefd[1], err);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		return -1;
	}
	*record = relay_stderr(pipefd[0], rm->marker);
	close(pipefd[0]);
	status = proc_wait(pid, err);
	atomic_store(&rm->watch->child, 0);
	return status;
}

/* After an interrupt or a lost connection: stop the program's process
 * group (TERM, then KILL after up to 5 s) and remove the directory. */
static void stop_remote(const struct remote *rm)
{
	struct xcc_error ignored = { 0 };
	char *q, *script;
	if (!rm->dir)
		return;
	q = shell_quote(rm->dir);
	script = xasprintf(
		"d=%s; : > \"$d/.stop\" 2>/dev/null; "
		"if [ -s \"$d/.pgid\" ]; then p=$(cat \"$d/.pgid\"); "
		"kill -TERM -\"$p\" 2>/dev/null || kill -TERM \"$p\" 2>/dev/null; "
		"for i in 1 2 3 4 5; do "
		"kill -0 -\"$p\" 2>/dev/null || kill -0 \"$p\" 2>/dev/null || break; sleep 1; done; "
		"kill -KILL -\"$p\" 2>/dev/null; kill -KILL \"$p\" 2>/dev/null; fi; %s",
		q, rm->o->keep ? "rm -f \"$d/.stop\" \"$d/.pgid\"" : "rm -rf \"$d\"");
	/* A second signal ends the stop itself; the first one must not. */
	rm->watch->answered = atomic_load(&rm->watch->signals);
	ssh_command(rm, script, NULL, &ignored);
	rm->watch->answered = 0;
	free(script);
	free(q);
}

/* No status came back: say which side failed. */
static int ssh_lost(const struct remote *rm, int status, struct xcc_error *err)
{
	if (status == 255)
		return xcc_fail(err, XCC_EFAIL, "ssh failed: the connection to %s failed or was "
				"lost before the program's exit status came back (ssh exit status "
				"255; ssh's message, if any, is above)", rm->o->device);
	if (status > 128)
		return xcc_fail(err, XCC_EFAIL, "ssh failed: it was killed by signal %d before the "
				"program's exit status came back from %s", status - 128,
				rm->o->device);
	return xcc_fail(err, XCC_EFAIL, "ssh failed: it ended with status %d, but the program's "
			"exit status never came back from %s", status, rm->o->device);
}

/* The libraries to copy, unless the device has them: --lib's, else those
 * the program needs. */
static int wanted_libraries(const struct run_opts *o, const struct run_plan *plan,
			    struct strvec *names, struct strvec *paths, struct xcc_error *err)
{
	struct run_libraries libs = { 0 };

	if (o->libs.n) {
		for (size_t i = 0; i < o->libs.n; i++) {
			if (access(o->libs.v[i], R_OK))
				return xcc_fail(err, XCC_EUSAGE, "--lib %s: %s", o->libs.v[i],
						strerror(errno));
			strvec_push(names, file_base_name(o->libs.v[i]));
			strvec_push(paths, o->libs.v[i]);
		}
		return 0;
	}
	if (run_needed_libraries(plan, &libs, err))
		return -1;
	for (size_t i = 0; i < libs.n; i++) {
		strvec_push(names, libs.v[i].name);
		strvec_push(paths, libs.v[i].path);
	}
	run_libraries_free(&libs);
	return 0;
}

/* The program, then each wanted library the device lacks, once. */
static void pick_files(const struct run_plan *plan, const struct strvec *names,
		       const struct strvec *paths, const struct strvec *has,
		       struct strvec *send_names, struct strvec *send_paths)
{
	strvec_push(send_names, file_base_name(plan->program));
	strvec_push(send_paths, plan->program);
	for (size_t i = 0; i < names->n; i++) {
		if (strvec_contains(has, names->v[i]) || strvec_contains(send_names, names->v[i]))
			continue;
		strvec_push(send_names, names->v[i]);
		strvec_push(send_paths, paths->v[i]);
	}
}

static void say(const struct run_opts *o, char *line)
{
	if (o->say)
		o->say(line);
	free(line);
}

/*
 * What the board needs beyond the program (NVIDIA's cuda-compat for a
 * JetPack that ships an older CUDA): the device's own copy goes on the
 * library path after the program's directory; without one the sysroot's
 * goes with the program; without either the run goes ahead (the program
 * may fail to initialize CUDA), said first.
 */
static void pick_compat(const struct run_opts *o, const struct run_plan *plan,
			const struct strvec *device_has, struct strvec *lib_dirs,
			struct strvec *send_names, struct strvec *send_paths)
{
	for (size_t i = 0; i < plan->n_compat; i++) {
		const struct run_compat *c = &plan->compat[i];

		if (c->device_dir && strvec_contains(device_has, c->device_dir)) {
			strvec_push(lib_dirs, c->device_dir);
			say(o, xasprintf("note: %s; the device has it (%s/libcuda.so*): on the "
					 "program's library path", c->why, c->device_dir));
		} else if (c->files.n) {
			for (size_t k = 0; k < c->files.n; k++) {
				const char *name = file_base_name(c->files.v[k]);

				if (strvec_contains(send_names, name))
					continue;
				strvec_push(send_names, name);
				strvec_push(send_paths, c->files.v[k]);
			}
			say(o, xasprintf("note: %s; %s: the sysroot's %s goes with the program",
					 c->why, c->device_dir ? "the device lacks it" :
					 "whether the device has it is not known", c->component));
		} else {
			say(o, xasprintf("warning: %s; %s, and the sysroot has no %s component: "
					 "install %s on the board, or make the sysroot again with "
					 "--components %s (run --device then sends it)", c->why,
					 c->device_dir ? "the device lacks it" :
					 "whether the device has it is not known", c->component,
					 c->package ? c->package : "it", c->component));
			if (c->device_dir)
				say(o, xasprintf("note: looked for %s/libcuda.so* on the device "
						 "(--device-cuda DIR names another CUDA directory)",
						 c->device_dir));
		}
	}
}

int run_remote(const struct run_opts *o, const struct run_plan *plan,
	       struct run_remote_result *r, struct xcc_error *err)
{
	struct run_watch watch = { .answered = 0 }; /* its atomics set below */
	struct remote rm = { .o = o, .watch = &watch };
	struct strvec names = STRVEC_INIT, paths = STRVEC_INIT, has = STRVEC_INIT,
		      send_names = STRVEC_INIT, send_paths = STRVEC_INIT, none = STRVEC_INIT,
		      compat_has = STRVEC_INIT, lib_dirs = STRVEC_INIT;
	char *args = NULL, *command = NULL;
	int record, status, rc = -1;

	memset(r, 0, sizeof *r);
	if (run_parse_device(o->device, &rm.t, err))
		return -1;
	atomic_init(&watch.signals, 0);
	atomic_init(&watch.child, 0);
	/* Without the watch (no thread) the signals keep their default
	 * action: the run still stops, only without the clean-up there. */
	interrupt_begin_notify(&watch.in, on_signal, &watch);
	if (check_arguments(o->argv, err) || ssh_marker(rm.marker, sizeof rm.marker, "cuda-xcc-", err) ||
	    wanted_libraries(o, plan, &names, &paths, err))
		goto out;
	if (probe_device(&rm, o->libs.n ? &none : &names, plan, &has, &compat_has, err))
		goto stop;
	pick_files(plan, &names, &paths, &has, &send_names, &send_paths);
	pick_compat(o, plan, &compat_has, &lib_dirs, &send_names, &send_paths);
	args = args_script(o->argv);
	if (upload(&rm, &send_paths, &send_names, args, err))
		goto stop;
	strvec_extend(&r->copied, &send_names);
	command = run_command(&rm, file_base_name(plan->program), &lib_dirs);
	status = run_program(&rm, command, &record, err);
	if (status < 0)
		goto stop;
	if (record >= 0 && !run_signal(&watch)) {
		r->status = record;
		rc = 0;
		goto out;
	}
	if (!run_signal(&watch))
		ssh_lost(&rm, status, err);
stop:
	/* The command did not get to remove its directory, or the program may
	 * still run. */
	stop_remote(&rm);
out:
	if (run_signal(&watch)) {
		r->interrupted = run_signal(&watch);
		r->status = interrupt_status(r->interrupted);
		rc = 0;
	}
	interrupt_end(&watch.in);
	r->device_dir = rm.dir;
	ssh_target_free(&rm.t);
	strvec_free(&names);
	strvec_free(&paths);
	strvec_free(&has);
	strvec_free(&send_names);
	strvec_free(&send_paths);
	strvec_free(&compat_has);
	strvec_free(&lib_dirs);
	free(args);
	free(command);
	return rc;
}

void run_remote_result_free(struct run_remote_result *r)
{
	free(r->device_dir);
	strvec_free(&r->copied);
	memset(r, 0, sizeof *r);
}
