//go:build lifecycle

package lifecycle

import "strings"

// shrinkQuery makes a failing query smaller while it still fails: it tries
// to run it serially, to drop a restriction, a dimension (with the columns
// that read it), an output column or a group key, a dimension's own
// restriction, or to make a join INNER, and keeps each change after which
// fails(q) still holds. At most budget runs of fails.
func shrinkQuery(q sjQuery, budget int, fails func(*sjQuery) bool) sjQuery {
	for changed := true; changed && budget > 0; {
		changed = false
		for _, c := range shrinkCandidates(q) {
			if budget == 0 {
				break
			}
			budget--
			if fails(&c) {
				q, changed = c, true
				break
			}
		}
	}
	return q
}

func shrinkCandidates(q sjQuery) []sjQuery {
	var out []sjQuery
	if q.workers > 0 {
		c := q.clone()
		c.workers = 0
		out = append(out, c)
	}
	for i := range q.where {
		c := q.clone()
		c.where = append(c.where[:i], c.where[i+1:]...)
		out = append(out, c)
	}
	for i := range q.depths {
		if len(q.depths) == 1 {
			break
		}
		c := q.clone()
		alias := c.depths[i].alias
		c.depths = append(c.depths[:i], c.depths[i+1:]...)
		c.keys = withoutAlias(c.keys, alias)
		c.items = withoutAlias(c.items, alias)
		if len(c.items)+len(c.keys) == 0 {
			continue
		}
		out = append(out, c)
	}
	if q.lateral {
		c := q.clone()
		c.lateral = false
		out = append(out, c)
	}
	if q.copied {
		c := q.clone()
		c.copied = false
		out = append(out, c)
	}
	for i := range q.items {
		if len(q.items) > 1 {
			c := q.clone()
			c.items = append(c.items[:i], c.items[i+1:]...)
			out = append(out, c)
		}
	}
	for i := range q.keys {
		if q.distinct && len(q.keys) == 1 {
			break
		}
		c := q.clone()
		c.keys = append(c.keys[:i], c.keys[i+1:]...)
		out = append(out, c)
	}
	if q.having != "" {
		c := q.clone()
		c.having = ""
		out = append(out, c)
	}
	for i, d := range q.depths {
		if d.snowflake != "" {
			c := q.clone()
			c.depths[i].snowflake = ""
			c.keys = withoutExprPrefix(c.keys, d.snowflake+".")
			c.items = withoutExprPrefix(c.items, d.snowflake+".")
			if len(c.items)+len(c.keys) > 0 {
				out = append(out, c)
			}
		}
		if d.also != "" {
			c := q.clone()
			c.depths[i].also = ""
			out = append(out, c)
		}
		if d.qual != "" {
			c := q.clone()
			c.depths[i].qual = ""
			out = append(out, c)
		}
		if d.residual != "" {
			c := q.clone()
			c.depths[i].residual = ""
			out = append(out, c)
		}
		if d.kind != sjInner {
			c := q.clone()
			c.depths[i].kind = sjInner
			out = append(out, c)
		}
	}
	return out
}

func (q sjQuery) clone() sjQuery {
	c := q
	c.depths = append([]sjDepth{}, q.depths...)
	c.where = append([]string{}, q.where...)
	c.keys = append([]sjItem{}, q.keys...)
	c.items = append([]sjItem{}, q.items...)
	return c
}

func withoutAlias(items []sjItem, alias string) []sjItem {
	var out []sjItem
	for _, it := range items {
		if it.alias != alias {
			out = append(out, it)
		}
	}
	return out
}

// withoutExprPrefix drops the items whose expression reads a column of the
// alias the prefix names (as "s1." in "max(s1.gname)").
func withoutExprPrefix(items []sjItem, prefix string) []sjItem {
	var out []sjItem
	for _, it := range items {
		if !strings.Contains(it.expr, prefix) {
			out = append(out, it)
		}
	}
	return out
}
