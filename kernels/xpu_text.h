/*
 * xpu_text.h
 *
 * TEXT / VARCHAR / BPCHAR comparisons (deterministic collation; ordering
 * only for byte-wise "C"/"POSIX" collations) and LIKE as like_match.c.
 */
#ifndef XPU_TEXT_H
#define XPU_TEXT_H

#include "xpu_common.h"

/* varchar.c: bcTruelen */
XPU_FUNC int32_t
xpu_bpchar_truelen(const char *s, int32_t len)
{
	while (len > 0 && s[len - 1] == ' ')
		len--;
	return len;
}

XPU_FUNC bool
xpu_text_eq(const char *a, int32_t alen, const char *b, int32_t blen)
{
	int32_t		i;

	if (alen != blen)
		return false;
	for (i = 0; i < alen; i++)
	{
		if (a[i] != b[i])
			return false;
	}
	return true;
}

XPU_FUNC void
xpu_text_copy(const char *s, int32_t len, char *dst)
{
	int32_t		i;

	for (i = 0; i < len; i++)
		dst[i] = s[i];
}

/* lower()/upper() under a ctype of C: pg_ascii_tolower/toupper per byte */
XPU_FUNC void
xpu_text_ascii_case(const char *s, int32_t len, bool upper, char *dst)
{
	int32_t		i;

	for (i = 0; i < len; i++)
	{
		char		c = s[i];

		if (upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z'))
			c = (char) (c + (upper ? 'A' - 'a' : 'a' - 'A'));
		dst[i] = c;
	}
}

/* advance over one character: one byte, or one UTF-8 sequence */
XPU_FUNC int32_t
xpu_like_nextchar(const char *t, int32_t i, int32_t tlen, bool utf8)
{
	i++;
	if (utf8)
	{
		while (i < tlen && (((uint8_t) t[i]) & 0xC0) == 0x80)
			i++;
	}
	return i;
}

/*
 * reverse(): the characters of s, last first, into dst.  A UTF-8 sequence
 * is its lead byte and the continuation bytes after it, which for valid
 * text is the length pg_mblen gives.
 */
XPU_FUNC void
xpu_text_reverse(const char *s, int32_t len, bool utf8, char *dst)
{
	int32_t		i = 0;

	while (i < len)
	{
		int32_t		next = xpu_like_nextchar(s, i, len, utf8);

		xpu_text_copy(s + i, next - i, dst + len - next);
		i = next;
	}
}

/*
 * replace(): s with every occurrence of from (left to right, not
 * overlapping) replaced by to, into dst of cap bytes; its length, or -1
 * when it does not fit.
 */
XPU_FUNC int32_t
xpu_text_replace(const char *s, int32_t len, const char *from, int32_t flen,
				 const char *to, int32_t tlen, char *dst, int32_t cap)
{
	int32_t		i = 0;
	int32_t		out = 0;

	while (i < len)
	{
		if (flen > 0 && flen <= len - i && xpu_text_eq(s + i, flen, from, flen))
		{
			if (tlen > cap - out)
				return -1;
			xpu_text_copy(to, tlen, dst + out);
			out += tlen;
			i += flen;
			continue;
		}
		if (out >= cap)
			return -1;
		dst[out++] = s[i++];
	}
	return out;
}

/* varstr_cmp in the C collation: memcmp, then the shorter first */
XPU_FUNC int
xpu_text_cmp(const char *a, int32_t alen, const char *b, int32_t blen)
{
	int32_t		n = alen < blen ? alen : blen;
	int32_t		i;

	for (i = 0; i < n; i++)
	{
		uint8_t		ca = (uint8_t) a[i];
		uint8_t		cb = (uint8_t) b[i];

		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return 0;
}

/*
 * xpu_like_check_pattern - true when the pattern is well formed, i.e. does
 * not end with a lone escape character (PostgreSQL raises an error when its
 * matcher reaches one: we leave such rows to the CPU).
 */
XPU_FUNC bool
xpu_like_check_pattern(const char *p, int32_t plen)
{
	int32_t		i = 0;

	while (i < plen)
	{
		if (p[i] == '\\')
		{
			if (i + 1 >= plen)
				return false;
			i += 2;
		}
		else
			i++;
	}
	return true;
}

/* an ASCII letter in lower case, as pg_ascii_tolower; with icase only */
XPU_FUNC char
xpu_like_fold(char c, bool icase)
{
	return (icase && c >= 'A' && c <= 'Z') ? (char) (c + ('a' - 'A')) : c;
}

/*
 * xpu_like_match - does text t match pattern p ('%', '_', '\' escape) as a
 * whole?  The pattern must have passed xpu_like_check_pattern.  With icase
 * (ILIKE under a "C" ctype) ASCII letters compare without case.
 *
 * Iterative form of like_match.c's MatchText: a '%' records a restart point;
 * on a mismatch the text position after the last '%' advances by one
 * character.  Segments between '%'s match a fixed number of characters, so
 * the leftmost match of each segment is always the best one, and one
 * restart point suffices.
 */
XPU_FUNC bool
xpu_like_match(const char *t, int32_t tlen, const char *p, int32_t plen,
			   bool utf8, bool icase)
{
	int32_t		ti = 0;
	int32_t		pi = 0;
	int32_t		star_p = -1;
	int32_t		star_t = 0;

	while (ti < tlen)
	{
		if (pi < plen)
		{
			char		c = p[pi];

			if (c == '%')
			{
				pi++;
				star_p = pi;
				star_t = ti;
				continue;
			}
			if (c == '_')
			{
				ti = xpu_like_nextchar(t, ti, tlen, utf8);
				pi++;
				continue;
			}
			if (c == '\\')
			{
				if (pi + 1 < plen &&
					xpu_like_fold(p[pi + 1], icase) == xpu_like_fold(t[ti], icase))
				{
					ti++;
					pi += 2;
					continue;
				}
			}
			else if (xpu_like_fold(c, icase) == xpu_like_fold(t[ti], icase))
			{
				ti++;
				pi++;
				continue;
			}
		}
		/* mismatch, or pattern exhausted with text left */
		if (star_p < 0)
			return false;
		star_t = xpu_like_nextchar(t, star_t, tlen, utf8);
		ti = star_t;
		pi = star_p;
	}
	while (pi < plen && p[pi] == '%')
		pi++;
	return pi == plen;
}

/* ---- text functions: results are parts of the argument's bytes ---- */

/* the characters of s: bytes, or UTF-8 sequences (text is valid UTF-8) */
XPU_FUNC int64_t
xpu_text_nchars(const char *s, int32_t len, bool utf8)
{
	int64_t		n = 0;
	int32_t		i;

	if (!utf8)
		return len;
	for (i = 0; i < len; i++)
	{
		if ((((uint8_t) s[i]) & 0xC0) != 0x80)
			n++;
	}
	return n;
}

/* the byte offset of character k (0-based) of s; len past the end */
XPU_FUNC int32_t
xpu_text_char_offset(const char *s, int32_t len, int64_t k, bool utf8)
{
	int32_t		i = 0;

	if (k <= 0)
		return 0;
	if (!utf8)
		return (k < len) ? (int32_t) k : len;
	while (k > 0 && i < len)
	{
		i = xpu_like_nextchar(s, i, len, true);
		k--;
	}
	return i;
}

/*
 * text_substr: characters [start, start + count) of s, 1-based, clipped to
 * s; count < 0 means "to the end" here (the caller refuses a negative
 * count given by the query, which PostgreSQL rejects).
 */
XPU_FUNC void
xpu_text_substr(const char *s, int32_t len, int64_t start, int64_t count,
				bool utf8, int32_t *off, int32_t *rlen)
{
	int64_t		first = (start < 1) ? 1 : start;
	int32_t		b;
	int32_t		e;

	*off = 0;
	*rlen = 0;
	if (count >= 0 && start + count <= first)
		return;					/* ends before it starts, or before 1 */
	b = xpu_text_char_offset(s, len, first - 1, utf8);
	e = (count < 0) ? len : xpu_text_char_offset(s, len, start + count - 1, utf8);
	*off = b;
	*rlen = (e > b) ? e - b : 0;
}

/* text_position: the 1-based character position of needle in s, 0 if none */
XPU_FUNC int32_t
xpu_text_strpos(const char *s, int32_t len, const char *nd, int32_t ndlen, bool utf8)
{
	int32_t		i;

	if (ndlen == 0)
		return 1;
	for (i = 0; i + ndlen <= len; i++)
	{
		int32_t		j = 0;

		while (j < ndlen && s[i + j] == nd[j])
			j++;
		if (j == ndlen)
			return (int32_t) xpu_text_nchars(s, i, utf8) + 1;
	}
	return 0;
}

/* text_left (right = false) and text_right (right = true) */
XPU_FUNC void
xpu_text_left_right(const char *s, int32_t len, int64_t n, bool right,
					bool utf8, int32_t *off, int32_t *rlen)
{
	int64_t		nch = xpu_text_nchars(s, len, utf8);
	int64_t		keep;
	int32_t		cut;

	if (n >= 0)
		keep = (n < nch) ? n : nch;
	else
		keep = (nch + n > 0) ? nch + n : 0;
	if (!right)
	{
		*off = 0;
		*rlen = xpu_text_char_offset(s, len, keep, utf8);
		return;
	}
	cut = xpu_text_char_offset(s, len, nch - keep, utf8);
	*off = cut;
	*rlen = len - cut;
}

/* ltrim/rtrim/btrim of spaces: lead and trail say which ends */
XPU_FUNC void
xpu_text_trim_spaces(const char *s, int32_t len, bool lead, bool trail,
					 int32_t *off, int32_t *rlen)
{
	int32_t		b = 0;
	int32_t		e = len;

	while (lead && b < e && s[b] == ' ')
		b++;
	while (trail && e > b && s[e - 1] == ' ')
		e--;
	*off = b;
	*rlen = e - b;
}

/*
 * split_part(s, sep, field) as PostgreSQL 14 and later: the field-th of
 * the parts between non-overlapping occurrences of sep (from the end when
 * field is negative); an empty s, or a field that does not exist, gives an
 * empty part; an empty sep makes s the only part.  Bytewise, as
 * text_position is under a deterministic collation in UTF8 or a
 * single-byte encoding.  field must not be 0 (PostgreSQL's error).
 */
XPU_FUNC int32_t
xpu_text_next_match(const char *s, int32_t len, int32_t from,
					const char *sep, int32_t seplen)
{
	int32_t		i;

	for (i = from; i + seplen <= len; i++)
	{
		if (xpu_text_eq(s + i, seplen, sep, seplen))
			return i;
	}
	return -1;
}

XPU_FUNC void
xpu_text_split_part(const char *s, int32_t len, const char *sep, int32_t seplen,
					int64_t field, int32_t *off, int32_t *rlen)
{
	int64_t		nparts = 1;
	int32_t		start = 0;
	int32_t		m;

	*off = 0;
	*rlen = 0;
	if (len == 0)
		return;
	if (seplen == 0)
	{
		if (field == 1 || field == -1)
			*rlen = len;
		return;
	}
	if (field < 0)
	{
		for (m = xpu_text_next_match(s, len, 0, sep, seplen); m >= 0;
			 m = xpu_text_next_match(s, len, m + seplen, sep, seplen))
			nparts++;
		field += nparts + 1;
		if (field <= 0)
			return;
	}
	/* start is where part number k begins */
	for (m = xpu_text_next_match(s, len, 0, sep, seplen); field > 1; field--)
	{
		if (m < 0)
			return;				/* fewer parts than field */
		start = m + seplen;
		m = xpu_text_next_match(s, len, start, sep, seplen);
	}
	*off = start;
	*rlen = (m < 0 ? len : m) - start;
}

#endif							/* XPU_TEXT_H */
