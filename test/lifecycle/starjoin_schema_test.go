//go:build lifecycle

package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The star schema of the random star-join test (starjoin_test.go): one
// fact table and eight dimensions, filled by PostgreSQL's random() after
// setseed(), so that one seed always gives the same rows.
//
// The fact table (sj_fact) spans many chunks; its keys are skewed (a few
// hot keys), NULL in 1-3% of rows, and some match nothing; one text key in
// 500 is compressed in its page (the device cannot read it: a RECHECK row
// the backend joins on the CPU). The
// dimensions have duplicate keys, NULL keys, keys no fact row has, keys of
// other widths than the fact's (int2/int4/int8, numeric of other scales,
// varchar against text) and one is empty.

// sjKey is a join key of a dimension: its column, and the fact table's
// expressions that may be joined to it (cross-type ones included).
type sjKey struct {
	col   string
	facts []string
	also  string // a second equality of a composite key (%s is the alias), or ""
}

// sjCol is a dimension column that a query may output or aggregate;
// group marks the ones of few values, used as GROUP BY keys.
type sjCol struct {
	name  string
	group bool
	kind  string // "int", "num", "mixed-scale" (numeric), "float", "text", "date"
}

type sjDim struct {
	table string
	keys  []sjKey
	cols  []sjCol
	// quals are restrictions of the dimension (%s is its alias)
	quals []string
}

var sjDims = []*sjDim{
	{table: "sj_d_int",
		keys: []sjKey{{"id", []string{"f.k_i4", "f.k_i8", "f.k_i4 % 1000"}, ""},
			{"id", []string{"f.k_i4", "f.k_i8"}, "%s.grp = f.k_i2 %% 17"}},
		cols: []sjCol{{"grp", true, "int"}, {"name", false, "text"}, {"w", false, "float"}, {"price", false, "num"}},
		// the last leaves no row: an empty inner relation
		quals: []string{"%s.grp < 9", "%s.price > 20", "%s.name LIKE 'n1%%'", "%s.grp > 100"}},
	{table: "sj_d_small",
		keys:  []sjKey{{"id", []string{"f.k_i2", "f.k_i4"}, ""}},
		cols:  []sjCol{{"cat", true, "text"}, {"lvl", true, "int"}},
		quals: []string{"%s.lvl <> 2"}},
	{table: "sj_d_big",
		keys:  []sjKey{{"id", []string{"f.k_i8", "f.k_i4", "f.k_i2"}, ""}},
		cols:  []sjCol{{"tag", true, "text"}, {"score", false, "float"}},
		quals: []string{"%s.score < 70"}},
	{table: "sj_d_num",
		keys:  []sjKey{{"k", []string{"f.k_num", "f.k_i2"}, ""}},
		cols:  []sjCol{{"label", true, "text"}, {"r", true, "int"}, {"k", false, "num"}},
		quals: []string{"%s.r %% 3 = 0"}},
	{table: "sj_d_txt",
		keys:  []sjKey{{"k", []string{"f.k_txt"}, ""}, {"kv", []string{"f.k_txt"}, ""}},
		cols:  []sjCol{{"n", true, "int"}, {"descr", false, "text"}},
		quals: []string{"%s.n > 3"}},
	{table: "sj_d_bpc",
		keys:  []sjKey{{"k", []string{"f.k_bpc"}, ""}},
		cols:  []sjCol{{"region", true, "text"}, {"k", true, "text"}},
		quals: []string{"%s.region <> 'south'"}},
	{table: "sj_d_date",
		keys: []sjKey{{"d", []string{"f.k_date"}, ""},
			{"d", []string{"f.k_date"}, "%s.yr = extract(year FROM f.k_date)"}},
		cols:  []sjCol{{"yr", true, "int"}, {"mon", true, "int"}, {"qtr", true, "text"}, {"d", false, "date"}},
		quals: []string{"%s.yr >= 2020", "%s.mon IN (1, 6, 12)"}},
	{table: "sj_d_empty",
		keys: []sjKey{{"id", []string{"f.k_e", "f.k_i4"}, ""}},
		cols: []sjCol{{"x", true, "text"}}},
}

