/* The fields of a JSON object read through cJSON, each checked for its
 * type, with one wording for every reader (the embedded tables of db/,
 * NVIDIA's manifests, sysroot.json): "WHERE: PATH.KEY must be a string,
 * not a number", "WHERE: KEY is missing". */
#ifndef XCC_JSON_FIELD_H
#define XCC_JSON_FIELD_H

#include <cjson/cJSON.h>

#include "base/error.h"

/* Either boolean, for json_member's type. */
#define JSON_BOOL (cJSON_True | cJSON_False)

/* "a string", "a number", "an array", "an object", "a boolean", "null". */
const char *json_type_name(const cJSON *it);

/* obj's member key into *out when its type is one of type (cJSON_String,
 * cJSON_Number, cJSON_Array, cJSON_Object, JSON_BOOL). Absent or null: 0
 * and *out NULL when optional, else -1. Another type: -1. The error is
 * XCC_EFAIL (what is wrong is inside an input file), naming where, path
 * (NULL: none) and key; err may be NULL for a reader that takes what it
 * finds. */
int json_member(const cJSON *obj, const char *key, int type, int optional, const cJSON **out,
		const char *where, const char *path, struct xcc_error *err);

#endif
