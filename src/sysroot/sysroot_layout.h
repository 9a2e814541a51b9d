/* The layout of a sysroot: where each member of a planned archive goes. */
#ifndef XCC_SYSROOT_LAYOUT_H
#define XCC_SYSROOT_LAYOUT_H

#include "sysroot/plan.h"

/* Where member (as stored in archive a, "./" stripped) goes in the tree,
 * relative to its root, or NULL when it is not taken: the layout rules for
 * redist archives, .debs and wheels. Caller frees. */
char *sysroot_member_destination(const struct plan *p, const struct plan_archive *a,
				 const char *member);

/* Whether lib_path (a member's path under lib/) is taken under the plan's
 * library filter (plan_set_library_filter). */
int sysroot_layout_keeps_library(const struct plan *p, const char *lib_path);

/* Where archive a's parts go, for people ("bin, nvvm, licenses/x-host"):
 * what --dry-run prints, from the rules above. Caller frees. */
char *sysroot_layout_summary(const struct plan *p, const struct plan_archive *a);

#endif
