/*
 * codegen_regex.c
 *
 * xPU code generator: regular expressions (~, !~, ~*, !~*) whose constant
 * pattern is a literal string with optional anchors and any-character
 * wildcards, evaluated on the device as the equivalent LIKE pattern.
 *
 * PostgreSQL's advanced regular expressions, without the newline-sensitive
 * options a pattern can only enable from within, match anywhere in the
 * string unless anchored; "^" and "$" anchor at the string's start and end
 * only, "." matches any one character (a newline too) and ".*" any
 * sequence.  A pattern made of those and of ordinary characters matches
 * exactly where the LIKE pattern "%", "_" and the escaped characters
 * spell matches.  Anything else (brackets, repetition, alternation,
 * groups, class escapes, back references, directors and embedded options)
 * keeps the expression on the CPU.  Case-insensitive forms map to ILIKE,
 * which the caller allows under a "C" ctype only, where both fold ASCII
 * letters alone.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"

#include "codegen/codegen_regex.h"

/* characters with a meaning in an advanced regular expression */
static bool
regex_special(char c)
{
	return strchr("^$.*+?()[]{}|\\", c) != NULL;
}

/* appends c to a LIKE pattern as a literal character */
static void
like_literal(StringInfo like, char c)
{
	if (c == '%' || c == '_' || c == '\\')
		appendStringInfoChar(like, '\\');
	appendStringInfoChar(like, c);
}

/*
 * The LIKE pattern (a text Const) equivalent to the regular expression
 * pattern, NULL with *reason when there is none; a NULL pattern stays
 * NULL (the operators are strict).
 */
Expr *
cg_regex_as_like(Expr *pattern, char **reason)
{
	Const	   *c;
	char	   *re;
	const char *p;
	StringInfoData like;

	while (IsA(pattern, RelabelType))
		pattern = ((RelabelType *) pattern)->arg;
	if (!IsA(pattern, Const) ||
		(((Const *) pattern)->consttype != TEXTOID &&
		 ((Const *) pattern)->consttype != VARCHAROID))
	{
		*reason = "a regular expression that is not a constant";
		return NULL;
	}
	c = (Const *) pattern;
	if (c->constisnull)
		return (Expr *) makeConst(TEXTOID, -1, c->constcollid, -1, (Datum) 0,
								  true, false);
	re = TextDatumGetCString(c->constvalue);
	initStringInfo(&like);
	p = re;
	if (*p == '^')
		p++;
	else
		appendStringInfoChar(&like, '%');
	while (*p != '\0')
	{
		if (p[0] == '$' && p[1] == '\0')
			break;
		if (p[0] == '.' && p[1] == '*')
		{
			appendStringInfoChar(&like, '%');
			p += 2;
		}
		else if (p[0] == '.')
		{
			appendStringInfoChar(&like, '_');
			p++;
		}
		else if (p[0] == '\\')
		{
			/* an escaped punctuation character is itself */
			if (p[1] == '\0' || IS_HIGHBIT_SET(p[1]) || isalnum((unsigned char) p[1]))
			{
				*reason = "a regular expression with an escape the device does not match";
				return NULL;
			}
			like_literal(&like, p[1]);
			p += 2;
		}
		else if (regex_special(p[0]))
		{
			*reason = "a regular expression beyond literal text, \".\", \".*\", \"^\" and \"$\"";
			return NULL;
		}
		else
			like_literal(&like, *p++);
		/* a quantifier after an atom turns it into something else */
		if (*p == '*' || *p == '+' || *p == '?' || *p == '{')
		{
			*reason = "a regular expression beyond literal text, \".\", \".*\", \"^\" and \"$\"";
			return NULL;
		}
	}
	if (*p != '$')
		appendStringInfoChar(&like, '%');
	return (Expr *) makeConst(TEXTOID, -1, c->constcollid, -1,
							  PointerGetDatum(cstring_to_text_with_len(like.data, like.len)),
							  false, false);
}
