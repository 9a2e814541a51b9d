/* Running other programs: capturing a tool's output, finding it on PATH. */
#ifndef XCC_PROC_H
#define XCC_PROC_H

#include <sys/types.h>

#include "base/error.h"
#include "base/strvec.h"

/* Run argv (argv[0] looked up on PATH), capture stdout (up to a limit) into
 * *out (caller frees), stderr discarded. Returns the exit status, or -1 with
 * err set when it could not be started. */
int proc_capture(char *const argv[], char **out, struct xcc_error *err);

/* Read a child's output from fd (its end of a pipe) until end of file, at
 * most 16 MiB kept, close fd and wait for the child: its exit status with
 * the output in *out (caller frees), or -1 with err set and *out NULL. */
int proc_collect(pid_t pid, int fd, char **out, struct xcc_error *err);
/* Run argv (looked up on PATH) with this process's stdio and wait: its exit
 * status (128 + N after signal N), or -1 with err set when it could not be
 * started. */
int proc_run(char *const argv[], struct xcc_error *err);

/* Start argv (looked up on PATH) with stdin and stdout from the given
 * descriptors (-1: this process's own), stderr this process's own. Returns
 * the child's pid, or -1 with err set. */
pid_t proc_spawn(char *const argv[], int stdin_fd, int stdout_fd, struct xcc_error *err);
/* The same with stderr from stderr_fd too (-1: this process's own). */
pid_t proc_spawn_fds(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd,
		     struct xcc_error *err);

/* Wait for a child: its exit status (128 + N after signal N), or -1 with
 * err set. */
int proc_wait(pid_t pid, struct xcc_error *err);

/* The full path of an executable found on PATH, or NULL. Caller frees. */
char *proc_which(const char *name);

/* Every executable on PATH whose name starts with prefix, first PATH
 * directory winning for duplicate names. */
void proc_list_prefixed(const char *prefix, struct strvec *names, struct strvec *paths);

#endif
