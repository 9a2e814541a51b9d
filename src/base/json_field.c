#include <config.h>

#include "base/json_field.h"

static const char *want_name(int type)
{
	switch (type) {
	case cJSON_String: return "a string";
	case cJSON_Number: return "a number";
	case cJSON_Array: return "an array";
	case cJSON_Object: return "an object";
	case JSON_BOOL: return "true or false";
	default: return "another type";
	}
}

const char *json_type_name(const cJSON *it)
{
	if (cJSON_IsString(it))
		return "a string";
	if (cJSON_IsNumber(it))
		return "a number";
	if (cJSON_IsObject(it))
		return "an object";
	if (cJSON_IsArray(it))
		return "an array";
	if (cJSON_IsBool(it))
		return "a boolean";
	if (cJSON_IsNull(it))
		return "null";
	return "something else";
}

int json_member(const cJSON *obj, const char *key, int type, int optional, const cJSON **out,
		const char *where, const char *path, struct xcc_error *err)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	const char *dot = path ? "." : "";

	*out = NULL;
	if (!path)
		path = "";
	if (!it || cJSON_IsNull(it)) {
		if (optional)
			return 0;
		return xcc_fail(err, XCC_EFAIL, "%s: %s%s%s is missing; it must be %s", where, path,
				dot, key,
				want_name(type));
	}
	if (!(it->type & 0xff & type))
		return xcc_fail(err, XCC_EFAIL, "%s: %s%s%s must be %s, not %s", where, path, dot,
				key, want_name(type), json_type_name(it));
	*out = it;
	return 0;
}