// sjSnowflake is a dimension of sj_d_int (by its grp): a query that
// outputs sj_d_int's columns may join it too (a join above GpuJoin's, or
// of its inner relation).
var sjSnowflake = &sjDim{table: "sj_d_grp",
	keys: []sjKey{{"grp", nil, ""}},
	cols: []sjCol{{"gname", true, "text"}, {"weight", false, "int"}}}

// sjFactCols are the fact table's columns a query may output, aggregate
// or restrict.
var sjFactCols = []sjCol{
	{"k_i2", true, "int"}, {"k_bpc", true, "text"}, {"v", false, "int"}, {"m", false, "num"},
	{"f", false, "float"}, {"k_date", false, "date"}, {"k_txt", true, "text"}, {"k_num", false, "mixed-scale"},
}

// loadStarSchema creates the tables with factRows fact rows from seed.
func loadStarSchema(ctx context.Context, conn *pgx.Conn, seed int64, factRows int) error {
	// setseed takes a value in [-1, 1]
	frac := float64(seed%1000003) / 1000003.0
	stmts := []string{
		fmt.Sprintf("SELECT setseed(%v)", frac),
		`CREATE TABLE sj_fact (id int8, k_i4 int4, k_i2 int2, k_i8 int8, k_num numeric, k_txt text,
			k_bpc char(6), k_date date, k_e int4, v int4, m numeric(12,2), f float8, pad text)
			WITH (parallel_workers = 4)`,
		// k_i4 and k_txt are skewed (random()^2, ^3: a few hot keys);
		// k_num has scales 2, 3 and 16 (1.5, 1.500, 1.5000000000000000)
		fmt.Sprintf(`INSERT INTO sj_fact SELECT i,
			CASE WHEN random() < 0.02 THEN NULL ELSE floor(2100 * random() ^ 2)::int4 END,
			CASE WHEN random() < 0.01 THEN NULL ELSE floor(60 * random())::int2 END,
			CASE WHEN random() < 0.03 THEN NULL ELSE floor(2100 * random())::int8 END,
			CASE WHEN random() < 0.02 THEN NULL
			     WHEN i %% 3 = 0 THEN (floor(random() * 440) / 4)::numeric(10,2)
			     WHEN i %% 3 = 1 THEN (floor(random() * 440) / 4)::numeric(10,3)
			     ELSE floor(random() * 440)::numeric / 4 END,
			CASE WHEN random() < 0.02 THEN NULL
			     WHEN random() < 0.002 THEN repeat('longkey', 400)
			     ELSE 'key_' || floor(320 * random() ^ 3)::int END,
			CASE WHEN random() < 0.01 THEN NULL ELSE 'r' || floor(45 * random())::int END,
			CASE WHEN random() < 0.01 THEN NULL ELSE date '2019-01-01' + floor(1300 * random())::int END,
			floor(100 * random())::int4,
			CASE WHEN random() < 0.05 THEN NULL ELSE floor(random() * 2000)::int4 - 200 END,
			CASE WHEN random() < 0.03 THEN NULL ELSE round((random() * 10000)::numeric, 2) END,
			CASE WHEN random() < 0.04 THEN NULL ELSE random() * 100 END,
			repeat(chr(97 + (i %% 26)::int), 60)
			FROM generate_series(1, %d) i`, factRows),

		`CREATE TABLE sj_d_int (id int4, name text, grp int4, w float8, price numeric(10,2))`,
		`INSERT INTO sj_d_int SELECT i, 'n' || i, i % 17, random() * 10, round((random() * 100)::numeric, 2)
			FROM generate_series(0, 1999) i`,
		`INSERT INTO sj_d_int SELECT i, 'dup' || i, i % 13, random() * 10, round((random() * 100)::numeric, 2)
			FROM generate_series(0, 1999) i WHERE random() < 0.08`,
		`INSERT INTO sj_d_int SELECT NULL, 'null' || i, i, 1.5, 2.25 FROM generate_series(1, 15) i`,

		`CREATE TABLE sj_d_grp (grp int4, gname text, weight int4)`,
		`INSERT INTO sj_d_grp SELECT g, 'g' || (g % 5), g * 10 FROM generate_series(0, 14) g`,
		`INSERT INTO sj_d_grp VALUES (3, 'g3b', 7), (NULL, 'gnull', 0)`,

		`CREATE TABLE sj_d_small (id int2, cat text, lvl int8)`,
		`INSERT INTO sj_d_small SELECT i, 'cat' || (i % 6), i % 4 FROM generate_series(0, 49) i`,
		`INSERT INTO sj_d_small VALUES (7, 'cat7b', 9), (7, 'cat7c', 9), (NULL, 'catnull', 0)`,

		`CREATE TABLE sj_d_big (id int8, tag varchar(12), score float8)`,
		`INSERT INTO sj_d_big SELECT i, 'tag' || (i % 11), random() * 100 FROM generate_series(0, 2099) i WHERE random() < 0.6`,
		`INSERT INTO sj_d_big SELECT i, 'twin' || (i % 5), random() * 100 FROM generate_series(0, 2099) i WHERE random() < 0.05`,
		`INSERT INTO sj_d_big VALUES (NULL, 'tagnull', 0.5)`,

		`CREATE TABLE sj_d_num (k numeric(8,2), label text, r int4)`,
		`INSERT INTO sj_d_num SELECT g / 4.0, 'l' || (g % 9), g % 7 FROM generate_series(0, 399) g`,
		`INSERT INTO sj_d_num SELECT g / 4.0, 'ldup', 100 FROM generate_series(0, 399, 50) g`,
		`INSERT INTO sj_d_num VALUES (NULL, 'lnull', 0), (12345.67, 'lfar', 1)`,

		`CREATE TABLE sj_d_txt (k text, kv varchar(16), descr text, n int4)`,
		`INSERT INTO sj_d_txt SELECT 'key_' || g, 'key_' || g, 'descr ' || g, g % 8
			FROM generate_series(0, 299) g WHERE g < 5 OR random() < 0.9`,
		`INSERT INTO sj_d_txt SELECT 'key_' || g, 'key_' || g, 'again ' || g, g % 8 FROM generate_series(0, 299, 23) g`,
		`INSERT INTO sj_d_txt VALUES (NULL, NULL, 'null key', 0), ('', '', 'empty key', 1)`,
		// a hot key 20 times over: a fan-out of 150,000 join rows
		`INSERT INTO sj_d_txt SELECT 'key_1', 'key_1', 'fan ' || g, g % 8 FROM generate_series(1, 20) g`,

		`CREATE TABLE sj_d_bpc (k char(6), region text)`,
		`INSERT INTO sj_d_bpc SELECT 'r' || g, (ARRAY['north', 'south', 'east', 'west'])[g % 4 + 1]
			FROM generate_series(0, 39) g`,
		`INSERT INTO sj_d_bpc VALUES ('r5', 'centre'), (NULL, 'nowhere')`,

		`CREATE TABLE sj_d_date (d date, yr int4, mon int4, qtr text)`,
		`INSERT INTO sj_d_date SELECT x, extract(year FROM x), extract(month FROM x), 'Q' || extract(quarter FROM x)
			FROM (SELECT date '2019-01-01' + g AS x FROM generate_series(0, 1199) g WHERE random() < 0.9) s`,
		`INSERT INTO sj_d_date SELECT date '2019-01-01' + g, 1900, 0, 'dup' FROM generate_series(0, 1199, 97) g`,
		`INSERT INTO sj_d_date VALUES (NULL, 0, 0, 'null')`,

		`CREATE TABLE sj_d_empty (id int4, x text)`,

		`VACUUM ANALYZE sj_fact`,
		// dead and updated rows after the VACUUM: pages that are not
		// all-visible, whose visibility the backend decides per tuple
		`DELETE FROM sj_fact WHERE id % 97 = 0`,
		`UPDATE sj_fact SET v = v + 1 WHERE id % 101 = 0`,
		`ANALYZE sj_fact`,
		`ANALYZE sj_d_int, sj_d_grp, sj_d_small, sj_d_big, sj_d_num, sj_d_txt, sj_d_bpc, sj_d_date, sj_d_empty`,
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("star schema: %.60s: %w", strings.Join(strings.Fields(s), " "), err)
		}
	}
	return nil
}
