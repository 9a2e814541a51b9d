#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "elf/elfinfo.h"
#include "elf/elfpatch.h"
#include "elf/elfpatch_int.h"

/* Set a string-valued entry: in place when the new string fits where the
 * old one was and nothing else names any byte of it, else a new string. */
static void set_string_entry(struct model *m, int idx, const char *s)
{
	GElf_Xword old = m->dyn[idx].d_un.d_val;
	const char *cur = ep_str_at(m, old);

	if (cur && strcmp(cur, s) == 0)
		return;
	if (cur && old < m->strsz_orig && strlen(s) <= strlen(cur) &&
	    (m->dyn[idx].d_tag == DT_RPATH || m->dyn[idx].d_tag == DT_RUNPATH) &&
	    !ep_string_shared(m, idx, old)) {
		size_t oldlen = strlen(cur);

		memset(m->str + old, 0, oldlen + 1);
		memcpy(m->str + old, s, strlen(s));
		if (old < m->str_dirty_lo)
			m->str_dirty_lo = old;
		if (old + oldlen + 1 > m->str_dirty_hi)
			m->str_dirty_hi = old + oldlen + 1;
		ep_log(m, "%s: string rewritten in place", m->path);
		return;
	}
	m->dyn[idx].d_un.d_val = ep_str_add(m, s);
	m->dyn_changed = 1;
	/* The old string is dead: patchelf marks such strings with Xs, and its
	 * test suite checks that they are (and that shared ones are not). */
	if (cur && old < m->strsz_orig &&
	    (m->dyn[idx].d_tag == DT_RPATH || m->dyn[idx].d_tag == DT_RUNPATH) &&
	    !ep_string_shared(m, idx, old) && ep_str_at(m, m->dyn[idx].d_un.d_val) &&
	    m->dyn[idx].d_un.d_val >= m->strsz_orig) {
		memset(m->str + old, 'X', strlen(m->str + old));
		if (old < m->str_dirty_lo)
			m->str_dirty_lo = old;
		if (old + strlen(m->str + old) > m->str_dirty_hi)
			m->str_dirty_hi = old + strlen(m->str + old);
	}
}

static int op_set_soname(struct model *m, const char *soname, struct xcc_error *err)
{
	int i;

	if (ep_need_dynamic(m, err))
		return -1;
	i = ep_dyn_find(m, DT_SONAME);
	if (i < 0) {
		ep_log(m, "%s: adding DT_SONAME %s", m->path, soname);
		ep_dyn_insert(m, m->ndyn, DT_SONAME, ep_str_add(m, soname));
		return 0;
	}
	ep_log(m, "%s: setting DT_SONAME to %s", m->path, soname);
	set_string_entry(m, i, soname);
	return 0;
}

static int op_set_interp(struct model *m, const char *interp, struct xcc_error *err)
{
	const GElf_Phdr *p;
	Elf_Data *d;

	if (m->interp_ph < 0)
		return xcc_fail(err, XCC_EFAIL,
				"%s: cannot find section '.interp'. The input file is most likely "
				"statically linked", m->path);
	p = &m->ph[m->interp_ph];
	d = elf_getdata_rawchunk(m->e, (int64_t)p->p_offset, p->p_filesz, ELF_T_BYTE);
	if (d && d->d_size && memchr(d->d_buf, '\0', d->d_size) &&
	    strcmp(d->d_buf, interp) == 0)
		return 0;
	free(m->interp);
	m->interp = xstrdup(interp);
	ep_log(m, "%s: setting the interpreter to %s", m->path, interp);
	return 0;
}

/* Whether dir holds an ELF file called name for this file's machine. */
static int dir_has_library(const struct model *m, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int machine = elfinfo_file_machine(path);

	free(path);
	return machine == m->eh.e_machine;
}

static int has_allowed_prefix(const char *dir, const char *prefixes)
{
	struct strvec pv = STRVEC_INIT;
	int ok = 0;
	char *list = xstrdup(prefixes);

	for (char *tok = strtok(list, ":"); tok; tok = strtok(NULL, ":"))
		strvec_push(&pv, tok);
	for (size_t i = 0; i < pv.n && !ok; i++)
		ok = strncmp(dir, pv.v[i], strlen(pv.v[i])) == 0;
	strvec_free(&pv);
	free(list);
	return ok;
}

