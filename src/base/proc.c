#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "base/proc.h"
#include "base/xalloc.h"

extern char **environ;

/* posix_spawnp, with the signals base/interrupt.c blocks while it watches
 * them unblocked in the child (a tool run meanwhile still stops on them;
 * one ignored stays ignored across exec). An errno value, 0 on success. */
static int spawn(pid_t *pid, char *const argv[], const posix_spawn_file_actions_t *fa)
{
	posix_spawnattr_t attr;
	sigset_t mask;
	int rc;

	if ((rc = posix_spawnattr_init(&attr)))
		return rc;
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	interrupt_child_mask(&mask);
	posix_spawnattr_setsigmask(&attr, &mask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawnp(pid, argv[0], fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	return rc;
}

/* The child's exit status as a shell reports it: 128 + N for signal N. */
static int wait_exit_status(pid_t pid, struct xcc_error *err)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return xcc_fail(err, XCC_EFAIL, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int proc_capture(char *const argv[], char **out, struct xcc_error *err)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], rc;
	pid_t pid;

	*out = NULL;
	if (pipe(pipefd))
		return xcc_fail(err, XCC_EFAIL, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	rc = spawn(&pid, argv, &fa);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc) {
		close(pipefd[0]);
		return xcc_fail(err, XCC_EFAIL, "cannot run %s: %s", argv[0], strerror(rc));
	}
	return proc_collect(pid, pipefd[0], out, err);
}

int proc_collect(pid_t pid, int fd, char **out, struct xcc_error *err)
{
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap);
	int status;

	*out = NULL;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			if (cap >= (1u << 24))
				break; /* enough: nobody needs more of a tool's answer */
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	status = wait_exit_status(pid, err);
	if (status < 0)
		free(buf);
	else
		*out = buf;
	return status;
}

int proc_run(char *const argv[], struct xcc_error *err)
{
	pid_t pid;
	int rc;

	fflush(NULL);
	rc = spawn(&pid, argv, NULL);
	if (rc)
		return xcc_fail(err, XCC_EFAIL, "cannot run %s: %s", argv[0], strerror(rc));
	return wait_exit_status(pid, err);
}

pid_t proc_spawn(char *const argv[], int stdin_fd, int stdout_fd, struct xcc_error *err)
{
	return proc_spawn_fds(argv, stdin_fd, stdout_fd, -1, err);
}

pid_t proc_spawn_fds(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd,
		     struct xcc_error *err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	fflush(NULL);
	posix_spawn_file_actions_init(&fa);
	if (stdin_fd >= 0 && stdin_fd != STDIN_FILENO)
		posix_spawn_file_actions_adddup2(&fa, stdin_fd, STDIN_FILENO);
	if (stdout_fd >= 0 && stdout_fd != STDOUT_FILENO)
		posix_spawn_file_actions_adddup2(&fa, stdout_fd, STDOUT_FILENO);
	if (stderr_fd >= 0 && stderr_fd != STDERR_FILENO)
		posix_spawn_file_actions_adddup2(&fa, stderr_fd, STDERR_FILENO);
	rc = spawn(&pid, argv, &fa);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		xcc_fail(err, XCC_EFAIL, "cannot run %s: %s", argv[0], strerror(rc));
		return -1;
	}
	return pid;
}

int proc_wait(pid_t pid, struct xcc_error *err)
{
	return wait_exit_status(pid, err);
}

static int is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *proc_which(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return is_executable_file(name) ? xstrdup(name) : NULL;
	if (!path || !*path)
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", *dir ? dir : ".", name);

		if (is_executable_file(cand))
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

void proc_list_prefixed(const char *prefix, struct strvec *names, struct strvec *paths)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	size_t plen = strlen(prefix);

	if (!path || !*path)
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		DIR *d = opendir(*dir ? dir : ".");
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			char *full;

			if (strncmp(de->d_name, prefix, plen) != 0 || strvec_contains(names, de->d_name))
				continue;
			full = xasprintf("%s/%s", *dir ? dir : ".", de->d_name);
			if (is_executable_file(full)) {
				strvec_push(names, de->d_name);
				strvec_push(paths, full);
			}
			free(full);
		}
		closedir(d);
	}
	free(copy);
}
