/*
 * codegen_to_char.c
 *
 * xPU code generator: the format of to_char(timestamp[tz], text), parsed
 * here as formatting.c's parse_format() would, into the pairs of bytes the
 * device's TO_CHAR prints (XpuCharKey, flags).
 *
 * At each position parse_format() takes a prefix (FM, TM), then the first
 * keyword of its table, in table order, that the text there begins with
 * (so DDD before DD before D, and a letter's case matters), then a suffix
 * (TH, th, SP); anything else is a character to copy.  A letter outside a
 * keyword would therefore be copied in one place and start a keyword in
 * another, so a format is taken only when every letter lies in a keyword
 * the device prints, with no TM prefix, no suffix, no FM before anything
 * but a keyword, and no quoted text or backslash.  Other formats keep
 * to_char on the CPU.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "codegen/codegen_to_char.h"
#include "pg_strom_xpu.h"

typedef struct CharKeyword
{
	const char *name;
	int			key;			/* XpuCharKey; XPU_CHAR_LITERAL: refused */
} CharKeyword;

/* formatting.c's DCH_keywords, in its order; LITERAL for those refused */
static const CharKeyword keywords[] = {
	{"A.D.", XPU_CHAR_AD_DOTS_UPPER}, {"A.M.", XPU_CHAR_AM_DOTS_UPPER},
	{"AD", XPU_CHAR_AD_UPPER}, {"AM", XPU_CHAR_AM_UPPER},
	{"B.C.", XPU_CHAR_AD_DOTS_UPPER}, {"BC", XPU_CHAR_AD_UPPER},
	{"CC", XPU_CHAR_LITERAL},
	{"DAY", XPU_CHAR_DAY_UPPER}, {"DDD", XPU_CHAR_DDD}, {"DD", XPU_CHAR_DD},
	{"DY", XPU_CHAR_DY_UPPER}, {"Day", XPU_CHAR_DAY_CAP}, {"Dy", XPU_CHAR_DY_CAP},
	{"D", XPU_CHAR_D},
	{"FF1", XPU_CHAR_LITERAL}, {"FF2", XPU_CHAR_LITERAL}, {"FF3", XPU_CHAR_LITERAL},
	{"FF4", XPU_CHAR_LITERAL}, {"FF5", XPU_CHAR_LITERAL}, {"FF6", XPU_CHAR_LITERAL},
	{"FX", XPU_CHAR_LITERAL},
	{"HH24", XPU_CHAR_HH24}, {"HH12", XPU_CHAR_HH12}, {"HH", XPU_CHAR_HH12},
	{"IDDD", XPU_CHAR_LITERAL}, {"ID", XPU_CHAR_ID}, {"IW", XPU_CHAR_IW},
	{"IYYY", XPU_CHAR_IYYY}, {"IYY", XPU_CHAR_IYY}, {"IY", XPU_CHAR_IY},
	{"I", XPU_CHAR_I},
	{"J", XPU_CHAR_J},
	{"MI", XPU_CHAR_MI}, {"MM", XPU_CHAR_MM}, {"MONTH", XPU_CHAR_MONTH_UPPER},
	{"MON", XPU_CHAR_MON_UPPER}, {"MS", XPU_CHAR_MS}, {"Month", XPU_CHAR_MONTH_CAP},
	{"Mon", XPU_CHAR_MON_CAP},
	{"OF", XPU_CHAR_LITERAL},
	{"P.M.", XPU_CHAR_AM_DOTS_UPPER}, {"PM", XPU_CHAR_AM_UPPER},
	{"Q", XPU_CHAR_Q},
	{"RM", XPU_CHAR_LITERAL},
	{"SSSSS", XPU_CHAR_SSSS}, {"SSSS", XPU_CHAR_SSSS}, {"SS", XPU_CHAR_SS},
	{"TZH", XPU_CHAR_LITERAL}, {"TZM", XPU_CHAR_LITERAL}, {"TZ", XPU_CHAR_LITERAL},
	{"US", XPU_CHAR_US},
	{"WW", XPU_CHAR_WW}, {"W", XPU_CHAR_W},
	{"Y,YYY", XPU_CHAR_LITERAL}, {"YYYY", XPU_CHAR_YYYY}, {"YYY", XPU_CHAR_YYY},
	{"YY", XPU_CHAR_YY}, {"Y", XPU_CHAR_Y},
	{"a.d.", XPU_CHAR_AD_DOTS_LOWER}, {"a.m.", XPU_CHAR_AM_DOTS_LOWER},
	{"ad", XPU_CHAR_AD_LOWER}, {"am", XPU_CHAR_AM_LOWER},
	{"b.c.", XPU_CHAR_AD_DOTS_LOWER}, {"bc", XPU_CHAR_AD_LOWER},
	{"cc", XPU_CHAR_LITERAL},
	{"day", XPU_CHAR_DAY_LOWER}, {"ddd", XPU_CHAR_DDD}, {"dd", XPU_CHAR_DD},
	{"dy", XPU_CHAR_DY_LOWER}, {"d", XPU_CHAR_D},
	{"ff1", XPU_CHAR_LITERAL}, {"ff2", XPU_CHAR_LITERAL}, {"ff3", XPU_CHAR_LITERAL},
	{"ff4", XPU_CHAR_LITERAL}, {"ff5", XPU_CHAR_LITERAL}, {"ff6", XPU_CHAR_LITERAL},
	{"fx", XPU_CHAR_LITERAL},
	{"hh24", XPU_CHAR_HH24}, {"hh12", XPU_CHAR_HH12}, {"hh", XPU_CHAR_HH12},
	{"iddd", XPU_CHAR_LITERAL}, {"id", XPU_CHAR_ID}, {"iw", XPU_CHAR_IW},
	{"iyyy", XPU_CHAR_IYYY}, {"iyy", XPU_CHAR_IYY}, {"iy", XPU_CHAR_IY},
	{"i", XPU_CHAR_I},
	{"j", XPU_CHAR_J},
	{"mi", XPU_CHAR_MI}, {"mm", XPU_CHAR_MM}, {"month", XPU_CHAR_MONTH_LOWER},
	{"mon", XPU_CHAR_MON_LOWER}, {"ms", XPU_CHAR_MS},
	{"of", XPU_CHAR_LITERAL},
	{"p.m.", XPU_CHAR_AM_DOTS_LOWER}, {"pm", XPU_CHAR_AM_LOWER},
	{"q", XPU_CHAR_Q},
	{"rm", XPU_CHAR_LITERAL},
	{"sssss", XPU_CHAR_SSSS}, {"ssss", XPU_CHAR_SSSS}, {"ss", XPU_CHAR_SS},
	{"tz", XPU_CHAR_LITERAL},
	{"us", XPU_CHAR_US},
	{"ww", XPU_CHAR_WW}, {"w", XPU_CHAR_W},
	{"y,yyy", XPU_CHAR_LITERAL}, {"yyyy", XPU_CHAR_YYYY}, {"yyy", XPU_CHAR_YYY},
	{"yy", XPU_CHAR_YY}, {"y", XPU_CHAR_Y},
};

