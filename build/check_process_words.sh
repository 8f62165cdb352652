#!/usr/bin/env bash
# Fails when a tracked file speaks of how and when the product was made
# rather than of the product: numbered work sessions ("session 10", "s9
# runs"), tracker issues ("issue 12", "#12"), work still pending ("not yet
# run", "still to be measured", "to be run again"), who asked or ran what
# ("the lead's question"), run dates and commit hashes in prose ("on
# 2026-12-01", "main at c8f99c2").  A result's date, commit and hardware
# belong in the results index (bench/results/README.md,
# test/stress/results/README.md), so the results folders are not checked,
# nor is this script.
#
# Prints file:line:text for each hit and their count; exits 1 when there is
# any, 0 when there is none, 2 when git grep itself fails.  A line that uses
# one of these words in the product's own sense (a protocol session that
# happens to be numbered, say) may carry the marker "process-words: ok".
#
# Usage: build/check_process_words.sh   (from anywhere in the work tree)
set -uo pipefail

cd "$(git rev-parse --show-toplevel)" || exit 2
self=build/check_process_words.sh

# Extended regular expressions, matched case-insensitively.
patterns=(
	# numbered work sessions and work periods
	'\bsessions? [0-9]+\b'
	'\bs([5-9]|[1-9][0-9]) (runs?|results|outputs|readme)\b'
	'\b(in|from|since|before|after) s([5-9]|[1-9][0-9])\b'
	'\bh200-[0-9-]+-s[0-9]+\b'
	'\bwork periods?\b'
	'\bsprints? [0-9]+\b'
	"\\bsession's (gpu|device) time\\b"
	# the tracker
	'\bissues? #?[0-9]+'
	"\\bthe issue's\\b"
	'(^|[ (])#[0-9]+\b'
	# work pending or done, rather than what is
	'\bnot yet (been )?run\b'
	'\bnot run yet\b'
	'\bnot (yet )?(been )?run on (the|a|an) (h200|gpu|device)\b'
	'\bon the h200 yet\b'
	'\b(still|yet) to be (measured|run)\b'
	'\bto be run again\b'
	'\bgroundwork for\b'
	'\b(was|were|been|since|both) fixed\b'
	# who asked or ran what
	"\\bthe lead('s)?\\b"
	# commit hashes in prose (a result's date may be given with its figures)
	'\b(main|master|head|commits?|tree) (at |is |was )?[0-9a-f]{7,40}\b'
	'\bat ([0-9]+[a-f]|[a-f]+[0-9])[0-9a-f]{5,38}\b'
)

args=()
for p in "${patterns[@]}"; do
	args+=(-e "$p")
done

out=$(git grep -nIiE "${args[@]}" -- . \
	':(exclude)bench/results/' ':(exclude)test/stress/results/' ":(exclude)$self")
rc=$?
if [ $rc -gt 1 ]; then
	echo "check_process_words: git grep failed ($rc)" >&2
	exit 2
fi
out=$(printf '%s\n' "$out" | grep -v 'process-words: ok' | sed '/^$/d')

if [ -z "$out" ]; then
	echo "check_process_words: 0 lines with process words"
	exit 0
fi
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | wc -l)
echo "check_process_words: $n lines with process words (how and when the product was made: say what is true today; results go in bench/results/README.md)"
exit 1
