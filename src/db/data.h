/* Data files from sysroots/, embedded by scripts/embed-data.sh. */
#ifndef XCC_DATA_H
#define XCC_DATA_H

struct embedded_file {
	const char *name; /* path relative to sysroots/, e.g. "gpus.json" */
	const char *text;
};

extern const struct embedded_file xcc_embedded_files[];

/* The text of an embedded file, or NULL. */
const char *embedded_file_text(const char *name);

#endif
