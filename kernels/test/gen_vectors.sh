#!/bin/bash
# Regenerate kernels/test/vectors.txt against a PostgreSQL 15 server (UTF8, C
# collation).  Usage: gen_vectors.sh "psql connection options"
# Output lines: PAGE <hex of the 8kB heap page>, LP <id> <line pointer>, and
# for each expression of exprs.txt, EXPR <k> followed by R <id> <t|f|n|E>.
set -euo pipefail
cd "$(dirname "$0")"
PSQL="psql -X -q -At $1"
$PSQL -v outfile=/tmp/kt_page.txt -f gen_vectors.sql >/dev/null
cp /tmp/kt_page.txt vectors.txt
$PSQL >/dev/null <<'SQL'
CREATE OR REPLACE FUNCTION kt_ev(q text, rid int) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE r boolean;
BEGIN
  EXECUTE format('SELECT (%s) FROM kt WHERE id = %s', q, rid) INTO r;
  RETURN CASE WHEN r IS NULL THEN 'n' WHEN r THEN 't' ELSE 'f' END;
EXCEPTION WHEN others THEN RETURN 'E';
END $f$;
SQL
k=0
while IFS= read -r e; do
  echo "EXPR $k $e" >> vectors.txt
  q=$(printf '%s' "$e" | sed "s/'/''/g")
  $PSQL -c "SELECT 'R ' || id || ' ' || kt_ev('$q', id) FROM kt ORDER BY id" >> vectors.txt
  k=$((k+1))
done < exprs.txt
echo "wrote $(grep -c '^R ' vectors.txt) results for $k expressions"