/* Keep only the directories that provide some DT_NEEDED library. */
static char *shrink_rpath(struct model *m, const char *rpath, const char *prefixes)
{
	struct strvec keep = STRVEC_INIT, needed = STRVEC_INIT;
	char *list = xstrdup(rpath), *save = NULL, *out;
	int *found;

	for (size_t i = 0; i < m->ndyn; i++)
		if (m->dyn[i].d_tag == DT_NEEDED && ep_str_at(m, m->dyn[i].d_un.d_val))
			strvec_push(&needed, ep_str_at(m, m->dyn[i].d_un.d_val));
	found = xcalloc(needed.n + 1, sizeof *found);
	for (char *dir = strtok_r(list, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		int useful = 0;

		/* $ORIGIN and other relative entries cannot be checked here. */
		if (dir[0] != '/') {
			strvec_push(&keep, dir);
			continue;
		}
		if (prefixes && !has_allowed_prefix(dir, prefixes)) {
			ep_log(m, "%s: removing %s from the rpath (not an allowed prefix)", m->path,
			      dir);
			continue;
		}
		for (size_t j = 0; j < needed.n; j++)
			if (!found[j] && dir_has_library(m, dir, needed.v[j]))
				found[j] = useful = 1;
		if (useful)
			strvec_push(&keep, dir);
		else
			ep_log(m, "%s: removing %s from the rpath", m->path, dir);
	}
	out = strvec_join(&keep, ":");
	free(found);
	free(list);
	strvec_free(&keep);
	strvec_free(&needed);
	return out;
}

static int op_rpath(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err)
{
	int rp, run, idx;
	const char *cur = NULL;
	char *want;
	GElf_Sxword tag = ops->force_rpath ? DT_RPATH : DT_RUNPATH;

	if (ops->rpath_op == ELFPATCH_RPATH_KEEP)
		return 0;
	if (ep_need_dynamic(m, err))
		return -1;
	rp = ep_dyn_find(m, DT_RPATH);
	run = ep_dyn_find(m, DT_RUNPATH);
	if (run >= 0)
		cur = ep_str_at(m, m->dyn[run].d_un.d_val);
	else if (rp >= 0)
		cur = ep_str_at(m, m->dyn[rp].d_un.d_val);

	switch (ops->rpath_op) {
	case ELFPATCH_RPATH_REMOVE:
		for (int i = (int)m->ndyn - 1; i >= 0; i--)
			if (m->dyn[i].d_tag == DT_RPATH || m->dyn[i].d_tag == DT_RUNPATH)
				ep_dyn_remove(m, (size_t)i);
		ep_log(m, "%s: removing the rpath", m->path);
		return 0;
	case ELFPATCH_RPATH_SHRINK:
		if (!cur)
			return 0;
		want = shrink_rpath(m, cur, ops->allowed_rpath_prefixes);
		/* Shrinking keeps the kind of entry the file has. */
		tag = run >= 0 ? DT_RUNPATH : DT_RPATH;
		break;
	case ELFPATCH_RPATH_ADD:
		want = cur && *cur ? xasprintf("%s:%s", cur, ops->rpath) : xstrdup(ops->rpath);
		break;
	default:
		want = xstrdup(ops->rpath);
		break;
	}
	ep_log(m, "%s: new rpath is '%s'", m->path, want);

	/* One entry of the kind asked for: convert the other kind, drop doubles. */
	idx = tag == DT_RUNPATH ? run : rp;
	if (idx < 0) {
		idx = tag == DT_RUNPATH ? rp : run;
		if (idx >= 0) {
			m->dyn[idx].d_tag = tag;
			m->dyn_changed = 1;
		}
	}
	for (int i = (int)m->ndyn - 1; i >= 0; i--)
		if (i != idx && (m->dyn[i].d_tag == DT_RPATH || m->dyn[i].d_tag == DT_RUNPATH)) {
			ep_dyn_remove(m, (size_t)i);
			if (i < idx)
				idx--;
		}
	if (idx < 0)
		ep_dyn_insert(m, m->ndyn, tag, ep_str_add(m, want));
	else
		set_string_entry(m, idx, want);
	free(want);
	return 0;
}
static int op_needed(struct model *m, const struct elfpatch_ops *ops, struct xcc_error *err)
{
	if (!ops->remove_needed.n && !ops->replace_needed.n && !ops->add_needed.n)
		return 0;
	if (ep_need_dynamic(m, err))
		return -1;
	for (int i = (int)m->ndyn - 1; i >= 0; i--) {
		const char *s = m->dyn[i].d_tag == DT_NEEDED ? ep_str_at(m, m->dyn[i].d_un.d_val)
							     : NULL;

		if (s && strvec_contains(&ops->remove_needed, s)) {
			ep_log(m, "%s: removing DT_NEEDED %s", m->path, s);
			ep_dyn_remove(m, (size_t)i);
		}
	}
	for (size_t k = 0; k + 1 < ops->replace_needed.n; k += 2) {
		const char *from = ops->replace_needed.v[k], *to = ops->replace_needed.v[k + 1];

		for (size_t i = 0; i < m->ndyn; i++) {
			const char *s = m->dyn[i].d_tag == DT_NEEDED
						? ep_str_at(m, m->dyn[i].d_un.d_val) : NULL;
			GElf_Xword old, nw;

			if (!s || strcmp(s, from) || strcmp(from, to) == 0)
				continue;
			ep_log(m, "%s: replacing DT_NEEDED %s with %s", m->path, from, to);
			old = m->dyn[i].d_un.d_val;
			nw = ep_str_add(m, to);
			m->dyn[i].d_un.d_val = nw;
			m->dyn_changed = 1;
			if (ep_verneed_rename(m, old, nw, err))
				return -1;
		}
	}
	for (size_t k = 0, at = 0; k < ops->add_needed.n; k++) {
		int present = 0;

		for (size_t i = 0; i < m->ndyn; i++)
			if (m->dyn[i].d_tag == DT_NEEDED && ep_str_at(m, m->dyn[i].d_un.d_val) &&
			    strcmp(ep_str_at(m, m->dyn[i].d_un.d_val), ops->add_needed.v[k]) == 0)
				present = 1;
		if (present)
			continue;
		ep_log(m, "%s: adding DT_NEEDED %s", m->path, ops->add_needed.v[k]);
		ep_dyn_insert(m, at++, DT_NEEDED, ep_str_add(m, ops->add_needed.v[k]));
	}
	return 0;
}

static int op_no_default_lib(struct model *m, struct xcc_error *err)
{
	int i;

	if (ep_need_dynamic(m, err))
		return -1;
	i = ep_dyn_find(m, DT_FLAGS_1);
	if (i < 0) {
		ep_dyn_insert(m, m->ndyn, DT_FLAGS_1, DF_1_NODEFLIB);
	} else if (!(m->dyn[i].d_un.d_val & DF_1_NODEFLIB)) {
		m->dyn[i].d_un.d_val |= DF_1_NODEFLIB;
		m->dyn_changed = 1;
	}
	return 0;
}

static int op_add_debug_tag(struct model *m, struct xcc_error *err)
{
	if (!m->has_dyn)
		return ep_need_dynamic(m, err);
	if (ep_dyn_find(m, DT_DEBUG) >= 0)
		return 0;
	ep_log(m, "%s: adding DT_DEBUG", m->path);
	ep_dyn_insert(m, m->ndyn, DT_DEBUG, 0);
	return 0;
}

/* Set or clear PF_X of PT_GNU_STACK; a PT_NULL header may become one. */
static int op_execstack(struct model *m, int set, struct xcc_error *err)
{
	int null_ph = -1;

	for (size_t i = 0; i < m->phnum; i++) {
		GElf_Phdr *p = &m->ph[i];

		if (p->p_type == PT_NULL && null_ph < 0)
			null_ph = (int)i;
		if (p->p_type != PT_GNU_STACK)
			continue;
		if (!!(p->p_flags & PF_X) != set) {
			p->p_flags = set ? p->p_flags | PF_X : p->p_flags & ~(GElf_Word)PF_X;
			m->ph_changed = 1;
			ep_log(m, "%s: %s the executable stack flag", m->path,
			      set ? "setting" : "clearing");
		}
		return 0;
	}
	if (null_ph < 0)
		return xcc_fail(err, XCC_EFAIL,
				"%s: no PT_GNU_STACK program header and no unused one to turn into "
				"it: relink with -z execstack or -z noexecstack", m->path);
	memset(&m->ph[null_ph], 0, sizeof m->ph[null_ph]);
	m->ph[null_ph].p_type = PT_GNU_STACK;
	m->ph[null_ph].p_flags = PF_R | PF_W | (set ? PF_X : 0);
	m->ph[null_ph].p_align = 1;
	m->ph_changed = 1;
	ep_log(m, "%s: program header %d becomes PT_GNU_STACK", m->path, null_ph);
	return 0;
}


int elfpatch_file(const char *path, const struct elfpatch_ops *ops, struct elfpatch_result *res,
		  struct xcc_error *err)
{
	struct model m = { .path = path, .fd = -1, .log = &res->log, .warnings = &res->warnings };
	const char *output = ops->output;
	struct stat st;
	int rc = -1, changed;

	res->changed = res->grew = 0;
	m.fd = open(path, (output ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	/* A file with other hard links (a sysroot's file shared with the file
	 * store, and so with every sysroot made from it) is written anew and
	 * renamed over its name: patched in place, it would change them all. */
	if (m.fd >= 0 && !output && fstat(m.fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_nlink > 1) {
		close(m.fd);
		output = path;
		m.fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (m.fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (ep_model_load(&m, err))
		goto out;
	res->old_size = res->new_size = m.size;

	if (ops->set_os_abi >= 0 && m.eh.e_ident[EI_OSABI] != ops->set_os_abi) {
		m.eh.e_ident[EI_OSABI] = (unsigned char)ops->set_os_abi;
		m.ehdr_changed = 1;
	}
	if (ops->set_soname && op_set_soname(&m, ops->set_soname, err))
		goto out;
	if (ops->set_interp && op_set_interp(&m, ops->set_interp, err))
		goto out;
	if (op_rpath(&m, ops, err) || op_needed(&m, ops, err))
		goto out;
	if (ops->no_default_lib && op_no_default_lib(&m, err))
		goto out;
	if (ops->add_debug_tag && op_add_debug_tag(&m, err))
		goto out;
	if (ops->rename_symbols.n && ep_op_rename_dynamic_symbols(&m, &ops->rename_symbols, err))
		goto out;
	if (ops->clear_symbol_version.n &&
	    ep_op_clear_symbol_version(&m, &ops->clear_symbol_version, err))
		goto out;
	if (ops->execstack >= 0 && op_execstack(&m, ops->execstack, err))
		goto out;
	if (ep_layout_plan(&m, ops, err))
		goto out;
	ep_queue_tables(&m);

	changed = m.nwrites || m.append_len;
	if (ops->output || (output && changed)) {
		if (ep_write_output(&m, output, err))
			goto out;
	} else if (changed && ep_apply(&m, m.fd, path, err)) {
		goto out;
	}
	res->changed = changed;
	res->grew = m.append_len > 0;
	if (m.append_len)
		res->new_size = m.append_off + m.append_len;
	rc = 0;
out:
	ep_model_free(&m);
	if (m.fd >= 0)
		close(m.fd);
	return rc;
}

int elfpatch_execstack(const char *path, char *state, struct xcc_error *err)
{
	struct model m = { .path = path, .fd = -1 };
	int rc = -1;

	m.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m.fd < 0) {
		xcc_fail(err, XCC_EFAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (ep_model_load(&m, err))
		goto out;
	*state = '?';
	for (size_t i = 0; i < m.phnum; i++)
		if (m.ph[i].p_type == PT_GNU_STACK) {
			*state = m.ph[i].p_flags & PF_X ? 'X' : '-';
			break;
		}
	rc = 0;
out:
	ep_model_free(&m);
	if (m.fd >= 0)
		close(m.fd);
	return rc;
}

void elfpatch_result_free(struct elfpatch_result *res)
{
	strvec_free(&res->log);
	strvec_free(&res->warnings);
	memset(res, 0, sizeof *res);
}

void elfpatch_ops_free(struct elfpatch_ops *ops)
{
	strvec_free(&ops->remove_needed);
	strvec_free(&ops->replace_needed);
	strvec_free(&ops->add_needed);
	strvec_free(&ops->clear_symbol_version);
	strvec_free(&ops->rename_symbols);
	*ops = (struct elfpatch_ops)ELFPATCH_OPS_INIT;
}
