/* A JetPack point release by the L4T (Jetson Linux) release a board's
 * /etc/nv_tegra_release names: jetpack.json's l4t lists read backwards. */
#include <config.h>

#include <stdlib.h>

#include "db/jetpack.h"

/* "38.2.1" (and "35.1", its missing parts 0) into v[3]; -1 unless 1 to 3
 * numbers. */
static int parse_l4t(const char *s, int v[3])
{
	int n = 0;
	char *end;

	v[0] = v[1] = v[2] = 0;
	while (n < 3) {
		long x;

		if (*s < '0' || *s > '9')
			return -1;
		x = strtol(s, &end, 10);
		if (x > 9999)
			return -1;
		v[n++] = (int)x;
		if (!*end)
			return 0;
		if (*end != '.')
			return -1;
		s = end + 1;
	}
	return -1;
}

const struct jetpack_release *jetpack_find_l4t(const struct jetpack_db *db, const char *l4t)
{
	int want[3], have[3];

	if (parse_l4t(l4t, want))
		return NULL;
	for (size_t i = 0; i < db->n; i++)
		for (size_t k = 0; k < db->releases[i].n_points; k++) {
			const struct jetpack_release *p = &db->releases[i].points[k];

			for (size_t j = 0; j < p->n_l4t; j++)
				if (parse_l4t(p->l4t[j], have) == 0 && have[0] == want[0] &&
				    have[1] == want[1] && have[2] == want[2])
					return p;
		}
	return NULL;
}
