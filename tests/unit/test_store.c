/* The file store's objects and records (pkg/store.c) and the listing they
 * are made from (sysroot_files_parse): sharing links, an object whose bytes
 * changed is replaced, a stamp that no longer matches is not linked out, a
 * record round-trips and a link under its name is not read, gc removes
 * what nothing links. */
#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/sha256.h"
#include "base/xalloc.h"
#include "pkg/store.h"
#include "sysroot/sysroot_files.h"
#include "tap.h"

static char dir[] = "/tmp/test_store.XXXXXX";

static void test_parse(void)
{
	const char *sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char *text = xasprintf("%s\nd 0755 a\nf 0644 3 %s a/x y\nf 0600 9 unreadable a/u\n"
			       "l a/l -> x y\n", SYSROOT_FILES_HEADER, sha);
	static const char *const bad[] = { "f 644 3 a", "q 0644 a", "l a", "d 0755 ", "f 0644 x a" };
	struct sysroot_files_entry *v;
	size_t n = 0;

	int rc = sysroot_files_parse(text, &v, &n);

	ok(rc == 0 && n == 4, "a listing parses: %zu entries", n);
	ok(v[0].type == 'd' && v[0].mode == 0755 && !strcmp(v[0].path, "a"), "a directory");
	ok(v[1].type == 'f' && v[1].mode == 0644 && v[1].size == 3 && !strcmp(v[1].sha256, sha) &&
	   !strcmp(v[1].path, "a/x y"), "a file, its path with a space");
	ok(v[2].type == 'f' && !v[2].sha256[0] && !strcmp(v[2].path, "a/u"),
	   "a file that could not be read has no digest");
	ok(v[3].type == 'l' && !strcmp(v[3].path, "a/l") && !strcmp(v[3].target, "x y"),
	   "a symbolic link and its target");
	sysroot_files_entries_free(v, n);
	free(text);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ok(sysroot_files_parse(bad[i], &v, &n) == -1 && !v && !n,
		   "'%s' is no line create writes", bad[i]);
	}
}

/* dir/NAME/file holding text; its sha256 in hex. */
static int tree_with(const char *name, const char *text, char hex[65])
{
	char *d = xasprintf("%s/%s", dir, name), *p = xasprintf("%s/file", d);
	struct xcc_error err = { 0 };
	int fd;

	mkdir(d, 0755);
	file_write_atomic(p, text, strlen(text), 0644, &err);
	xcc_sha256_buffer(text, strlen(text), hex);
	fd = open(d, O_RDONLY | O_DIRECTORY);
	free(p);
	free(d);
	return fd;
}

static ino_t ino_at(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ? 0 : st.st_ino;
}

static void test_objects(struct file_store *s)
{
	struct store_stamp a, b, c, stale;
	struct store_gc_result r;
	struct xcc_error err = { 0 };
	char hex[65], *obj;
	int out = tree_with("out", "", hex), t1 = tree_with("t1", "same bytes", hex);
	int t2 = tree_with("t2", "same bytes", hex), t3 = tree_with("t3", "same bytes", hex);
	int fd, rc;

	ok(store_share(s, t1, "file", hex, 0644, &a, &err) == 1, "a new file is shared");
	obj = xasprintf("%s/objects/%.2s/%s", s->dir, hex, a.name);
	ok(ino_at(AT_FDCWD, obj) == ino_at(t1, "file"), "as a link: the object is the tree's file");
	ok(store_share(s, t2, "file", hex, 0644, &b, &err) == 1 &&
	   ino_at(t2, "file") == ino_at(t1, "file"), "an equal file becomes a link to the object");
	ok(store_share(s, t2, "file", hex, 0600, &b, &err) == 0,
	   "a mode other than the file's is not shared");
	ok(store_link_out(s, &a, out, "linked", &err) == 1 &&
	   ino_at(out, "linked") == ino_at(t1, "file"), "linked out as stamped");
	/* written in place through a tree's link: its stamp no longer matches */
	fd = openat(t1, "file", O_WRONLY | O_APPEND);
	ok(fd >= 0 && write(fd, "!", 1) == 1, "the object is changed in place");
	close(fd);
	ok(!store_object_fresh(s, &a) && store_link_out(s, &a, out, "again", &err) == 0 &&
	   ino_at(out, "again") == 0, "a changed object is not linked out");
	ok(store_share(s, t3, "file", hex, 0644, &c, &err) == 1 &&
	   ino_at(AT_FDCWD, obj) == ino_at(t3, "file") && ino_at(t1, "file") != ino_at(t3, "file"),
	   "the next good file takes the changed object's place");
	stale = c;
	stale.mtime_ns = (stale.mtime_ns + 1) % 1000000000;
	ok(store_object_fresh(s, &c) && !store_object_fresh(s, &stale),
	   "a stamp names one modification time");
	unlinkat(t3, "file", 0);
	unlinkat(out, "linked", 0);
	rc = store_gc(s, &r, &err);
	ok(rc == 0 && r.objects_removed == 1 && ino_at(AT_FDCWD, obj) == 0,
	   "gc removes the object no tree links (%zu removed)", r.objects_removed);
	free(obj);
	close(t1);
	close(t2);
	close(t3);
	close(out);
}

static void test_records(struct file_store *s)
{
	const char *key = "aaaabbbbccccddddaaaabbbbccccddddaaaabbbbccccddddaaaabbbbccccdddd";
	struct store_stamp st = { .size = 5, .mtime_s = 1700000000, .mtime_ns = 123456789 }, *objs;
	struct xcc_error err = { 0 };
	char *data, *path = xasprintf("%s/trees/%s", s->dir, key);
	char *elsewhere = xasprintf("%s/elsewhere", dir);
	size_t n;

	store_object_name(key, 0755, st.name);
	ok(!strcmp(st.name + 64, "-0755"), "an object's name: sha256 and mode (%s)", st.name);
	ok(store_record_write(s, key, "{\"x\": \"y\\n\"}", &st, 1, &err) == 0, "a record is written");
	ok(store_record_read(s, key, &data, &objs, &n) == 1 && n == 1 &&
	   !strcmp(data, "{\"x\": \"y\\n\"}") && !strcmp(objs[0].name, st.name) &&
	   objs[0].size == 5 && objs[0].mtime_s == 1700000000 && objs[0].mtime_ns == 123456789,
	   "and read back whole");
	free(data);
	free(objs);
	ok(store_record_write(s, "../x", "", NULL, 0, &err) == -1, "a name that is no key is refused");
	rename(path, elsewhere);
	ok(symlink(elsewhere, path) == 0 && store_record_read(s, key, &data, &objs, &n) == 0 &&
	   !data && !objs, "a link under a record's name is not read");
	unlink(path);
	unlink(elsewhere);
	free(path);
	free(elsewhere);
}

int main(void)
{
	struct file_store s;
	struct xcc_error err = { 0 };
	char *cache;

	if (!mkdtemp(dir)) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	test_parse();
	cache = xasprintf("%s/cache", dir);
	ok(store_open(&s, cache, 1, &err) == 0, "the store opens: %s", err.msg);
	ok(store_lock(&s, 1, NULL, &err) == 0, "and locks");
	test_objects(&s);
	test_records(&s);
	store_close(&s);
	file_remove_tree(dir);
	free(cache);
	return done_testing();
}