/* the keyword parse_format() finds at s, or NULL */
static const CharKeyword *
keyword_at(const char *s)
{
	int			i;

	for (i = 0; i < lengthof(keywords); i++)
	{
		if (keywords[i].name[0] == s[0] &&
			strncmp(s, keywords[i].name, strlen(keywords[i].name)) == 0)
			return &keywords[i];
	}
	return NULL;
}

static bool
starts_with_either(const char *s, const char *upper, const char *lower)
{
	return strncmp(s, upper, 2) == 0 || strncmp(s, lower, 2) == 0;
}

static bool
refuse(char **reason, const char *why)
{
	*reason = psprintf("to_char format: %s", why);
	return false;
}

/*
 * The device's encoding of fmt (a NUL-terminated format in the database
 * encoding) into out; false with *reason when the device does not print
 * it exactly as to_char would.
 */
bool
cg_parse_to_char_format(const char *fmt, StringInfo out, char **reason)
{
	const char *s = fmt;
	bool		ascii_only = (GetDatabaseEncoding() != PG_UTF8 &&
							  pg_database_encoding_max_length() > 1);

	while (*s)
	{
		const CharKeyword *kw;
		uint8		flags = 0;

		if (starts_with_either(s, "TM", "tm"))
			return refuse(reason, "the TM prefix (translated names)");
		if (starts_with_either(s, "FM", "fm"))
		{
			flags = XPU_CHAR_FM;
			s += 2;
		}
		kw = keyword_at(s);
		if (kw != NULL)
		{
			if (kw->key == XPU_CHAR_LITERAL)
				return refuse(reason, psprintf("field \"%s\" is not supported on the device", kw->name));
			s += strlen(kw->name);
			if (starts_with_either(s, "TH", "th") || strncmp(s, "SP", 2) == 0)
				return refuse(reason, "the TH and SP suffixes");
			appendStringInfoChar(out, (char) kw->key);
			appendStringInfoChar(out, (char) flags);
			continue;
		}
		if (flags != 0)
			return refuse(reason, "FM before something other than a field");
		if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
			return refuse(reason, "a letter outside a field");
		if (*s == '"' || *s == '\\')
			return refuse(reason, "quoted text or a backslash");
		if (IS_HIGHBIT_SET(*s) && ascii_only)
			return refuse(reason, "a non-ASCII character in this encoding");
		appendStringInfoChar(out, (char) XPU_CHAR_LITERAL);
		appendStringInfoChar(out, *s++);
	}
	return true;
}

/* the most bytes a field prints (years up to 294276, julian days up to 9 digits) */
static int
field_max_bytes(int key)
{
	switch (key)
	{
		case XPU_CHAR_YYYY:
		case XPU_CHAR_IYYY:
			return 6;
		case XPU_CHAR_MONTH_UPPER:
		case XPU_CHAR_MONTH_CAP:
		case XPU_CHAR_MONTH_LOWER:
		case XPU_CHAR_DAY_UPPER:
		case XPU_CHAR_DAY_CAP:
		case XPU_CHAR_DAY_LOWER:
		case XPU_CHAR_J:
			return 9;
		case XPU_CHAR_US:
			return 6;
		case XPU_CHAR_SSSS:
			return 5;
		case XPU_CHAR_AM_DOTS_UPPER:
		case XPU_CHAR_AM_DOTS_LOWER:
		case XPU_CHAR_AD_DOTS_UPPER:
		case XPU_CHAR_AD_DOTS_LOWER:
			return 4;
		case XPU_CHAR_YYY:
		case XPU_CHAR_IYY:
		case XPU_CHAR_MON_UPPER:
		case XPU_CHAR_MON_CAP:
		case XPU_CHAR_MON_LOWER:
		case XPU_CHAR_DDD:
		case XPU_CHAR_DY_UPPER:
		case XPU_CHAR_DY_CAP:
		case XPU_CHAR_DY_LOWER:
		case XPU_CHAR_MS:
			return 3;
		case XPU_CHAR_Y:
		case XPU_CHAR_I:
		case XPU_CHAR_D:
		case XPU_CHAR_ID:
		case XPU_CHAR_Q:
		case XPU_CHAR_W:
		case XPU_CHAR_LITERAL:
			return 1;
		default:
			return 2;
	}
}

/* the most bytes to_char prints with fmt, or -1 when the device does not */
int
cg_to_char_max_bytes(const char *fmt)
{
	StringInfoData tokens;
	char	   *reason;
	int			bytes = 0;
	int			i;

	initStringInfo(&tokens);
	if (!cg_parse_to_char_format(fmt, &tokens, &reason))
		return -1;
	for (i = 0; i + 1 < tokens.len; i += 2)
		bytes += field_max_bytes((uint8) tokens.data[i]);
	pfree(tokens.data);
	return bytes;
}
